//! The worker process's side (`stagecheck __worker`, hidden): one
//! [`Executor`] on a thread with RustPython's stack, fed frames from stdin
//! until it closes. Whatever the program does to this process (a stack
//! overflow, an abort, a native loop) the parent sees and survives.
//!
//! Before its first run the worker confines itself (`confine.rs`): once the
//! interpreter is built and, when the `Hello` asks for it, the GPU opened
//! (the Vulkan loader and drivers read files that no run may read).

use super::protocol::{read_frame, write_frame, Reply, Request};
use crate::executor::{worker::STACK_SIZE, Executor};
use crate::staging::tensors;
use std::io::{self, BufReader, BufWriter};
use std::time::Instant;

/// Serves requests on stdin/stdout; the exit status says how it ended.
pub fn serve() -> std::process::ExitCode {
    super::confine::close_inherited();
    // Dies with the parent (a `kill -9` of the fuzz loop leaves no worker
    // behind), and never leaves a core file.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
    }
    let served = std::thread::Builder::new()
        .name("stagecheck-worker".into())
        .stack_size(STACK_SIZE)
        .spawn(serve_on_this_thread)
        .expect("spawn the worker's thread")
        .join();
    match served {
        Ok(Ok(())) => std::process::ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("stagecheck worker: {e}");
            std::process::ExitCode::from(3)
        }
        Err(_) => std::process::ExitCode::from(4),
    }
}

fn serve_on_this_thread() -> io::Result<()> {
    let mut input = BufReader::new(io::stdin().lock());
    let mut output = BufWriter::new(io::stdout().lock());
    let (config, gpu) = match read_frame(&mut input)? {
        Some(Request::Hello { config, gpu }) => (config, gpu),
        Some(_) => return Err(io::Error::other("the first request must be Hello")),
        None => return Ok(()),
    };
    let mut executor = Executor::new(config);
    if gpu {
        // Now or never: no run may read the driver's files. (Without an
        // adapter, `modes::available` refuses staged-gpu before any run.)
        // One op up and back, so that a driver opens what it opens lazily
        // (NVIDIA's device nodes) while it still may; `confine` lets it
        // open those nodes again, and nothing else.
        if let Some(gpu) = stagecheck_gpu::shared() {
            gpu.warm_up();
        }
    }
    let confinement = super::confine::confine(executor.config());
    write_frame(&mut output, &Reply::Ready { confinement })?;
    while let Some(request) = read_frame(&mut input)? {
        let Request::Run { source, path, mode } = request else {
            return Err(io::Error::other("Hello sent twice"));
        };
        let clock = Instant::now();
        tensors::set_mode(mode);
        let reply = executor.run(&source, &path);
        // What the executor did not time (the tracer's reset, the run's
        // scope dropped) restores state for the next run too.
        let mut phases = executor.last_phases();
        phases.restore += clock.elapsed().saturating_sub(phases.total());
        write_frame(&mut output, &Reply::Ran { reply, phases })?;
    }
    Ok(())
}
