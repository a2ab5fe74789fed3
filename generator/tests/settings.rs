//! A target's generator settings (`Settings`): the rows it never supports
//! never appear, whatever the swarm Config drew; fuel off leaves `_tick()`
//! doing nothing; the default is the plain `generate`, byte for byte.

mod common;

use arbitrary::{Arbitrary, Unstructured};
use stagecheck_generator::{generate, generate_for, Config, Family, Settings};

fn both(seed: u64, settings: &Settings) -> (stagecheck_generator::Program, stagecheck_generator::Program) {
    let data = common::bytes(seed, 4096);
    let mut u = Unstructured::new(&data);
    let config = Config::arbitrary(&mut u).expect("a config");
    let rest = u.take_rest().to_vec();
    let plain = generate(&mut Unstructured::new(&rest), &config, Family::Plain).expect("never fails");
    let set = generate_for(&mut Unstructured::new(&rest), &config, Family::Plain, settings).expect("never fails");
    (plain, set)
}

#[test]
fn rows_a_target_never_supports_are_never_generated() {
    let autograph = Settings { never: &["generator", "generator_protocol", "loop_else"], fuel: true, rebind: false };
    assert!(autograph.unknown().is_empty() && Settings { never: &["no_such_row"], fuel: true, rebind: false }.unknown() == ["no_such_row"]);
    let (mut before, mut after) = (0, 0);
    for seed in 0..300u64 {
        let (plain, set) = both(seed, &autograph);
        before += plain.constructs.iter().any(|c| autograph.never.contains(c)) as u32;
        assert!(!set.constructs.iter().any(|c| autograph.never.contains(c)), "seed {seed}: {:?}", set.constructs);
        assert!(!set.source.contains("yield"), "seed {seed}: a generator\n{}", set.source);
        after += set.source.lines().any(|l| l.trim() == "else:") as u32;
    }
    // Without the settings they are common (the rows are live), and `else`
    // still comes from `if` and `try`.
    assert!(before > 50, "{before} of 300 programs had a generator or a loop's else");
    assert!(after > 0);
}

#[test]
fn fuel_off_ticks_nothing_and_the_default_changes_nothing() {
    let no_fuel = Settings { fuel: false, ..Settings::DEFAULT };
    for seed in 0..100u64 {
        let (plain, set) = both(seed, &Settings::DEFAULT);
        assert_eq!(plain, set, "seed {seed}: the default settings are generate's");
        let (plain, off) = both(seed, &no_fuel);
        assert!(plain.source.contains("    _fuel -= 1\n") && !off.source.contains("_fuel -="), "seed {seed}");
        assert!(off.source.contains("def _tick():\n    pass\n"));
        assert_eq!(
            plain.source.lines().filter(|l| l.contains("_tick()")).count(),
            off.source.lines().filter(|l| l.contains("_tick()")).count()
        );
    }
}

/// The top-level calls, `try:` then `print('f3', f3(...))`: each line's
/// function name.
fn calls(source: &str) -> Vec<(&str, &str)> {
    let lines: Vec<&str> = source.lines().collect();
    lines
        .windows(2)
        .filter(|w| w[0] == "try:")
        .filter_map(|w| {
            let rest = w[1].strip_prefix("    print('")?;
            let name = &rest[..rest.find('\'')?];
            rest[name.len()..].starts_with(&format!("', {name}(")).then_some((name, w[1]))
        })
        .collect()
}

#[test]
fn rebind_calls_every_function_three_times_around_rebinding_the_int_globals() {
    let rebind = Settings { rebind: true, ..Settings::DEFAULT };
    for seed in 0..100u64 {
        let (plain, again) = both(seed, &rebind);
        let calls = calls(&again.source);
        let mut names: Vec<&str> = calls.iter().map(|(n, _)| *n).collect();
        names.sort();
        names.dedup();
        assert!(!names.is_empty(), "seed {seed}: calls\n{}", again.source);
        for name in names {
            let of: Vec<&str> = calls.iter().filter(|(n, _)| *n == name).map(|(_, l)| *l).collect();
            assert!(of.len() >= 3, "seed {seed}: {name} called {} times", of.len());
            assert_eq!(of[0], of[1], "seed {seed}: the second call of {name} repeats the first (the guard cache)");
        }
        assert!(again.source.contains(" + 7) % 1000\n"), "seed {seed}: an int global rebound\n{}", again.source);
        // The same functions: the programs part ways at the first call.
        let first = plain.source.find(self::calls(&plain.source)[0].1).expect("a call");
        assert_eq!(plain.source[..first], again.source[..first], "seed {seed}");
    }
}
