//! Issue 13, P1 and B1, on a live server with its dispatcher (SQLite, and PostgreSQL when
//! the test command started one): every job carries a time limit — its class's default when
//! it names none — and is stopped there, by its agent (a real agent and a real process) or,
//! on a node without an agent, by the server; a limit above the class's maximum is refused;
//! a job from before limits existed is held to its class's maximum; and an admin's loan
//! waits for the lender (B1).

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::api::{TestApp, engines, fresh_postgres};
use common::live::{call, free_port, http, lab_agent, login, serve, wait_for};
use serde_json::{Value, json};
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool_core::NativePolicies;

/// The engines' database URLs for a live server: SQLite in its data folder (none), and a
/// fresh PostgreSQL database when the test command started a server.
fn databases(what: &str) -> Vec<(&'static str, Option<String>)> {
    engines()
        .into_iter()
        .map(|e| (e, (e == "postgres").then(|| fresh_postgres(what).expect("postgres database"))))
        .collect()
}

/// `(status, body)` of a request whose answer may be a refusal.
fn ask(addr: &str, method: &str, path: &str, token: &str, body: Value) -> (u16, Value) {
    let (status, text) = http(addr, method, path, Some(token), Some(&body.to_string())).expect("request");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn events(addr: &str, token: &str, job: i64) -> Vec<Value> {
    let v = call(addr, "GET", &format!("/api/events?job={job}&limit=500"), token, None);
    v["events"].as_array().unwrap().clone()
}

#[track_caller]
fn wait_state(addr: &str, token: &str, job: i64, state: &str) -> Value {
    wait_for(40, &format!("job {job} {state}"), || {
        let r = call(addr, "GET", &format!("/api/jobs/{job}"), token, None);
        (r["state"] == state).then_some(r)
    })
}

/// Whether any GPU in the global view is held by `job`.
fn holds_gpus(addr: &str, token: &str, job: i64) -> bool {
    let view = call(addr, "GET", "/api/nodes", token, None);
    view["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["gpus"].as_array().unwrap())
        .any(|g| g["job"] == job)
}

// P1: admins set each class's default and maximum; a job that names no limit gets its
// class's default and is stopped there — by its agent (SIGTERM to a real `sleep 60`), and
// on a node without an agent by the server, its GPUs freed either way; a limit above the
// class's maximum is refused with the maximum named, for a submission and a dry run alike.
#[test]
fn a_job_without_a_limit_gets_its_class_default_and_is_stopped_there() {
    for (engine, database) in databases("limits") {
        let dir = common::fresh_dir("limits");
        let dir = dir.to_str().unwrap().to_string();
        let addr = format!("127.0.0.1:{}", free_port());
        let _server = serve(&dir, &addr, database.as_deref(), &["--grace-s", "2"]);
        let admin = login(&addr, "admin", "admin-pw");
        let speech = login(&addr, "speech-dev", "demo-password");
        let robotics = login(&addr, "robotics-dev", "demo-password");
        let speech_t4 = json!({ "group": "speech", "model": "T4", "category": "training", "guaranteed": 4, "why": "the lab's T4s" });
        let _agent = lab_agent(&addr, &dir, &admin, speech_t4);

        // Everyone reads the limits as shipped; a member may not change them.
        let shipped = call(&addr, "GET", "/api/settings/limits", &speech, None);
        let experiment = json!({ "class": "experiment", "default_s": 14_400, "max_s": 86_400 });
        assert!(shipped["classes"].as_array().unwrap().contains(&experiment), "{engine}: {shipped}");
        let tiny = json!({ "classes": [{ "class": "experiment", "default_s": 2, "max_s": 60 }] });
        assert_eq!(ask(&addr, "PUT", "/api/settings/limits", &speech, tiny.clone()).0, 403, "{engine}");
        let set = call(&addr, "PUT", "/api/settings/limits", &admin, Some(tiny));
        assert_eq!(
            set["classes"][1],
            json!({ "class": "experiment", "default_s": 2, "max_s": 60 }),
            "{engine}"
        );
        let (status, v) = ask(
            &addr,
            "PUT",
            "/api/settings/limits",
            &admin,
            json!({ "classes": [{ "class": "batch", "default_s": 100, "max_s": 10 }] }),
        );
        assert_eq!(status, 422, "{engine}: a default above the maximum: {v}");

        // Above the class's maximum: refused, naming it; the dry run says the same.
        let over = json!({ "name": "long", "command": "sleep 60", "gpus": 1, "model": "T4", "class": "experiment", "time_limit_s": 61 });
        for path in ["/api/jobs", "/api/jobs/dry-run"] {
            let (status, v) = ask(&addr, "POST", path, &speech, over.clone());
            assert_eq!(status, 422, "{engine} {path}: {v}");
            let said =
                v["error"]["message"].as_str().or(v["message"].as_str()).unwrap_or_default().to_string();
            assert!(said.contains("experiment class's maximum of 60 s"), "{engine} {path}: {v}");
        }

        // On the agent's node: the class default, 2 s, and the agent stops the process.
        let job = json!({ "name": "forever", "command": "sleep 60", "gpus": 4, "model": "T4", "class": "experiment" });
        let on_agent = call(&addr, "POST", "/api/jobs", &speech, Some(job))["id"].as_i64().unwrap();
        let receipt = call(&addr, "GET", &format!("/api/jobs/{on_agent}"), &speech, None);
        assert_eq!(receipt["time_limit_s"], 2, "{engine}: the class default: {receipt}");
        let listed = call(&addr, "GET", "/api/jobs?mine=true", &speech, None);
        assert_eq!(listed["jobs"][0]["time_limit_s"], 2, "{engine}: {listed}");
        wait_state(&addr, &speech, on_agent, "running");
        let ended = wait_state(&addr, &speech, on_agent, "timed-out");
        let timed_out =
            ended["events"].as_array().unwrap().iter().find(|e| e["kind"] == "timed-out").cloned();
        let timed_out = timed_out.unwrap_or_else(|| panic!("{engine}: a timed-out event: {ended}"));
        assert_eq!(timed_out["actor"], "agent lab-0", "{engine}: its agent stopped it: {timed_out}");
        let started =
            ended["events"].as_array().unwrap().iter().find(|e| e["kind"] == "placed").unwrap()["at"]
                .as_i64()
                .unwrap();
        let held = timed_out["at"].as_i64().unwrap() - started;
        assert!(
            (2..40).contains(&held),
            "{engine}: stopped at its limit, not at the end of `sleep 60`: {held} s"
        );
        assert!(!holds_gpus(&addr, &speech, on_agent), "{engine}: its GPUs are free");

        // On a node without an agent (the demo's A100s): the server ends it at its limit.
        let job = json!({ "name": "no agent", "command": "sleep 60", "gpus": 1, "class": "experiment" });
        let agentless = call(&addr, "POST", "/api/jobs", &robotics, Some(job))["id"].as_i64().unwrap();
        wait_state(&addr, &robotics, agentless, "running");
        let ended = wait_state(&addr, &robotics, agentless, "timed-out");
        assert_eq!(ended["time_limit_s"], 2, "{engine}");
        let kinds: Vec<Value> =
            events(&addr, &robotics, agentless).into_iter().map(|e| e["kind"].clone()).collect();
        assert!(kinds.contains(&json!("timed-out")), "{engine}: {kinds:?}");
        let timed_out =
            ended["events"].as_array().unwrap().iter().find(|e| e["kind"] == "timed-out").unwrap().clone();
        assert_eq!(timed_out["actor"], "dispatcher", "{engine}: {timed_out}");
        assert!(
            timed_out["message"].as_str().unwrap().contains("reached its time limit of 2 s"),
            "{engine}: {timed_out}"
        );
        assert!(!holds_gpus(&addr, &robotics, agentless), "{engine}: its GPU is free");
        // A normal job keeps the shipped default: a day.
        let job = json!({ "name": "day", "command": "sleep 60", "gpus": 1 });
        let normal = call(&addr, "POST", "/api/jobs", &robotics, Some(job))["id"].as_i64().unwrap();
        assert_eq!(
            call(&addr, "GET", &format!("/api/jobs/{normal}"), &robotics, None)["time_limit_s"],
            86_400
        );
        call(&addr, "POST", &format!("/api/jobs/{normal}/cancel"), &robotics, None);
    }
}

// B1 with the live dispatcher: an admin's loan is a request. vision's third 8-GPU job
// waits over its guarantee while the loan waits; the admin who asked cannot approve it;
// once speech's manager approves, the job runs on the loan.
#[test]
fn an_admins_loan_waits_for_the_lender() {
    for (engine, database) in databases("loans") {
        let dir = common::fresh_dir("loans");
        let dir = dir.to_str().unwrap().to_string();
        let addr = format!("127.0.0.1:{}", free_port());
        let _server = serve(&dir, &addr, database.as_deref(), &[]);
        let admin = login(&addr, "admin", "admin-pw");
        let vision = login(&addr, "vision-dev", "demo-password");
        let speech_lead = login(&addr, "speech-lead", "demo-password");
        let jobs: Vec<i64> = (0..3)
            .map(|k| {
                let job = json!({ "name": format!("j{k}"), "command": "train", "gpus": 8 });
                call(&addr, "POST", "/api/jobs", &vision, Some(job))["id"].as_i64().unwrap()
            })
            .collect();
        wait_state(&addr, &vision, jobs[1], "running");
        let now = call(&addr, "GET", &format!("/api/jobs/{}", jobs[0]), &vision, None)["submitted_at"]
            .as_i64()
            .unwrap();
        let loan = json!({ "lender": "speech", "borrower": "vision", "gpus": 8, "ends_at": now + 86_400, "why": "paper deadline" });
        let asked = call(&addr, "POST", "/api/loans", &admin, Some(loan));
        assert_eq!(asked["state"], "requested", "{engine}: an admin's loan is a request: {asked}");
        let id = asked["id"].as_i64().unwrap();
        let (status, v) =
            ask(&addr, "POST", &format!("/api/loans/{id}/approve"), &admin, json!({ "note": "mine" }));
        assert_eq!(status, 403, "{engine}: no one approves their own request: {v}");
        // Cycles pass (one a second): the job still waits for the lender.
        std::thread::sleep(std::time::Duration::from_secs(3));
        let waiting = call(&addr, "GET", &format!("/api/jobs/{}", jobs[2]), &vision, None);
        assert_eq!(waiting["state"], "pending", "{engine}: {waiting}");
        let approved = call(
            &addr,
            "POST",
            &format!("/api/loans/{id}/approve"),
            &speech_lead,
            Some(json!({ "note": "idle" })),
        );
        assert_eq!(approved["state"], "active", "{engine}");
        let ran = wait_state(&addr, &vision, jobs[2], "running");
        assert!(ran.to_string().contains(&format!("loan {id}")), "{engine}: runs on the loan: {ran}");
    }
}

// P1, jobs from before limits existed (their time_limit_s is NULL; the migration leaves
// them): the server holds them to their class's maximum, counted from their start, and
// ends them on a node without an agent once it has passed — not a second before.
#[tokio::test]
async fn a_job_without_a_stored_limit_is_held_to_its_class_maximum() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let dev = app.token("vision-dev", "demo-password").await;
        let limits = json!({ "classes": [{ "class": "batch", "default_s": 60, "max_s": 600 }] }).to_string();
        let (status, v) = app.call("PUT", "/api/settings/limits", Some(&admin), Some(&limits)).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let body = json!({ "name": "old", "command": "train", "gpus": 2, "class": "batch" }).to_string();
        let (status, v) = app.call("POST", "/api/jobs", Some(&dev), Some(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{engine}: {v}");
        let job = v["id"].as_i64().unwrap();
        sqlx::query("UPDATE jobs SET time_limit_s = NULL WHERE id = $1")
            .bind(job)
            .execute(&app.state.store.pool)
            .await
            .unwrap();
        let (_, r) = app.call("GET", &format!("/api/jobs/{job}"), Some(&dev), None).await;
        assert_eq!(r["time_limit_s"], 600, "{engine}: shown with its class's maximum: {r}");

        let d = Dispatcher::new(
            app.state.store.clone(),
            Arc::new(NativePolicies::default()),
            Lease { holder: "a".into(), ttl_s: 30 },
        );
        const T0: i64 = 2_000_000_100;
        d.cycle(T0).await.unwrap();
        let state = |r: Value| r["state"].as_str().unwrap_or_default().to_string();
        let (_, r) = app.call("GET", &format!("/api/jobs/{job}"), Some(&dev), None).await;
        assert_eq!(state(r), "running", "{engine}");
        d.cycle(T0 + 599).await.unwrap();
        let (_, r) = app.call("GET", &format!("/api/jobs/{job}"), Some(&dev), None).await;
        assert_eq!(state(r), "running", "{engine}: not before its limit");
        d.cycle(T0 + 600).await.unwrap();
        let (_, r) = app.call("GET", &format!("/api/jobs/{job}"), Some(&dev), None).await;
        assert_eq!(state(r.clone()), "timed-out", "{engine}: {r}");
        assert_eq!(app.count("allocations WHERE ended_at IS NULL").await, 0, "{engine}: its GPUs are free");
        let attained: i64 = {
            use sqlx::Row;
            let row = sqlx::query("SELECT attained_gpu_s FROM jobs WHERE id = $1")
                .bind(job)
                .fetch_one(&app.state.store.pool)
                .await
                .unwrap();
            row.get(0)
        };
        assert_eq!(attained, 2 * 600, "{engine}: it held 2 GPUs for 600 s (R3)");
    }
}

// P1 through templates (T1): a template freezing a limit above its class's maximum is
// refused when created; one freezing none launches with the class's default; one whose
// limit a later, lower maximum overtook is refused at launch, naming the maximum.
#[tokio::test]
async fn templates_launch_within_their_class_limits() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let dev = app.token("vision-dev", "demo-password").await;
        let set = |default_s: i64, max_s: i64| {
            json!({ "classes": [{ "class": "experiment", "default_s": default_s, "max_s": max_s }] })
                .to_string()
        };
        let (status, v) = app.call("PUT", "/api/settings/limits", Some(&admin), Some(&set(600, 3600))).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let template = |name: &str, limit: Option<i64>| {
            let mut t = json!({ "name": name, "gpus": 1, "command": "python try.py", "class": "experiment" });
            if let Some(l) = limit {
                t["time_limit_s"] = json!(l);
            }
            t.to_string()
        };
        let (status, v) =
            app.call("POST", "/api/templates", Some(&dev), Some(&template("long", Some(7200)))).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {v}");
        assert!(v.to_string().contains("maximum of 3600 s (1 h)"), "{engine}: {v}");
        let (status, v) = app.call("POST", "/api/templates", Some(&dev), Some(&template("open", None))).await;
        assert_eq!(status, StatusCode::CREATED, "{engine}: {v}");
        let open = v["id"].as_i64().unwrap();
        let (_, v) =
            app.call("POST", "/api/templates", Some(&dev), Some(&template("half", Some(1800)))).await;
        let half = v["id"].as_i64().unwrap();
        let launch = |id: i64| json!({ "template": id }).to_string();
        let (status, v) = app.call("POST", "/api/jobs", Some(&dev), Some(&launch(open))).await;
        assert_eq!(status, StatusCode::CREATED, "{engine}: {v}");
        let (_, r) = app.call("GET", &format!("/api/jobs/{}", v["id"]), Some(&dev), None).await;
        assert_eq!(r["time_limit_s"], 600, "{engine}: the class's default: {r}");
        let (status, _) = app.call("PUT", "/api/settings/limits", Some(&admin), Some(&set(60, 900))).await;
        assert_eq!(status, StatusCode::OK, "{engine}");
        let (status, v) = app.call("POST", "/api/jobs", Some(&dev), Some(&launch(half))).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {v}");
        assert!(v.to_string().contains("experiment class's maximum of 900 s (15 min)"), "{engine}: {v}");
    }
}
