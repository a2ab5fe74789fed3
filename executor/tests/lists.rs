//! Lists in staged control flow (staging/lists.py): a list of the staged
//! function's own, grown in a staged loop, is a list of the graph (list
//! ops, one trace per signature), and a list anything else can
//! see (an argument, an outer function's variable, a second name) is
//! refused, never lowered: the original changes it, the graph would not.
//! Programs are in their converted form (`stagecheck convert`).

use stagecheck_executor::{Config, Outcome, Terminal, ThreadWorker};
use stagecheck_staging::Mode;

fn run(src: &str, mode: Mode) -> Outcome {
    ThreadWorker::new(Config::default()).run_in(src, "prog.py", mode).expect("compiles")
}

const HEADER: &str = "__import__('stagecheck').ag.bind('ag__')\nimport stagecheck as sc\n";

/// A staged for loop over `xs` whose body runs `body` (with `x` bound),
/// inside `def fill(xs{params})` after `setup`, returning `ret`.
fn fill(params: &str, setup: &str, body: &str, ret: &str) -> String {
    format!(
        "@sc.function
def fill(xs{params}):
    x: ag__.Undefined
{setup}
    def get_state():
        return ag__.ldu_all(lambda: (x,), ('x',))

    def set_state(vars_):
        nonlocal x
        x, = vars_

    def loop_body(itr):
        nonlocal x
        x = itr
        {body}
    ag__.for_stmt(xs, None, loop_body, get_state, set_state, ('x',), {{'iterate_names': 'x'}})
    return {ret}
"
    )
}

#[test]
fn a_list_grown_in_a_staged_loop_is_list_ops_in_one_trace() {
    let src = format!(
        "{HEADER}{}print(fill(sc.constant([1.0, 2.0, 3.0])))\nprint(fill(sc.constant([4.0, 5.0, 6.0, 7.0, 8.0])))\n",
        fill("", "    out = []\n", "ag__.converted_call(out.append)(x * 2.0)", "ag__.converted_call(sc.stack)(out)")
    );
    let original = run(&src, Mode::Original);
    let staged = run(&src, Mode::Staged);
    assert_eq!(original.terminal, Terminal::Completed, "{}", original.stdout);
    assert_eq!(staged.terminal, Terminal::Completed, "{}", staged.graph);
    assert_eq!(staged.stdout, original.stdout);
    assert!(staged.stdout.starts_with("sc.Tensor([2. 4. 6.], shape=(3,)") && staged.stdout.contains("shape=(5,)"), "{}", staged.stdout);
    let g = &staged.graph;
    // One trace per argument signature: the restarts that lower the list
    // (staging/lists.py) are neither traces nor retraces.
    for part in ["(list_new :dtype float32 :shape [])", "(list_push ", "(list_stack ", "float32 [?]", "; traces: 2 (fill: 2)"] {
        assert!(g.contains(part), "{part} not in\n{g}");
    }
    assert!(!g.contains("; retraces"), "{g}");
}

/// The staged run ends in a StagingError saying the list is held elsewhere.
fn refused(src: &str) {
    let staged = run(src, Mode::Staged);
    match &staged.terminal {
        Terminal::Raised { exc_type, message, refusal, .. } => {
            assert!(*refusal && exc_type == "StagingError", "{exc_type}: {message}");
            assert!(message.contains("which is also held elsewhere"), "{message}");
        }
        other => panic!("not refused: {other}\n{}", staged.stdout),
    }
}

#[test]
fn a_list_of_the_caller_is_refused() {
    refused(&format!(
        "{HEADER}{}acc = []\nfill(sc.constant([1.0, 2.0]), acc)\nprint(len(acc))\n",
        fill(", out", "", "ag__.converted_call(out.append)(x)", "xs")
    ));
}

#[test]
fn a_list_of_an_enclosing_function_is_refused() {
    // `acc` is held by one cell only, as a local list is, but the cell is
    // the staged function's closure: the trace guards read it.
    let inner = fill("", "", "ag__.converted_call(acc.append)(x)", "xs").replace('\n', "\n    ");
    refused(&format!(
        "{HEADER}def make():\n    acc = []\n    {inner}\n    def count():\n        return len(acc)\n    return fill, count\nfill, count = make()\nfill(sc.constant([1.0, 2.0]))\nprint(count())\n"
    ));
}

#[test]
fn a_list_with_a_second_name_is_refused() {
    refused(&format!(
        "{HEADER}{}print(fill(sc.constant([1.0, 2.0])))\n",
        fill("", "    a = []\n    b = a\n", "ag__.converted_call(a.append)(x)", "ag__.converted_call(sc.stack)(b)")
    ));
}
