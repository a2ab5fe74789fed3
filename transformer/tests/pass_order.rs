//! The pass order is written once, in the table of `src/passes/mod.rs`:
//! each pass's file opens with its number from that table, and
//! `convert_body` runs the passes in the table's order. A pass moved,
//! added or renumbered in one place and not the others fails here.

use std::path::Path;

fn source(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The table's rows: (number, module), in order.
fn table() -> Vec<(usize, String)> {
    let rows: Vec<(usize, String)> = source("src/passes/mod.rs")
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.strip_prefix("//! |")?.split('|').map(str::trim).collect();
            let number = cells.first()?.parse().ok()?;
            let module = cells.get(1)?.trim_start_matches("[`").trim_end_matches("`]").to_string();
            Some((number, module))
        })
        .collect();
    assert!(rows.len() >= 13, "the table of src/passes/mod.rs has {} rows", rows.len());
    rows
}

#[test]
fn the_table_numbers_the_passes_in_order() {
    for (i, (number, module)) in table().iter().enumerate() {
        assert_eq!(*number, i + 1, "row {} of the table is numbered {number} ({module})", i + 1);
    }
}

#[test]
fn each_pass_file_opens_with_its_number_in_the_table() {
    for (number, module) in table() {
        let text = source(&format!("src/passes/{module}.rs"));
        let first = text.lines().next().unwrap_or_default();
        let expected = format!("//! Pass {number}, ");
        assert!(first.starts_with(&expected), "src/passes/{module}.rs opens with {first:?}, not {expected:?}");
    }
}

#[test]
fn convert_body_runs_the_passes_in_the_table_order() {
    let text = source("src/passes/mod.rs");
    let start = text.find("fn convert_body(").expect("convert_body is in src/passes/mod.rs");
    let body = &text[start..];
    let end = body.find("\n}\n").expect("convert_body ends");
    let body = &body[..end];
    // Where each pass is first called (`module::`), in the function's text.
    let mut at: Vec<(usize, String)> = table()
        .into_iter()
        .map(|(_, module)| {
            let call = format!("{module}::");
            let offset = body.find(&call).unwrap_or_else(|| panic!("convert_body never calls the pass {module}"));
            (offset, module)
        })
        .collect();
    let table_order: Vec<String> = at.iter().map(|(_, m)| m.clone()).collect();
    at.sort();
    let run_order: Vec<String> = at.into_iter().map(|(_, m)| m).collect();
    assert_eq!(run_order, table_order, "convert_body's order against the table's");
}
