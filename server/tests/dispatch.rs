//! The live dispatcher on real records: jobs submitted through the API are placed by
//! the core's plan(), held jobs get their reason and position, every decision is an
//! event naming the policy, and only the lease holder writes. MISSION D1, D2, D3, O3.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use serde_json::json;
use tidepool::dispatch::{DispatchError, Dispatcher, Lease};
use tidepool_core::NativePolicies;

fn dispatcher(app: &TestApp, holder: &str) -> Dispatcher {
    Dispatcher::new(
        app.state.store.clone(),
        Arc::new(NativePolicies::default()),
        Lease { holder: holder.into(), ttl_s: 30 },
    )
}

async fn submit(app: &TestApp, token: &str, name: &str, gpus: u32) -> i64 {
    let body = json!({ "name": name, "command": "train", "gpus": gpus }).to_string();
    let (status, v) = app.call("POST", "/api/jobs", Some(token), Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    v["id"].as_i64().unwrap()
}

#[tokio::test]
async fn submitted_jobs_are_placed_or_told_why_not() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let vision = app.token("vision-dev", "demo-password").await;
        let speech = app.token("speech-dev", "demo-password").await;
        let big = submit(&app, &vision, "big", 8).await;
        let small = submit(&app, &speech, "small", 4).await;
        let over = submit(&app, &vision, "over", 12).await; // 8 + 12 > vision's 16, no loans
        let huge = submit(&app, &speech, "huge", 64).await; // the demo pool has 32 GPUs
        let d = dispatcher(&app, "a");
        let report = d.cycle(1_000).await.expect("cycle");
        assert_eq!((report.epoch, report.placed, report.held), (1, 2, 2), "{engine}");

        let (_, v) = app.call("GET", "/api/jobs", Some(&vision), None).await;
        let job = |id: i64| v["jobs"].as_array().unwrap().iter().find(|j| j["id"] == id).unwrap().clone();
        assert_eq!(job(big)["state"], "running", "{engine}");
        assert_eq!(job(small)["state"], "running", "{engine}");
        assert_eq!(job(over)["state"], "pending");
        assert!(job(over)["reason"].as_str().unwrap().starts_with("over quota"), "{}", job(over));
        assert!(job(huge)["reason"].as_str().unwrap().starts_with("can never run"), "{}", job(huge));
        assert_eq!(app.count("allocations WHERE ended_at IS NULL").await, 2, "{engine}: one node each");
        let placed: i64 = {
            use sqlx::Row;
            sqlx::query(
                "SELECT COUNT(*) FROM events WHERE kind = 'placed' AND policy = 'native/default' \
                 AND job_id IN ($1, $2)",
            )
            .bind(big)
            .bind(small)
            .fetch_one(&app.state.store.pool)
            .await
            .unwrap()
            .try_get(0)
            .unwrap()
        };
        assert_eq!(placed, 2, "{engine}: each placement is an event naming the policy");

        // The receipt says where it ran, by which policy and why (D3); the global view
        // shows who holds each GPU (V1).
        let (_, r) = app.call("GET", &format!("/api/jobs/{big}"), Some(&speech), None).await;
        let placed =
            r["events"].as_array().unwrap().iter().find(|e| e["kind"] == "placed").expect("placed").clone();
        assert_eq!(placed["policy"], "native/default");
        assert!(placed["message"].as_str().unwrap().contains("within the group's guarantee"), "{placed}");
        let (_, view) = app.call("GET", "/api/nodes", Some(&speech), None).await;
        let held: Vec<&serde_json::Value> = view["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|n| n["gpus"].as_array().unwrap())
            .filter(|g| !g.is_null())
            .collect();
        assert_eq!(held.len(), 12, "{engine}: 8 + 4 GPUs held");
        assert_eq!(held.iter().filter(|g| g["job"] == big).count(), 8);
        assert!(held.iter().all(|g| g["since"] == 1_000));

        // Everyone sees each group's use of its quota (Q1).
        let (_, q) = app.call("GET", "/api/quotas", Some(&speech), None).await;
        let row = |g: &str| q["quotas"].as_array().unwrap().iter().find(|r| r["group"] == g).unwrap().clone();
        assert_eq!(
            (row("vision")["running_gpus"].as_i64(), row("vision")["idle_guarantee"].as_i64()),
            (Some(8), Some(8))
        );
        assert_eq!(row("speech")["running_gpus"].as_i64(), Some(4), "{engine}");

        // A second cycle changes nothing: the GPUs are held, the reasons stand.
        let again = d.cycle(1_010).await.expect("cycle");
        assert_eq!((again.placed, again.held), (0, 2));
        assert_eq!(app.count("allocations WHERE ended_at IS NULL").await, 2);

        // R1: cancelling a running job returns its GPUs at once; the next cycle uses them.
        let next = submit(&app, &speech, "next", 4).await; // speech: 4 running of its 8
        let waiting = submit(&app, &speech, "waiting", 4).await;
        assert_eq!(d.cycle(1_020).await.expect("cycle").placed, 1, "{engine}: speech fills its 8");
        let (status, _) = app.call("POST", &format!("/api/jobs/{next}/cancel"), Some(&speech), None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(d.cycle(1_021).await.expect("cycle").placed, 1, "{engine}: the freed GPUs are reused");
        let (_, v) = app.call("GET", "/api/jobs?state=running", Some(&speech), None).await;
        let running: Vec<i64> =
            v["jobs"].as_array().unwrap().iter().map(|j| j["id"].as_i64().unwrap()).collect();
        assert!(running.contains(&waiting) && !running.contains(&next), "{engine}: {running:?}");
    }
}

#[tokio::test]
async fn only_the_lease_holder_dispatches_and_stale_epochs_are_refused() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let vision = app.token("vision-dev", "demo-password").await;
        let (a, b) = (dispatcher(&app, "a"), dispatcher(&app, "b"));
        let epoch_a = a.lease.acquire(&app.state.store, 1_000).await.expect("a leads");
        assert!(matches!(b.cycle(1_010).await, Err(DispatchError::NotLeader(_))), "{engine}: b waits");
        // a stalls past its lease; b takes over with a new epoch.
        let epoch_b = b.lease.acquire(&app.state.store, 1_031).await.expect("b takes over");
        assert_eq!(epoch_b, epoch_a + 1);
        submit(&app, &vision, "j", 1).await;
        let before = (app.count("allocations WHERE ended_at IS NULL").await, app.count("events").await);
        assert!(
            matches!(a.run(epoch_a, 1_032).await, Err(DispatchError::NotLeader(_))),
            "{engine}: stale epoch"
        );
        assert_eq!(
            (app.count("allocations WHERE ended_at IS NULL").await, app.count("events").await),
            before,
            "{engine}: nothing written"
        );
        assert_eq!(b.cycle(1_033).await.expect("b dispatches").placed, 1);
    }
}

// O1, A3, D3: the live dispatcher runs the policy modules, and every decision names the
// module versions that made it.
#[tokio::test]
async fn the_live_dispatcher_runs_policy_modules_and_receipts_name_them() {
    let app = TestApp::new("sqlite").await;
    let rt = common::policies::runtime(std::time::Duration::from_secs(2));
    let wasm = tidepool::policy::WasmPolicies::new(rt.clone());
    let mut shas = Vec::new();
    for kind in ["priority", "quota", "reclaim"] {
        let m = common::policies::load(&rt, kind);
        shas.push(m.sha256[..12].to_string());
        wasm.activate(m);
    }
    let d = Dispatcher::new(app.state.store.clone(), Arc::new(wasm), Lease { holder: "w".into(), ttl_s: 30 });
    let vision = app.token("vision-dev", "demo-password").await;
    let id = submit(&app, &vision, "train", 8).await;
    assert_eq!(d.cycle(1_000).await.expect("cycle").placed, 1);
    let (_, r) = app.call("GET", &format!("/api/jobs/{id}"), Some(&vision), None).await;
    let placed =
        r["events"].as_array().unwrap().iter().find(|e| e["kind"] == "placed").expect("placed").clone();
    let policy = placed["policy"].as_str().unwrap();
    for sha in &shas {
        assert!(policy.contains(&format!("wasm:{sha}")), "{policy}");
    }
}

// O3: a dispatcher that shuts down gives the lease up, and a standby takes over at once.
#[tokio::test]
async fn a_released_lease_passes_to_the_standby_at_once() {
    let app = TestApp::new("sqlite").await;
    let (a, b) = (dispatcher(&app, "a"), dispatcher(&app, "b"));
    assert_eq!(a.lease.acquire(&app.state.store, 1_000).await.expect("a"), 1);
    assert!(matches!(b.cycle(1_001).await, Err(DispatchError::NotLeader(_))));
    a.lease.release(&app.state.store).await.expect("release");
    assert_eq!(b.cycle(1_002).await.expect("b takes over").epoch, 2);
}

// O3: servers on one database talk through the lease row: a cycle stamps itself (and its
// decision, which wakes standbys' agents), a standby's nudge is seen by the leader, and
// the fence alone refuses a stale epoch after a takeover (what the drill asks of a
// killed leader's epoch).
#[tokio::test]
async fn the_lease_row_marks_cycles_decisions_and_nudges_and_fences_stale_epochs() {
    use tidepool::dispatch::lease::{marks, nudge};
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let store = &app.state.store;
        let vision = app.token("vision-dev", "demo-password").await;
        let (a, b) = (dispatcher(&app, "a"), dispatcher(&app, "b"));
        let epoch_a = a.cycle(1_000).await.expect("a leads").epoch;
        let first = marks(store).await.expect("marks").expect("a lease row");
        assert!(first.cycled_ms > 0 && first.holder == "a", "{engine}: {first:?}");
        submit(&app, &vision, "j", 1).await;
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert_eq!(a.cycle(1_001).await.expect("cycle").placed, 1);
        let placed = marks(store).await.expect("marks").expect("row");
        assert!(
            placed.decided_ms > first.cycled_ms && placed.decided_ms == placed.cycled_ms,
            "{engine}: {placed:?}"
        );
        assert_eq!(placed.nudged_ms, 0, "{engine}");
        nudge(store).await.expect("nudge");
        assert!(marks(store).await.expect("marks").expect("row").nudged_ms > 0, "{engine}");

        assert!(a.lease.would_write(store, epoch_a).await.expect("fence"), "{engine}: a still leads");
        // a stops renewing; b takes the lease once it expired.
        let epoch_b = b.lease.acquire(store, 1_100).await.expect("b takes over");
        assert!(!a.lease.would_write(store, epoch_a).await.expect("fence"), "{engine}: a is fenced");
        assert!(b.lease.would_write(store, epoch_b).await.expect("fence"), "{engine}: b writes");
    }
}
