//! The failover drill (issue 14, O3), PostgreSQL only: `tidepool drill failover` starts two
//! real `tidepool serve` processes on one database with real agents (fake GPUs), submits a
//! burst over HTTP and SIGKILLs the leader halfway, twice. Every acknowledged job runs
//! once (nothing written twice, nothing lost, with agents moving between servers), a
//! standby takes over, and the old leader comes back fenced. The result is a record that
//! `tidepool drill list` and `GET /api/drills` (admins only) read back. Timing is only
//! bounded loosely: the figures are the drill's to print, not the test's to judge.

mod common;

use std::process::Command;

use common::api::fresh_postgres;
use common::live::{free_port, http, login, serve};
use tidepool_api::drills::{Drill, DrillList};

fn tidepool(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tidepool"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the tidepool binary runs")
}

/// HA needs PostgreSQL: a drill on SQLite is refused with the reason, before anything starts.
#[test]
fn a_drill_on_sqlite_is_refused_with_the_reason() {
    let dir = common::fresh_dir("drill-sqlite");
    let url = format!("sqlite:{}", dir.join("t.db").display());
    let out = tidepool(&["drill", "failover", "--database-url", &url], &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs PostgreSQL"), "{err}");
}

/// O3: two rounds of SIGKILLed leaders, on two servers and two agents.
#[test]
fn killing_the_leader_mid_burst_loses_nothing_runs_nothing_twice_and_fences_it() {
    let Some(url) = fresh_postgres("failover_drill") else {
        eprintln!(
            "skipped: the failover drill needs PostgreSQL (set TIDEPOOL_TEST_POSTGRES; tests/run.sh does)"
        );
        return;
    };
    let out = tidepool(
        &["drill", "failover", "--database-url", &url, "--servers", "2", "--rounds", "2", "--jobs", "16"],
        &[],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the drill failed: {text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("passed"), "{text}");

    // The record, as the command line reads it back.
    let out = tidepool(&["drill", "list", "--database-url", &url, "--format", "json"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let drills: Vec<Drill> = serde_json::from_slice(&out.stdout).expect("drills as JSON");
    assert_eq!(drills.len(), 1, "{drills:?}");
    let drill = &drills[0];
    assert!(drill.passed && drill.kind == "failover" && drill.servers == 2, "{drill:?}");
    assert!(drill.finished_at >= drill.started_at && drill.started_at > 0, "{drill:?}");
    assert_eq!(drill.rounds.len(), 2, "{drill:?}");
    for r in &drill.rounds {
        // Every submission was acknowledged by some server, the dead one's refused ones retried.
        assert_eq!(r.acknowledged, 16, "{r:?}");
        assert_eq!((r.written_twice, r.lost), (0, 0), "{r:?}");
        assert!(r.old_leader_fenced, "{r:?}");
        // A takeover happened (a new epoch's cycle after the kill), within a sane bound.
        assert!(r.takeover_ms > 0 && r.takeover_ms < 60_000, "{r:?}");
    }
    assert!(drill.takeover_max_ms >= drill.takeover_median_ms, "{drill:?}");

    // The database now holds jobs: another drill needs --force.
    let out = tidepool(&["drill", "failover", "--database-url", &url, "--rounds", "1"], &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));

    // Admins read the drills over HTTP; members are refused.
    let admin = ["admin", "--database-url", &url];
    let pw = [("TIDEPOOL_NEW_PASSWORD", "ops-password-1")];
    assert!(tidepool(&[&admin[..], &["add-user", "ops", "--role", "admin"]].concat(), &pw).status.success());
    assert!(tidepool(&[&admin[..], &["add-group", "lab"]].concat(), &[]).status.success());
    let member = ["add-user", "lab-dev", "--role", "member", "--group", "lab"];
    assert!(tidepool(&[&admin[..], &member[..]].concat(), &pw).status.success());
    let dir = common::fresh_dir("drill-api");
    let addr = format!("127.0.0.1:{}", free_port());
    let _server = serve(&dir.display().to_string(), &addr, Some(&url), &["--no-demo"]);
    let token = login(&addr, "ops", "ops-password-1");
    let (status, body) = http(&addr, "GET", "/api/drills", Some(&token), None).expect("request");
    assert_eq!(status, 200, "{body}");
    let list: DrillList = serde_json::from_str(&body).expect("a DrillList");
    assert_eq!(list.drills, drills);
    let token = login(&addr, "lab-dev", "ops-password-1");
    let (status, body) = http(&addr, "GET", "/api/drills", Some(&token), None).expect("request");
    assert_eq!(status, 403, "{body}");
}
