//! Budgets that never overspend and hard boundaries (Q3, Q4) with the live dispatcher on
//! both engines: the second of two jobs a budget cannot both cover waits; a budget lowered
//! below what running jobs hold sends one away (requeued, waiting on the budget); a cut
//! guarantee brings its group back inside in one cycle, and only once.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use sqlx::Row;
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool_api::Receipt;
use tidepool_core::NativePolicies;

const T0: i64 = 1_800_000_000;

fn dispatcher(app: &TestApp) -> Dispatcher {
    Dispatcher::new(
        app.state.store.clone(),
        Arc::new(NativePolicies::default()),
        Lease { holder: "a".into(), ttl_s: 30 },
    )
}

async fn submit(app: &TestApp, token: &str, name: &str, gpus: u32, limit: u64) -> i64 {
    let body = format!(r#"{{"name":"{name}","command":"train","gpus":{gpus},"time_limit_s":{limit}}}"#);
    let (status, v) = app.call("POST", "/api/jobs", Some(token), Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    v["id"].as_i64().unwrap()
}

async fn receipt(app: &TestApp, token: &str, job: i64) -> Receipt {
    let (status, v) = app.call("GET", &format!("/api/jobs/{job}"), Some(token), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    serde_json::from_value(v).expect("a Receipt")
}

async fn set_quota(app: &TestApp, set: &str) {
    let sql =
        format!("UPDATE quotas SET {set} WHERE group_id = (SELECT id FROM groups WHERE name = 'vision')");
    sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&app.state.store.pool).await.expect("quota");
}

/// The kinds of the preemption events of `job`.
async fn preemptions(app: &TestApp, job: i64) -> Vec<String> {
    sqlx::query("SELECT detail FROM events WHERE kind = 'preempted' AND job_id = $1 ORDER BY id")
        .bind(job)
        .fetch_all(&app.state.store.pool)
        .await
        .expect("events")
        .iter()
        .map(|r| {
            let detail: serde_json::Value = serde_json::from_str(&r.get::<String, _>(0)).expect("detail");
            detail["preempted"]["kind"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

// Q3: budget 20 GPU-hours; two 8-GPU jobs of 2 hours, submitted a minute apart. Before,
// each cycle counted only hours used, so both ran (32 GPU-hours); now the first holds its
// remaining 16 and the second waits. Lowered below what the first holds, the budget sends
// it away: requeued, and waiting on the budget with the second.
#[tokio::test]
async fn the_second_job_waits_and_a_lowered_budget_sends_the_first_away() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        app.clock.store(T0, std::sync::atomic::Ordering::SeqCst);
        set_quota(&app, "budget_gpu_h = 20").await;
        let d = dispatcher(&app);
        let dev = app.token("vision-dev", "demo-password").await;
        let first = submit(&app, &dev, "first", 8, 7200).await;
        assert_eq!(d.cycle(T0).await.expect("cycle").placed, 1, "{engine}");
        let second = submit(&app, &dev, "second", 8, 7200).await;
        let report = d.cycle(T0 + 60).await.expect("cycle");
        assert_eq!((report.placed, report.preempted), (0, 0), "{engine}");
        let r = receipt(&app, &dev, second).await;
        let why = r.reason.clone().unwrap_or_default();
        assert!(why.starts_with("monthly budget: 16.0 of 20.0"), "{engine}: {why}");
        assert_eq!(r.waits.first().map(|w| w.kind.as_str()), Some("budget"), "{engine}");

        // An admin lowers the budget to 10: the first job's remaining 16 no longer fit.
        set_quota(&app, "budget_gpu_h = 10").await;
        let report = d.cycle(T0 + 120).await.expect("cycle");
        assert_eq!(report.preempted, 1, "{engine}");
        assert_eq!(preemptions(&app, first).await, vec!["over-budget"], "{engine}");
        let r = receipt(&app, &dev, first).await;
        assert_eq!(r.state.to_string(), "pending", "{engine}: requeued");
        d.cycle(T0 + 180).await.expect("cycle");
        let r = receipt(&app, &dev, first).await;
        assert!(r.reason.unwrap_or_default().starts_with("monthly budget"), "{engine}");
        assert_eq!(app.count("allocations WHERE ended_at IS NULL").await, 0, "{engine}");
        // Raised again, the budget lets one of them run.
        set_quota(&app, "budget_gpu_h = 20").await;
        assert_eq!(d.cycle(T0 + 240).await.expect("cycle").placed, 1, "{engine}");
    }
}

// Q4: vision holds 12 of its own 16 GPUs; an admin cuts the guarantee to 8. The next cycle
// sends back 4 GPUs' worth (the newest job), and the one after sends nothing more.
#[tokio::test]
async fn a_cut_guarantee_brings_the_group_inside_in_one_cycle() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        app.clock.store(T0, std::sync::atomic::Ordering::SeqCst);
        let d = dispatcher(&app);
        let dev = app.token("vision-dev", "demo-password").await;
        let mut jobs = Vec::new();
        for (i, at) in [0, 1000, 2000].into_iter().enumerate() {
            jobs.push(submit(&app, &dev, &format!("j{i}"), 4, 36_000).await);
            assert_eq!(d.cycle(T0 + at).await.expect("cycle").placed, 1, "{engine}");
        }
        set_quota(&app, "guaranteed = 8").await;
        let report = d.cycle(T0 + 3000).await.expect("cycle");
        assert_eq!(report.preempted, 1, "{engine}");
        assert_eq!(preemptions(&app, jobs[2]).await, vec!["over-guarantee"], "{engine}: the newest leaves");
        let held: i64 = sqlx::query(
            "SELECT COUNT(*) FROM allocations a JOIN jobs j ON j.id = a.job_id WHERE a.ended_at IS NULL",
        )
        .fetch_one(&app.state.store.pool)
        .await
        .expect("count")
        .get(0);
        assert_eq!(held, 2, "{engine}: 8 GPUs, inside the guarantee");
        let report = d.cycle(T0 + 3060).await.expect("cycle");
        assert_eq!((report.preempted, report.placed), (0, 0), "{engine}: inside, nothing moves");
        let r = receipt(&app, &dev, jobs[2]).await;
        assert!(r.reason.unwrap_or_default().starts_with("over quota"), "{engine}");
    }
}
