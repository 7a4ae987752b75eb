//! A budget crossing on a real node (Q3), both engines: a job that checkpoints runs on a
//! real agent; admins lower its group's budget below what the job may still use; the
//! agent stops it at a checkpoint (SIGTERM, the job saves its count), it is requeued and
//! waits on the budget; raised again, the budget lets it resume from its checkpoint.

mod common;

use common::api::{engines, fresh_postgres};
use common::live::{call, counter, free_port, lab_agent, login, serve, wait_for};
use serde_json::{Value, json};

/// The quota change that sets vision's T4 budget, proposed by one admin, approved by another (B2).
fn budget(addr: &str, admin: &str, admin2: &str, gpu_h: f64) {
    let change = json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 4,
        "budget_gpu_h": gpu_h, "why": "the month's money" });
    let id = call(addr, "PUT", "/api/quotas", admin, Some(change))["change"].clone();
    call(addr, "POST", &format!("/api/changes/{id}/approve"), admin2, Some(json!({ "note": "ok" })));
}

fn job(addr: &str, token: &str, id: i64) -> Value {
    call(addr, "GET", &format!("/api/jobs/{id}"), token, None)
}

#[test]
fn a_budget_crossing_stops_the_job_at_a_checkpoint_and_it_resumes_when_raised() {
    for engine in engines() {
        let database =
            (engine == "postgres").then(|| fresh_postgres("budget_agent").expect("postgres database"));
        let dir = common::fresh_dir("budget-agent");
        let dir = dir.to_str().unwrap().to_string();
        let addr = format!("127.0.0.1:{}", free_port());
        let _server = serve(&dir, &addr, database.as_deref(), &["--grace-s", "5"]);
        let admin = login(&addr, "admin", "admin-pw");
        let change = json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 4,
            "budget_gpu_h": 100.0, "why": "the lab's T4s" });
        let _agent = lab_agent(&addr, &dir, &admin, change);
        let admin2 = login(&addr, "admin2", "admin2-pw");
        let dev = login(&addr, "vision-dev", "demo-password");
        let spec = json!({ "name": "counting", "command": counter(1000), "gpus": 4, "model": "T4",
            "checkpointable": true, "time_limit_s": 3600 });
        let id = call(&addr, "POST", "/api/jobs", &dev, Some(spec))["id"].as_i64().unwrap();
        let trace = format!("{dir}/ckpt/job-{id}/trace");
        wait_for(30, "the job counting", || {
            std::fs::read_to_string(&trace).ok().filter(|t| t.contains("start 0")).map(|_| ())
        });
        std::thread::sleep(std::time::Duration::from_millis(1500));

        // Budget 1 GPU-hour: the job's 4 GPUs x the rest of its hour no longer fit.
        budget(&addr, &admin, &admin2, 1.0);
        let saved = wait_for(30, "the checkpoint", || {
            let t = std::fs::read_to_string(&trace).unwrap_or_default();
            t.lines().find_map(|l| l.strip_prefix("checkpoint ").map(|n| n.parse::<u32>().unwrap()))
        });
        assert!(saved > 0, "{engine}: it saved its count");
        let why = wait_for(30, "requeued, waiting on the budget", || {
            let j = job(&addr, &dev, id);
            let why = j["reason"].as_str().unwrap_or_default().to_string();
            (j["state"] == "pending" && why.starts_with("monthly budget")).then_some(why)
        });
        assert!(why.contains("of 1.0 GPU-hours"), "{engine}: {why}");
        let events = call(&addr, "GET", &format!("/api/events?job={id}&limit=100"), &admin, None);
        let preempted =
            events["events"].as_array().unwrap().iter().find(|e| e["kind"] == "preempted").cloned();
        let preempted = preempted.expect("a preemption event");
        assert_eq!(preempted["detail"]["preempted"]["kind"], "over-budget", "{engine}: {preempted}");

        // Raised again: it runs once more, from where it stopped.
        budget(&addr, &admin, &admin2, 100.0);
        wait_for(30, "resumed from the checkpoint", || {
            let t = std::fs::read_to_string(&trace).unwrap_or_default();
            t.contains(&format!("start {saved} resume=1")).then_some(())
        });
        call(&addr, "POST", &format!("/api/jobs/{id}/cancel"), &dev, None);
    }
}
