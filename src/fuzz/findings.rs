//! Findings on disk: one directory per signature under the run's
//! `findings/`, written whole or not at all (a temporary directory renamed
//! into place), so a `kill -9` mid-run leaves every announced finding
//! readable. A store opened on an existing directory knows its findings: the
//! next run carries on and does not save them twice.
//!
//! Each finding holds `program.py` (the program, with a header saying how it
//! was made and the one command that replays it), `input.bin` (the bytes),
//! `config.json` (the generator's Config) and `verdict.json`.

use super::case::Case;
use super::outcome::Checked;
use super::report::write_synced;
use super::signature::Signature;
use crate::modes::Mode;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub struct Store {
    dir: PathBuf,
    known: HashSet<String>,
    /// The target the run's programs ran under (`--target`): replayed with it.
    pub target: Option<String>,
}

impl Store {
    /// Opens `dir`, knowing the findings in it; removes the temporary
    /// directories of runs killed mid-save (`.tmp-<id>-<pid>` of a process
    /// that is gone): they were never announced.
    pub fn open(dir: &Path) -> std::io::Result<Store> {
        std::fs::create_dir_all(dir)?;
        let mut known = HashSet::new();
        for entry in std::fs::read_dir(dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if let Some(rest) = name.strip_prefix(".tmp-") {
                let pid = rest.rsplit('-').next().and_then(|p| p.parse::<u32>().ok());
                if pid.is_some_and(|p| p != std::process::id() && !Path::new(&format!("/proc/{p}")).exists()) {
                    let _ = std::fs::remove_dir_all(dir.join(&name));
                }
            } else if !name.starts_with('.') {
                known.insert(name);
            }
        }
        Ok(Store { dir: dir.to_path_buf(), known, target: None })
    }

    /// Known findings of the modes', the gradient and the CPython oracle without `reduced.py` (a run killed
    /// while reducing): their directories and signatures' kind and mode.
    pub fn unreduced(&self) -> Vec<(PathBuf, String, String)> {
        let mut out: Vec<_> = self
            .known
            .iter()
            .map(|id| self.dir.join(id))
            .filter(|d| !d.join("reduced.py").exists())
            .filter_map(|d| {
                let sig: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("signature.json")).ok()?).ok()?;
                let (kind, mode) = (sig["kind"].as_str()?.to_string(), sig["mode"].as_str()?.to_string());
                Some((d, kind, mode))
            })
            .collect();
        out.sort();
        out
    }

    /// Saves a new finding; `None` when its signature is already stored.
    pub fn save(&mut self, case: &Case, checked: &Checked, signature: &Signature) -> std::io::Result<Option<PathBuf>> {
        match &checked.kind {
            super::outcome::Kind::Finding { verdict, .. } => self.save_verdict(case, verdict, signature),
            _ => self.save_verdict(case, &(), signature),
        }
    }

    /// Saves a new finding with any verdict (the modes' or the CPython oracle's).
    pub fn save_verdict(
        &mut self,
        case: &Case,
        verdict: &impl serde::Serialize,
        signature: &Signature,
    ) -> std::io::Result<Option<PathBuf>> {
        let id = signature.id();
        if self.known.contains(&id) {
            return Ok(None);
        }
        let verdict = serde_json::to_string_pretty(verdict).unwrap_or_default();
        let dest = self.dir.join(&id);
        let tmp = self.dir.join(format!(".tmp-{id}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp)?;
        let replay = replay_command(&signature.mode, self.target.as_deref(), &dest.join("program.py"));
        let program = format!(
            "# stagecheck finding {id}\n# seed {} index {} family {:?} generator {} constructs: {}\n# replay: {}\n\n{}",
            case.seed,
            case.index,
            case.program.family,
            stagecheck_generator::VERSION,
            signature.constructs.join(", "),
            crate::corpus::header_value(&replay),
            case.program.source
        );
        write_synced(&tmp.join("program.py"), program.as_bytes())?;
        write_synced(&tmp.join("input.bin"), &case.bytes)?;
        let config = serde_json::to_string_pretty(&case.config).unwrap_or_default();
        write_synced(&tmp.join("config.json"), config.as_bytes())?;
        let sig = serde_json::to_string_pretty(signature).unwrap_or_default();
        write_synced(&tmp.join("signature.json"), sig.as_bytes())?;
        write_synced(&tmp.join("verdict.json"), verdict.as_bytes())?;
        std::fs::rename(&tmp, &dest)?;
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        self.known.insert(id);
        Ok(Some(dest))
    }
}

/// The one command that replays the finding whose program is `program`,
/// each word quoted for the shell ([`crate::shell`]): the target, the
/// mode and the path can hold anything.
pub fn replay_command(mode: &str, target: Option<&str>, program: &Path) -> String {
    let mut words = vec!["stagecheck".to_string(), "check".into()];
    words.extend(replay_flags(mode, target));
    words.push(program.display().to_string());
    crate::shell::command(words)
}

/// The flags `stagecheck check` needs to replay a finding whose signature
/// names `mode`: the CPython oracle, or `staged-gpu`, which `check` runs only
/// when asked for; under a target, the target (its modes are `check`'s then).
fn replay_flags(mode: &str, target: Option<&str>) -> Vec<String> {
    if let Some(t) = target {
        return vec!["--target".into(), t.into()];
    }
    match mode {
        "cpython" => vec!["--oracle".into(), "cpython".into()],
        "gradcheck" => vec!["--gradcheck".into()],
        "staged-gpu" => {
            let modes: Vec<&str> = super::MODES.iter().chain([&Mode::StagedGpu]).map(|m| m.name()).collect();
            vec!["--modes".into(), modes.join(",")]
        }
        _ => Vec::new(),
    }
}
