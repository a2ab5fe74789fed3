//! The GPU as a device of the graph executor (`graph::Device`): values stay
//! on the device from node to node; the executor downloads only results and
//! the predicates of conds and loops (decided on the host). `Const` nodes are
//! uploaded once per executor and kept (they belong to the library).
//!
//! The device also records the loosest [`tolerance_for`] of the ops it ran: the
//! oracle compares a `staged-gpu` run's floats with the original's within it.
//!
//! Shadowing (on unless turned off for speed): every op placed on the GPU is
//! also computed by graph's CPU kernel on the very inputs the GPU op read,
//! and the two outputs must agree within that op's own bound for its dtype
//! (`check_op`: ints and bools, and exact ops, bit for bit up to the
//! subnormals WGSL lets a GPU flush; a float32 matmul within its dot
//! product bound). A node beyond its bound is a [`Mismatch`] naming the op,
//! dtype and shapes: the oracle makes it a finding of its own, whatever the
//! final values say.
//! Each op is shadowed for its first [`SHADOWED_PER_SIGNATURE`] executions
//! per dtype and shapes in one graph call: every shadow costs downloads,
//! and a staged loop of a thousand iterations would otherwise run out of
//! its time limit on lavapipe; a kernel slip shows on the first ones.
//! The checks wait until the executor next downloads (a predicate, the
//! results) or asks for the mismatches: then every tensor they read is
//! downloaded in one submission with the one asked for. Each wait is a
//! round trip to the driver's queue thread, and a check per op made them the
//! staged GPU run's cost on lavapipe.

use crate::tolerance::{check_op, tolerance_for, Tolerance};
use crate::{Gpu, GpuTensor};
use graph::{DType, Device, Op, OpError, Sig, Tensor};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// A GPU node whose output lies beyond its op's tolerance from the CPU
/// kernel's on the same inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub op: &'static str,
    pub dtype: DType,
    pub inputs: Vec<(DType, Vec<usize>)>,
    /// What differs first (an element, or an error on one side only).
    pub detail: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inputs: Vec<String> = self.inputs.iter().map(|(d, s)| format!("{d} {s:?}")).collect();
        write!(f, "GPU {} -> {} on ({}): {}", self.op, self.dtype, inputs.join(", "), self.detail)
    }
}

/// Iterations of a flat staged loop run before their predicates are read
/// (`graph::Device::lookahead`): a read waits for the queue, a round trip
/// to the driver, where an iteration of small ops costs a few dispatches.
/// Only while the work between two reads is small: an iteration past the
/// loop's end is wasted, and on large tensors it costs more than a read.
const LOOKAHEAD: usize = 16;
/// Elements written between two reads up to which the device looks ahead.
const LOOKAHEAD_WORK: usize = 1 << 16;

/// Mismatches kept per device (the first ones say what is wrong).
const MISMATCHES_KEPT: usize = 8;
/// Executions of one op on one signature (dtypes and shapes) that are
/// shadowed per graph call.
pub const SHADOWED_PER_SIGNATURE: u32 = 16;

pub struct GpuDevice<'g> {
    gpu: &'g Gpu,
    shadow: bool,
    mismatches: RefCell<Vec<Mismatch>>,
    /// Shadow checks done so far per op and input signature.
    shadowed: RefCell<HashMap<(&'static str, Vec<(DType, Vec<usize>)>), u32>>,
    /// Constants uploaded so far, by the address of their elements (the
    /// tensor is kept, so the address stays its own).
    constants: RefCell<HashMap<usize, (Tensor, GpuTensor)>>,
    loosest: Cell<Tolerance>,
    /// The first shadowed op accepted only because the GPU flushed
    /// subnormals, and how ([`check_op`]'s note).
    flushed: RefCell<Option<String>>,
    /// Shadow checks not made yet: the op, its inputs, its output.
    pending: RefCell<Vec<(Op, Vec<GpuTensor>, GpuTensor)>>,
    /// Elements the ops wrote since the last read, and between the two
    /// reads before it.
    work: Cell<usize>,
    last_work: Cell<usize>,
}

impl<'g> GpuDevice<'g> {
    pub fn new(gpu: &'g Gpu) -> GpuDevice<'g> {
        GpuDevice {
            gpu,
            shadow: true,
            mismatches: RefCell::default(),
            shadowed: RefCell::default(),
            constants: RefCell::default(),
            loosest: Cell::new(Tolerance::EXACT),
            flushed: RefCell::default(),
            pending: RefCell::default(),
            work: Cell::new(0),
            last_work: Cell::new(0),
        }
    }

    /// Turns shadowing on or off (on by default).
    pub fn shadowed(mut self, on: bool) -> GpuDevice<'g> {
        self.shadow = on;
        self
    }

    /// The nodes whose outputs were beyond their ops' tolerances (the
    /// checks still pending made first; one that cannot download is a
    /// mismatch of its own).
    pub fn mismatches(&self) -> Vec<Mismatch> {
        if let Err(e) = self.check_pending(&[]) {
            let detail = format!("the shadow checks could not download their tensors: {}", e.message);
            self.mismatches.borrow_mut().push(Mismatch { op: "download", dtype: DType::Float32, inputs: Vec::new(), detail });
        }
        self.mismatches.borrow().clone()
    }

    /// Queues `op`'s check, if it is among the first of its signature.
    fn shadow(&self, op: &Op, inputs: &[&GpuTensor], out: &GpuTensor) {
        if self.mismatches.borrow().len() >= MISMATCHES_KEPT {
            return;
        }
        let key = (op.name(), inputs.iter().map(|t| (t.dtype(), t.shape().to_vec())).collect());
        let mut shadowed = self.shadowed.borrow_mut();
        let count = shadowed.entry(key).or_insert(0);
        if *count >= SHADOWED_PER_SIGNATURE {
            return;
        }
        *count += 1;
        self.pending.borrow_mut().push((op.clone(), inputs.iter().map(|t| (*t).clone()).collect(), out.clone()));
    }

    /// Downloads what the pending checks read, and `also` (returned), in one
    /// submission; then makes the checks, in the order the ops ran.
    fn check_pending(&self, also: &[&GpuTensor]) -> Result<Vec<Tensor>, OpError> {
        self.last_work.set(self.work.replace(0));
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        // Each buffer once: an op's output is often the next one's input.
        let mut wanted: Vec<&GpuTensor> = Vec::new();
        fn slot<'t>(t: &'t GpuTensor, wanted: &mut Vec<&'t GpuTensor>) -> usize {
            let same = |w: &&GpuTensor| w.same(t);
            wanted.iter().position(same).unwrap_or_else(|| {
                wanted.push(t);
                wanted.len() - 1
            })
        }
        let mut slots = Vec::with_capacity(pending.len());
        for (_, inputs, out) in &pending {
            let ins: Vec<usize> = inputs.iter().map(|t| slot(t, &mut wanted)).collect();
            slots.push((ins, slot(out, &mut wanted)));
        }
        let asked: Vec<usize> = also.iter().map(|t| slot(t, &mut wanted)).collect();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let host = self.gpu.download_many(&wanted)?;
        for ((op, _, _), (ins, out)) in pending.iter().zip(slots) {
            let refs: Vec<&Tensor> = ins.iter().map(|&i| &host[i]).collect();
            self.compare(op, &refs, &host[out]);
        }
        Ok(asked.into_iter().map(|at| host[at].clone()).collect())
    }

    /// Runs `op`'s CPU kernel on the inputs the GPU op read and compares
    /// with what the GPU gave.
    fn compare(&self, op: &Op, refs: &[&Tensor], gpu: &Tensor) {
        if self.mismatches.borrow().len() >= MISMATCHES_KEPT {
            return;
        }
        let detail = match graph::eval(op, refs) {
            Ok(cpu) => match check_op(op, refs, gpu, &cpu) {
                Ok(None) => return,
                Ok(Some(note)) => {
                    let mut flushed = self.flushed.borrow_mut();
                    if flushed.is_none() {
                        *flushed = Some(format!("{} -> {}: {note}", op.name(), gpu.dtype()));
                    }
                    return;
                }
                Err(detail) => detail,
            },
            Err(e) => format!("the CPU kernel raised {} where the GPU gave a result", e.message),
        };
        let inputs = refs.iter().map(|t| (t.dtype(), t.shape().to_vec())).collect();
        self.mismatches.borrow_mut().push(Mismatch { op: op.name(), dtype: gpu.dtype(), inputs, detail });
    }

    /// The first op whose result was accepted only because the GPU flushed
    /// subnormals (WGSL allows it; lavapipe never does), if any.
    pub fn flushed(&self) -> Option<String> {
        // The pending checks first (they may note one).
        let _ = self.mismatches();
        self.flushed.borrow().clone()
    }

    /// The loosest tolerance of the ops run so far ([`Tolerance::EXACT`] when all were exact).
    pub fn tolerance(&self) -> Tolerance {
        self.loosest.get()
    }
}

/// What the graph call recorded and never read runs now, not in the next
/// call's first submission.
impl Drop for GpuDevice<'_> {
    fn drop(&mut self) {
        let _ = self.gpu.flush();
    }
}

impl Device for GpuDevice<'_> {
    type Value = GpuTensor;

    fn op(&self, op: &Op, inputs: &[&GpuTensor], _sig: Option<&Sig>) -> Result<GpuTensor, OpError> {
        let out = self.gpu.eval(op, inputs)?;
        self.work.set(self.work.get().saturating_add(out.len()));
        let dtypes: Vec<_> = inputs.iter().map(|t| t.dtype()).collect();
        if self.gpu.placed_on_gpu(op, &dtypes) {
            let sigs: Vec<(DType, &[usize])> = inputs.iter().map(|t| (t.dtype(), t.shape())).collect();
            self.loosest.set(self.loosest.get().loosest(tolerance_for(op, &sigs)));
            if self.shadow {
                self.shadow(op, inputs, &out);
            }
        }
        Ok(out)
    }

    fn upload(&self, t: &Tensor) -> Result<GpuTensor, OpError> {
        let key = t.data() as *const _ as usize;
        if let Some((_, g)) = self.constants.borrow().get(&key) {
            return Ok(g.clone());
        }
        let g = self.gpu.upload(t)?;
        self.constants.borrow_mut().insert(key, (t.clone(), g.clone()));
        Ok(g)
    }

    fn download(&self, v: &GpuTensor) -> Result<Tensor, OpError> {
        Ok(self.check_pending(&[v])?.pop().expect("the tensor asked for"))
    }

    fn scalars(&self, vs: &[&GpuTensor]) -> Result<Vec<Option<graph::Scalar>>, OpError> {
        Ok(self.check_pending(vs)?.iter().map(Tensor::to_scalar).collect())
    }

    fn lookahead(&self) -> usize {
        if self.last_work.get().max(self.work.get()) <= LOOKAHEAD_WORK {
            LOOKAHEAD
        } else {
            1
        }
    }
}
