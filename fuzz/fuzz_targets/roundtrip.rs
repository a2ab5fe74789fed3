//! Any UTF-8 that parses as Python: the transformer's printer must print a
//! program that parses back to the same tree.
#![no_main]
use libfuzzer_sys::fuzz_target;
use ruff_python_ast::comparable::ComparableMod;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else { return };
    let Ok(parsed) = ruff_python_parser::parse_module(source) else { return };
    let printed = stagecheck_transformer::unparse::unparse(parsed.suite());
    let again = ruff_python_parser::parse_module(&printed).expect("printed code parses");
    let a = ruff_python_ast::Mod::Module(parsed.into_syntax());
    let b = ruff_python_ast::Mod::Module(again.into_syntax());
    assert!(ComparableMod::from(&a) == ComparableMod::from(&b), "round trip changed the tree:\n{printed}");
});
