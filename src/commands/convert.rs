//! `stagecheck convert`: prints the converted program, or its source map.

use stagecheck::input::{read_program, InputError};
use std::path::Path;
use std::process::ExitCode;

pub(crate) fn convert(file: &Path, map: bool) -> Result<ExitCode, InputError> {
    let source = read_program(file)?;
    let path = file.display().to_string();
    match stagecheck_transformer::convert_verified(&source, &path) {
        Ok(c) => {
            if map {
                for (i, line) in c.source.lines().enumerate() {
                    let o = c.map.lines.get(i).copied().unwrap_or(0);
                    let o = if o == 0 { "-".to_string() } else { o.to_string() };
                    println!("{:>4} {:>4} | {line}", i + 1, o);
                }
            } else {
                print!("{}", c.source);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if e.construct == "syntax" => Err(InputError(format!("{}:{}: syntax error: {}", e.file, e.line, e.reason))),
        Err(e) => {
            eprintln!("{e}");
            Ok(ExitCode::from(1))
        }
    }
}
