//! `tidepool policy check` and `policy test` on real modules: the JSON contract, the
//! exit status, and clear errors for bad files. MISSION O1, A3.

mod common;

use common::policies::dir;
use common::tidepool;
use serde_json::Value;

fn check(file: &str) -> (bool, Value) {
    let out = tidepool(&["policy", "check", file, "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    (out.status.success(), report)
}

#[test]
fn check_reports_a_good_module_and_exits_zero() {
    let path = dir().join("quota.wasm");
    let (ok, r) = check(path.to_str().unwrap());
    assert!(ok, "{r}");
    assert_eq!(r["ok"], true);
    assert_eq!(r["kind"], "quota");
    assert_eq!(r["interface"], "1.0.0");
    assert_eq!(r["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(r["errors"].as_array().map(Vec::len), Some(0));
}

#[test]
fn check_names_what_is_wrong_and_exits_non_zero() {
    let snoop = dir().join("wasi-snoop.wasm");
    let (ok, r) = check(snoop.to_str().unwrap());
    assert!(!ok);
    assert_eq!(r["ok"], false);
    let errors = r["errors"].to_string();
    assert!(errors.contains("wasi:filesystem"), "{errors}");
    let junk = common::temp_file("junk.wasm", "this is not WebAssembly");
    let (ok, r) = check(junk.to_str().unwrap());
    assert!(!ok);
    assert!(r["errors"].to_string().contains("not a WebAssembly binary"), "{r}");
    let out = tidepool(&["policy", "check", "/nonexistent/p.wasm"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/p.wasm"));
}

#[test]
fn test_runs_the_conformance_vectors() {
    let out = tidepool(&["policy", "test", dir().join("las2d.wasm").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("ok   large: deterministic") && text.ends_with("0 failed\n"), "{text}");
    let out = tidepool(&["policy", "test", dir().join("wasi-snoop.wasm").to_str().unwrap()]);
    assert!(!out.status.success());
}
