//! What groups organise around their jobs, through the API and the live dispatcher:
//! templates (T1–T3), priority grants (P2), loans the lender approves (B1), quota changes
//! a second admin reviews (B2, A4), the archive (A2) and the capacity map (V2).

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use serde_json::{Value, json};
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool_core::NativePolicies;

const NOW: i64 = 2_000_000_000;
const DAY: i64 = 86_400;

async fn send(app: &TestApp, method: &str, path: &str, token: &str, body: Value) -> (StatusCode, Value) {
    app.call(method, path, Some(token), Some(&body.to_string())).await
}

async fn get(app: &TestApp, path: &str, token: &str) -> Value {
    let (status, v) = app.call("GET", path, Some(token), None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {v}");
    v
}

fn dispatcher(app: &TestApp) -> Dispatcher {
    let lease = Lease { holder: "test".into(), ttl_s: 60 };
    Dispatcher::new(app.state.store.clone(), Arc::new(NativePolicies::default()), lease)
}

async fn state_of(app: &TestApp, token: &str, job: i64) -> String {
    get(app, &format!("/api/jobs/{job}"), token).await["state"].as_str().unwrap().to_string()
}

// T1: a template launches its frozen shape; T2: another group needs the owner's grant;
// T3: retirement stops launches, and usage counts show which templates are used.
#[tokio::test]
async fn templates_launch_their_shape_only_where_granted() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let dev = app.token("vision-dev", "demo-password").await;
        let lead = app.token("vision-lead", "demo-password").await;
        let speech = app.token("speech-dev", "demo-password").await;
        let body = json!({ "name": "resnet", "gpus": 4, "class": "experiment", "topology": "same-node",
            "image": "pytorch:2.4", "command": "python train.py", "env": { "EPOCHS": "90" }, "checkpointable": true });
        let (s, t) = send(&app, "POST", "/api/templates", &dev, body).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {t}");
        let id = t["id"].as_i64().unwrap();

        let (s, job) =
            send(&app, "POST", "/api/jobs", &dev, json!({ "template": id, "tags": ["Baseline"] })).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {job}");
        let row = sqlx::query_as::<_, (i64, String, String, String, i64)>(
            "SELECT gpus, class, topology, command, template_id FROM jobs WHERE id = $1",
        )
        .bind(job["id"].as_i64().unwrap())
        .fetch_one(&app.state.store.pool)
        .await
        .unwrap();
        assert_eq!(
            row,
            (4, "experiment".into(), "same-node".into(), "python train.py".into(), id),
            "{engine}"
        );
        // A template fixes the shape: overriding it is refused, not silently ignored.
        let (s, _) = send(&app, "POST", "/api/jobs", &dev, json!({ "template": id, "gpus": 64 })).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}");

        let (s, v) = send(&app, "POST", "/api/jobs", &speech, json!({ "template": id })).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{engine}: ungranted use {v}");
        let (s, _) =
            send(&app, "POST", &format!("/api/templates/{id}/grants"), &lead, json!({ "group": "speech" }))
                .await;
        assert_eq!(s, StatusCode::CREATED, "{engine}");
        let (s, _) =
            send(&app, "POST", "/api/jobs", &speech, json!({ "template": id, "name": "their run" })).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: granted use");

        // The queue filtered to the caller's own jobs, and to a group.
        let mine = get(&app, "/api/jobs?mine=true", &speech).await;
        let mine = mine["jobs"].as_array().unwrap();
        assert_eq!(mine.len(), 1, "{engine}: {mine:?}");
        assert_eq!((mine[0]["name"].clone(), mine[0]["template"].clone()), (json!("their run"), json!(id)));
        let vision = get(&app, "/api/jobs?group=vision&state=pending", &speech).await;
        assert!(vision["jobs"].as_array().unwrap().iter().all(|j| j["group"] == "vision"), "{engine}");
        assert_eq!(vision["jobs"].as_array().unwrap().len(), 1, "{engine}");
        let list = get(&app, "/api/templates", &speech).await;
        let t = list["templates"].as_array().unwrap().iter().find(|t| t["id"] == id).unwrap().clone();
        assert_eq!((t["uses"].clone(), t["usable"].clone()), (json!(2), json!(true)), "{engine}: {t}");
        assert_eq!(t["granted_to"], json!(["speech"]), "{engine}");
        // Env values are the owning group's: a granted group sees the names only (finding 10).
        assert_eq!(t["env"]["EPOCHS"], "•••", "{engine}");
        let owners = get(&app, "/api/templates", &lead).await;
        let t = owners["templates"].as_array().unwrap().iter().find(|t| t["id"] == id).unwrap().clone();
        assert_eq!(t["env"]["EPOCHS"], "90", "{engine}");
        // The quarterly review lists templates unused for N days; this one was just used.
        let stale = get(&app, "/api/templates?stale_days=90", &lead).await;
        assert!(stale["templates"].as_array().unwrap().iter().all(|t| t["id"] != id), "{engine}");
        app.clock.fetch_add(91 * DAY, Ordering::SeqCst);
        let (dev, lead) =
            (app.token("vision-dev", "demo-password").await, app.token("vision-lead", "demo-password").await);
        let stale = get(&app, "/api/templates?stale_days=90", &lead).await;
        assert!(stale["templates"].as_array().unwrap().iter().any(|t| t["id"] == id), "{engine}");

        let (s, _) =
            send(&app, "POST", &format!("/api/templates/{id}/retire"), &lead, json!({ "reason": "stale" }))
                .await;
        assert_eq!(s, StatusCode::OK, "{engine}");
        let (s, _) = send(&app, "POST", "/api/jobs", &dev, json!({ "template": id })).await;
        assert_eq!(s, StatusCode::CONFLICT, "{engine}: a retired template launches nothing");
    }
}

// P2: critical work runs under a project's grant, within its cap, until it expires; the
// owners are warned a week ahead, once.
#[tokio::test]
async fn priority_grants_gate_critical_jobs_and_warn_before_expiry() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let dev = app.token("vision-dev", "demo-password").await;
        let lead = app.token("vision-lead", "demo-password").await;
        let critical = |project: Option<&str>, gpus: u32| {
            let mut b = json!({ "name": "urgent", "command": "run", "gpus": gpus, "class": "critical" });
            if let Some(p) = project {
                b["project"] = json!(p);
            }
            b
        };
        let (s, v) = send(&app, "POST", "/api/jobs", &dev, critical(None, 1)).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{engine}: critical without a grant {v}");
        let grant =
            json!({ "name": "launch", "class": "critical", "gpu_cap": 8, "expires_at": NOW + 10 * DAY });
        let (s, p) = send(&app, "POST", "/api/projects", &lead, grant).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {p}");
        let (s, _) = send(&app, "POST", "/api/jobs", &dev, critical(Some("launch"), 6)).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}");
        let (s, v) = send(&app, "POST", "/api/jobs", &dev, critical(Some("launch"), 3)).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: over the cap {v}");
        let (s, _) = send(&app, "POST", "/api/jobs", &dev, critical(Some("nope"), 1)).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: unknown project");

        let d = dispatcher(&app);
        d.cycle(NOW).await.unwrap();
        let warned = |v: &Value| v["events"].as_array().unwrap().len();
        assert_eq!(
            warned(&get(&app, "/api/events?kind=grant-expiring", &dev).await),
            0,
            "{engine}: too early"
        );
        app.clock.store(NOW + 4 * DAY, Ordering::SeqCst);
        let dev = app.token("vision-dev", "demo-password").await;
        d.cycle(NOW + 4 * DAY).await.unwrap();
        d.cycle(NOW + 4 * DAY + 5).await.unwrap();
        let events = get(&app, "/api/events?kind=grant-expiring", &dev).await;
        assert_eq!(warned(&events), 1, "{engine}: warned once {events}");
        let projects = get(&app, "/api/projects", &dev).await;
        let launch =
            projects["projects"].as_array().unwrap().iter().find(|p| p["name"] == "launch").unwrap().clone();
        assert_eq!(launch["expiring_soon"], true, "{engine}: {launch}");

        app.clock.store(NOW + 11 * DAY, Ordering::SeqCst);
        let (dev, lead) =
            (app.token("vision-dev", "demo-password").await, app.token("vision-lead", "demo-password").await);
        let (s, v) = send(&app, "POST", "/api/jobs", &dev, critical(Some("launch"), 1)).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{engine}: lapsed grant {v}");
        let id = launch["id"].as_i64().unwrap();
        let renew = json!({ "expires_at": NOW + 40 * DAY });
        let (s, _) = send(&app, "POST", &format!("/api/projects/{id}/renew"), &lead, renew).await;
        assert_eq!(s, StatusCode::OK, "{engine}");
        let (s, _) = send(&app, "POST", "/api/jobs", &dev, critical(Some("launch"), 1)).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: renewed");
    }
}

// B1: nothing runs on another group's GPUs until its manager approves; the loan's jobs
// give the GPUs back when the lender reclaims it.
#[tokio::test]
async fn borrowed_gpus_need_the_lenders_approval_and_return_on_reclaim() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let dev = app.token("vision-dev", "demo-password").await;
        let speech_lead = app.token("speech-lead", "demo-password").await;
        let d = dispatcher(&app);
        let job = |name: &str| json!({ "name": name, "command": "train", "gpus": 8 });
        let mut jobs = Vec::new();
        for name in ["a", "b", "c"] {
            let (s, v) = send(&app, "POST", "/api/jobs", &dev, job(name)).await;
            assert_eq!(s, StatusCode::CREATED);
            jobs.push(v["id"].as_i64().unwrap());
        }
        d.cycle(NOW).await.unwrap();
        // vision's guarantee is 16 GPUs: the third 8-GPU job waits, and says why.
        assert_eq!(state_of(&app, &dev, jobs[2]).await, "pending", "{engine}");
        let ask = json!({ "lender": "speech", "gpus": 8, "ends_at": NOW + DAY, "why": "paper deadline" });
        let (s, loan) = send(&app, "POST", "/api/loans", &dev, ask).await;
        assert_eq!((s, loan["state"].clone()), (StatusCode::CREATED, json!("requested")), "{engine}: {loan}");
        let loan = loan["id"].as_i64().unwrap();
        d.cycle(NOW + 1).await.unwrap();
        assert_eq!(state_of(&app, &dev, jobs[2]).await, "pending", "{engine}: not approved yet");

        let path = format!("/api/loans/{loan}/approve");
        let (s, _) = send(&app, "POST", &path, &speech_lead, json!({ "note": "idle this week" })).await;
        assert_eq!(s, StatusCode::OK, "{engine}");
        d.cycle(NOW + 2).await.unwrap();
        assert_eq!(state_of(&app, &dev, jobs[2]).await, "running", "{engine}: runs on the loan");
        let receipt = get(&app, &format!("/api/jobs/{}", jobs[2]), &dev).await;
        assert!(receipt.to_string().contains(&format!("loan {loan}")), "{engine}: {receipt}");
        let loans = get(&app, "/api/loans", &dev).await;
        assert_eq!(loans["loans"][0]["decision"], "idle this week", "{engine}: the reason is kept (A4)");

        let path = format!("/api/loans/{loan}/reclaim");
        let (s, _) = send(&app, "POST", &path, &speech_lead, json!({ "note": "our run starts" })).await;
        assert_eq!(s, StatusCode::OK, "{engine}");
        d.cycle(NOW + 3).await.unwrap();
        assert_eq!(state_of(&app, &dev, jobs[2]).await, "pending", "{engine}: back to the queue");
        for j in &jobs[..2] {
            assert_eq!(state_of(&app, &dev, *j).await, "running", "{engine}: guaranteed work untouched");
        }
    }
}

// B2, A4: a quota change waits for a second admin; the decision and its reason are kept.
#[tokio::test]
async fn quota_changes_wait_for_a_second_admin() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (admin, admin2) = (app.token("admin", "admin-pw").await, app.token("admin2", "admin2-pw").await);
        let change = json!({ "group": "vision", "category": "training", "guaranteed": 24,
            "budget_gpu_h": 9000.0, "why": "new hires" });
        let (s, v) = send(&app, "PUT", "/api/quotas", &admin, change).await;
        assert_eq!(s, StatusCode::ACCEPTED, "{engine}: {v}");
        let id = v["change"].as_i64().unwrap();
        let guarantee = |q: &Value| {
            q["quotas"].as_array().unwrap().iter().find(|r| r["group"] == "vision").unwrap()["guaranteed"]
                .clone()
        };
        assert_eq!(guarantee(&get(&app, "/api/quotas", &admin).await), 16, "{engine}: not yet applied");
        let path = format!("/api/changes/{id}/approve");
        let (s, _) = send(&app, "POST", &path, &admin, json!({ "note": "looks right" })).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{engine}: the proposer cannot approve");
        let (s, _) = send(&app, "POST", &path, &admin2, json!({ "note": "agreed in the review" })).await;
        assert_eq!(s, StatusCode::OK, "{engine}");
        assert_eq!(guarantee(&get(&app, "/api/quotas", &admin).await), 24, "{engine}: applied");
        let changes = get(&app, "/api/changes", &admin).await;
        let c = &changes["changes"][0];
        assert_eq!(
            (c["state"].clone(), c["reviewed_by"].clone()),
            (json!("applied"), json!("admin2")),
            "{engine}"
        );
        let events = get(&app, "/api/events?kind=change-applied", &admin).await;
        assert!(
            events["events"][0]["message"].as_str().unwrap().contains("agreed in the review"),
            "{engine}"
        );
    }
}

// A2: finished jobs are found by group × year × tag.
#[tokio::test]
async fn the_archive_is_searched_by_group_year_and_tag() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let dev = app.token("vision-dev", "demo-password").await;
        let speech = app.token("speech-dev", "demo-password").await;
        let mut ids = Vec::new();
        for (token, tags) in
            [(&dev, json!(["ablation", "v2"])), (&dev, json!(["v2"])), (&speech, json!(["ablation"]))]
        {
            let body = json!({ "name": "run", "command": "c", "gpus": 1, "tags": tags });
            let (s, v) = send(&app, "POST", "/api/jobs", token, body).await;
            assert_eq!(s, StatusCode::CREATED, "{engine}: {v}");
            ids.push(v["id"].as_i64().unwrap());
        }
        for (id, token) in ids.iter().zip([&dev, &dev, &speech]) {
            let (s, _) = app.call("POST", &format!("/api/jobs/{id}/cancel"), Some(token), None).await;
            assert_eq!(s, StatusCode::OK);
        }
        // Only this test's jobs: the demo's history is archived too.
        let found = |v: Value| -> Vec<i64> {
            v["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| j["id"].as_i64().unwrap())
                .filter(|id| ids.contains(id))
                .collect()
        };
        // The clock reads 2033-05-18.
        let q = |query: &str| format!("/api/archive?{query}");
        assert_eq!(
            found(get(&app, &q("group=vision&year=2033&tag=ablation"), &dev).await),
            vec![ids[0]],
            "{engine}"
        );
        assert_eq!(found(get(&app, &q("tag=ablation"), &dev).await), vec![ids[2], ids[0]], "{engine}");
        assert_eq!(found(get(&app, &q("group=vision"), &dev).await), vec![ids[1], ids[0]], "{engine}");
        assert!(found(get(&app, &q("group=vision&year=2032"), &dev).await).is_empty(), "{engine}");
        // The demo's history was seeded in December 1969 (the test clock's epoch).
        let demo = get(&app, &q("group=vision&year=1969&tag=baseline"), &dev).await;
        assert_eq!(demo["jobs"].as_array().unwrap().len(), 3, "{engine}: {demo}");
        let one = get(&app, &q("group=vision&tag=v2"), &dev).await;
        assert_eq!(one["jobs"][1]["tags"], json!(["ablation", "v2"]), "{engine}: {one}");
        let (s, v) = app.call("GET", &q("year=twenty"), Some(&dev), None).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{engine}: {v}");
        common::api::assert_error_shape(&v, "bad-request");
    }
}

// V2: which pool has surplus and which is tight.
#[tokio::test]
async fn the_capacity_map_tells_surplus_from_tight() {
    let app = TestApp::new("sqlite").await;
    let dev = app.token("vision-dev", "demo-password").await;
    let d = dispatcher(&app);
    for _ in 0..2 {
        let body = json!({ "name": "big", "command": "c", "gpus": 8 });
        assert_eq!(send(&app, "POST", "/api/jobs", &dev, body).await.0, StatusCode::CREATED);
    }
    d.cycle(NOW).await.unwrap();
    let pools = get(&app, "/api/pools", &dev).await;
    let status: Vec<(String, i64, String)> = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["pool"].as_str().unwrap().into(),
                p["free"].as_i64().unwrap(),
                p["status"].as_str().unwrap().into(),
            )
        })
        .collect();
    // Both jobs land in one pool (the placer packs), leaving the other pool free.
    let tight = status.iter().filter(|(_, free, s)| *free == 0 && s == "tight").count();
    let surplus = status.iter().filter(|(_, free, s)| *free == 16 && s == "surplus").count();
    assert_eq!((tight, surplus), (1, 1), "{status:?}");
}

// Q3: the month's spend counts against the budget, and a job that would overspend waits
// with the figures in its reason.
#[tokio::test]
async fn a_job_that_would_overspend_the_monthly_budget_waits() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (admin, admin2) = (app.token("admin", "admin-pw").await, app.token("admin2", "admin2-pw").await);
        let dev = app.token("vision-dev", "demo-password").await;
        let change = json!({ "group": "vision", "category": "training", "guaranteed": 16, "budget_gpu_h": 20.0, "why": "cut" });
        let (_, v) = send(&app, "PUT", "/api/quotas", &admin, change).await;
        let path = format!("/api/changes/{}/approve", v["change"]);
        assert_eq!(send(&app, "POST", &path, &admin2, json!({ "note": "ok" })).await.0, StatusCode::OK);
        let d = dispatcher(&app);
        let job = |gpus: u32| json!({ "name": "j", "command": "c", "gpus": gpus, "time_limit_s": 3600 });
        let (_, first) = send(&app, "POST", "/api/jobs", &dev, job(8)).await;
        d.cycle(NOW).await.unwrap();
        assert_eq!(
            state_of(&app, &dev, first["id"].as_i64().unwrap()).await,
            "running",
            "{engine}: 8 of 20 GPU-h"
        );
        // Two hours later the first job has spent 16 GPU-h of 20; 8 more would overspend.
        app.clock.store(NOW + 7200, Ordering::SeqCst);
        let dev = app.token("vision-dev", "demo-password").await;
        let (_, second) = send(&app, "POST", "/api/jobs", &dev, job(8)).await;
        d.cycle(NOW + 7200).await.unwrap();
        let receipt = get(&app, &format!("/api/jobs/{}", second["id"]), &dev).await;
        assert_eq!(receipt["state"], "pending", "{engine}");
        assert!(receipt["reason"].as_str().unwrap().contains("budget"), "{engine}: {receipt}");
        let quotas = get(&app, "/api/quotas", &dev).await;
        let row =
            quotas["quotas"].as_array().unwrap().iter().find(|q| q["group"] == "vision").unwrap().clone();
        assert_eq!(row["spent_gpu_h"], 16.0, "{engine}: {row}");
    }
}

// O6: a dry run says what would happen to a job submitted now, and writes nothing.
#[tokio::test]
async fn a_dry_run_says_what_would_happen_and_writes_nothing() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let dev = app.token("vision-dev", "demo-password").await;
        let (jobs, events) = (app.count("jobs").await, app.count("events").await);
        let job = |gpus: u32| json!({ "name": "try", "command": "c", "gpus": gpus });
        let (s, fits) = send(&app, "POST", "/api/jobs/dry-run", &dev, job(8)).await;
        assert_eq!(s, StatusCode::OK, "{engine}: {fits}");
        assert_eq!(fits["would"], "start", "{engine}: {fits}");
        let gpus: usize =
            fits["nodes"].as_array().unwrap().iter().map(|n| n[1].as_array().unwrap().len()).sum();
        assert_eq!(gpus, 8, "{engine}: {fits}");
        let (_, over) = send(&app, "POST", "/api/jobs/dry-run", &dev, job(24)).await;
        assert_eq!(over["would"], "wait", "{engine}: {over}");
        assert!(over["why"].as_str().unwrap().starts_with("over quota"), "{engine}: {over}");
        let mut t4 = job(1);
        t4["model"] = json!("T4");
        // A model no node has is refused, naming the models there are (finding 8).
        let (s, none) = send(&app, "POST", "/api/jobs/dry-run", &dev, t4).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {none}");
        assert!(none["error"]["message"].as_str().unwrap().contains("A100-80G"), "{engine}: {none}");
        assert_eq!(
            (app.count("jobs").await, app.count("events").await),
            (jobs, events),
            "{engine}: nothing written"
        );
    }
}

// The first job waiting for capacity (not quota) carries its estimated start: when the
// running jobs' time limits free enough GPUs (the backfill reservation).
#[tokio::test]
async fn the_first_job_waiting_for_capacity_shows_its_estimated_start() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let (vision, speech) =
            (app.token("vision-dev", "demo-password").await, app.token("speech-dev", "demo-password").await);
        // Half the cluster is out of service: 16 GPUs for guarantees of 32.
        let (_, nodes) = app.call("GET", "/api/nodes", Some(&admin), None).await;
        for n in &nodes["nodes"].as_array().unwrap()[..2] {
            let path = format!("/api/nodes/{}", n["id"]);
            assert_eq!(
                send(&app, "PATCH", &path, &admin, json!({ "healthy": false })).await.0,
                StatusCode::OK
            );
        }
        let job = |limit: i64| json!({ "name": "j", "command": "c", "gpus": 8, "time_limit_s": limit });
        send(&app, "POST", "/api/jobs", &vision, job(3600)).await;
        send(&app, "POST", "/api/jobs", &speech, job(7200)).await;
        let d = dispatcher(&app);
        d.cycle(NOW).await.unwrap();
        // vision is within its guarantee, speech's work is guaranteed too: vision waits for capacity.
        let (_, waiting) = send(&app, "POST", "/api/jobs", &vision, job(600)).await;
        d.cycle(NOW + 10).await.unwrap();
        let r = get(&app, &format!("/api/jobs/{}", waiting["id"]), &vision).await;
        assert_eq!(r["state"], "pending", "{engine}: {r}");
        assert_eq!(
            r["estimated_start"],
            NOW + 3600,
            "{engine}: when vision's first job reaches its limit: {r}"
        );
    }
}
