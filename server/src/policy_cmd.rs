//! `tidepool policy …`: build, check and test policy modules from the shell.

use std::path::Path;

use serde::Serialize;

use crate::cli::{Format, PolicyCommand};
use crate::policy::{Limits, Runtime, conformance};

/// The report of `policy check` (a contract other tools parse).
#[derive(Debug, Serialize)]
pub struct CheckReport {
    pub ok: bool,
    pub kind: Option<String>,
    pub interface: Option<String>,
    pub sha256: String,
    pub errors: Vec<String>,
}

/// Validates a module the way an upload is validated: load, then the conformance vectors.
pub fn check(runtime: &Runtime, bytes: &[u8]) -> CheckReport {
    let sha256 = crate::policy::runtime::sha256_hex(bytes);
    match runtime.load(bytes) {
        Ok(module) => {
            let errors = conformance::run(runtime, &module);
            CheckReport {
                ok: errors.is_empty(),
                kind: Some(module.kind.name().into()),
                interface: Some(module.interface.clone()),
                sha256,
                errors,
            }
        }
        Err(errors) => CheckReport { ok: false, kind: None, interface: None, sha256, errors },
    }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn runtime() -> Result<Runtime, String> {
    Runtime::new(Limits::default(), None).map_err(|e| format!("cannot start the policy runtime: {e:#}"))
}

/// Runs a `policy` subcommand; `Ok((output, success))`.
pub fn run(command: &PolicyCommand) -> Result<(String, bool), String> {
    match command {
        PolicyCommand::Build { dir, out } => {
            let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("policy");
            let out = out.clone().unwrap_or_else(|| Path::new(&format!("{name}.wasm")).to_path_buf());
            let path = crate::policy::build::build(dir, &out)?;
            let report = check(&runtime()?, &read(&path)?);
            let summary =
                format!("{} ({} bytes)", path.display(), std::fs::metadata(&path).map_or(0, |m| m.len()));
            Ok((format!("{summary}\n{}", serde_json::to_string(&report).expect("serializes")), report.ok))
        }
        PolicyCommand::Check { file, format } => {
            let report = check(&runtime()?, &read(file)?);
            let text = match format {
                Format::Json => serde_json::to_string(&report).expect("serializes"),
                Format::Text if report.ok => format!(
                    "ok: {} policy, interface {}, sha256 {}",
                    report.kind.as_deref().unwrap_or("?"),
                    report.interface.as_deref().unwrap_or("?"),
                    report.sha256
                ),
                Format::Text => format!("not ok:\n  {}", report.errors.join("\n  ")),
            };
            Ok((text, report.ok))
        }
        PolicyCommand::Test { file } => {
            let runtime = runtime()?;
            let module = runtime.load(&read(file)?).map_err(|e| e.join("; "))?;
            let results = conformance::results(&runtime, &module);
            let failed = results.iter().filter(|r| r.1.is_some()).count();
            let mut out = String::new();
            for (name, failure) in &results {
                match failure {
                    None => out += &format!("ok   {name}\n"),
                    Some(why) => out += &format!("FAIL {name}: {why}\n"),
                }
            }
            out += &format!("{} vectors, {} failed", results.len(), failed);
            Ok((out, failed == 0))
        }
    }
}
