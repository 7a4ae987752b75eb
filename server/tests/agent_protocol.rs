//! The agent protocol's guards, in process: stale fencing tokens are refused, retried
//! reports change nothing twice, a node runs only what the records give it, malformed
//! reports are refused whole, and an assignment reaches only its own node. MISSION V1, D4.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::api::{TestApp, assert_error_shape, engines};
use serde_json::{Value, json};
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool_core::NativePolicies;

const NOW: i64 = 2_000_000_000;

async fn node(app: &TestApp, admin: &str, name: &str) -> String {
    let (_, t) =
        app.call("POST", "/api/nodes/tokens", Some(admin), Some(&json!({ "node": name }).to_string())).await;
    let token = t["token"].as_str().unwrap().to_string();
    let gpus: Vec<Value> = (0..4)
        .map(|i| json!({ "index": i, "uuid": format!("GPU-{name}-{i}"), "model": "T4", "memory_total_mb": 16_000 }))
        .collect();
    let (s, v) = app
        .call("POST", "/api/agent/register", Some(&token), Some(&json!({ "gpus": gpus }).to_string()))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    token
}

async fn sync(app: &TestApp, token: &str, report: Value) -> (StatusCode, Value) {
    app.call("POST", "/api/agent/sync", Some(token), Some(&report.to_string())).await
}

#[tokio::test]
async fn fencing_idempotence_and_reconciliation() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let (a, b) = (node(&app, &admin, "t4-a").await, node(&app, &admin, "t4-b").await);
        // vision may run on T4s: give it a quota (second admin applies it).
        let change =
            json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 4, "why": "t" });
        let (_, c) = app.call("PUT", "/api/quotas", Some(&admin), Some(&change.to_string())).await;
        let admin2 = app.token("admin2", "admin2-pw").await;
        let path = format!("/api/changes/{}/approve", c["change"]);
        assert_eq!(app.call("POST", &path, Some(&admin2), Some(r#"{"note":"ok"}"#)).await.0, StatusCode::OK);
        let dev = app.token("vision-dev", "demo-password").await;
        let body = json!({ "name": "j", "command": "true", "gpus": 4, "model": "T4" }).to_string();
        let (_, job) = app.call("POST", "/api/jobs", Some(&dev), Some(&body)).await;
        let lease = Lease { holder: "d".into(), ttl_s: 60 };
        Dispatcher::new(app.state.store.clone(), Arc::new(NativePolicies::default()), lease)
            .cycle(NOW)
            .await
            .unwrap();

        // Exactly one of the two nodes is told to start it, with its fencing token.
        let (_, oa) = sync(&app, &a, json!({})).await;
        let (_, ob) = sync(&app, &b, json!({})).await;
        let (mine, other, orders) =
            if oa["start"].as_array().unwrap().is_empty() { (&b, &a, ob) } else { (&a, &b, oa) };
        let start = orders["start"][0].clone();
        assert_eq!(
            (start["job"].clone(), start["resume"].clone()),
            (job["id"].clone(), json!(false)),
            "{engine}: {start}"
        );
        assert_eq!(start["gpus"], json!([0, 1, 2, 3]), "{engine}");
        let fence = json!({ "allocation": start["allocation"], "epoch": start["epoch"] });
        let stale =
            json!({ "allocation": start["allocation"], "epoch": start["epoch"].as_i64().unwrap() + 7 });

        // The other node claims to run it: told to stop, the records unchanged.
        let (_, o) = sync(&app, other, json!({ "running": [fence] })).await;
        assert_eq!(
            o["stop"][0]["reason"].as_str().unwrap().split(':').next(),
            Some("not yours"),
            "{engine}: {o}"
        );
        // The difference is recorded once, however often the node repeats it.
        sync(&app, other, json!({ "running": [fence] })).await;
        assert_eq!(app.count("events WHERE kind = 'reconcile'").await, 1, "{engine}");
        // Its own node acknowledges it; a report with a stale epoch is refused.
        let (_, o) = sync(&app, mine, json!({ "running": [fence] })).await;
        assert!(o["start"].as_array().unwrap().is_empty(), "{engine}: acknowledged, not re-sent");
        let finished = |f: &Value| json!({ "finished": [{ "allocation": f["allocation"], "epoch": f["epoch"], "outcome": "exited", "exit_code": 0 }] });
        // (Every sync lists all that runs: a sync without it would say the job is gone.)
        let mut report = finished(&stale);
        report["running"] = json!([fence]);
        let (_, o) = sync(&app, mine, report).await;
        assert!(
            o["refused"][0]["reason"].as_str().unwrap().starts_with("stale fencing token"),
            "{engine}: {o}"
        );
        let (_, o) = sync(&app, other, finished(&fence)).await;
        assert_eq!(o["refused"][0]["reason"], "no such assignment on this node", "{engine}");
        let id = job["id"].as_i64().unwrap();
        let (_, r) = app.call("GET", &format!("/api/jobs/{id}"), Some(&dev), None).await;
        assert_eq!(r["state"], "running", "{engine}: refused reports changed nothing");
        // The real end, sent twice (a retry): recorded once.
        for _ in 0..2 {
            let (s, o) = sync(&app, mine, finished(&fence)).await;
            assert_eq!((s, o["refused"].clone()), (StatusCode::OK, json!([])), "{engine}: {o}");
        }
        let (_, r) = app.call("GET", &format!("/api/jobs/{id}"), Some(&dev), None).await;
        assert_eq!(r["state"], "succeeded", "{engine}");
        let ends = r["events"].as_array().unwrap().iter().filter(|e| e["kind"] == "finished").count();
        assert_eq!(ends, 1, "{engine}: one end recorded");

        // Malformed reports are refused whole, in the error shape, and write nothing.
        let events = app.count("events").await;
        for (bad, status) in [
            (
                json!({ "gpus": (0..65).map(|i| json!({ "index": i, "util_pct": 1, "memory_used_mb": 1 })).collect::<Vec<_>>() }),
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            (
                // Too many items (a long chunk is cut on its own, not refused: security_logs).
                json!({ "logs": (0..1025).map(|i| json!({ "allocation": 1, "epoch": 1, "offset": i, "text": "x" })).collect::<Vec<_>>() }),
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            (
                json!({ "finished": [{ "allocation": 1, "epoch": 1, "outcome": "vanished" }] }),
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
            (
                json!({ "gpus": [{ "index": 0, "util_pct": 300, "memory_used_mb": 1 }] }),
                StatusCode::UNPROCESSABLE_ENTITY,
            ),
        ] {
            let (s, v) = sync(&app, mine, bad).await;
            assert_eq!(s, status, "{engine}: {v}");
            assert_error_shape(&v, "unprocessable");
        }
        assert_eq!(app.count("events").await, events, "{engine}: nothing written");
        // A register with gaps in the GPU indices is refused.
        let gaps = json!({ "gpus": [{ "index": 1, "uuid": "g", "model": "T4", "memory_total_mb": 1 }] });
        let (s, _) = app.call("POST", "/api/agent/register", Some(mine), Some(&gaps.to_string())).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}");
    }
}
