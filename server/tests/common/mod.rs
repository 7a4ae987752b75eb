//! Helpers for tests that run the real `tidepool` binary.
#![allow(dead_code)] // each test file uses its own subset

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

pub mod api;
pub mod live;
pub mod policies;
pub mod receivers;
pub mod shell;
pub mod tls;
pub mod typed;

/// The shared traces folder: `TIDEPOOL_TRACES`, else `shared/traces` beside the checkout.
pub fn traces() -> PathBuf {
    let dir = std::env::var_os("TIDEPOOL_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces"));
    assert!(dir.join("philly/philly.csv").is_file(), "Philly trace not found under {}", dir.display());
    dir
}

pub fn philly() -> (String, String) {
    let t = traces();
    (t.join("philly/philly.csv").display().to_string(), t.join("philly/vc_nodes.csv").display().to_string())
}

pub fn tidepool(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tidepool")).args(args).output().expect("the tidepool binary runs")
}

/// Runs the binary, asserts success, and parses its stdout as one JSON object.
#[track_caller]
pub fn json(args: &[&str]) -> Value {
    let out = tidepool(args);
    assert!(out.status.success(), "tidepool {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

/// An empty folder of its own in the temp dir, `tidepool-<label>-<pid>-<n>`. Whatever an
/// earlier run left under that name is removed first: process ids repeat between runs (a
/// fresh container starts them low), and a stale database there would already hold this
/// test's users.
pub fn fresh_dir(label: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("tidepool-{label}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A fresh file with `contents` in the temp dir.
pub fn temp_file(name: &str, contents: &str) -> PathBuf {
    let path = fresh_dir("test").join(name);
    std::fs::write(&path, contents).expect("temp file");
    path
}

pub fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("`{key}` missing or not a number in {v}"))
}
