//! Acceptance on the real Philly trace (Oct–Nov 2017, 11 groups, 8 GPUs a node):
//! one shared pool with quotas, borrowing and reclaim against today's silos.
//! MISSION D1 (critical first, idle capacity backfilled), D5, Q1, Q4, R1, B1.

mod common;

use std::sync::OnceLock;
use std::thread;

use common::{f, json, philly};
use serde_json::Value;

fn run(mode: &str, scale: &str) -> Value {
    let (trace, groups) = philly();
    json(&[
        "simulate",
        "--trace",
        &trace,
        "--groups",
        &groups,
        "--from",
        "2017-10-01",
        "--to",
        "2017-11-30",
        "--capacity-scale",
        scale,
        "--mode",
        mode,
        "--format",
        "json",
    ])
}

#[test]
fn pooled_beats_silos_at_every_capacity_scale() {
    let runs: Vec<(String, Value, Value)> = ["1.0", "0.5", "0.25"]
        .into_iter()
        .map(|scale| thread::spawn(move || (scale.to_string(), run("silo", scale), run("pooled", scale))))
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().expect("simulation thread"))
        .collect();
    for (scale, silo, pooled) in runs {
        // The same jobs, all completed, in both modes.
        assert_eq!(silo["jobs"], pooled["jobs"], "scale {scale}");
        assert!(f(&pooled, "jobs") > 60_000.0, "scale {scale}: the window holds ~68.5k jobs");
        assert_eq!(f(&pooled, "completed"), f(&pooled, "jobs"), "scale {scale}: every pooled job completes");
        assert_eq!(f(&silo, "completed"), f(&silo, "jobs"), "scale {scale}: every silo job completes");

        let (sw, pw) = (f(&silo, "avg_wait_s"), f(&pooled, "avg_wait_s"));
        assert!(sw > 0.0, "scale {scale}: silos make someone wait");
        assert!(pw <= 0.2 * sw, "scale {scale}: pooled avg wait {pw} s vs silo {sw} s");
        let (sj, pj) = (f(&silo, "avg_jct_s"), f(&pooled, "avg_jct_s"));
        assert!(pj <= sj, "scale {scale}: pooled avg JCT {pj} s vs silo {sj} s");

        let groups = silo["groups"].as_object().expect("groups");
        assert_eq!(groups.len(), 11, "scale {scale}");
        for (name, s) in groups {
            let p = &pooled["groups"][name];
            assert_eq!(s["jobs"], p["jobs"], "scale {scale} group {name}");
            let (sw, pw) = (f(s, "avg_wait_s"), f(p, "avg_wait_s"));
            assert!(pw <= sw, "scale {scale}: group {name} waits {pw} s pooled vs {sw} s in its silo");
        }
    }
}

// P1: on one group's 64 GPUs, class + aging + least attained service with backfill
// finishes jobs sooner than first come, first served.
#[test]
fn default_policy_beats_fifo_on_the_busiest_group() {
    let (trace, _) = philly();
    let sim = |policy: &'static str| {
        let trace = trace.clone();
        thread::spawn(move || {
            json(&[
                "simulate",
                "--trace",
                &trace,
                "--from",
                "2017-10-01",
                "--to",
                "2017-11-30",
                "--nodes",
                "8",
                "--gpus-per-node",
                "8",
                "--only-group",
                "6214e9",
                "--policy",
                policy,
                "--format",
                "json",
            ])
        })
    };
    let (default, fifo) = (sim("default"), sim("fifo"));
    let (default, fifo) = (default.join().expect("default run"), fifo.join().expect("fifo run"));
    assert_eq!(f(&default, "capacity_gpus"), 64.0);
    assert_eq!(default["groups"].as_object().map(|g| g.len()), Some(1));
    assert!(f(&default, "jobs") > 30_000.0, "6214e9 submits the most jobs");
    let (d, q) = (f(&default, "avg_jct_s"), f(&fifo, "avg_jct_s"));
    assert!(d < q, "default avg JCT {d} s should beat FIFO's {q} s");
}

#[test]
fn same_inputs_give_byte_identical_json() {
    let (trace, groups) = philly();
    let args = [
        "simulate",
        "--trace",
        &trace,
        "--groups",
        &groups,
        "--from",
        "2017-11-01",
        "--to",
        "2017-11-30",
        "--capacity-scale",
        "0.25",
        "--mode",
        "pooled",
        "--format",
        "json",
    ];
    let first = common::tidepool(&args);
    let second = common::tidepool(&args);
    assert!(first.status.success());
    assert!(!first.stdout.is_empty());
    assert_eq!(first.stdout, second.stdout, "two runs differ");
}

/// The Philly groups' names, in the groups file's order.
fn group_names(groups: &str) -> Vec<String> {
    let text = std::fs::read_to_string(groups).expect("groups file");
    text.lines().skip(1).filter_map(|l| l.split(',').next().map(str::to_string)).collect()
}

/// Each Philly group alone on 64 GPUs over the whole window, with the default and with
/// time-sharing (the server's `TimeShare::default()`): (group, default, time-sharing).
/// Run once for the two tests that read them (22 simulations).
fn per_group_default_and_timeshare() -> &'static [(String, Value, Value)] {
    static RUNS: OnceLock<Vec<(String, Value, Value)>> = OnceLock::new();
    RUNS.get_or_init(|| {
        let (trace, groups) = philly();
        let names = group_names(&groups);
        assert_eq!(names.len(), 11);
        let sim = |group: String, policy: &'static str| {
            let trace = trace.clone();
            thread::spawn(move || {
                let args = ["simulate", "--trace", &trace, "--from", "2017-10-01", "--to", "2017-11-30"];
                let scope = ["--nodes", "8", "--gpus-per-node", "8", "--only-group", &group];
                let args: Vec<&str> =
                    args.iter().chain(&scope).copied().chain(["--policy", policy]).collect();
                json(&args)
            })
        };
        names
            .into_iter()
            .map(|name| {
                let (d, t) = (sim(name.clone(), "default"), sim(name.clone(), "timeshare"));
                let (d, t) = (d.join().expect("default run"), t.join().expect("timeshare run"));
                (name, d, t)
            })
            .collect()
    })
}

// Issue 15 (P1, D4): over the jobs of all Philly groups, each group alone on 64 GPUs for
// the whole window, the default with time-sharing (checkpointable jobs take turns by
// attained service, least first) finishes jobs much sooner on average than the default
// without it; every job finishes (the guard relative to a job's own run promotes anyone
// passed over long enough), and every group gains on its own.
#[test]
fn time_sharing_cuts_avg_jct_over_the_philly_groups_and_every_job_finishes() {
    let (mut jobs, mut default_sum, mut timeshare_sum, mut preemptions, mut no_worse) =
        (0.0, 0.0, 0.0, 0.0, 0);
    for (name, d, t) in per_group_default_and_timeshare() {
        assert_eq!(f(t, "capacity_gpus"), 64.0, "{name}");
        assert_eq!(f(t, "completed"), f(t, "jobs"), "{name}: every job completes");
        assert_eq!(f(d, "jobs"), f(t, "jobs"), "{name}");
        assert_eq!(f(d, "preemptions"), 0.0, "{name}: nothing preempts without time-sharing");
        let (dj, tj) = (f(d, "avg_jct_s"), f(t, "avg_jct_s"));
        no_worse += usize::from(tj <= dj * 1.001);
        jobs += f(t, "jobs");
        default_sum += dj * f(d, "jobs");
        timeshare_sum += tj * f(t, "jobs");
        preemptions += f(t, "preemptions");
    }
    assert!(jobs > 60_000.0, "the window holds ~68.5k jobs");
    assert!(preemptions > 0.0, "time-sharing took turns");
    let (d, t) = (default_sum / jobs, timeshare_sum / jobs);
    // Measured: 29.1 h without, 18.2 h with; all 11 groups no worse (the strict test
    // below holds each group to it).
    assert!(t < 0.7 * d, "over all groups: time-sharing avg JCT {t} s vs default {d} s");
    assert!(no_worse >= 9, "only {no_worse} of 11 groups no worse with time-sharing");
}

// Issue 15 (P1, D4), the strict reading: every group gains on its own and no group's
// slowest 1% wait longer than 10% (+1 h) over the default's. It took two bounds on top of
// Tiresias' queues: a job that has had 150 GPU-hours is no longer stopped (on 7f04ca, the
// most overloaded group, long jobs stopped again and again waited behind every newer job:
// p99 wait 605 h without time-sharing, 830 h with it unbounded), and jobs that have had
// GPU time wait first submitted first (a stop sent a job to the back of the line; on
// 2869ce, mostly long 8- and 32-GPU jobs, avg JCT was 50.3 h without, 53.4 h with).
// Measured now: 2869ce 49.1 h, 7f04ca p99 wait 600 h; no group's p99 wait above the default's.
#[test]
fn time_sharing_beats_the_default_on_every_group_and_starves_no_one() {
    for (name, d, t) in per_group_default_and_timeshare() {
        assert_eq!(f(t, "completed"), f(t, "jobs"), "{name}: every job completes");
        let (dj, tj) = (f(d, "avg_jct_s"), f(t, "avg_jct_s"));
        assert!(tj <= dj * 1.001, "{name}: time-sharing avg JCT {tj} s vs default {dj} s");
        let (dw, tw) = (f(d, "p99_wait_s"), f(t, "p99_wait_s"));
        assert!(tw <= dw * 1.1 + 3600.0, "{name}: p99 wait {tw} s with time-sharing vs {dw} s without");
    }
}
