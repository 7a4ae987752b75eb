//! Policy modules through the API, with the real modules the test command builds: upload
//! and validation report, shadow, promotion by a second admin, rollback, and the records
//! that let a restarted server run exactly what was promoted. MISSION O1, A3, B2, D3.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, assert_error_shape, engines};
use serde_json::{Value, json};
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool::policy::Kind;
use tidepool::policy::desk::PolicyDesk;

const NOW: i64 = 2_000_000_000;

async fn upload(app: &TestApp, token: &str, name: &str, note: &str) -> (StatusCode, Value) {
    app.upload(&format!("/api/policies?note={note}"), token, common::policies::bytes(name)).await
}

async fn post(app: &TestApp, path: &str, token: &str, body: Value) -> StatusCode {
    let (status, v) = app.call("POST", path, Some(token), Some(&body.to_string())).await;
    if !status.is_success() {
        assert!(v["error"]["code"].is_string(), "{path}: {v}");
    }
    status
}

#[tokio::test]
async fn upload_shadow_promote_with_a_second_admin_roll_back_and_survive_a_restart() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (admin, admin2) = (app.token("admin", "admin-pw").await, app.token("admin2", "admin2-pw").await);
        let dev = app.token("vision-dev", "demo-password").await;

        let (s, report) = upload(&app, &admin, "priority", "default%20priority").await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {report}");
        assert_eq!(
            (report["kind"].clone(), report["state"]["state"].clone()),
            (json!("priority"), json!("validated"))
        );
        let priority = report["sha256"].as_str().unwrap().to_string();
        let (s, report) = upload(&app, &admin, "fifo", "first%20come%20first%20served").await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {report}");
        let fifo = report["sha256"].as_str().unwrap().to_string();

        // Shadow: fifo runs beside the deciding policy; its differences are stored per cycle.
        assert_eq!(
            post(&app, &format!("/api/policies/{fifo}/shadow"), &admin, json!(null)).await,
            StatusCode::OK
        );
        let lease = Lease { holder: "d".into(), ttl_s: 60 };
        let d = Dispatcher::with_modules(app.state.store.clone(), app.state.policies.policies.clone(), lease);
        for gpus in [8, 1, 4] {
            let body = json!({ "name": "j", "command": "c", "gpus": gpus }).to_string();
            assert_eq!(app.call("POST", "/api/jobs", Some(&dev), Some(&body)).await.0, StatusCode::CREATED);
        }
        d.cycle(NOW).await.expect("cycle");
        let (_, events) = app.call("GET", "/api/events?kind=policy-shadow", Some(&dev), None).await;
        let shadow = &events["events"][0];
        assert_eq!(shadow["detail"]["policy"]["sha256"], json!(fifo), "{engine}: {events}");
        // Once the queue settles, cycles repeat the same comparison: the log keeps only changes.
        d.cycle(NOW + 1).await.expect("cycle");
        let stored = app.count("events WHERE kind = 'policy-shadow'").await;
        d.cycle(NOW + 2).await.expect("cycle");
        assert_eq!(app.count("events WHERE kind = 'policy-shadow'").await, stored, "{engine}");

        // Promotion takes two admins (B2).
        let promote = format!("/api/policies/{priority}/promote");
        let approve = format!("/api/policies/{priority}/approve");
        assert_eq!(
            post(&app, &approve, &admin2, json!({ "note": "x" })).await,
            StatusCode::CONFLICT,
            "not asked yet"
        );
        assert_eq!(post(&app, &promote, &admin, json!(null)).await, StatusCode::ACCEPTED);
        assert_eq!(post(&app, &approve, &admin, json!({ "note": "mine" })).await, StatusCode::FORBIDDEN);
        assert_eq!(post(&app, &approve, &admin2, json!({ "note": "reviewed" })).await, StatusCode::OK);
        assert_eq!(app.state.policies.policies.active(Kind::Priority), Some(priority.clone()), "{engine}");
        // The next decision's receipt names the promoted version (D3).
        let body = json!({ "name": "after", "command": "c", "gpus": 1 }).to_string();
        let (_, job) = app.call("POST", "/api/jobs", Some(&dev), Some(&body)).await;
        d.cycle(NOW + 3).await.expect("cycle");
        let (_, receipt) = app.call("GET", &format!("/api/jobs/{}", job["id"]), Some(&dev), None).await;
        assert!(
            receipt.to_string().contains(&format!("priority=wasm:{}", &priority[..12])),
            "{engine}: {receipt}"
        );

        // fifo replaces it; rollback brings it back in one call.
        assert_eq!(
            post(&app, &format!("/api/policies/{fifo}/promote"), &admin, json!(null)).await,
            StatusCode::ACCEPTED
        );
        let note = json!({ "note": "try fifo" });
        assert_eq!(post(&app, &format!("/api/policies/{fifo}/approve"), &admin2, note).await, StatusCode::OK);
        assert_eq!(app.state.policies.policies.active(Kind::Priority), Some(fifo.clone()), "{engine}");
        let rollback = json!({ "kind": "priority", "note": "fifo starved experiments" });
        assert_eq!(post(&app, "/api/policies/rollback", &admin, rollback).await, StatusCode::OK);
        assert_eq!(app.state.policies.policies.active(Kind::Priority), Some(priority.clone()), "{engine}");

        // History with change notes (A3), readable by everyone.
        let (_, list) = app.call("GET", "/api/policies", Some(&dev), None).await;
        let versions = list["kinds"]["priority"]["versions"].as_array().unwrap();
        let p = versions.iter().find(|v| v["sha256"] == json!(priority)).unwrap();
        assert_eq!(p["note"], "default priority", "{engine}");
        let notes: Vec<&str> =
            p["history"].as_array().unwrap().iter().map(|t| t["note"].as_str().unwrap()).collect();
        assert!(
            notes.contains(&"reviewed") && notes.contains(&"fifo starved experiments"),
            "{engine}: {notes:?}"
        );

        // A restarted server restores the records: the same version decides, same history.
        let restarted = PolicyDesk::new(None).expect("desk");
        assert_eq!(restarted.restore(&app.state.store).await.expect("restore"), 2, "{engine}");
        assert_eq!(restarted.policies.active(Kind::Priority), Some(priority.clone()), "{engine}");
        let registry = restarted.registry.lock().await;
        let again = registry.get(&priority).expect("restored");
        assert_eq!(serde_json::to_value(&again.history).unwrap(), p["history"], "{engine}");
        drop(registry);

        // A standby server sharing the records follows a promotion made on the leader, and
        // reads the records only when they changed (O3).
        let standby = PolicyDesk::new(None).expect("desk");
        assert!(standby.follow(&app.state.store).await.expect("follow"), "{engine}: first look");
        assert_eq!(standby.policies.active(Kind::Priority), Some(priority.clone()), "{engine}");
        assert!(!standby.follow(&app.state.store).await.expect("follow"), "{engine}: nothing changed");
        assert_eq!(
            post(&app, &format!("/api/policies/{fifo}/promote"), &admin, json!(null)).await,
            StatusCode::ACCEPTED
        );
        let note = json!({ "note": "second try" });
        assert_eq!(post(&app, &format!("/api/policies/{fifo}/approve"), &admin2, note).await, StatusCode::OK);
        assert!(standby.follow(&app.state.store).await.expect("follow"), "{engine}");
        assert_eq!(
            standby.policies.active(Kind::Priority),
            Some(fifo.clone()),
            "{engine}: the standby runs it too"
        );
    }
}

#[tokio::test]
async fn bad_uploads_get_a_clear_error_and_store_nothing_more() {
    let app = TestApp::new("sqlite").await;
    let admin = app.token("admin", "admin-pw").await;
    // A core module, not a component: rejected with the reason, kept with its report.
    let core = wat::parse_str("(module)").expect("wat");
    let (s, v) = app.upload("/api/policies?note=core", &admin, core).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("not a component"), "{v}");
    assert_eq!(app.count("policy_versions").await, 1);
    let (_, list) = app.call("GET", "/api/policies", Some(&admin), None).await;
    assert_eq!(list["rejected"][0]["state"]["state"], "rejected", "{list}");
    // Not WebAssembly at all, too large, or without a change note: refused, nothing stored.
    for (path, body, status, code) in [
        ("/api/policies?note=x", b"hello".to_vec(), StatusCode::UNPROCESSABLE_ENTITY, "unprocessable"),
        ("/api/policies?note=x", vec![0u8; (16 << 20) + 1], StatusCode::PAYLOAD_TOO_LARGE, "too-large"),
        ("/api/policies", common::policies::bytes("fifo"), StatusCode::BAD_REQUEST, "bad-request"),
        (
            "/api/policies?note=",
            common::policies::bytes("fifo"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unprocessable",
        ),
    ] {
        let (s, v) = app.upload(path, &admin, body).await;
        assert_eq!(s, status, "{path}: {v}");
        assert_error_shape(&v, code);
    }
    assert_eq!(app.count("policy_versions").await, 1, "nothing more stored");
    // Canary with an unknown group, promotion of a rejected version: refused.
    let (_, list) = app.call("GET", "/api/policies", Some(&admin), None).await;
    let rejected = list["rejected"][0]["sha256"].as_str().unwrap().to_string();
    let status = post(&app, &format!("/api/policies/{rejected}/promote"), &admin, json!(null)).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (_, report) = upload(&app, &admin, "fifo", "fifo").await;
    let canary = json!({ "groups": ["nobody"] });
    let path = format!("/api/policies/{}/canary", report["sha256"].as_str().unwrap());
    assert_eq!(post(&app, &path, &admin, canary).await, StatusCode::UNPROCESSABLE_ENTITY);
    // A canary is asked for by one admin and waits for a second (B2).
    assert_eq!(post(&app, &path, &admin, json!({ "groups": ["speech"] })).await, StatusCode::ACCEPTED);
}
