//! `stagecheck devices`: says which GPU the staged-gpu mode would use, or why there is none,
//! and what confines the worker processes that run programs (`src/worker/confine.rs`) and the
//! interpreters the jail runs (`src/jail/`).

use std::process::ExitCode;

/// `stagecheck devices`: the adapter staged-gpu runs on, or why there is none.
pub(crate) fn devices() -> ExitCode {
    println!("cpu: the graph executor (ndarray), always");
    let code = match stagecheck_gpu::Gpu::available() {
        Ok(gpu) => {
            println!("gpu: {}", gpu.adapter_info());
            ExitCode::SUCCESS
        }
        Err(why) => {
            println!("gpu: none: {why}");
            ExitCode::from(1)
        }
    };
    let mut worker = stagecheck::worker::Worker::new(stagecheck::executor::Config::default());
    if let Some(confinement) = worker.confinement() {
        println!("workers: {}", confinement.summary);
    }
    // A staged-gpu run restarts the worker with the GPU opened before its
    // confinement, which may then let the driver open its device nodes.
    if code == ExitCode::SUCCESS {
        let _ = worker.run_in("pass\n", "<devices>", stagecheck::modes::Mode::StagedGpu);
        if let Some(confinement) = worker.confinement() {
            println!("gpu workers: {}", confinement.summary);
        }
    }
    println!("interpreters (--oracle cpython, every --target's worker): {}", stagecheck::jail::describe());
    code
}
