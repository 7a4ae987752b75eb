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
