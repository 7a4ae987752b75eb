//! Usage history from the real records (issue 12, V4, R2): the dispatcher places two
//! jobs, agent syncs report their GPUs' utilisation, the roll-up closes the hours, and
//! `usage_hours` and `/api/usage` give the hand-computed figures: held, busy and idle
//! GPU-seconds, jobs started and finished, waits, a span across an hour boundary, a long
//! silence capped, and a roll-up that changes nothing when run again.

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use serde_json::{Value, json};
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool::usage::{self, UsageHour};
use tidepool_core::NativePolicies;

/// An hour's first second: Wednesday 2033-05-18 03:00 UTC.
const H0: i64 = 1_999_998_000;
const H1: i64 = H0 + 3600;

async fn node(app: &TestApp, admin: &str) -> String {
    let (_, t) = app.call("POST", "/api/nodes/tokens", Some(admin), Some(r#"{"node":"t4-a"}"#)).await;
    let token = t["token"].as_str().unwrap().to_string();
    let gpus: Vec<Value> = (0..4)
        .map(|i| json!({ "index": i, "uuid": format!("GPU-{i}"), "model": "T4", "memory_total_mb": 16_000 }))
        .collect();
    let (s, v) = app
        .call("POST", "/api/agent/register", Some(&token), Some(&json!({ "gpus": gpus }).to_string()))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    token
}

/// A sync at `at`: both jobs' GPUs with the utilisation `util` gives each.
async fn sync(app: &TestApp, token: &str, at: i64, report: Value) -> Value {
    app.clock.store(at, Ordering::SeqCst);
    let (s, v) = app.call("POST", "/api/agent/sync", Some(token), Some(&report.to_string())).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    v
}

async fn submit(app: &TestApp, token: &str, at: i64, name: &str) -> i64 {
    app.clock.store(at, Ordering::SeqCst);
    let body = json!({ "name": name, "command": "true", "gpus": 2, "model": "T4" }).to_string();
    let (s, v) = app.call("POST", "/api/jobs", Some(token), Some(&body)).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v["id"].as_i64().unwrap()
}

fn figures(h: &UsageHour) -> [i64; 7] {
    let f = h.figures;
    [f.held_gpu_s, f.sampled_gpu_s, f.util_pct_gpu_s, f.idle_gpu_s, f.jobs_started, f.jobs_finished, f.wait_s]
}

#[tokio::test]
async fn a_known_history_rolls_up_to_hand_computed_hours() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let token = node(&app, &admin).await;
        let change =
            json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 4, "why": "t" });
        let (_, c) = app.call("PUT", "/api/quotas", Some(&admin), Some(&change.to_string())).await;
        let admin2 = app.token("admin2", "admin2-pw").await;
        let path = format!("/api/changes/{}/approve", c["change"]);
        assert_eq!(app.call("POST", &path, Some(&admin2), Some(r#"{"note":"ok"}"#)).await.0, StatusCode::OK);
        let dev = app.token("vision-dev", "demo-password").await;
        // A waits 600 s, B 300 s: both placed at 03:43:20.
        let a = submit(&app, &dev, H0 + 2000, "a").await;
        let b = submit(&app, &dev, H0 + 2300, "b").await;
        let lease = Lease { holder: "d".into(), ttl_s: 60 };
        Dispatcher::new(app.state.store.clone(), Arc::new(NativePolicies::default()), lease)
            .cycle(H0 + 2600)
            .await
            .unwrap();
        let orders = sync(&app, &token, H0 + 2600, json!({})).await;
        let starts = orders["start"].as_array().unwrap().clone();
        assert_eq!(starts.len(), 2, "{engine}: {orders}");
        // A's GPUs: one at 90 %, one at 2 % (idle under the 5 % threshold); B's at 50 %.
        let mut gpus = Vec::new();
        let mut fences = Vec::new();
        let mut fence_a = Value::Null;
        for s in &starts {
            let fence = json!({ "allocation": s["allocation"], "epoch": s["epoch"] });
            let mine = s["gpus"].as_array().unwrap();
            let utils = if s["job"] == json!(a) { [90, 2] } else { [50, 50] };
            if s["job"] == json!(a) {
                fence_a = fence.clone();
            }
            for (i, u) in mine.iter().zip(utils) {
                gpus.push(json!({ "index": i, "util_pct": u, "memory_used_mb": 1 }));
            }
            fences.push(fence);
        }
        let both = json!({ "gpus": gpus, "running": fences });
        // The first report acknowledges (nothing sampled yet); then 20 s; then 870 s of
        // silence counts only the 30 s cap; then 20 s across 04:00 (10 + 10); then 20 s.
        for at in [2700, 2720, 3590, 3610, 3630] {
            sync(&app, &token, H0 + at, both.clone()).await;
        }
        // A finishes at 04:00:40; B runs on and is sampled 10 s more.
        let b_only: Vec<Value> = fences.iter().filter(|f| **f != fence_a).cloned().collect();
        let finished = json!({ "gpus": gpus, "running": b_only,
            "finished": [{ "allocation": fence_a["allocation"], "epoch": fence_a["epoch"], "outcome": "exited", "exit_code": 0 }] });
        sync(&app, &token, H0 + 3640, finished).await;
        let _ = b;

        let store = &app.state.store;
        // The demo's own history (seeded at t = 1000) is not this test's: start at 03:00.
        sqlx::query("UPDATE usage_rollup SET rolled_until = $1").bind(H0).execute(&store.pool).await.unwrap();
        let done = usage::roll_up(store, H1 + 3600 + 100).await.unwrap();
        assert_eq!((done.hours, done.rows, done.rolled_until), (2, 2, H1 + 3600), "{engine}");
        let rows = usage::hours(store, H0, H1 + 3600, None, None).await.unwrap();
        assert_eq!(rows.len(), 2, "{engine}: {rows:?}");
        assert_eq!(
            (rows[0].pool.as_str(), rows[0].model.as_str(), rows[0].category.as_str()),
            ("default", "T4", "training")
        );
        // 03:00: held 2 x 2 GPUs x 1000 s; samples 60 s each: A 2 x 60 sampled, 92 x 60
        // util, 60 idle; B 120, 100 x 60, 0. Two jobs started, waits 600 + 300.
        assert_eq!(figures(&rows[0]), [4000, 240, 11_520, 60, 2, 0, 900], "{engine}");
        // 04:00: A 2 x 40 held, B 2 x 3600; samples 30 s each (+ B's last 10 s): A 60,
        // 2760, 30; B 60 + 20, 3000 + 1000, 0. A finished.
        assert_eq!(figures(&rows[1]), [7280, 140, 6760, 30, 0, 1, 0], "{engine}");
        // The allocation's whole-life totals: 90 s sampled.
        let row = sqlx::query_as::<_, (i64, i64, i64)>(
            "SELECT sampled_gpu_s, util_pct_gpu_s, idle_gpu_s FROM allocations WHERE id = $1",
        )
        .bind(fence_a["allocation"].as_i64().unwrap())
        .fetch_one(&store.pool)
        .await
        .unwrap();
        assert_eq!(row, (180, 8280, 90), "{engine}");

        // Idempotent: again, nothing to do; rolled again from scratch, the same rows.
        assert_eq!(usage::roll_up(store, H1 + 3600 + 200).await.unwrap().hours, 0, "{engine}");
        sqlx::query("UPDATE usage_rollup SET rolled_until = $1").bind(H0).execute(&store.pool).await.unwrap();
        usage::roll_up(store, H1 + 3600 + 300).await.unwrap();
        assert_eq!(usage::hours(store, H0, H1 + 3600, None, None).await.unwrap(), rows, "{engine}");

        // The curves (V4), in Berlin's summer time: 03:00 UTC is 05:00 there, Wednesday.
        sqlx::query("UPDATE org_settings SET time_zone = 'Europe/Berlin'")
            .execute(&store.pool)
            .await
            .unwrap();
        app.clock.store(H1 + 3600 + 400, Ordering::SeqCst);
        let (admin, dev) =
            (app.token("admin", "admin-pw").await, app.token("vision-dev", "demo-password").await);
        let q = format!("/api/usage?from={H0}&to={}&group=vision", H1 + 3600);
        let (s, v) = app.call("GET", &q, Some(&dev), None).await;
        assert_eq!(s, StatusCode::OK, "{engine}: {v}");
        assert_eq!(
            (v["time_zone"].as_str(), v["heatmap"].as_array().unwrap().len()),
            (Some("Europe/Berlin"), 168)
        );
        let cell = &v["heatmap"][2 * 24 + 5];
        assert_eq!((cell["weekday"].as_i64(), cell["hour"].as_i64()), (Some(2), Some(5)), "{engine}");
        assert!((cell["gpus_held"].as_f64().unwrap() - 4000.0 / 3600.0).abs() < 1e-9, "{engine}: {cell}");
        assert!((cell["util_pct"].as_f64().unwrap() - 48.0).abs() < 1e-9, "{engine}: {cell}");
        assert!((cell["gpus_idle"].as_f64().unwrap() - 60.0 / 3600.0).abs() < 1e-9, "{engine}: {cell}");
        assert_eq!(v["heatmap"][2 * 24 + 7]["util_pct"], Value::Null, "{engine}: nothing sampled there");
        let day = &v["days"][0];
        assert_eq!((day["date"].as_str(), v["days"].as_array().unwrap().len()), (Some("2033-05-18"), 1));
        assert!((day["gpu_hours"].as_f64().unwrap() - 11_280.0 / 3600.0).abs() < 1e-9, "{engine}: {day}");
        assert!((day["busy_gpu_hours"].as_f64().unwrap() - 18_280.0 / 360_000.0).abs() < 1e-9, "{day}");
        assert!((day["idle_gpu_hours"].as_f64().unwrap() - 90.0 / 3600.0).abs() < 1e-9, "{day}");

        // Access: the organisation's totals for anyone; another group's only for admins.
        let (s, org) =
            app.call("GET", &format!("/api/usage?from={H0}&to={}", H1 + 3600), Some(&dev), None).await;
        assert_eq!((s, &org["days"]), (StatusCode::OK, &v["days"]), "{engine}");
        let other = format!("/api/usage?from={H0}&group=speech");
        assert_eq!(app.call("GET", &other, Some(&dev), None).await.0, StatusCode::FORBIDDEN, "{engine}");
        let lead = app.token("speech-lead", "demo-password").await;
        assert_eq!(app.call("GET", &q, Some(&lead), None).await.0, StatusCode::FORBIDDEN, "{engine}");
        let (s, speech) = app.call("GET", &other, Some(&admin), None).await;
        assert_eq!((s, speech["days"][0]["gpu_hours"].as_f64()), (StatusCode::OK, Some(0.0)), "{engine}");
        let bad = format!("/api/usage?from={}&to={H0}", H1 + 3600);
        assert_eq!(app.call("GET", &bad, Some(&admin), None).await.0, StatusCode::UNPROCESSABLE_ENTITY);

        // The weekly report (A5) from the same history, end to end: a price set through
        // the API, the week's figures as the dispatcher, the agent and the roll-up left them.
        let settings = r#"{"time_zone":"UTC","currency":"EUR","prices":[{"model":"T4","per_gpu_hour":1.5}],"report_webhook":null}"#;
        assert_eq!(app.call("PUT", "/api/settings", Some(&admin), Some(settings)).await.0, StatusCode::OK);
        let week = tidepool::org_time::OrgZone::utc().week_of(H0);
        let (s, r) =
            app.call("GET", &format!("/api/reports/weekly?group=vision&week={week}"), Some(&dev), None).await;
        assert_eq!(s, StatusCode::OK, "{engine}: {r}");
        let close = |v: &Value, want: f64| (v.as_f64().unwrap_or(f64::NAN) - want).abs() < 1e-9;
        let t = &r["totals"];
        assert!(close(&t["gpu_hours"], 11_280.0 / 3600.0), "{engine}: {t}");
        assert!(close(&t["busy_gpu_hours"], 18_280.0 / 360_000.0), "{engine}: {t}");
        assert!(close(&t["idle_gpu_hours"], 90.0 / 3600.0), "{engine}: {t}");
        // 11,280 GPU-seconds at 1.50 a GPU-hour.
        assert!(close(&t["cost"], 4.7), "{engine}: {t}");
        assert_eq!((t["jobs_started"].as_i64(), t["jobs_finished"].as_i64()), (Some(2), Some(1)), "{engine}");
        // Waits of class normal: 600 s and 300 s; nearest-rank p50 300, p95 600.
        let w = r["waits"].as_array().unwrap().iter().find(|w| w["class"] == "normal").expect("normal waits");
        assert_eq!(w["jobs"].as_i64(), Some(2), "{engine}: {w}");
        assert!(close(&w["avg_s"], 450.0) && close(&w["p50_s"], 300.0) && close(&w["p95_s"], 600.0), "{w}");
        assert_eq!(r["frozen_at"], Value::Null, "{engine}: the week is under way");
        // Under way, the guarantee (4 GPUs) covers the hours so far, not the whole week.
        let (week_start, _) = tidepool::org_time::OrgZone::utc().week_bounds(&week).unwrap();
        let g = r["guarantees"].as_array().unwrap().iter().find(|g| g["model"] == "T4").expect("T4 quota");
        let so_far = (H1 + 3600 + 400 - week_start) as f64 / 3600.0;
        assert!(close(&g["guaranteed_gpu_hours"], 4.0 * so_far), "{engine}: {g}");
    }
}
