//! `tidepool bench cycle` prints its figures as JSON (a contract other tools parse).

mod common;

use common::{f, json};

#[test]
fn bench_cycle_reports_its_figures() {
    let r = json(&[
        "bench",
        "cycle",
        "--nodes",
        "50",
        "--gpus-per-node",
        "8",
        "--pending",
        "600",
        "--groups",
        "4",
        "--cycles",
        "3",
        "--policies",
        "native",
        "--format",
        "json",
    ]);
    assert_eq!(f(&r, "pending"), 600.0);
    assert_eq!(f(&r, "gpus"), 400.0);
    let placed = f(&r, "placed");
    // A quarter of 400 GPUs is free and most queued jobs need one or two.
    assert!(placed > 10.0 && placed < 600.0, "placed {placed}");
    assert!(f(&r, "cycle_ms_median") > 0.0);
    assert!(f(&r, "cycle_ms_p99") >= f(&r, "cycle_ms_median"));
    assert!(f(&r, "placements_per_s") > 0.0);
}

// bench api: submits through the real handlers and places every job (figures are the
// benchmark's; this checks the command works and reports them).
#[test]
fn bench_api_submits_and_places_every_job() {
    let dir = common::fresh_dir("bench-api");
    let url = format!("sqlite:{}", dir.join("b.db").display());
    let r = json(&["bench", "api", "--jobs", "120", "--concurrency", "4", "--database-url", &url]);
    assert_eq!(f(&r, "jobs"), 120.0);
    assert_eq!(f(&r, "placed"), 120.0, "the pool is sized so every job fits");
    for key in ["submit_per_s", "placed_per_s", "p99_submit_ms", "submitted_and_placed_per_s"] {
        assert!(f(&r, key) > 0.0, "{key} in {r}");
    }
    let out = common::tidepool(&["bench", "api", "--jobs", "10", "--database-url", "mysql://nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither sqlite"));
    let _ = std::fs::remove_dir_all(&dir);
}
