//! The server's layers point down only (issue 11, "Domain services between HTTP and the
//! records"): nothing outside `server/src/http/` names the HTTP layer or axum, so domain
//! rules, the dispatcher and fleet sync never depend on how a request arrived. Only the
//! entry points that mount the router may, and only for that.

use std::path::{Path, PathBuf};

/// What marks a dependency on the HTTP layer.
const MARKS: &[&str] = &["crate::http", "axum::", "use axum", "super::http"];

/// Files outside `http/` that mount the router, with why they may name it.
const ENTRY_POINTS: &[(&str, &str)] = &[
    ("serve.rs", "`tidepool serve` builds the AppState and serves app(state)"),
    ("bench_api.rs", "`tidepool bench api` builds an AppState and drives app(state) without a socket"),
];

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read src").flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` that name the HTTP layer, as `file:line: text`; comments count
/// too only when they are code (`//` lines are skipped: a doc may speak of HTTP).
fn offending(file: &str, text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .filter(|(_, l)| MARKS.iter().any(|m| l.contains(m)))
        .map(|(n, l)| format!("{file}:{}: {}", n + 1, l.trim()))
        .collect()
}

#[test]
fn the_scan_finds_what_it_looks_for() {
    // The scanner itself must be able to fail, or the real test proves nothing.
    let sample =
        "use crate::store::Store;\nuse crate::http::{ApiError, AppState};\n/// crate::http in a doc\n";
    assert_eq!(offending("x.rs", sample), vec!["x.rs:2: use crate::http::{ApiError, AppState};".to_string()]);
    assert_eq!(offending("y.rs", "    axum::http::StatusCode::OK\n").len(), 1);
}

#[test]
fn nothing_below_http_imports_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    assert!(files.len() > 50, "the scan should see the whole server, saw {} files", files.len());
    let mut found = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(&src).expect("under src").to_string_lossy().replace('\\', "/");
        if rel.starts_with("http/") || ENTRY_POINTS.iter().any(|(f, _)| *f == rel) {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("read source");
        found.extend(offending(&rel, &text));
    }
    assert!(
        found.is_empty(),
        "these modules import the HTTP layer; give them domain types and map them to ApiError in \
         http/ instead:\n{}",
        found.join("\n")
    );
}
