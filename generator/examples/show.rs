use arbitrary::Unstructured;
use stagecheck_generator::{generate, Config, Family};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let fam = if args[1] == "t" { Family::Tensor } else { Family::Plain };
    let seed: u64 = args[2].parse().unwrap();
    let len: usize = args[3].parse().unwrap();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let data: Vec<u8> = (0..len).map(|_| { x ^= x >> 12; x ^= x << 25; x ^= x >> 27; (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8 }).collect();
    let p = generate(&mut Unstructured::new(&data), &Config::default(), fam).unwrap();
    print!("{}", p.source);
}
