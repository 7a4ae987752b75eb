//! `tidepool policy build`: one command from a policy crate to a loadable module.
//! Builds the crate for `wasm32-unknown-unknown` (no WASI imports, ~3× faster to
//! instantiate than a wasip2 build) and turns the core module into a component with
//! `wit-component`, from the interface types the SDK's bindings embed in it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The flags cargo passes to rustc for the modules' target only (not build scripts).
const RUSTFLAGS: &str = "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS";

/// A core module with embedded interface types → a component.
pub fn componentize(module: &[u8]) -> Result<Vec<u8>, String> {
    wit_component::ComponentEncoder::default()
        .validate(true)
        .module(module)
        .and_then(|e| e.encode())
        .map_err(|e| format!("cannot make a component: {e:#}"))
}

/// Builds the crate at `dir` and writes its component to `out`.
pub fn build(dir: &Path, out: &Path) -> Result<PathBuf, String> {
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(format!("{} has no Cargo.toml", dir.display()));
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // 128-bit SIMD (on in the runtime, as in every wasmtime): LLVM vectorises the
    // modules' loops over columns (measured: the default priority module's call 5-10%
    // faster at 50,000 jobs). Wasm's SIMD lanes compute exactly what scalar code does
    // (only NaN bit patterns may differ), so answers stay the same on every host.
    let mut rustflags = std::env::var(RUSTFLAGS).unwrap_or_default();
    rustflags.push_str(" -C target-feature=+simd128");
    let output = Command::new(cargo)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-unknown-unknown",
            "--message-format=json-render-diagnostics",
        ])
        .arg("--manifest-path")
        .arg(&manifest)
        // Small modules without debug sections, whatever the crate's own profile says.
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "true")
        .env("CARGO_PROFILE_RELEASE_LTO", "true")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
        .env(RUSTFLAGS, rustflags.trim())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("cargo build of {} failed", dir.display()));
    }
    // The crate's own artifact: cargo reports manifest paths canonicalized.
    let manifest = manifest.canonicalize().unwrap_or(manifest);
    let wasm = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| l.contains("\"compiler-artifact\""))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["manifest_path"].as_str().map(Path::new) == Some(manifest.as_path()))
        .flat_map(|v| v["filenames"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .find(|f| f.extension().is_some_and(|e| e == "wasm"))
        .ok_or_else(|| format!("cargo built no .wasm for {} (is it a cdylib?)", dir.display()))?;
    let module = std::fs::read(&wasm).map_err(|e| format!("{}: {e}", wasm.display()))?;
    let component = componentize(&module)?;
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(out, component).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out.to_path_buf())
}
