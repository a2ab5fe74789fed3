//! A fuzz case: the bytes, the Config drawn from them (swarm testing), and
//! the program generated from the rest. Bytes come from the run's seed and
//! the case's index (SplitMix64), so `(seed, index)` names a case forever.

use arbitrary::{Arbitrary, Unstructured};
use stagecheck_generator::{generate_for, Config, Family, Program, Settings};

/// Bytes per generated case.
pub const CASE_BYTES: usize = 4096;

#[derive(Clone, Debug)]
pub struct Case {
    pub seed: u64,
    pub index: u64,
    pub bytes: Vec<u8>,
    pub config: Config,
    pub program: Program,
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The bytes of case `index` of a run seeded `seed`.
pub fn bytes_for(seed: u64, index: u64) -> Vec<u8> {
    let mut state = seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut out = Vec::with_capacity(CASE_BYTES);
    while out.len() < CASE_BYTES {
        out.extend_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    out
}

impl Case {
    pub fn from_seed(seed: u64, index: u64, family: Family) -> Case {
        Case::from_seed_for(seed, index, family, &Settings::DEFAULT)
    }

    /// [`Case::from_seed`] for a compiler under test's generator settings
    /// (`crate::targets::Target::generator`).
    pub fn from_seed_for(seed: u64, index: u64, family: Family, settings: &Settings) -> Case {
        Case::from_bytes_for(bytes_for(seed, index), family, seed, index, settings)
    }

    /// The case these bytes give (a saved finding's `input.bin`, a libFuzzer input).
    pub fn from_bytes(bytes: Vec<u8>, family: Family, seed: u64, index: u64) -> Case {
        Case::from_bytes_for(bytes, family, seed, index, &Settings::DEFAULT)
    }

    fn from_bytes_for(bytes: Vec<u8>, family: Family, seed: u64, index: u64, settings: &Settings) -> Case {
        let mut u = Unstructured::new(&bytes);
        let config = Config::arbitrary(&mut u).unwrap_or_default();
        // `generate` never fails on short input (it reads zeros past the end).
        let program = generate_for(&mut u, &config, family, settings).expect("the generator accepts any input");
        Case { seed, index, bytes, config, program }
    }
}
