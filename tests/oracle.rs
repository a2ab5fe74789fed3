//! The oracle's own tests (src/oracles/convergence.rs): for each mode that is compared
//! with the original (unstaged, staged, staged-gpu) and each kind of
//! difference, runs that differ only there, and the verdict that must come
//! out; and what must not count as a difference. Outcomes are built here,
//! not run: what is under test is the comparison alone.

use stagecheck::executor::{Limit, Outcome, Terminal, Value};
use stagecheck::modes::{Mode, ModeRun, RefusalInfo};
use stagecheck::oracles::convergence::{planned, verdict, Difference, Verdict};
use stagecheck_gpu::Tolerance;

const COMPARED: [Mode; 3] = [Mode::Unstaged, Mode::Staged, Mode::StagedGpu];

fn base() -> Outcome {
    Outcome {
        terminal: Terminal::Completed,
        stdout: "x is 3\nsum 10\n".into(),
        stdout_truncated: false,
        globals: vec![("x".into(), Value::Int("3".into())), ("name".into(), Value::Str("ab".into()))],
        micros: 10,
        graph: String::new(),
        tolerance: None,
        gpu_mismatches: Vec::new(),
        leaks: Vec::new(),
        gpu_flushed: None,
        mode_read: false,
        taken_from: None,
    }
}

/// A staged mode takes the unstaged run's outcome only when that run never
/// read its mode, says so, and is judged as a run of its own would be.
#[test]
fn staged_takes_the_unstaged_outcome_only_when_the_mode_was_never_read() {
    use stagecheck::modes::taken_from_unstaged;
    let runs =
        |unstaged: Outcome| vec![(Mode::Original, ModeRun::Ran { outcome: base() }), (Mode::Unstaged, ModeRun::Ran { outcome: unstaged })];
    for mode in [Mode::Staged, Mode::StagedGpu] {
        let Some(ModeRun::Ran { outcome }) = taken_from_unstaged(&runs(base()), mode) else { panic!("{mode}: taken") };
        assert_eq!(outcome.taken_from.as_deref(), Some("unstaged"));
        assert_eq!(outcome.stdout, base().stdout);
        assert!(taken_from_unstaged(&runs(Outcome { mode_read: true, ..base() }), mode).is_none(), "{mode}: read its mode");
    }
    assert!(taken_from_unstaged(&runs(base()), Mode::Unstaged).is_none());
    assert!(taken_from_unstaged(&runs(base())[..1], Mode::Staged).is_none(), "no unstaged run to take");
    // A run whose worker was lost cannot say it never read its mode.
    let lost = Outcome::lost(Terminal::Diverged { limit: stagecheck::executor::Limit::TimeInNative }, 5);
    assert!(taken_from_unstaged(&runs(lost), Mode::Staged).is_none(), "a lost unstaged run");
    // The runtime's StagingError ends a staged run as a refusal, taken or run.
    let terminal =
        Terminal::Raised { exc_type: "StagingError".into(), message: "no".into(), line: Some(3), traceback: vec![], refusal: true };
    let staging = Outcome { terminal, ..base() };
    assert!(matches!(taken_from_unstaged(&runs(staging), Mode::Staged), Some(ModeRun::Refused { .. })));
}

fn raised(exc_type: &str, message: &str, line: u32) -> Terminal {
    Terminal::Raised { exc_type: exc_type.into(), message: message.into(), line: Some(line), traceback: vec![], refusal: false }
}

/// The original and every mode run `base()`, but `mode` runs `other`.
fn runs(mode: Mode, original: Outcome, other: Outcome) -> Vec<(Mode, ModeRun)> {
    let mut runs = vec![(Mode::Original, ModeRun::Ran { outcome: original.clone() })];
    for m in COMPARED {
        let outcome = if m == mode { other.clone() } else { original.clone() };
        runs.push((m, ModeRun::Ran { outcome }));
    }
    runs
}

/// The verdict names `mode` and a first difference of `kind`.
fn assert_differs(runs: &[(Mode, ModeRun)], mode: Mode, kind: &str, what: &str) -> Vec<Difference> {
    match verdict(runs) {
        Verdict::Diverged { mode: m, differences } => {
            assert_eq!(m, mode, "{what}: the wrong mode blamed");
            assert_eq!(differences.first().map(Difference::kind), Some(kind), "{what}: {differences:?}");
            differences
        }
        v => panic!("{what} in {mode}: not a divergence: {v:?}"),
    }
}

fn assert_agree(runs: &[(Mode, ModeRun)], what: &str) {
    assert!(matches!(verdict(runs), Verdict::Agree), "{what}: {:?}", verdict(runs));
}

/// Each kind of difference, made from the base outcome: (name, kind, change).
fn mutations() -> Vec<(&'static str, &'static str, Box<dyn Fn(&mut Outcome)>)> {
    vec![
        ("completed vs raised", "terminal", Box::new(|o: &mut Outcome| o.terminal = raised("ValueError", "bad", 2))),
        ("completed vs diverged", "terminal", Box::new(|o: &mut Outcome| o.terminal = Terminal::Diverged { limit: Limit::Time })),
        (
            "a crash",
            "crash",
            Box::new(|o: &mut Outcome| o.terminal = Terminal::Crashed { message: "the worker process was killed by SIGSEGV".into() }),
        ),
        ("a stdout line", "stdout", Box::new(|o: &mut Outcome| o.stdout = "x is 3\nsum 11\n".into())),
        ("a missing last newline", "stdout", Box::new(|o: &mut Outcome| o.stdout = "x is 3\nsum 10".into())),
        ("stdout cut at its limit", "stdout", Box::new(|o: &mut Outcome| o.stdout_truncated = true)),
        ("an extra stdout line", "stdout", Box::new(|o: &mut Outcome| o.stdout.push_str("more\n"))),
        ("a global's value", "global", Box::new(|o: &mut Outcome| o.globals[0].1 = Value::Int("4".into()))),
        ("an int global that became a float", "global", Box::new(|o: &mut Outcome| o.globals[0].1 = Value::Float(3.0f64.to_bits()))),
        ("a missing global", "global", Box::new(|o: &mut Outcome| drop(o.globals.pop()))),
        ("an extra global", "global", Box::new(|o: &mut Outcome| o.globals.push(("ag__x".into(), Value::None)))),
        (
            "a GPU node beyond its op's tolerance",
            "gpu",
            Box::new(|o: &mut Outcome| o.gpu_mismatches.push("GPU FloorDiv -> int32 on (int32 [3], int32 [3]): element 0 differs".into())),
        ),
        (
            "shared state leaked past the restore",
            "leak",
            Box::new(|o: &mut Outcome| o.leaks.push("stagecheck.gradients.check._GRADCHECK rebound".into())),
        ),
    ]
}

#[test]
fn every_kind_of_difference_in_every_mode_is_a_finding_naming_that_mode() {
    for mode in COMPARED {
        for (what, kind, change) in mutations() {
            assert!(Difference::KINDS.contains(&kind), "{kind} is not listed in Difference::KINDS");
            let mut other = base();
            change(&mut other);
            assert_differs(&runs(mode, base(), other), mode, kind, what);
        }
    }
}

#[test]
fn exception_type_and_message_are_compared_but_not_lines_or_tracebacks() {
    let mut original = base();
    original.terminal = raised("KeyError", "'k'", 4);
    for mode in COMPARED {
        for (what, terminal) in [("another type", raised("IndexError", "'k'", 4)), ("another message", raised("KeyError", "'j'", 4))] {
            let mut other = original.clone();
            other.terminal = terminal;
            let differences = assert_differs(&runs(mode, original.clone(), other), mode, "terminal", what);
            assert!(matches!(&differences[0], Difference::Terminal { .. }));
        }
        let mut other = original.clone();
        other.terminal = raised("KeyError", "'k'", 9);
        assert_agree(&runs(mode, original.clone(), other), "the same exception on another line");
    }
}

#[test]
fn two_divergences_agree_while_their_outputs_begin_alike_but_a_crash_never_does() {
    let mut original = base();
    original.terminal = Terminal::Diverged { limit: Limit::Time };
    for mode in COMPARED {
        let mut other = base();
        other.terminal = Terminal::Diverged { limit: Limit::Memory };
        other.globals.clear();
        for (stdout, why) in [("x is 3\nsum 10\nmore\n", "the other got further"), ("x is 3\nsu", "the other was stopped mid-line")] {
            other.stdout = stdout.into();
            assert_agree(&runs(mode, original.clone(), other.clone()), why);
        }
        other.stdout = "x is 3\nsum 11\nmore\n".into();
        assert_differs(&runs(mode, original.clone(), other.clone()), mode, "stdout", "both diverged, having printed something else first");
        let mut crashed = base();
        crashed.terminal = Terminal::Crashed { message: "boom".into() };
        assert_differs(&runs(mode, original.clone(), crashed), mode, "crash", "diverged vs crashed");
    }
    let mut crashed = base();
    crashed.terminal = Terminal::Crashed { message: "boom".into() };
    assert_differs(&runs(Mode::Unstaged, crashed.clone(), crashed), Mode::Original, "crash", "a crash of the original");
}

#[test]
fn identical_runs_agree_and_timings_and_graphs_are_not_compared() {
    for mode in COMPARED {
        let mut other = base();
        other.micros = 99_999;
        other.graph = "(def f ...)".into();
        assert_agree(&runs(mode, base(), other), "time and graph differ");
    }
}

#[test]
fn the_first_mode_that_parts_ways_is_blamed() {
    let mut changed = base();
    changed.stdout = "else\n".into();
    let runs = vec![
        (Mode::Original, ModeRun::Ran { outcome: base() }),
        (Mode::Unstaged, ModeRun::Ran { outcome: base() }),
        (Mode::Staged, ModeRun::Ran { outcome: changed.clone() }),
        (Mode::StagedGpu, ModeRun::Ran { outcome: changed }),
    ];
    assert_differs(&runs, Mode::Staged, "stdout", "staged and staged-gpu both differ");
}

#[test]
fn intended_refusals_are_verdicts_and_other_refusals_are_findings() {
    for mode in [Mode::Staged, Mode::StagedGpu] {
        let mut runs = runs(mode, base(), base());
        let refusal =
            |reason: &str| ModeRun::Refused { error: RefusalInfo { line: 3, construct: "staging".into(), reason: reason.into() } };
        let at = runs.iter().position(|(m, _)| *m == mode).unwrap();
        runs[at].1 = refusal("'n' is a Python value that a staged while loop changes");
        assert!(matches!(verdict(&runs), Verdict::Refused { mode: m, .. } if m == mode), "{:?}", verdict(&runs));
        runs[at].1 = refusal("invalid graph: x3 is read before it is defined");
        assert_differs(&runs, mode, "refusal", "a refusal off the list");
    }
    let mut runs = runs(Mode::Unstaged, base(), base());
    runs[1].1 = ModeRun::ConverterCrashed { message: "index out of bounds".into() };
    assert_differs(&runs, Mode::Unstaged, "converter", "the converter's panic");
}

#[test]
fn on_the_gpu_floats_compare_within_the_tolerance_and_ints_exactly() {
    let loose = Tolerance { ulps: 0, abs: 16.0, rel: 0.0 };
    let mut original = base();
    original.globals.push(("loss".into(), Value::Float(0.5f64.to_bits())));
    original.stdout = "loss 0.5 step 7\n".into();
    let gpu = |change: &dyn Fn(&mut Outcome)| {
        let mut o = original.clone();
        o.tolerance = Some(loose);
        change(&mut o);
        runs(Mode::StagedGpu, original.clone(), o)
    };
    assert_agree(&gpu(&|o| o.globals[2].1 = Value::Float(3.5f64.to_bits())), "a float within the tolerance");
    assert_agree(&gpu(&|o| o.stdout = "loss 3.5 step 7\n".into()), "a printed float within the tolerance");
    assert_differs(&gpu(&|o| o.globals[2].1 = Value::Float(30.0f64.to_bits())), Mode::StagedGpu, "global", "a float beyond it");
    assert_differs(&gpu(&|o| o.globals[0].1 = Value::Int("4".into())), Mode::StagedGpu, "global", "an int off by one");
    assert_differs(&gpu(&|o| o.stdout = "loss 0.5 step 8\n".into()), Mode::StagedGpu, "stdout", "a printed int off by one");
    // Without a tolerance (CPU modes), floats compare bit for bit.
    let mut cpu = original.clone();
    cpu.globals[2].1 = Value::Float(0.5f64.next_up().to_bits());
    assert_differs(&runs(Mode::Staged, original.clone(), cpu), Mode::Staged, "global", "one ULP off on the CPU");
}

/// A GPU run where every op was exact compares floats bit for bit, but a
/// NaN equals a NaN of any sign and payload (the H200 gives 0x7fffffff
/// where the CPU gives 0x7fc00000); on the CPU the bits still count.
#[test]
fn on_the_gpu_a_nan_is_a_nan_whatever_its_bits_even_when_every_op_was_exact() {
    let mut original = base();
    original.globals.push(("r".into(), Value::Float(f64::from(f32::NAN).to_bits())));
    // 0x7fffffff widened (a float32 NaN read into a Python float).
    let canonical = 0x7fff_ffff_e000_0000u64;
    assert!(f64::from_bits(canonical).is_nan());
    let mut gpu = original.clone();
    gpu.tolerance = Some(Tolerance::EXACT);
    gpu.globals[2].1 = Value::Float(canonical);
    assert_agree(&runs(Mode::StagedGpu, original.clone(), gpu.clone()), "NaN against NaN on the GPU");
    gpu.globals[2].1 = Value::Float(1.0f64.to_bits());
    assert_differs(&runs(Mode::StagedGpu, original.clone(), gpu), Mode::StagedGpu, "global", "a number for a NaN");
    let mut cpu = original.clone();
    cpu.globals[2].1 = Value::Float(canonical);
    assert_differs(&runs(Mode::Staged, original, cpu), Mode::Staged, "global", "another NaN's bits on the CPU");
}

/// `planned` (generated tensor programs end `Completed`): an original that
/// raised, every mode agreeing, is a finding of kind `unplanned` blamed on
/// the original; a completed one still agrees, and a finding already made
/// is kept as it was.
#[test]
fn an_exception_a_generated_program_did_not_plan_is_a_finding_though_every_mode_agrees() {
    let raising = Outcome { terminal: raised("ValueError", "Requires start <= limit when delta > 0: 0/3", 4), ..base() };
    let agreeing = runs(Mode::Staged, raising.clone(), raising.clone());
    assert_agree(&agreeing, "every mode raised the same");
    match planned(verdict(&agreeing), &agreeing) {
        Verdict::Diverged { mode: Mode::Original, differences } => {
            assert_eq!(differences.iter().map(Difference::kind).collect::<Vec<_>>(), ["unplanned"]);
            assert!(differences[0].describe().2.contains("ValueError"), "{differences:?}");
        }
        v => panic!("not an unplanned finding: {v:?}"),
    }
    let completed = runs(Mode::Staged, base(), base());
    assert!(matches!(planned(verdict(&completed), &completed), Verdict::Agree));
    let other = Outcome { terminal: raised("KeyError", "k", 4), ..base() };
    let diverging = runs(Mode::Unstaged, raising, other);
    match planned(verdict(&diverging), &diverging) {
        Verdict::Diverged { mode: Mode::Unstaged, differences } => assert_eq!(differences[0].kind(), "terminal"),
        v => panic!("the first finding was not kept: {v:?}"),
    }
}

/// Two outputs both cut at the byte limit agree on the whole lines both
/// kept, wherever each cut fell (a normalised message of another length
/// moves it: a 30-minute `--oracle cpython` run reported one such cut as a
/// difference); a difference in a kept line is still one.
#[test]
fn two_outputs_cut_at_the_limit_compare_the_lines_both_kept() {
    let cut = |stdout: &str| Outcome { stdout: stdout.into(), stdout_truncated: true, ..base() };
    let original = cut("a line\nlocal variable 'v' referenced before assignment\nthe same li");
    let other = cut("a line\nlocal variable 'v' referenced before assignment\nthe sa");
    for mode in COMPARED {
        assert_agree(&runs(mode, original.clone(), other.clone()), "cut at two places in one line");
        assert_agree(
            &runs(mode, original.clone(), cut("a line\nlocal variable 'v' referenced before assignment\n")),
            "cut at a line's end",
        );
        assert_differs(&runs(mode, original.clone(), cut("a line\nanother line\nthe same li")), mode, "stdout", "a kept line differs");
        // A long line on one side only, cut, where the other printed more lines.
        assert_differs(
            &runs(mode, original.clone(), cut("a line\nzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz")),
            mode,
            "stdout",
            "a line one side only printed",
        );
        assert_differs(
            &runs(mode, original.clone(), Outcome { stdout_truncated: false, ..original.clone() }),
            mode,
            "stdout",
            "cut on one side only",
        );
    }
}
