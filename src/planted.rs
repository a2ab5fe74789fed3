//! The catalogue of planted bugs: every deliberately wrong line
//! behind the feature `planted-bugs`, one row each, with the layer it sits
//! in, what it breaks and why someone could write it. `STAGECHECK_PLANT=<name>`
//! turns one on in a `planted-bugs` build; `tests/planted.rs` shows plain
//! `stagecheck fuzz` finds each within 60 s, reduced to at most 15 lines, and
//! times them (`scripts/planted-bugs --table`: reports/planted-bugs.md).
//!
//! The switches live where the bugs are: `stagecheck_transformer::planted`
//! (converter passes and analyses), `stagecheck_executor::planted` (runtime
//! operators and staging runtime as one-line slips of their Python source,
//! rendering), `stagecheck_graph::planted` (graph executor), and
//! `stagecheck_gpu::planted` (WGSL kernels). [`crate_names`] gathers their
//! names; the catalogue must list exactly those (a test checks it).

/// One planted bug.
#[derive(Debug, Clone, Copy)]
pub struct Bug {
    pub name: &'static str,
    pub layer: Layer,
    /// What goes wrong.
    pub breaks: &'static str,
    /// Why a developer could make that mistake.
    pub why: &'static str,
    /// Arguments `stagecheck fuzz` needs beyond its defaults to see this
    /// layer at all (`--gpu`: the staged-gpu mode; `--oracle cpython`: the
    /// renderer is the same code on both sides of the default oracle).
    pub fuzz_args: &'static [&'static str],
    /// Why the fuzzer does not find this bug within 60 s yet (a hole of the
    /// generator or the oracle, said in reports/planted-bugs.md), or None.
    /// Its test asserts only that seed 7 with its fuzz arguments finds it
    /// (or is ignored, saying so, where not even that holds).
    pub hole: Option<&'static str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Converter,
    RuntimeOperators,
    StagingRuntime,
    GraphExecutor,
    GpuKernels,
    Executor,
}

impl Layer {
    pub fn name(self) -> &'static str {
        match self {
            Layer::Converter => "converter",
            Layer::RuntimeOperators => "runtime operators",
            Layer::StagingRuntime => "staging runtime",
            Layer::GraphExecutor => "graph executor",
            Layer::GpuKernels => "GPU kernels",
            Layer::Executor => "executor",
        }
    }
}

const fn bug(name: &'static str, layer: Layer, breaks: &'static str, why: &'static str) -> Bug {
    Bug { name, layer, breaks, why, fuzz_args: &[], hole: None }
}

const GPU: &[&str] = &["--gpu"];
const CPYTHON: &[&str] = &["--oracle", "cpython"];

use Layer::*;

/// Every planted bug, by layer.
pub const CATALOGUE: &[Bug] = &[
    // Converter passes and analyses (transformer/src).
    bug(
        "for_else_after_break",
        Converter,
        "break pass: a loop's `else` runs even after a `break`",
        "the `else` is moved after the loop as plain code; guarding it by the break flag is easy to forget",
    ),
    bug(
        "nonlocal_write_lost",
        Converter,
        "control flow: a loop body's function declares none of the user's variables `nonlocal`: assignments in loops stay local to it",
        "the declarations are filtered to the converter's own flags, as if user names needed none",
    ),
    bug(
        "converter_panic",
        Converter,
        "break pass: a loop with a `break` but no `else` panics the converter (a converter finding)",
        "an `unwrap` on the `else` clause, assuming every loop with a break has one",
    ),
    bug(
        "liveness_assign_reads_lost",
        Converter,
        "liveness: an assignment's reads are not live before it, so a staged if's output read only by a later assignment is dropped from its state",
        "treating an assignment as a kill only (live-in = live-out - bound), forgetting its own uses (gen)",
    ),
    bug(
        "definitions_join_union",
        Converter,
        "reaching definitions: a variable bound on one path is 'definitely bound' after the join, so its unbound read raises NameError, not UnboundLocalError",
        "a must-analysis joined with union, as a may-analysis would be",
    ),
    bug(
        "loop_state_live_out_only",
        Converter,
        "control flow: a staged loop carries only the variables live after it, not those the loop itself reads (a counter in the test)",
        "loop state computed like an if's outputs (live after), forgetting loop-carried values",
    ),
    bug(
        "global_write_lost_in_loop",
        Converter,
        "control flow: a `global` assigned in a loop body is not declared global in the body's function: the write is lost (AutoGraph's kind)",
        "declarations built from the function's scope, dropping names declared global for the generated loop body",
    ),
    bug(
        "lambda_late_binding_lost",
        Converter,
        "control flow: a for loop's target is a local of the body's function: lambdas made in the loop capture each iteration's value, and the target is not set after the loop (AutoGraph's loop variables)",
        "the target assignment is the body function's first line, and the bound names are taken after it",
    ),
    bug(
        "try_else_after_return",
        Converter,
        "return pass: a `try`'s `else` runs after a `return` in its body (AutoGraph's kind)",
        "the else clause is guarded for break/continue flags but the return pass's flag is not checked",
    ),
    bug(
        "hoist_user_functions",
        Converter,
        "hoisting: the program's own functions defined in a converted body move out with the generated ones, defined once per call instead of at each execution (defaults and closures taken too early)",
        "the walk takes every plain function in a generated body for scaffolding, forgetting that only the converter's fresh names are",
    ),
    // Runtime operators (staging/runtime/stagecheck/ag), installed by staging/src/planted.rs.
    bug(
        "and_evaluates_all",
        RuntimeOperators,
        "`and_` evaluates every operand, even after a false one",
        "evaluating the operand thunks up front, then scanning the values",
    ),
    bug(
        "compare_middle_twice",
        RuntimeOperators,
        "a chained comparison evaluates its middle operand twice (AutoGraph's kind)",
        "`a < b < c` lowered as `a < b and b < c` with `b` a thunk called in each link",
    ),
    bug(
        "while_test_once_more",
        RuntimeOperators,
        "`while_stmt` evaluates the loop test once more after the loop ends",
        "a post-loop check left in, harmless unless the test has side effects",
    ),
    bug(
        "or_returns_bool",
        RuntimeOperators,
        "`or_` (native) returns True, not its first true operand, outside tests",
        "the `test=True` shortcut (a bool for if/while tests) applied to every use",
    ),
    bug(
        "ld_keeps_name_error",
        RuntimeOperators,
        "`ld` (native) lets the nested function's NameError through where the original raised UnboundLocalError",
        "in Rust the error's class is matched by hand; the translation's arm is skipped when the test is written too narrowly",
    ),
    bug(
        "assert_msg_not_called",
        RuntimeOperators,
        "`assert_stmt` raises AssertionError with the message's thunk, not its value",
        "the message arrives as a function (lazy, as Python evaluates it only on failure); the call is forgotten",
    ),
    // Staging runtime (staging/runtime/stagecheck/staging), installed by staging/src/planted.rs.
    bug(
        "tanh_grad_one_minus_y",
        StagingRuntime,
        "gradients: tanh's backward rule uses 1 - y instead of 1 - y² (every mode alike: only --gradcheck's finite differences see it)",
        "tanh' = 1 - tanh², written from the output y, the square dropped",
    ),
    bug(
        "guards_skip_globals",
        StagingRuntime,
        "trace guards on globals and builtins check nothing: a staged function reading a global rebound between calls reuses its stale trace",
        "the trace cache key covers the arguments, and what the trace read at globals is forgotten",
    ),
    bug(
        "cond_branch_state_not_reset",
        StagingRuntime,
        "staged if: the else branch is traced from the state the then branch left, not from the state before the if (cond outputs wrong)",
        "the reset to the initial state done once before tracing, not before each branch",
    ),
    bug(
        "loop_body_returns_initial_state",
        StagingRuntime,
        "staged loops: the body function returns the loop variables' initial values, so loop-carried state never changes",
        "`init` and `state` are both lists of the loop variables in the same order; one for the other",
    ),
    bug(
        "captured_global_baked_in",
        StagingRuntime,
        "tracing: a tensor read at a global is not swapped for a placeholder, so the trace bakes it in as a constant and reuses it after the global is rebound",
        "closure cells get their placeholder; the global branch of the same loop is left out",
    ),
    // Graph executor (graph/src: exec.rs, plan.rs, kernels/in_place.rs).
    bug(
        "in_place_donor_side",
        GraphExecutor,
        "in-place donor reuse: `f(b, a)` computed into donor `a` as `f(a, b)` (x - y wrong when y is the donor)",
        "the donor's position is ignored, right for the commutative ops tried first",
    ),
    bug(
        "donor_returned_value",
        GraphExecutor,
        "donor rule: a value read last by an op but also returned is donated and overwritten (or gone) before the function returns it",
        "'last use' taken from the nodes only, forgetting the function's outputs read after them",
    ),
    bug(
        "flat_loop_buffer_not_cleared",
        GraphExecutor,
        "flat loop: the condition's value buffer is not cleared between iterations, so it reads the first iteration's loop variables",
        "two buffers reused across iterations to save allocations; one `clear` goes missing",
    ),
    bug(
        "outputs_repeated_taken",
        GraphExecutor,
        "a function returning one value twice moves it out at its first occurrence and finds it gone at the second",
        "the 'returned again later' test looks behind instead of ahead",
    ),
    // GPU kernels (gpu/src/wgsl), checked on lavapipe: fuzzing with --gpu.
    Bug {
        fuzz_args: GPU,
        ..bug("gpu_floordiv_off_by_one", GpuKernels, "int32 `//` off by one on the GPU", "floor division of negative operands")
    },
    Bug {
        fuzz_args: GPU,
        ..bug("gpu_exp_inexact", GpuKernels, "float32 `exp` beyond its tolerance on the GPU", "a fast approximation of exp")
    },
    Bug {
        fuzz_args: GPU,
        ..bug(
            "gpu_reduce_axis_stride",
            GpuKernels,
            "a reduction over one axis steps by the axis's extent instead of its stride on the GPU",
            "the info array holds the reduced shape and strides side by side; an index one off",
        )
    },
    // The executor (executor/src: render.rs, snapshot.rs's restore; worker crashes). The renderer
    // is the same on both sides of the default oracle: only the CPython
    // oracle, whose renderer is another implementation, can see its slips.
    Bug {
        fuzz_args: CPYTHON,
        ..bug(
            "render_bool_as_int",
            Executor,
            "globals holding True/False render as the ints 1/0",
            "bool is an int subclass: the int payload matches first when the bool check is skipped",
        )
    },
    Bug {
        fuzz_args: CPYTHON,
        ..bug(
            "render_attrs_unsorted",
            Executor,
            "instance attributes render in assignment order, not sorted",
            "dicts keep insertion order, so the sort looks redundant",
        )
    },
    bug(
        "restore_compares_keys_only",
        Executor,
        "the restore between runs compares a shared dict's keys only: a run that rebinds a runtime global (same keys) is judged unchanged and the binding leaks into every later run on the worker (the gradient check's `_GRADCHECK` switch stays on); the leak check after the restore names it (kind `leak`)",
        "the dict is rewritten only when a run changed it, and 'changed' is checked as 'a key added or removed'; the value's identity test is forgotten",
    ),
    bug(
        "worker_abort",
        Executor,
        "every converted `if` aborts the worker process: the run is a crash finding and the fuzz run goes on",
        "a native crash (abort, segfault) anywhere under a program",
    ),
];

/// The names each crate's switches know, gathered.
pub fn crate_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = stagecheck_transformer::planted::NAMES.to_vec();
    names.extend(stagecheck_executor::planted::names());
    names.extend(stagecheck_executor::planted::GRAPH);
    names.extend(stagecheck_gpu::planted::NAMES);
    names
}

/// The catalogue's row for `name`.
pub fn find(name: &str) -> Option<&'static Bug> {
    CATALOGUE.iter().find(|b| b.name == name)
}
