//! What `stagecheck report` takes from a run directory's `summary.json`
//! before it joins any of it to a path. A run directory may come from
//! elsewhere (a CI artifact, a shard of another machine) and its summary
//! may have been edited: a finding id `../../x/y` would have had `report`
//! copy files to, and remove a temporary directory at, a place outside
//! `--out`. So a finding is kept only when its id is a plain directory name
//! ([`id_problem`]) and its recorded path is that finding's directory
//! (`.../findings/<id>`, as the fuzz loop and `report` write it); the path
//! then read from is the run directory's own `findings/<id>`, never the
//! recorded one. A refused finding is left out of the report, with a line
//! saying which file and why.

use super::stats::Finding;
use std::path::Path;

/// Why `id` cannot name a finding's directory, if it cannot: an id is
/// letters, digits, `-`, `_` and `.`, at most 200 of them, and does not
/// start with `.` (`.`, `..`, and the fuzz loop's `.tmp-*` directories).
pub fn id_problem(id: &str) -> Option<&'static str> {
    if id.is_empty() || id.len() > 200 {
        return Some("an id is 1 to 200 characters");
    }
    if !id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
        return Some("an id is letters, digits, `-`, `_` and `.`: it names a directory under findings/");
    }
    if id.starts_with('.') {
        return Some("an id does not start with `.`");
    }
    None
}

/// Keeps the findings of `summary` (the file read, in run directory `dir`)
/// that name their own directory, each with its path set to
/// `dir/findings/<id>`; says in `refused` why each other was left out.
pub fn keep_valid(summary: &Path, dir: &Path, findings: &mut Vec<Finding>, refused: &mut Vec<String>) {
    findings.retain_mut(|f| {
        let why = match id_problem(&f.id) {
            Some(why) => why.to_string(),
            None if !f.path.ends_with(Path::new("findings").join(&f.id)) => {
                format!("its path {:?} is not its own findings/<id> directory", f.path)
            }
            None => {
                f.path = dir.join("findings").join(&f.id);
                return true;
            }
        };
        refused.push(format!("{}: finding {:?} left out: {why}", summary.display(), f.id));
        false
    });
}
