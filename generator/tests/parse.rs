//! Every generated program parses (and compiles) under python3: a proptest
//! over random byte vectors and random configs, both families, 24 programs
//! per python3 process.

mod common;

use arbitrary::{Arbitrary, Unstructured};
use proptest::prelude::*;
use stagecheck_generator::{generate, Config, Family};

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_parse(
        inputs in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..4096), 12),
        config_bytes in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..64), 12),
    ) {
        let mut sources = Vec::new();
        for (data, cb) in inputs.iter().zip(&config_bytes) {
            let config = Config::arbitrary(&mut Unstructured::new(cb)).expect("a config never fails");
            for family in [Family::Plain, Family::Tensor] {
                let p = generate(&mut Unstructured::new(data), &config, family).expect("never fails");
                sources.push(p.source);
            }
        }
        let bad = common::parse_all(&sources);
        prop_assert!(bad.is_empty(), "{}", bad.iter().map(|(i, e)| format!("{e}\n{}", sources[*i])).collect::<Vec<_>>().join("\n\n"));
    }
}

/// The default config (everything on) on long random inputs.
#[test]
fn default_config_programs_parse() {
    let sources: Vec<String> = (0..100u64)
        .flat_map(|seed| {
            let data = common::bytes(seed, 8192);
            [Family::Plain, Family::Tensor]
                .map(|f| generate(&mut Unstructured::new(&data), &Config::default(), f).expect("never fails").source)
        })
        .collect();
    assert_eq!(common::parse_all(&sources), vec![]);
}
