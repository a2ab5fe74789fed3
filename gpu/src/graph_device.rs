//! The GPU as a device of the graph executor (`graph::Device`): values stay
//! on the device from node to node; the executor downloads only results and
//! the predicates of conds and loops (decided on the host). `Const` nodes are
//! uploaded once per executor and kept (they belong to the library).
//!
//! The device also records the loosest [`tolerance`] of the ops it ran: the
//! oracle compares a `staged-gpu` run's floats with the original's within it.

use crate::tolerance::{tolerance, Tolerance};
use crate::{Gpu, GpuTensor};
use graph::{Device, Op, OpError, Sig, Tensor};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

pub struct GpuDevice<'g> {
    gpu: &'g Gpu,
    /// Constants uploaded so far, by the address of their elements (the
    /// tensor is kept, so the address stays its own).
    constants: RefCell<HashMap<usize, (Tensor, GpuTensor)>>,
    loosest: Cell<Tolerance>,
}

impl<'g> GpuDevice<'g> {
    pub fn new(gpu: &'g Gpu) -> GpuDevice<'g> {
        GpuDevice { gpu, constants: RefCell::default(), loosest: Cell::new(Tolerance::EXACT) }
    }

    /// The loosest tolerance of the ops run so far ([`Tolerance::EXACT`] when all were exact).
    pub fn tolerance(&self) -> Tolerance {
        self.loosest.get()
    }
}

impl Device for GpuDevice<'_> {
    type Value = GpuTensor;

    fn op(&self, op: &Op, inputs: &[&GpuTensor], _sig: Option<&Sig>) -> Result<GpuTensor, OpError> {
        let out = self.gpu.eval(op, inputs)?;
        let dtypes: Vec<_> = inputs.iter().map(|t| t.dtype()).collect();
        if self.gpu.placed_on_gpu(op, &dtypes) {
            self.loosest.set(self.loosest.get().loosest(tolerance(op)));
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
        self.gpu.download(v)
    }
}
