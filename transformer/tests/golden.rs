//! Golden tests: each `golden/NAME.py` converts to exactly
//! `golden/NAME.expected` (converted source, or the ConversionError).
//! Regenerate with `STAGECHECK_BLESS=1 cargo test --release -p
//! stagecheck-transformer --test golden`, then read the diff.

use std::path::Path;

#[test]
fn golden_conversions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let bless = std::env::var_os("STAGECHECK_BLESS").is_some();
    let mut inputs: Vec<_> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "py")).collect();
    inputs.sort();
    assert!(inputs.len() >= 10, "golden inputs missing in {}", dir.display());
    let mut failures = Vec::new();
    for input in inputs {
        let source = std::fs::read_to_string(&input).unwrap();
        let name = input.file_name().unwrap().to_string_lossy().to_string();
        let actual = match stagecheck_transformer::convert_verified(&source, &name) {
            Ok(c) => c.source,
            Err(e) => format!("{e}\n"),
        };
        let expected_path = input.with_extension("expected");
        if bless {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_else(|_| panic!("{} missing: bless it", expected_path.display()));
        if expected != actual {
            failures.push(format!("--- {name}: expected\n{expected}\n--- {name}: actual\n{actual}"));
        }
    }
    assert!(failures.is_empty(), "golden mismatches:\n{}", failures.join("\n"));
}
