//! Issue 10, the policy side of the control plane: what a job or one admin could do to
//! the dispatcher's policies. Finding 1 (the precompiled cache loaded without a check),
//! finding 9 (a canary without the second person, receipts naming the wrong version,
//! plans sharing scratch state), finding 10 (the registry applied before it is saved, an
//! author approving their own version; the data folder readable by others).
//! MISSION B2, D3, O1, A3, Q6.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use common::policies::{bytes, runtime};
use serde_json::json;
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool::policy::artifacts::ArtifactCache;
use tidepool::policy::{Kind, Runtime, WasmPolicies};
use tidepool_core::plan;
use tidepool_core::testkit::{cluster, job};

fn temp(name: &str) -> std::path::PathBuf {
    common::fresh_dir(&format!("sec-{name}"))
}

/// Finding 1: a precompiled artifact is native code. One written by someone other than
/// the server — here, a valid artifact of another module dropped under this module's
/// name, as a job that could write the folder would — is not loaded.
#[test]
fn security_a_planted_policy_artifact_is_recompiled_not_loaded() {
    let dir = temp("artifacts");
    let cache = || ArtifactCache::new(dir.clone(), b"the server's secret for this test");
    let first = Runtime::new(Default::default(), Some(cache())).expect("runtime");
    let priority = first.load(&bytes("priority")).expect("loads");
    let reclaim_sha = tidepool::policy::runtime::sha256_hex(&bytes("reclaim"));
    let planted = dir.join(format!("{reclaim_sha}.cwasm"));
    std::fs::copy(dir.join(format!("{}.cwasm", priority.sha256)), &planted).expect("plant");
    drop((first, priority));

    let second = Runtime::new(Default::default(), Some(cache())).expect("runtime");
    let reclaim = second.load(&bytes("reclaim")).expect("loads");
    assert_eq!(reclaim.kind, Kind::Reclaim, "the module's own bytes decide, not the planted artifact");

    // The same artifact signed with another server's key is refused as well.
    let other = ArtifactCache::new(dir.clone(), b"another server's secret, not ours");
    other.write(&reclaim_sha, &std::fs::read(&planted).expect("read")).expect("write");
    drop((second, reclaim));
    let third = Runtime::new(Default::default(), Some(cache())).expect("runtime");
    assert_eq!(third.load(&bytes("reclaim")).expect("loads").kind, Kind::Reclaim);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&dir).expect("dir").permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the cache folder is the server's own");
    let _ = std::fs::remove_dir_all(&dir);
}

async fn upload(app: &TestApp, admin: &str, name: &str) -> String {
    let (status, v) = app.upload("/api/policies?note=trial", admin, bytes(name)).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    v["sha256"].as_str().expect("sha").to_string()
}

async fn post(app: &TestApp, path: &str, token: &str, body: serde_json::Value) -> StatusCode {
    app.call("POST", path, Some(token), Some(&body.to_string())).await.0
}

/// Finding 9: one admin alone cannot put a canary on groups — a policy change for those
/// groups needs a second admin, like a promotion (B2); and the receipt of a job the
/// canary placed names the canary version (D3).
#[tokio::test]
async fn security_a_canary_needs_a_second_admin_and_receipts_name_it() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let admin2 = app.token("admin2", "admin2-pw").await;
        let fifo = upload(&app, &admin, "fifo").await;
        let canary = format!("/api/policies/{fifo}/canary");
        let approve = format!("/api/policies/{fifo}/approve");
        assert_eq!(post(&app, &canary, &admin, json!({ "groups": ["vision"] })).await, StatusCode::ACCEPTED);
        let policies = &app.state.policies.policies;
        assert_eq!(
            policies.canary_groups(Kind::Priority),
            None,
            "{engine}: nothing runs on one admin's word"
        );
        assert_eq!(post(&app, &approve, &admin, json!({ "note": "mine" })).await, StatusCode::FORBIDDEN);
        assert_eq!(post(&app, &approve, &admin2, json!({ "note": "reviewed" })).await, StatusCode::OK);
        assert!(policies.canary_groups(Kind::Priority).is_some(), "{engine}");

        let dev = app.token("vision-dev", "demo-password").await;
        let body = json!({ "name": "canaried", "command": "train", "gpus": 1 }).to_string();
        let (status, v) = app.call("POST", "/api/jobs", Some(&dev), Some(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
        let id = v["id"].as_i64().expect("id");
        let lease = Lease { holder: "t".into(), ttl_s: 30 };
        let d = Dispatcher::with_modules(app.state.store.clone(), policies.clone(), lease);
        d.cycle(app.state.now()).await.expect("cycle");
        use sqlx::Row;
        let row = sqlx::query("SELECT policy FROM events WHERE kind = 'placed' AND job_id = $1")
            .bind(id)
            .fetch_one(&app.state.store.pool)
            .await
            .expect("placed");
        let policy: String = row.try_get(0).expect("policy");
        assert!(policy.contains(&format!("priority=wasm:{} (canary)", &fifo[..12])), "{engine}: {policy}");
    }
}

/// Finding 10: the author of a version never approves it, even when another admin asked.
#[tokio::test]
async fn security_the_author_of_a_policy_never_approves_it() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let admin2 = app.token("admin2", "admin2-pw").await;
        let sha = upload(&app, &admin, "fifo").await;
        let promote = format!("/api/policies/{sha}/promote");
        assert_eq!(post(&app, &promote, &admin2, json!(null)).await, StatusCode::ACCEPTED);
        let approve = format!("/api/policies/{sha}/approve");
        let (status, v) = app.call("POST", &approve, Some(&admin), Some(r#"{"note":"my own module"}"#)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{engine}: {v}");
        assert!(v["error"]["message"].as_str().unwrap_or("").contains("wrote this version"), "{v}");
        assert_eq!(app.state.policies.policies.active(Kind::Priority), None, "{engine}");
    }
}

/// Finding 10: a change the records cannot take never reaches the dispatcher — the
/// registry is saved before it is applied.
#[tokio::test]
async fn security_a_policy_change_that_cannot_be_saved_is_not_applied() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let admin2 = app.token("admin2", "admin2-pw").await;
        let sha = upload(&app, &admin, "fifo").await;
        assert_eq!(
            post(&app, &format!("/api/policies/{sha}/promote"), &admin, json!(null)).await,
            StatusCode::ACCEPTED
        );
        // The records refuse every write of a transition from here on.
        sqlx::query("ALTER TABLE policy_transitions RENAME TO policy_transitions_gone")
            .execute(&app.state.store.pool)
            .await
            .expect("break the records");
        let status =
            post(&app, &format!("/api/policies/{sha}/approve"), &admin2, json!({ "note": "ok" })).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{engine}");
        assert_eq!(app.state.policies.policies.active(Kind::Priority), None, "{engine}: not applied");
        let registry = app.state.policies.registry.lock().await;
        let v = registry.get(&sha).expect("version");
        assert_eq!(v.state.name(), "validated", "{engine}: the registry did not move either");
        assert_eq!(v.promotion_requested_by.as_deref(), Some("admin"), "{engine}");
    }
}

/// Finding 9: a dry run plans beside the live cycle; each plan has its own scratch
/// state, so neither reads the other's queue. Two threads plan different snapshots
/// through the same policies at once; every plan equals the one made alone.
#[test]
fn security_concurrent_plans_never_share_inputs() {
    let rt = runtime(std::time::Duration::from_secs(5));
    let policies = Arc::new(WasmPolicies::new(rt.clone()));
    policies.activate(rt.load(&bytes("priority")).expect("priority"));
    // Queues of different lengths, long enough that the two threads' plans overlap.
    let queue = |groups: u32, jobs: u64, newest_first: bool| {
        let mut c = cluster().nodes(4, 8).group("a", 16).group("b", 16);
        for k in 0..jobs {
            let at = if newest_first { (jobs - k) as i64 } else { k as i64 };
            let j = job(k + 1).group((k % u64::from(groups)) as u32).at(at).gpus(1 + (k % 3) as u32);
            c = c.pending(j);
        }
        c.build()
    };
    let (small, big) = (queue(1, 300, true), queue(2, 700, false));
    let alone = (plan(&small, 100, policies.as_ref()), plan(&big, 100, policies.as_ref()));
    let start = Arc::new(std::sync::Barrier::new(2));
    let run = |snap: tidepool_core::Snapshot, expected: tidepool_core::Plan| {
        let (policies, start) = (policies.clone(), start.clone());
        std::thread::spawn(move || {
            start.wait();
            for _ in 0..300 {
                let p = plan(&snap, 100, policies.as_ref());
                assert!(p.policy_faults.is_empty(), "{:?}", p.policy_faults);
                assert_eq!(p.placements, expected.placements);
                assert_eq!(p.holds, expected.holds);
            }
        })
    };
    let a = run(small.clone(), alone.0.clone());
    let b = run(big.clone(), alone.1.clone());
    a.join().expect("the small plans were never disturbed");
    b.join().expect("the big plans were never disturbed");
    assert!(policies.events().is_empty(), "no faults: {:?}", policies.events());
}

/// Finding 10: the data folder (database, token secret, compiled policies) is the
/// server's alone: 0700, and the database file 0600.
#[test]
fn security_the_data_folder_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp("data");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let addr = format!("127.0.0.1:{}", common::live::free_port());
    let server = common::live::serve(dir.to_str().expect("utf-8"), &addr, None, &[]);
    let mode = |p: &std::path::Path| std::fs::metadata(p).expect("exists").permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    for file in ["tidepool.db", "secret"] {
        assert_eq!(mode(&dir.join(file)), 0o600, "{file}");
    }
    assert_eq!(mode(&dir.join("policy-cache")), 0o700);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
