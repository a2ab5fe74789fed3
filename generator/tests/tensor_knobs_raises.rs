//! What the tensor family writes for trace guards and staged raises does
//! its job, shown under python3 with the mock runtime
//! (`tests/mock/stagecheck.py`):
//! - the top level's changes of Python values between calls reach what the
//!   program prints: with the mock's stale mode (`STAGECHECK_MOCK_STALE`: a
//!   staged function runs every call with the values of one kind as at its
//!   first call, as a trace with that kind of guard dropped would), enough
//!   programs print something else, for each kind; and programs with no
//!   Python values to read print the same (the stale mode changes nothing
//!   else);
//! - raises on purpose are taken on some calls and not on others, of every
//!   kind the generator writes, and the top level catches each.

mod common;

use stagecheck_generator::Family;
use std::collections::BTreeMap;
use std::path::Path;

// Enough for each way of raising and each stale kind to show although the
// tensor family writes more constructs (gradient tapes) than when it was 200.
const PROGRAMS: u64 = 300;

/// stdout of `path` under the mock, or why it failed.
fn run(path: &Path, stale: &str) -> Result<String, String> {
    let out = common::run_mock(path, stale);
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr)))
    }
}

/// Each program of the seeds: its constructs and its stdout under each stale mode ("" first).
fn outputs(tag: &str, modes: &[&str], programs: u64) -> Vec<(Vec<&'static str>, Vec<String>)> {
    let dir = std::env::temp_dir().join(format!("stagecheck-gen-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let seeds: Vec<u64> = (0..programs).map(|i| 70_000 + i).collect();
    let v = common::on_two_threads(&seeds, |seed| {
        let (_, p) = common::program(seed, Family::Tensor);
        let path = dir.join(format!("t{seed}.py"));
        std::fs::write(&path, &p.source).expect("write program");
        let outs: Vec<String> =
            modes.iter().map(|m| run(&path, m).unwrap_or_else(|e| panic!("seed {seed}, stale {m:?}: {e}\n{}", p.source))).collect();
        let _ = std::fs::remove_file(&path);
        (p.constructs, outs)
    });
    let _ = std::fs::remove_dir_all(&dir);
    v
}

#[test]
fn changes_between_calls_show_in_what_a_stale_trace_prints() {
    let kinds = ["global", "attr", "item"];
    let runs = outputs("stale", &["", "global", "attr", "item"], PROGRAMS);
    let mut differ = BTreeMap::new();
    for (constructs, outs) in &runs {
        let reads = constructs.iter().any(|c| c.starts_with("python_") && *c != "python_hyperparam");
        for (i, kind) in kinds.iter().enumerate() {
            if outs[i + 1] != outs[0] {
                assert!(reads, "stale {kind} changed a program that reads no Python value: {constructs:?}");
                *differ.entry(*kind).or_insert(0) += 1;
            }
        }
    }
    println!("of {PROGRAMS} programs, a stale trace prints otherwise in: {differ:?}");
    for kind in kinds {
        let n = differ.get(kind).copied().unwrap_or(0);
        assert!(n * 100 >= PROGRAMS * 4, "only {n} of {PROGRAMS} programs show a stale {kind} trace");
    }
}

#[test]
fn the_stale_mode_is_not_vacuous() {
    let src = "import stagecheck as sc\n\
               s = 1\n\
               class C:\n    scale = 2\n\
               d = {'k': 1}\n\
               w = [1]\n\
               @sc.function\n\
               def f(x):\n    return x + s + C.scale + d['k'] + w[0] + len(w)\n\
               print(f(sc.constant(0)))\n\
               s = 2\nC.scale = 3\nd['k'] = 4\nw.append(3)\n\
               print(f(sc.constant(0)))\n";
    let path = std::env::temp_dir().join(format!("stagecheck-gen-stale-{}.py", std::process::id()));
    std::fs::write(&path, src).expect("write");
    let fresh = run(&path, "").expect("runs");
    let last = |o: &str| o.lines().last().unwrap_or("").to_string();
    assert!(last(&fresh).starts_with("tf.Tensor(12,"), "{fresh}");
    for (kind, stale) in [("global", "tf.Tensor(11,"), ("attr", "tf.Tensor(11,"), ("item", "tf.Tensor(8,")] {
        let out = run(&path, kind).expect("runs");
        assert!(last(&out).starts_with(stale), "stale {kind}: {out}");
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn raises_are_taken_on_some_calls_only_and_caught() {
    // Twice the programs: the family has many other constructs,
    // and a call ends at its first raise, so each way of raising is rarer.
    let programs = 2 * PROGRAMS;
    let runs = outputs("raise", &[""], programs);
    let (mut calls, mut raised, mut mixed) = (0, 0, 0);
    let mut types = BTreeMap::<String, usize>::new();
    let mut texts = Vec::new();
    for (constructs, outs) in &runs {
        if !constructs.iter().any(|c| c.starts_with("staged_raise") || c.starts_with("staged_unbound")) {
            continue;
        }
        let lines: Vec<&str> = outs[0].lines().collect();
        let r: Vec<&&str> = lines.iter().filter(|l| l.starts_with("raised ")).collect();
        for l in &r {
            *types.entry(l.split_whitespace().nth(1).unwrap_or("").to_string()).or_default() += 1;
            texts.push(l.to_string());
        }
        calls += lines.len();
        raised += r.len();
        if !r.is_empty() && r.len() < lines.len() {
            mixed += 1;
        }
    }
    println!("{raised} of {calls} calls raised; {mixed} programs raised on some calls only; {types:?}");
    assert!(raised * 100 >= calls * 5 && raised * 100 <= calls * 50, "{raised} of {calls} calls raised");
    assert!(mixed * 100 >= programs * 10, "only {mixed} programs raise on some calls and not on others");
    // Each way of raising: a raise statement (its classes), a local unbound
    // on the path, a name bound nowhere, an item of the knob list and dict.
    assert!(types.len() >= 6, "too few exception classes raised: {types:?}");
    for what in
        ["raised UnboundLocalError ", "raised NameError name 'missing", "raised IndexError list index out of range", "raised KeyError 'zz'"]
    {
        assert!(texts.iter().any(|t| t.starts_with(what)), "no call printed {what:?}");
    }
}
