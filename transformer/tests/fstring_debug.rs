//! f-string `=` forms: converted whatever their expression, meaning what
//! they meant.
//!
//! CPython's own `ast` holds `f"{e = }"` as the text `e = ` and a field
//! `{e!r}` (or `{e:spec}`, `{e!c:spec}`), so the lowered f-string
//! (`passes::fstring_debug`) printed and parsed by python3 must give exactly
//! the original's `ast.dump`: text verbatim (whitespace, newlines, nested
//! quotes), conversion and format spec alike. Then, converted by every pass
//! (calls, subscripts, conditionals and `and`/`or` inside are rewritten), each
//! program converts with the printed tree checked (`convert_verified`) and
//! has no `=` form left. What the converted programs print is compared with
//! the originals by the corpus (`corpus/conversion/fstrings/`, replayed by
//! the root crate's `tests/corpus.rs`).
//!
//!     cargo test --release --workspace --test fstring_debug

use stagecheck_transformer::{convert, convert_verified, passes::fstring_debug, syntax, unparse};
use std::io::Write;
use std::process::{Command, Stdio};

/// Function bodies (one statement each, at 4 spaces) with `=` forms of
/// every shape: whitespace around `=`, conversions, specs with nested
/// fields, nested and multi-line f-strings, calls, comprehensions, lambdas,
/// walrus, subscripts, conditionals, `and`/`or`, implicit concatenation.
const BODIES: &[&str] = &[
    r#"print(f"{f(2) = }")"#,
    r#"print(f"{f(2)=}|{ f(3) =}|{f(4)= }|{  f(5)  =  }")"#,
    r#"print(f"{x = !r}|{x = !s}|{x=!a}|{x = :>10}|{x = !s:>10}|{x=:}|{x=!r:}")"#,
    r#"print(f"{xs[0] = :>{w}}|{f(1) = :{'>'}{w + 1}}|{x:{w = }}|{x:a{f(w) = }b}")"#,
    r#"print(f"{[y * 2 for y in xs if y] = }", f"{ {k: f(k) for k in xs} = }")"#,
    r#"print(f"{(lambda y: y + 1)(3) = }", f"{(lambda: 1)() = !s}")"#,
    r#"print(f"{(n := len(xs)) = } {n = }")"#,
    r#"print(f"{f'{f(5) = }' = }", f'{f"{x = :>{w}}" = }')"#,
    "print(f\"\"\"{\nf(6)\n = }\"\"\", f'''{ f(1)\n  =  !r:>{w}}''')",
    r#"print(f"{'a' if xs else 'b' = }", f"{xs and w = }", f"{not xs or w = }", f"{1 < w < 9 = }")"#,
    r#"print(f"x{{}}{f(7)=}y\ud800" "tail" f"{x=}", rf"{f(2) = }\n")"#,
    r#"print(f'{"q" + str(f(2)) = }', f"{'q' = }", f"{ {1: 'a'}[1] = }")"#,
    r#"return f"{w = }" + f"{w=!r:>{f(w)}}""#,
];

fn program(body: &str) -> String {
    let body = body.replace('\n', "\n    ").replace("\n    \n", "\n\n");
    format!("def f(a):\n    return a * 2\n\n\ndef g(xs, w, x):\n    {body}\n")
}

/// `ast.dump` of each source by python3, or its error.
fn cpython_ast_dumps(sources: &[String]) -> Vec<String> {
    let script = "import ast, json, sys\nfor line in sys.stdin:\n    s = json.loads(line)\n    try:\n        print(json.dumps(ast.dump(ast.parse(s))))\n    except SyntaxError as e:\n        print(json.dumps('SyntaxError: %s' % e))\n";
    let mut child =
        Command::new("python3").args(["-c", script]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("python3 runs");
    let mut stdin = child.stdin.take().unwrap();
    for s in sources {
        writeln!(stdin, "{}", json_string(s)).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python3 failed");
    String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect()
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `=` forms in `source`, at any depth.
fn debug_forms(source: &str) -> usize {
    use ruff_python_ast::visitor::{walk_interpolated_string_element, Visitor};
    use ruff_python_ast::InterpolatedStringElement;
    struct Count(usize);
    impl Visitor<'_> for Count {
        fn visit_interpolated_string_element(&mut self, e: &InterpolatedStringElement) {
            if e.as_interpolation().is_some_and(|i| i.debug_text.is_some()) {
                self.0 += 1;
            }
            walk_interpolated_string_element(self, e);
        }
    }
    let mut count = Count(0);
    for stmt in &syntax::parse(source).unwrap_or_else(|e| panic!("{e}\n{source}")) {
        count.visit_stmt(stmt);
    }
    count.0
}

/// The module with its `=` forms lowered, printed as the converter prints.
fn lowered(source: &str) -> String {
    let mut body = syntax::parse(source).unwrap_or_else(|e| panic!("{e}\n{source}"));
    fstring_debug::run(&mut body);
    unparse::printed_from(source, &body).source
}

#[test]
fn lowering_is_the_same_tree_to_cpython() {
    let mut sources = Vec::new();
    for body in BODIES {
        let original = program(body);
        assert!(debug_forms(&original) > 0, "no `=` form in\n{original}");
        let lowered = lowered(&original);
        assert_eq!(debug_forms(&lowered), 0, "an `=` form is left:\n{lowered}");
        sources.push(original);
        sources.push(lowered);
    }
    // CRLF line ends inside a multi-line `=` form: Python's tokenizer reads
    // them as `\n`, and so does the lowered text.
    let crlf = "def g():\r\n    print(f\"\"\"{\r\nf(6)\r\n=}\"\"\")\r\n".to_string();
    sources.push(crlf.clone());
    sources.push(lowered(&crlf));
    let dumps = cpython_ast_dumps(&sources);
    assert_eq!(dumps.len(), sources.len());
    for (pair, dump) in sources.chunks(2).zip(dumps.chunks(2)) {
        assert!(!dump[0].contains("SyntaxError"), "python3 rejects the original: {}\n{}", dump[0], pair[0]);
        assert_eq!(dump[0], dump[1], "\n--- original\n{}\n--- lowered\n{}", pair[0], pair[1]);
    }
}

#[test]
fn converted_whatever_the_expression() {
    for body in BODIES {
        let source = program(body);
        for (how, result) in [("convert", convert(&source, "p.py")), ("convert_verified", convert_verified(&source, "p.py"))] {
            let converted = result.unwrap_or_else(|e| panic!("{how} refused: {e}\n{source}")).source;
            assert_eq!(debug_forms(&converted), 0, "{how}: an `=` form is left:\n{converted}");
        }
    }
}

/// The issue's reproducer: refused by the printer before.
#[test]
fn reproducer_converts() {
    let source = "def f(a):\n    return a\n\n\ndef g():\n    print(f\"{f(2) = }\")\n";
    let converted = convert_verified(source, "p.py").unwrap().source;
    assert!(converted.contains(r#"f"f(2) = {ag__.converted_call(f)(2)!r}""#), "{converted}");
}

/// Module-level statements stay as written, `=` forms included.
#[test]
fn module_level_forms_stay_as_written() {
    let source = "x = 1\nprint(f\"{x = }\", f'{x+1=:>4}')\n";
    let converted = convert_verified(source, "p.py").unwrap().source;
    assert!(converted.contains("print(f\"{x = }\", f'{x+1=:>4}')"), "{converted}");
}
