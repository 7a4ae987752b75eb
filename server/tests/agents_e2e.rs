//! Real jobs on real nodes: one server and three agents with fake GPUs, all real
//! processes on loopback. Jobs of two groups run shell scripts that checkpoint; a
//! critical job makes a borrower yield and the borrower resumes from its checkpoint
//! (D4); a time limit stops a long job (P1); a finished job's GPUs are reused within a
//! cycle (R1); a killed agent's job resumes elsewhere and, once the agent is back,
//! nothing runs twice (V1); an idle job gets a notice and is reclaimed (R2, R3).

mod common;

use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use common::live::{Proc, call, counter, free_port, http, login, serve, wait_for};
use serde_json::{Value, json};

struct Cluster {
    addr: String,
    dir: String,
    agents: Vec<Option<Proc>>,
    tokens: Vec<String>,
    _server: Proc,
}

impl Cluster {
    fn agent(&mut self, k: usize) {
        let child = Command::new(env!("CARGO_BIN_EXE_tidepool"))
            .args([
                "agent",
                "--server",
                &format!("http://{}", self.addr),
                "--fake-gpus",
                "4xT4",
                "--pool",
                "lab",
            ])
            .args(["--wait-s", "1", "--state-dir", &format!("{}/agent-{k}", self.dir)])
            .args(["--checkpoint-root", &format!("{}/checkpoints", self.dir)])
            .env("TIDEPOOL_NODE_TOKEN", &self.tokens[k])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("agent starts");
        self.agents[k] = Some(Proc(child));
    }

    fn job(&self, token: &str, id: i64) -> Value {
        call(&self.addr, "GET", &format!("/api/jobs/{id}"), token, None)
    }

    #[track_caller]
    fn wait_state(&self, token: &str, id: i64, state: &str) {
        wait_for(40, &format!("job {id} {state}"), || (self.job(token, id)["state"] == state).then_some(()));
    }

    fn submit(&self, token: &str, body: Value) -> i64 {
        call(&self.addr, "POST", "/api/jobs", token, Some(body))["id"].as_i64().unwrap()
    }

    /// The node a job runs on.
    fn node_of(&self, token: &str, id: i64) -> Option<String> {
        let view = call(&self.addr, "GET", "/api/nodes", token, None);
        view["nodes"].as_array()?.iter().find_map(|n| {
            n["gpus"]
                .as_array()?
                .iter()
                .any(|g| g["job"] == id)
                .then(|| n["name"].as_str().unwrap().to_string())
        })
    }

    fn trace(&self, id: i64) -> String {
        std::fs::read_to_string(format!("{}/checkpoints/job-{id}/trace", self.dir)).unwrap_or_default()
    }

    fn events(&self, token: &str, id: i64) -> Vec<Value> {
        let v = call(&self.addr, "GET", &format!("/api/events?job={id}&limit=500"), token, None);
        v["events"].as_array().unwrap().iter().rev().cloned().collect()
    }
}

fn unix_now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

fn start() -> Cluster {
    let dir = common::fresh_dir("agents");
    let dir = dir.to_str().unwrap().to_string();
    let addr = format!("127.0.0.1:{}", free_port());
    let flags = [
        "--grace-s",
        "3",
        "--node-lost-after-s",
        "3",
        "--idle-after-s",
        "2",
        "--idle-notice-s",
        "2",
        "--min-runtime-s",
        "0",
    ];
    let server = serve(&dir, &addr, None, &flags);
    let admin = login(&addr, "admin", "admin-pw");
    let user = json!({ "username": "admin2", "password": "admin2-pw", "role": "admin" });
    call(&addr, "POST", "/api/users", &admin, Some(user));
    let admin2 = login(&addr, "admin2", "admin2-pw");
    for (group, gpus) in [("vision", 4), ("speech", 8)] {
        let change = json!({ "group": group, "model": "T4", "category": "training", "guaranteed": gpus, "why": "the lab's T4s" });
        let id = call(&addr, "PUT", "/api/quotas", &admin, Some(change))["change"].clone();
        call(&addr, "POST", &format!("/api/changes/{id}/approve"), &admin2, Some(json!({ "note": "ok" })));
    }
    let tokens = (0..3)
        .map(|k| {
            let t =
                call(&addr, "POST", "/api/nodes/tokens", &admin, Some(json!({ "node": format!("lab-{k}") })));
            t["token"].as_str().unwrap().to_string()
        })
        .collect();
    let mut c = Cluster { addr, dir, agents: vec![None, None, None], tokens, _server: server };
    for k in 0..3 {
        c.agent(k);
    }
    wait_for(30, "three agents registered", || {
        let view = call(&c.addr, "GET", "/api/pools", &admin, None);
        view["pools"].as_array().unwrap().iter().any(|p| p["pool"] == "lab" && p["gpus"] == 12).then_some(())
    });
    c
}

#[test]
fn jobs_run_yield_resume_time_out_survive_a_lost_node_and_idle_reclaim() {
    let mut c = start();
    let addr = c.addr.clone();
    let vision = login(&addr, "vision-dev", "demo-password");
    let speech = login(&addr, "speech-dev", "demo-password");
    let speech_lead = login(&addr, "speech-lead", "demo-password");
    let offer = json!({ "lender": "speech", "model": "T4", "gpus": 4, "ends_at": unix_now() + 3600, "why": "idle this week" });
    call(&addr, "POST", "/api/loans", &speech_lead, Some(offer));
    let grant = json!({ "name": "urgent", "class": "critical", "expires_at": unix_now() + 7 * 86_400 });
    call(&addr, "POST", "/api/projects", &speech_lead, Some(grant));
    let t4 = |name: &str, command: String| json!({ "name": name, "command": command, "gpus": 4, "model": "T4", "checkpointable": true });

    // vision: one job on its guarantee, one on speech's loan; speech: a short job.
    let v1 = c.submit(&vision, t4("v1", counter(100)));
    let v2 = c.submit(&vision, t4("v2", counter(100)));
    c.wait_state(&vision, v1, "running");
    c.wait_state(&vision, v2, "running");
    let s1 = c.submit(&speech, t4("s1", "sleep 4".into()));
    c.wait_state(&speech, s1, "running");
    wait_for(20, "v2 counting", || c.trace(v2).contains("start 0").then_some(()));
    std::thread::sleep(std::time::Duration::from_millis(1500));

    // A critical speech job takes the lent GPUs back: v2 checkpoints and yields.
    let mut urgent = t4("s2", "sleep 60".into());
    urgent["class"] = json!("critical");
    urgent["project"] = json!("urgent");
    let s2 = c.submit(&speech, urgent);
    c.wait_state(&speech, s2, "running");
    let saved = wait_for(20, "v2's checkpoint", || {
        let t = c.trace(v2);
        t.lines().find_map(|l| l.strip_prefix("checkpoint ").map(|n| n.parse::<u32>().unwrap()))
    });
    assert!(saved > 0, "v2 saved its progress: {}", c.trace(v2));
    // s1 finishes; its GPUs go to v2 within a cycle, and v2 resumes where it stopped.
    wait_for(40, "v2 resumed", || c.trace(v2).contains(&format!("start {saved} resume=1")).then_some(()));
    let finished_at =
        c.events(&speech, s1).iter().find(|e| e["kind"] == "finished").expect("s1 finished")["at"]
            .as_i64()
            .unwrap();
    let placed_at =
        c.events(&vision, v2).iter().filter(|e| e["kind"] == "placed").nth(1).expect("v2 placed again")["at"]
            .as_i64()
            .unwrap();
    assert!(
        placed_at - finished_at <= 1,
        "reused within a cycle: finished {finished_at}, placed {placed_at}"
    );
    let requeued = c.events(&vision, v2).into_iter().find(|e| e["kind"] == "requeued").expect("v2 requeued");
    eprintln!(
        "reclaim latency, decision to GPUs free less the grace used: {} ms",
        requeued["detail"]["reclaim_latency_ms"]
    );

    // Cancel the critical job (its agent stops it); a time limit stops the next one.
    call(&addr, "POST", &format!("/api/jobs/{s2}/cancel"), &speech, None);
    let mut limited = t4("s3", "sleep 60".into());
    limited["time_limit_s"] = json!(2);
    let s3 = c.submit(&speech, limited);
    c.wait_state(&speech, s3, "timed-out");

    // Kill the agent running v1: the node is lost, v1 resumes on another node.
    let node = c.node_of(&vision, v1).expect("v1 runs somewhere");
    let k: usize = node.trim_start_matches("lab-").parse().unwrap();
    let mut gone = c.agents[k].take().unwrap();
    gone.0.kill().unwrap();
    gone.0.wait().unwrap();
    wait_for(40, "v1 resumed elsewhere", || c.trace(v1).contains("resume=1").then_some(()));
    c.wait_state(&vision, v1, "succeeded");
    c.wait_state(&vision, v2, "succeeded");
    // Back again: it kills nothing that runs elsewhere, and nothing ran twice.
    c.agent(k);
    wait_for(20, "the node back in service", || {
        let view = call(&addr, "GET", "/api/nodes", &vision, None);
        let n = view["nodes"].as_array().unwrap().iter().find(|n| n["name"] == node.as_str()).cloned();
        n.filter(|n| n["healthy"] == true).map(|_| ())
    });
    for id in [v1, v2] {
        let trace = c.trace(id);
        assert_eq!(trace.matches("done").count(), 1, "job {id} finished once: {trace}");
        assert!(trace.contains("done 100"), "job {id} counted to the end: {trace}");
    }
    let log = call(&addr, "GET", &format!("/api/jobs/{v1}/log"), &vision, None);
    assert!(log["log"].as_str().unwrap().contains("starting at step 0"), "{log}");
    let lost = c.events(&vision, v1);
    assert!(
        lost.iter().any(|e| e["message"].as_str().unwrap().contains("stopped sending heartbeats")),
        "{lost:?}"
    );

    // An idle job: a notice first, then it is reclaimed, with who held what, how long.
    let s4 = c.submit(&speech, t4("s4", r#"echo 0 > "$TIDEPOOL_FAKE_UTIL_FILE"; sleep 60"#.into()));
    let reclaim = wait_for(40, "idle reclaim", || {
        c.events(&speech, s4).into_iter().find(|e| e["kind"] == "idle-reclaim")
    });
    assert!(c.events(&speech, s4).iter().any(|e| e["kind"] == "idle-notice"), "a notice came first");
    assert!(reclaim["message"].as_str().unwrap().contains("held 4 GPUs"), "{reclaim}");
    call(&addr, "POST", &format!("/api/jobs/{s4}/cancel"), &speech, None);
    let (status, _) = http(&addr, "GET", "/api/openapi.json", None, None).unwrap();
    assert_eq!(status, 200);
}

// The run command's demo: `serve --demo-agents` runs an agent for each demo node, so a
// newcomer's job really runs, logs and finishes, and its GPUs come back.
#[test]
fn the_demo_runs_jobs_to_the_end_with_its_own_agents() {
    let dir = common::fresh_dir("demo-agents");
    let dir = dir.to_str().unwrap().to_string();
    let addr = format!("127.0.0.1:{}", free_port());
    let _server = serve(&dir, &addr, None, &["--demo-agents"]);
    let dev = login(&addr, "vision-dev", "demo-password");
    wait_for(30, "the demo's four agents", || {
        let v = call(&addr, "GET", "/api/events?kind=node-registered", &dev, None);
        (v["events"].as_array().unwrap().len() == 4).then_some(())
    });
    let job = json!({ "name": "hello", "command": "echo hello from the demo; sleep 1", "gpus": 1 });
    let id = call(&addr, "POST", "/api/jobs", &dev, Some(job))["id"].as_i64().unwrap();
    wait_for(30, "the job to finish", || {
        (call(&addr, "GET", &format!("/api/jobs/{id}"), &dev, None)["state"] == "succeeded").then_some(())
    });
    let log = call(&addr, "GET", &format!("/api/jobs/{id}/log"), &dev, None);
    assert!(log["log"].as_str().unwrap().contains("hello from the demo"), "{log}");
    let pools = call(&addr, "GET", "/api/pools", &dev, None);
    let held: i64 = pools["pools"].as_array().unwrap().iter().map(|p| p["held"].as_i64().unwrap()).sum();
    assert_eq!(held, 0, "its GPU came back: {pools}");
}
