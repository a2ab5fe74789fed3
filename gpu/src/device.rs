//! The device: one wgpu adapter (Vulkan), its queue, and a cache of compute
//! pipelines keyed by their generated WGSL. Dispatches are recorded into one
//! command encoder and submitted together when the host next reads (a
//! download, an error flag), when a graph device is dropped, or every
//! [`BATCH`] dispatches: a submission costs ~50 µs of driver work on
//! lavapipe, more than a small op's kernel, and staged graphs run ops by the
//! hundred between two reads. The host waits only in reads.
//! Dispatches past 65535 workgroups are laid out on a 2-D grid; wgpu's
//! validation errors become `OpError`s (a recorded command's, at the
//! submission that carries it).

use crate::wgsl::Kernel;
use graph::OpError;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};
use wgpu::util::DeviceExt;

/// Invocations per workgroup of the 1-D kernels (elementwise, copy, reduce).
pub(crate) const WORKGROUP: u32 = 64;
/// The most workgroups along one dispatch dimension (WebGPU's limit).
const MAX_GROUPS: u32 = 65535;
/// Dispatches recorded before a submission without waiting for a read:
/// bounds what a long staged loop holds (each dispatch's `info` buffer and
/// bind group live until their submission) and lets the device start.
const BATCH: usize = 256;

/// Why no GPU is available.
#[derive(Clone, Debug)]
pub enum GpuUnavailable {
    /// No Vulkan adapter (install mesa-vulkan-drivers for lavapipe).
    NoAdapter(String),
    /// The adapter refused to open a device.
    NoDevice(String),
}

impl fmt::Display for GpuUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuUnavailable::NoAdapter(why) => write!(f, "no Vulkan adapter: {why}"),
            GpuUnavailable::NoDevice(why) => write!(f, "the Vulkan adapter opened no device: {why}"),
        }
    }
}

impl std::error::Error for GpuUnavailable {}

/// A GPU device with its pipeline cache. `Sync`: share one (see [`shared`]).
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    /// The largest buffer a kernel may bind, in bytes (lavapipe: 128 MiB).
    pub(crate) max_binding: u64,
    pipelines: Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>,
    /// Dispatches recorded and not yet submitted.
    recorded: Mutex<Recorded>,
}

/// The open command encoder and how many dispatches it holds.
#[derive(Default)]
struct Recorded {
    encoder: Option<wgpu::CommandEncoder>,
    dispatches: usize,
}

pub(crate) fn internal(what: impl fmt::Display) -> OpError {
    OpError::unimplemented(format!("internal GPU error: {what}"))
}

impl Gpu {
    /// Opens the first Vulkan adapter (a real GPU, else lavapipe).
    pub fn new() -> Result<Gpu, GpuUnavailable> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN;
        let instance = wgpu::Instance::new(desc);
        let options = wgpu::RequestAdapterOptions { power_preference: wgpu::PowerPreference::HighPerformance, ..Default::default() };
        let adapter = pollster::block_on(instance.request_adapter(&options)).map_err(|e| GpuUnavailable::NoAdapter(e.to_string()))?;
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: adapter.limits().max_storage_buffer_binding_size,
            max_buffer_size: adapter.limits().max_buffer_size,
            max_storage_buffers_per_shader_stage: 8,
            ..wgpu::Limits::downlevel_defaults()
        };
        let desc = wgpu::DeviceDescriptor { label: Some("stagecheck-gpu"), required_limits: limits, ..Default::default() };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc)).map_err(|e| GpuUnavailable::NoDevice(e.to_string()))?;
        let max_binding = device.limits().max_storage_buffer_binding_size;
        Ok(Gpu { device, queue, info: adapter.get_info(), max_binding, pipelines: Mutex::default(), recorded: Mutex::default() })
    }

    /// The adapter's name, driver and device type: `llvmpipe (LLVM 15.0.6, 256 bits), llvmpipe Mesa 22.3.6, Cpu`.
    pub fn adapter_info(&self) -> String {
        let i = &self.info;
        format!("{}, {} {}, {:?}", i.name, i.driver, i.driver_info, i.device_type)
    }

    /// The kernel's pipeline, compiled on first use. A shader the device
    /// refuses is an error (a bug here), not a panic.
    fn pipeline(&self, kernel: &Kernel) -> Result<Arc<wgpu::ComputePipeline>, OpError> {
        let mut cache = self.pipelines.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = cache.get(&kernel.source) {
            return Ok(p.clone());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(kernel.source.as_str().into()),
        });
        let pipeline = Arc::new(self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        }));
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(internal(format!("{e}\n{}", kernel.source)));
        }
        cache.insert(kernel.source.clone(), pipeline.clone());
        Ok(pipeline)
    }

    /// A device buffer of `words` 32-bit words (at least one: wgpu has no empty buffers).
    pub(crate) fn buffer(&self, words: usize) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (words.max(1) * 4) as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// A device buffer holding `words`.
    pub(crate) fn buffer_from(&self, words: &[u32]) -> wgpu::Buffer {
        let contents: &[u32] = if words.is_empty() { &[0] } else { words };
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(contents),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        })
    }

    /// Records `kernel` with its bindings in order (`info` first) over
    /// `groups` workgroups, laid out on a 2-D grid when one dimension is not
    /// enough; it runs at the next submission.
    pub(crate) fn dispatch(&self, kernel: &Kernel, bindings: &[&wgpu::Buffer], groups: u32) -> Result<(), OpError> {
        if groups == 0 {
            return Ok(());
        }
        let pipeline = self.pipeline(kernel)?;
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let entries: Vec<wgpu::BindGroupEntry<'_>> =
            bindings.iter().enumerate().map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() }).collect();
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(internal(e));
        }
        let mut recorded = self.recorded();
        {
            let encoder = recorded.encoder.get_or_insert_with(|| self.device.create_command_encoder(&Default::default()));
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            let x = groups.min(MAX_GROUPS);
            pass.dispatch_workgroups(x, groups.div_ceil(x), 1);
        }
        recorded.dispatches += 1;
        if recorded.dispatches >= BATCH {
            self.submit(&mut recorded, None)?;
        }
        Ok(())
    }

    fn recorded(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.recorded.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Submits the dispatches recorded so far, without waiting for them.
    pub fn flush(&self) -> Result<(), OpError> {
        self.submit(&mut self.recorded(), None)
    }

    /// Submits what is recorded, then `more` (commands that read what it
    /// writes); a recorded command wgpu refused is the error.
    fn submit(&self, recorded: &mut Recorded, more: Option<wgpu::CommandEncoder>) -> Result<(), OpError> {
        let taken = recorded.encoder.take();
        recorded.dispatches = 0;
        if taken.is_none() && more.is_none() {
            return Ok(());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.queue.submit(taken.into_iter().chain(more).map(|e| e.finish()));
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(internal(e)),
            None => Ok(()),
        }
    }

    /// The first `words` words of `buffer`, waiting for the queue.
    pub(crate) fn read(&self, buffer: &wgpu::Buffer, words: usize) -> Result<Vec<u32>, OpError> {
        Ok(self.read_many(&[(buffer, words)])?.pop().expect("one read"))
    }

    /// The first words of each buffer, copied in one submission and waited
    /// for once: every wait is a round trip to the driver's queue thread
    /// (lavapipe's: tens of microseconds on a busy 2-core machine), and a
    /// shadowed op reads its inputs and its output.
    pub(crate) fn read_many(&self, reads: &[(&wgpu::Buffer, usize)]) -> Result<Vec<Vec<u32>>, OpError> {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        let staged: Vec<Option<wgpu::Buffer>> = reads
            .iter()
            .map(|&(buffer, words)| {
                (words > 0).then(|| {
                    let size = (words * 4) as u64;
                    let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: None,
                        size,
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    });
                    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
                    staging
                })
            })
            .collect();
        if staged.iter().all(Option::is_none) {
            return Ok(vec![Vec::new(); reads.len()]);
        }
        self.submit(&mut self.recorded(), Some(encoder))?;
        let (tx, rx) = std::sync::mpsc::channel();
        for staging in staged.iter().flatten() {
            let tx = tx.clone();
            staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send(r);
            });
        }
        drop(tx);
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(internal)?;
        for mapped in rx.iter() {
            mapped.map_err(internal)?;
        }
        staged
            .into_iter()
            .map(|staging| {
                let Some(staging) = staging else { return Ok(Vec::new()) };
                let words = {
                    let view = staging.slice(..).get_mapped_range().map_err(internal)?;
                    bytemuck::cast_slice::<u8, u32>(&view).to_vec()
                };
                staging.unmap();
                Ok(words)
            })
            .collect()
    }
}

/// Workgroups covering `n` invocations of a 1-D kernel.
pub(crate) fn groups_for(n: usize) -> u32 {
    n.div_ceil(WORKGROUP as usize) as u32
}

/// The process-wide GPU, opened on first use; `None` when there is no Vulkan adapter.
pub fn shared() -> Option<&'static Gpu> {
    opened().as_ref().ok()
}

fn opened() -> &'static Result<Gpu, GpuUnavailable> {
    static GPU: OnceLock<Result<Gpu, GpuUnavailable>> = OnceLock::new();
    GPU.get_or_init(Gpu::new)
}

impl Gpu {
    /// Runs one small kernel and reads its result back, so that a driver
    /// opens what it opens lazily (NVIDIA's device nodes) now: a worker
    /// does this before confining itself (`src/worker/serve.rs`). Errors
    /// are the first run's to meet and report.
    pub fn warm_up(&self) {
        let Ok(x) = graph::Tensor::from_f32(vec![1.0; 256], &[256]) else { return };
        if let Ok(up) = self.upload(&x) {
            if let Ok(sum) = self.eval(&graph::Op::Add, &[&up, &up]) {
                let _ = self.download(&sum);
            }
        }
    }

    /// Whether [`shared`] has a GPU; else why not.
    pub fn available() -> Result<&'static Gpu, String> {
        opened().as_ref().map_err(|e| e.to_string())
    }
}
