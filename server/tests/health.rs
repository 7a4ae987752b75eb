//! Health checks and structured logs (issue 14, O3: a deployment's monitoring reads them).
//! `GET /healthz` answers without the database; `GET /readyz` answers 200 only while the
//! database answers and holds exactly the migrations the binary ships, else 503 naming
//! the failing check; it says leader or standby from the lease, read without taking it.
//! A live `tidepool serve --log-format json` is probed over real HTTP and its stderr is
//! read line by line as JSON, the dispatch cycle's figures and a request's span included.
//! Both engines; two servers on one PostgreSQL database: one leader, one standby.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;
use common::api::{TestApp, engines, fresh_postgres};
use common::live::{Proc, free_port, http, serve, wait_for};
use serde_json::Value;
use tidepool_api::health::{Alive, DispatchRole, Readiness};

fn readiness(v: &Value) -> Readiness {
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("a Readiness body: {e}: {v}"))
}

/// O3: a probe tells a server that can serve from one that cannot, and names why.
#[tokio::test]
async fn readyz_fails_with_the_reason_when_migrations_or_the_database_are_wrong() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (status, v) = app.call("GET", "/healthz", None, None).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let alive: Alive = serde_json::from_value(v).expect("Alive");
        assert_eq!(alive.status, "alive");

        let (status, v) = app.call("GET", "/readyz", None, None).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let ready = readiness(&v);
        assert!(ready.ready && ready.failing.is_none(), "{engine}: {v}");
        assert_eq!(
            ready.checks.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["database", "migrations"]
        );
        // A router without a dispatcher's name on the lease never claims to lead.
        assert_eq!(ready.dispatch, DispatchRole::Standby, "{engine}");

        // The newest migration's row removed: the schema is not the binary's.
        let pool = &app.state.store.pool;
        sqlx::query(
            "DELETE FROM _sqlx_migrations WHERE version = (SELECT MAX(version) FROM _sqlx_migrations)",
        )
        .execute(pool)
        .await
        .expect("delete a migration row");
        let newest =
            tidepool::health::shipped(app.state.store.engine).iter().map(|m| m.version).max().unwrap();
        let (status, v) = app.call("GET", "/readyz", None, None).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{engine}: {v}");
        let ready = readiness(&v);
        assert_eq!(ready.failing.as_deref(), Some("migrations"), "{engine}: {v}");
        let detail = &ready.checks[1].detail;
        assert!(detail.contains(&format!("not applied: {newest}")), "{engine}: {detail}");
        // Alive is not readiness: the process still answers.
        assert_eq!(app.call("GET", "/healthz", None, None).await.0, StatusCode::OK);

        // The database gone (the pool closed): the first check fails, the rest is not run.
        pool.close().await;
        let (status, v) = app.call("GET", "/readyz", None, None).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{engine}: {v}");
        let ready = readiness(&v);
        assert_eq!(ready.failing.as_deref(), Some("database"), "{engine}: {v}");
        assert!(!ready.checks[0].ok && ready.checks[0].detail.contains("does not answer"), "{engine}: {v}");
        assert_eq!(app.call("GET", "/healthz", None, None).await.0, StatusCode::OK, "{engine}");
    }
}

/// `tidepool serve` with JSON logs, its stderr collected line by line.
fn serve_json(dir: &str, addr: &str, database: Option<&str>) -> (Proc, Arc<Mutex<Vec<String>>>) {
    let mut args = vec!["serve", "--data-dir", dir, "--listen", addr, "--dispatch-interval-s", "1"];
    args.extend(["--log-format", "json"]);
    if let Some(url) = database {
        args.extend(["--database-url", url]);
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_tidepool"))
        .args(args)
        .env("TIDEPOOL_ADMIN_PASSWORD", "admin-pw")
        // Idle cycles log at debug: asked for here so every cycle shows.
        .env("RUST_LOG", "info,tidepool::dispatch=debug")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("server starts");
    let lines = Arc::new(Mutex::new(Vec::new()));
    let (stderr, sink) = (child.stderr.take().expect("stderr"), lines.clone());
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(line);
        }
    });
    let proc = Proc(child);
    wait_for(60, "the server to answer", || {
        (http(addr, "GET", "/healthz", None, None).ok()?.0 == 200).then_some(())
    });
    (proc, lines)
}

fn get(addr: &str, path: &str) -> (u16, Value) {
    let (status, body) = http(addr, "GET", path, None, None).expect("request");
    (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: JSON: {e}: {body}")))
}

/// O3 on a real process: probes over real HTTP, and logs a collector can parse.
#[test]
fn a_live_server_answers_its_probes_and_logs_json_with_the_cycle_figures() {
    for engine in engines() {
        let dir = common::fresh_dir("health-live");
        let url = (engine == "postgres").then(|| fresh_postgres("health_live").expect("postgres database"));
        let addr = format!("127.0.0.1:{}", free_port());
        let (_server, lines) = serve_json(&dir.display().to_string(), &addr, url.as_deref());

        let (status, v) = get(&addr, "/healthz");
        assert_eq!((status, v["status"].as_str()), (200, Some("alive")), "{engine}: {v}");
        // The only server takes the lease on its first cycle, and says so.
        let ready = wait_for(20, "readyz to say leader", || {
            let (status, v) = get(&addr, "/readyz");
            let ready = readiness(&v);
            assert_eq!(status, 200, "{engine}: {v}");
            (ready.dispatch == DispatchRole::Leader).then_some(ready)
        });
        assert!(
            ready.ready && ready.lease_holder.is_some() && ready.lease_epoch.is_some(),
            "{engine}: {ready:?}"
        );

        // A refused request is logged (4xx at info) with its route template, status, latency.
        let (status, _) = http(&addr, "GET", "/api/jobs/12345", None, None).expect("request");
        assert_eq!(status, 401);
        let parsed = |lines: &Arc<Mutex<Vec<String>>>| -> Vec<Value> {
            let lines = lines.lock().unwrap();
            lines
                .iter()
                .map(|l| {
                    serde_json::from_str::<Value>(l)
                        .unwrap_or_else(|e| panic!("{engine}: not JSON ({e}): {l}"))
                })
                .collect()
        };
        let request = wait_for(10, "the request's log line", || {
            parsed(&lines).into_iter().find(|v| v["message"] == "answered" && v["status"] == 401)
        });
        assert_eq!(request["route"], "/api/jobs/{id}", "{engine}: the template, not the path: {request}");
        assert_eq!(request["method"], "GET", "{request}");
        assert!(request["latency_ms"].is_number(), "{request}");
        assert_eq!(request["span"]["name"], "request", "{request}");

        let cycle = wait_for(10, "a cycle's log line", || {
            parsed(&lines).into_iter().find(|v| v["message"] == "cycle")
        });
        for field in ["placed", "preempted", "held", "duration_ms", "epoch"] {
            assert!(cycle[field].is_number(), "{engine}: `{field}` in {cycle}");
        }
        assert_eq!(cycle["span"]["name"], "cycle", "{cycle}");
        assert_eq!(cycle["level"], "DEBUG", "{cycle}");
        for v in parsed(&lines) {
            assert!(v.is_object() && v["timestamp"].is_string() && v["level"].is_string(), "{engine}: {v}");
        }
    }
}

/// O3: two servers on one database; exactly one dispatches, the other stands by, and
/// both agree on who leads. PostgreSQL only (SQLite is one server's file).
#[test]
fn two_servers_on_one_database_one_leads_the_other_stands_by() {
    let Some(url) = fresh_postgres("health_pair") else { return };
    let (a, b) = (format!("127.0.0.1:{}", free_port()), format!("127.0.0.1:{}", free_port()));
    let dirs = (common::fresh_dir("health-a"), common::fresh_dir("health-b"));
    let _first = serve(&dirs.0.display().to_string(), &a, Some(&url), &[]);
    let _second = serve(&dirs.1.display().to_string(), &b, Some(&url), &["--no-demo"]);
    let roles = wait_for(20, "one leader and one standby", || {
        let (ra, rb) = (readiness(&get(&a, "/readyz").1), readiness(&get(&b, "/readyz").1));
        let mut roles = [ra.dispatch, rb.dispatch];
        roles.sort_by_key(|r| *r == DispatchRole::Standby);
        (roles == [DispatchRole::Leader, DispatchRole::Standby]).then_some((ra, rb))
    });
    assert!(roles.0.ready && roles.1.ready, "{roles:?}");
    assert_eq!(roles.0.lease_holder, roles.1.lease_holder, "both read the same lease");
    assert_eq!(roles.0.lease_epoch, roles.1.lease_epoch);
}

/// A log format that is neither human nor json is refused at start, not silently
/// replaced (a collector would get lines it cannot parse).
#[test]
fn an_unknown_log_format_is_refused() {
    let dir = common::fresh_dir("health-format");
    let out = Command::new(env!("CARGO_BIN_EXE_tidepool"))
        .args(["serve", "--data-dir", &dir.display().to_string(), "--listen", "127.0.0.1:0"])
        .env("TIDEPOOL_LOG_FORMAT", "xml")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("TIDEPOOL_LOG_FORMAT is `xml`: it must be `human` or `json`"), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_tidepool"))
        .args(["serve", "--log-format", "xml"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2), "clap refuses the flag's value");
}
