//! `GET /metrics` (issue 13, O2: the monitoring the organisation already runs sees
//! Tidepool): a real `tidepool serve` with a real agent (fake GPUs) runs a job that leaves
//! its GPUs idle while three more wait; the scrape, over real HTTP, reads exactly that
//! state (queue, held / idle / free GPUs, budget), its timings grow cycle after cycle,
//! its labels name no person, job or raw path, and Prometheus' own checker
//! (`promtool check metrics`) accepts it. Both engines; the scrape is token-guarded on
//! one and loopback-only on the other. A faulting policy module shows in the faults counter.

mod common;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::live::{call, free_port, lab_agent, login, serve, wait_for};
use serde_json::json;

const TOKEN: &str = "scrape-token-for-the-test";

/// `GET /metrics` on a fresh connection: (status, head, body).
fn scrape(addr: &str, token: Option<&str>) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    write!(s, "GET /metrics HTTP/1.1\r\nHost: tidepool\r\nConnection: close\r\n{auth}\r\n").unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("answer");
    let (head, body) = raw.split_once("\r\n\r\n").expect("head and body");
    let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

/// The value of the sample written exactly as `series` (name and labels), if present.
fn value(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Every sample's label names and values.
fn labels(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((_, rest)) = line.split_once('{') else { continue };
        let inner = &rest[..rest.rfind('}').expect("closing brace")];
        for pair in inner.split("\",").map(|p| p.trim_end_matches('"')) {
            let (name, v) = pair.split_once("=\"").unwrap_or_else(|| panic!("label in {line}"));
            out.push((name.to_string(), v.to_string()));
        }
    }
    out
}

/// Prometheus' checker, or `None` where it may be missing (never under CI or
/// `TIDEPOOL_REQUIRE_TOOLS`, which tests/run.sh sets after installing it).
fn promtool() -> Option<String> {
    let tool = std::env::var("TIDEPOOL_PROMTOOL").unwrap_or_else(|_| "promtool".into());
    let found = Command::new(&tool).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
    if found.is_ok_and(|s| s.success()) {
        return Some(tool);
    }
    let required = std::env::var_os("TIDEPOOL_REQUIRE_TOOLS").is_some() || std::env::var_os("CI").is_some();
    assert!(!required, "promtool is missing (apt-get install prometheus): tests/run.sh installs it");
    eprintln!("SKIPPED: the promtool check (promtool not installed; apt-get install prometheus)");
    None
}

#[track_caller]
fn promtool_accepts(text: &str) {
    let Some(tool) = promtool() else { return };
    let mut child = Command::new(tool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool runs");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && said.trim().is_empty(), "promtool check metrics: {said}\n{text}");
}

// O2, V1, V2, R2, Q3, D1: the scrape reads the live state; timings grow; no person in labels.
#[test]
fn a_live_server_exposes_its_queue_gpus_budgets_and_timings_to_prometheus() {
    live("sqlite", None, Some(TOKEN));
    if let Some(url) = common::api::fresh_postgres("metrics") {
        live("postgres", Some(&url), None);
    }
}

fn live(engine: &str, database: Option<&str>, token: Option<&str>) {
    let dir = common::fresh_dir(&format!("metrics-{engine}"));
    let dir = dir.to_str().unwrap().to_string();
    let addr = format!("127.0.0.1:{}", free_port());
    let mut flags = vec!["--min-runtime-s", "0"];
    if let Some(t) = token {
        flags.extend(["--metrics-token", t]);
    }
    let _server = serve(&dir, &addr, database, &flags);
    let admin = login(&addr, "admin", "admin-pw");
    // Vision: 4 T4s guaranteed, a budget of 100 GPU-hours a month.
    let change = json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 4,
        "budget_gpu_h": 100.0, "why": "the lab's T4s" });
    let _agent = lab_agent(&addr, &dir, &admin, change);

    // One job holds 2 GPUs and leaves them idle; three of 4 GPUs each cannot fit and wait.
    let dev = login(&addr, "vision-dev", "demo-password");
    let idle = json!({ "name": "idle", "gpus": 2, "model": "T4",
        "command": "echo 0 > \"$TIDEPOOL_FAKE_UTIL_FILE\"; sleep 120" });
    let held = call(&addr, "POST", "/api/jobs", &dev, Some(idle))["id"].as_i64().unwrap();
    wait_for(40, "the idle job running", || {
        (call(&addr, "GET", &format!("/api/jobs/{held}"), &dev, None)["state"] == "running").then_some(())
    });
    for k in 0..3 {
        let wide = json!({ "name": format!("wide-{k}"), "gpus": 4, "model": "T4", "command": "true" });
        call(&addr, "POST", "/api/jobs", &dev, Some(wide));
    }

    if token.is_some() {
        assert_eq!(scrape(&addr, None).0, 401, "{engine}: no token, no metrics");
        assert_eq!(scrape(&addr, Some("scrape-token-for-the-tesT")).0, 401, "{engine}: a wrong token");
    }
    let read = || {
        let (status, head, body) = scrape(&addr, token);
        assert_eq!(status, 200, "{engine}: {body}");
        assert!(head.to_lowercase().contains("content-type: text/plain; version=0.0.4"), "{engine}: {head}");
        body
    };
    let vision = |name: &str| format!("{name}{{group=\"vision\",class=\"normal\"}}");
    let lab = |name: &str| format!("{name}{{pool=\"lab\",group=\"vision\"}}");
    // The agent reports the job's GPUs idle at its next sync; spend accrues by the second.
    let first = wait_for(30, "idle GPUs and spend in the scrape", || {
        let text = read();
        let spent = "tidepool_budget_spent_gpu_seconds{group=\"vision\",model=\"T4\",category=\"training\"}";
        (value(&text, &lab("tidepool_gpus_idle")) == Some(2.0) && value(&text, spent) > Some(0.0))
            .then_some(text)
    });
    assert_eq!(value(&first, &vision("tidepool_queue_jobs")), Some(3.0), "{engine}: three wait\n{first}");
    assert_eq!(value(&first, &vision("tidepool_queue_gpus")), Some(12.0), "{engine}");
    assert!(value(&first, &vision("tidepool_queue_oldest_wait_seconds")).is_some(), "{engine}");
    assert_eq!(
        value(&first, "tidepool_queue_jobs{group=\"speech\",class=\"normal\"}"),
        Some(0.0),
        "{engine}"
    );
    assert_eq!(value(&first, &lab("tidepool_gpus_held")), Some(2.0), "{engine}: the held allocation");
    assert_eq!(value(&first, "tidepool_gpus_free{pool=\"lab\"}"), Some(2.0), "{engine}");
    assert_eq!(value(&first, "tidepool_pool_gpus{pool=\"lab\"}"), Some(4.0), "{engine}");
    let limit = "tidepool_budget_limit_gpu_seconds{group=\"vision\",model=\"T4\",category=\"training\"}";
    assert_eq!(value(&first, limit), Some(360_000.0), "{engine}: 100 GPU-hours");
    // The demo's history this month: the same spend as the quota view's (rounded to 0.01 h).
    let history =
        "tidepool_budget_spent_gpu_seconds{group=\"vision\",model=\"A100-80G\",category=\"training\"}";
    let quotas = call(&addr, "GET", "/api/quotas", &admin, None);
    let shown = quotas["quotas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["group"] == "vision" && q["model"] == "A100-80G" && q["category"] == "training");
    let shown = shown.expect("the demo's quota")["spent_gpu_h"].as_f64().unwrap();
    let scraped = value(&first, history).expect("the demo's spend") / 3600.0;
    assert!((scraped - shown).abs() <= 0.011, "{engine}: {scraped} GPU-h scraped, {shown} in the quota view");
    assert!(value(&first, "tidepool_agent_sync_seconds_count") > Some(0.0), "{engine}");
    let priority = "tidepool_policy_call_seconds_count{kind=\"priority\"}";
    assert!(value(&first, priority) > Some(0.0), "{engine}: the cycles asked the priority policy");
    assert_eq!(value(&first, "tidepool_policy_faults_total{kind=\"priority\",fault=\"trap\"}"), Some(0.0));

    // Cycles go on (one a second): the histogram's count grows.
    let cycles = |t: &str| value(t, "tidepool_dispatch_cycle_seconds_count").expect("cycle count");
    let before = cycles(&first);
    assert!(before >= 1.0, "{engine}: {first}");
    let later = wait_for(20, "more dispatch cycles", || {
        let text = read();
        (cycles(&text) > before).then_some(text)
    });

    // API latency by route template: the job's page is `/api/jobs/{id}`, never its number.
    let job_route = "tidepool_http_request_duration_seconds_count{method=\"GET\",route=\"/api/jobs/{id}\",status=\"2xx\"}";
    assert!(value(&later, job_route) >= Some(1.0), "{engine}: {later}");
    let routes: BTreeSet<&str> = tidepool::http::ROUTES.iter().map(|r| r.path).collect();
    let people: Vec<String> = call(&addr, "GET", "/api/users", &admin, None)["users"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap().to_string())
        .collect();
    assert!(people.contains(&"vision-dev".to_string()), "{people:?}");
    let allowed =
        ["group", "class", "pool", "model", "category", "kind", "fault", "method", "route", "status", "le"];
    for (name, v) in labels(&later) {
        assert!(
            allowed.contains(&name.as_str()),
            "{engine}: label `{name}` (only groups, pools, kinds, routes…)"
        );
        assert!(!people.contains(&v), "{engine}: a username `{v}` in a label");
        if name == "route" {
            assert!(
                v == "fallback" || routes.contains(v.as_str()),
                "{engine}: route `{v}` is not a template"
            );
        }
    }
    for person in &people {
        assert!(!later.contains(&format!("\"{person}\"")), "{engine}: {person} named in the scrape");
    }
    promtool_accepts(&later);
}

// O2 (policy faults and open circuits): a faulting module counts, kind and fault named,
// in the scrape the router answers to a loopback caller.
#[tokio::test]
async fn policy_faults_and_open_circuits_are_counted() {
    use tidepool::policy::WasmPolicies;
    use tidepool_core::testkit::{cluster, job};

    let faults = || tidepool::metrics::POLICY_FAULTS.get(&["priority", "guest-error"]);
    let opens = || tidepool::metrics::POLICY_CIRCUIT_OPENS.get(&["priority"]);
    let (faults_before, opens_before) = (faults(), opens());
    let rt = common::policies::runtime(Duration::from_millis(300));
    let policies = WasmPolicies::new(rt.clone());
    policies.activate(common::policies::load(&rt, "hostile"));
    // The hostile module refuses to answer for a first group named `error`.
    let snap = cluster().nodes(1, 8).group("error", 8).pending(job(1).gpus(1).at(10)).build();
    for _ in 0..tidepool::policy::host::BREAKER_THRESHOLD {
        tidepool_core::plan(&snap, 100, &policies);
    }
    assert!(faults() >= faults_before + 3, "three faults counted");
    assert!(opens() > opens_before, "the circuit opening counted");

    let app = common::api::TestApp::new("sqlite").await;
    let request = axum::http::Request::get("/metrics")
        .extension(axum::extract::ConnectInfo(std::net::SocketAddr::from(([127, 0, 0, 1], 9))))
        .body(axum::body::Body::empty())
        .unwrap();
    let answer = tower::ServiceExt::oneshot(tidepool::http::app(app.state.clone()), request).await.unwrap();
    assert_eq!(answer.status(), 200);
    let body = axum::body::to_bytes(answer.into_body(), 1 << 24).await.unwrap();
    let text = String::from_utf8(body.to_vec()).unwrap();
    let counted = value(&text, "tidepool_policy_faults_total{kind=\"priority\",fault=\"guest-error\"}");
    assert!(counted >= Some(3.0), "{text}");
    promtool_accepts(&text);
}
