//! `tidepool bench e2e` (issue 15): a real server, a real agent process running each job
//! as a real process, HTTP clients submitting as a member. The figures are the bench's to
//! print; this checks they come from a run where every job really started and ended, on
//! each engine, and that bad input is refused before anything starts.

mod common;

use std::process::Command;

use common::api::fresh_postgres;
use tidepool::bench_e2e::E2eFigures;

fn bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tidepool")).arg("bench").arg("e2e").args(args).output().expect("runs")
}

fn figures(database: Option<&str>, node_dir: Option<&str>) -> E2eFigures {
    let mut args =
        vec!["--jobs", "40", "--clients", "3", "--gpus", "8", "--timeout-s", "120", "--format", "json"];
    if let Some(url) = database {
        args.extend(["--database-url", url]);
    }
    if let Some(dir) = node_dir {
        args.extend(["--node-dir", dir]);
    }
    let out = bench(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the figures as JSON")
}

fn check(f: &E2eFigures, engine: &str) {
    assert_eq!(f.engine, engine);
    assert_eq!((f.jobs, f.clients, f.gpus), (40, 3, 8));
    // Every job ran its process to success on the agent: 40 jobs on 8 GPUs means GPUs
    // were reused, so the reuse gaps exist.
    assert_eq!(f.finished, 40, "{f:?}");
    assert!(f.submitted_per_s > 0.0 && f.started_per_s > 0.0, "{f:?}");
    assert!(f.submit_p50_ms > 0.0 && f.submit_p50_ms <= f.submit_p99_ms, "{f:?}");
    assert!(0 <= f.submit_to_start_p50_s && f.submit_to_start_p50_s <= f.submit_to_start_p99_s, "{f:?}");
    assert!(0 <= f.reuse_p50_s && f.reuse_p50_s <= f.reuse_p99_s, "{f:?}");
    assert!(f.server_cpu_ms_per_job > 0.0 && f.agent_cpu_ms_per_job > 0.0, "{f:?}");
    assert!(f.wall_s > 0.0);
}

#[test]
fn the_bench_runs_every_job_through_a_real_agent_on_sqlite() {
    let f = figures(None, None);
    check(&f, "SQLite");
    assert!(f.node_fs.is_some(), "the agent's file system is named: {f:?}");
}

#[test]
fn the_agent_keeps_its_folders_where_the_bench_is_told_and_leaves_nothing_there() {
    let node = common::fresh_dir("bench-e2e-node");
    let f = figures(None, Some(node.to_str().expect("a UTF-8 path")));
    check(&f, "SQLite");
    let left: Vec<_> = std::fs::read_dir(&node).expect("still there").collect();
    assert!(left.is_empty(), "the bench's node folder is removed: {left:?}");
    let out = bench(&["--node-dir", "/proc/version"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--node-dir"), "{out:?}");
}

#[test]
fn the_bench_runs_every_job_through_a_real_agent_on_postgres() {
    let Some(url) = fresh_postgres("bench_e2e") else {
        eprintln!("skipped: needs PostgreSQL (set TIDEPOOL_TEST_POSTGRES; tests/run.sh does)");
        return;
    };
    check(&figures(Some(&url), None), "PostgreSQL");
}

#[test]
fn bad_input_is_refused_before_anything_starts() {
    let out = bench(&["--database-url", "mysql://nowhere"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("mysql://nowhere"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = bench(&["--gpus", "65"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("65"));
}
