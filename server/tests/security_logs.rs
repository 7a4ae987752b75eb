//! Issue 10, findings 2 and 3: a job's log is its group's (and admins'), capped, served in
//! ranges that never load the whole log, and followable; each chunk an agent sends is
//! checked on its own (NUL removed, over-long cut) so one job's output never refuses a
//! report, and a retried chunk is recorded once. Both engines. MISSION V1, D2.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use serde_json::{Value, json};
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool::fleet::{Fleet, FleetConfig};
use tidepool_core::NativePolicies;

/// A vision job placed on a registered T4 node: the node's token, the fence, the job id.
struct Placed {
    node: String,
    fence: Value,
    job: i64,
}

async fn placed(app: &TestApp) -> Placed {
    let admin = app.token("admin", "admin-pw").await;
    let (_, t) = app.call("POST", "/api/nodes/tokens", Some(&admin), Some(r#"{"node":"t4-logs"}"#)).await;
    let node = t["token"].as_str().expect("token").to_string();
    let gpus: Vec<Value> = (0..4)
        .map(|i| json!({ "index": i, "uuid": format!("GPU-{i}"), "model": "T4", "memory_total_mb": 16_000 }))
        .collect();
    let (s, v) = app
        .call("POST", "/api/agent/register", Some(&node), Some(&json!({ "gpus": gpus }).to_string()))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
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
        .cycle(app.clock.load(std::sync::atomic::Ordering::SeqCst))
        .await
        .unwrap();
    let (_, o) = sync(app, &node, json!({})).await;
    let start = &o["start"][0];
    let fence = json!({ "allocation": start["allocation"], "epoch": start["epoch"] });
    let (s, _) = sync(app, &node, json!({ "running": [fence] })).await;
    assert_eq!(s, StatusCode::OK);
    Placed { node, fence, job: job["id"].as_i64().expect("job id") }
}

async fn sync(app: &TestApp, token: &str, report: Value) -> (StatusCode, Value) {
    app.call("POST", "/api/agent/sync", Some(token), Some(&report.to_string())).await
}

/// Chunks of the placed job's output: (agent offset, text).
fn chunks(p: &Placed, items: &[(u64, &str)]) -> Value {
    let logs: Vec<Value> = items
        .iter()
        .map(|(o, t)| json!({ "allocation": p.fence["allocation"], "epoch": p.fence["epoch"], "offset": o, "text": t }))
        .collect();
    json!({ "running": [p.fence], "logs": logs })
}

async fn read(app: &TestApp, token: &str, job: i64, query: &str) -> (StatusCode, Value) {
    app.call("GET", &format!("/api/jobs/{job}/log{query}"), Some(token), None).await
}

/// Finding 2: a member of another group reads no log of this one; its group and admins do.
#[tokio::test]
async fn security_log_is_for_its_group_and_admins() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let p = placed(&app).await;
        sync(&app, &p.node, chunks(&p, &[(0, "TIDEPOOL_NODE_TOKEN=tpn_secret\n")])).await;
        for (user, pw, want) in [
            ("speech-dev", "demo-password", StatusCode::FORBIDDEN),
            ("speech-lead", "demo-password", StatusCode::FORBIDDEN),
            ("vision-dev", "demo-password", StatusCode::OK),
            ("vision-lead", "demo-password", StatusCode::OK),
            ("admin", "admin-pw", StatusCode::OK),
        ] {
            let token = app.token(user, pw).await;
            let (s, v) = read(&app, &token, p.job, "").await;
            assert_eq!(s, want, "{engine} {user}: {v}");
            if s == StatusCode::OK {
                assert_eq!(v["log"], "TIDEPOOL_NODE_TOKEN=tpn_secret\n", "{engine}");
            } else {
                assert!(!v.to_string().contains("tpn_secret"), "{engine}: {v}");
            }
        }
        let dev = app.token("vision-dev", "demo-password").await;
        assert_eq!(read(&app, &dev, 999_999, "").await.0, StatusCode::NOT_FOUND, "{engine}");
    }
}

/// Finding 2: output past the cap is dropped after one marker.
#[tokio::test]
async fn security_log_is_capped_with_one_marker() {
    for engine in engines() {
        let mut app = TestApp::new(engine).await;
        app.state.fleet = Arc::new(Fleet::new(FleetConfig { log_cap_bytes: 100, ..FleetConfig::default() }));
        let p = placed(&app).await;
        let line = "x".repeat(59) + "\n";
        for k in 0..5u64 {
            let (s, v) = sync(&app, &p.node, chunks(&p, &[(k * 60, &line)])).await;
            assert_eq!((s, v["refused"].clone()), (StatusCode::OK, json!([])), "{engine}: {v}");
        }
        let dev = app.token("vision-dev", "demo-password").await;
        let (_, v) = read(&app, &dev, p.job, "").await;
        let log = v["log"].as_str().unwrap();
        let marker = "\n[tidepool: log capped at 100 bytes; later output dropped]\n";
        assert_eq!(log, format!("{line}{}{marker}", &line[..40]), "{engine}");
        assert_eq!(log.matches("[tidepool: log capped").count(), 1, "{engine}: one marker");
        assert_eq!((v["capped"].clone(), v["size"].clone()), (json!(true), json!(log.len())), "{engine}");
        assert_eq!(app.count("jobs WHERE log_capped").await, 1, "{engine}");
    }
}

/// Finding 2: ranges by offset and limit, cut on character boundaries, chained by
/// `next_offset` to exactly the whole log.
#[tokio::test]
async fn security_log_ranges_on_character_boundaries() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let p = placed(&app).await;
        // 1-, 2-, 3- and 4-byte characters, across three chunks.
        let parts = ["añ€😀\n", "ü😀😀€", "end\n"];
        let mut at = 0u64;
        for t in parts {
            sync(&app, &p.node, chunks(&p, &[(at, t)])).await;
            at += t.len() as u64;
        }
        let whole: String = parts.concat();
        let dev = app.token("vision-dev", "demo-password").await;
        // Offset 2 is inside "ñ": the range starts after it; limit 5 from there ends inside 😀.
        let (s, v) = read(&app, &dev, p.job, "?offset=2&limit=5").await;
        assert_eq!(s, StatusCode::OK, "{engine}: {v}");
        assert_eq!((v["offset"].clone(), v["log"].clone()), (json!(3), json!("€")), "{engine}: {v}");
        assert_eq!((v["next_offset"].clone(), v["size"].clone()), (json!(6), json!(whole.len())), "{engine}");
        assert_eq!(v["done"], false, "{engine}");
        for limit in [1, 2, 3, 7, 100] {
            let (mut got, mut offset) = (String::new(), 0);
            loop {
                let (_, v) = read(&app, &dev, p.job, &format!("?offset={offset}&limit={limit}")).await;
                let text = v["log"].as_str().unwrap();
                if text.is_empty() {
                    break;
                }
                assert!(text.len() <= limit.max(4), "{engine}: {limit}: {v}");
                got += text;
                offset = v["next_offset"].as_i64().unwrap();
            }
            assert_eq!(got, whole, "{engine}: limit {limit}");
        }
        for bad in ["?limit=0", "?limit=1048577", "?offset=-1"] {
            assert_eq!(
                read(&app, &dev, p.job, bad).await.0,
                StatusCode::UNPROCESSABLE_ENTITY,
                "{engine} {bad}"
            );
        }
    }
}

/// Finding 3: a NUL byte in a chunk (a 500 on PostgreSQL) is removed; the report stands.
#[tokio::test]
async fn security_log_chunk_with_nul_is_stored_without_it() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let p = placed(&app).await;
        let (s, v) = sync(&app, &p.node, chunks(&p, &[(0, "a\u{0}b\u{1}\u{1b}[0m\n")])).await;
        assert_eq!((s, v["refused"].clone()), (StatusCode::OK, json!([])), "{engine}: {v}");
        let dev = app.token("vision-dev", "demo-password").await;
        let (_, v) = read(&app, &dev, p.job, "").await;
        assert_eq!(v["log"], "ab\u{1}\u{1b}[0m\n", "{engine}");
    }
}

/// Finding 3: one over-long chunk is cut (and said so) without refusing the report: the
/// finished segment and the other chunks in it are recorded. Output that escapes to a
/// large JSON body (control characters) or decodes larger (invalid UTF-8) fits.
#[tokio::test]
async fn security_oversized_chunk_keeps_the_rest_of_the_report() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let p = placed(&app).await;
        // What an agent sends for 4 × 32 KiB of control characters: ~768 KiB of JSON.
        let control = "\u{1}".repeat(32 * 1024);
        let items: Vec<(u64, &str)> = (0..4).map(|k| (k * 32 * 1024, control.as_str())).collect();
        let (s, v) = sync(&app, &p.node, chunks(&p, &items)).await;
        assert_eq!((s, v["refused"].clone()), (StatusCode::OK, json!([])), "{engine}: {v}");
        // 32 KiB of 0xFF decodes to 96 KiB of U+FFFD: kept whole.
        let replaced = "\u{fffd}".repeat(32 * 1024);
        let (s, v) = sync(&app, &p.node, chunks(&p, &[(128 * 1024, &replaced)])).await;
        assert_eq!((s, v["refused"].clone()), (StatusCode::OK, json!([])), "{engine}: {v}");
        // Too long for one chunk: cut and said so, while the job's end and the next chunk count.
        let huge = "é".repeat(100 * 1024);
        let mut report = chunks(&p, &[(160 * 1024, &huge), (400 * 1024, "last line\n")]);
        report["running"] = json!([]);
        report["finished"] = json!([{ "allocation": p.fence["allocation"], "epoch": p.fence["epoch"], "outcome": "exited", "exit_code": 0 }]);
        let (s, v) = sync(&app, &p.node, report).await;
        assert_eq!(s, StatusCode::OK, "{engine}: {v}");
        let refused = v["refused"].as_array().unwrap();
        assert_eq!(refused.len(), 1, "{engine}: {v}");
        assert!(refused[0]["reason"].as_str().unwrap().contains("kept the first 131072"), "{engine}: {v}");
        let dev = app.token("vision-dev", "demo-password").await;
        let (_, r) = app.call("GET", &format!("/api/jobs/{}", p.job), Some(&dev), None).await;
        assert_eq!(r["state"], "succeeded", "{engine}: the finished segment counts");
        let (_, v) = read(&app, &dev, p.job, "?offset=0&limit=1048576").await;
        let log = v["log"].as_str().unwrap();
        let want = 4 * 32 * 1024 + replaced.len() + 128 * 1024 + "last line\n".len();
        assert_eq!((log.len(), v["done"].clone()), (want, json!(true)), "{engine}");
        assert!(log.ends_with("élast line\n"), "{engine}");
        // The node is still in service.
        let (s, _) = sync(&app, &p.node, json!({})).await;
        assert_eq!(s, StatusCode::OK, "{engine}");
    }
}

/// Finding 3: a retried chunk (the answer to a report was lost) is recorded once.
#[tokio::test]
async fn security_retried_chunk_is_recorded_once() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let p = placed(&app).await;
        for _ in 0..3 {
            let (s, _) = sync(&app, &p.node, chunks(&p, &[(0, "one\n"), (4, "two\n")])).await;
            assert_eq!(s, StatusCode::OK, "{engine}");
        }
        sync(&app, &p.node, chunks(&p, &[(4, "two\n"), (8, "three\n")])).await;
        let dev = app.token("vision-dev", "demo-password").await;
        let (_, v) = read(&app, &dev, p.job, "").await;
        assert_eq!(v["log"], "one\ntwo\nthree\n", "{engine}");
        assert_eq!(app.count("job_logs").await, 3, "{engine}");
    }
}

/// Finding 2: a small range of a large log (16 MB in 2,000 chunks) reads only its bytes,
/// and quickly; a followed read waits for output, then returns it.
#[tokio::test]
async fn security_range_of_a_large_log_reads_only_its_bytes() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let p = placed(&app).await;
        let chunk = "0123456789abcdef".repeat(512); // 8 KiB
        let began = Instant::now();
        for batch in 0..20u64 {
            let items: Vec<(u64, &str)> =
                (0..100u64).map(|k| ((batch * 100 + k) * 8192, chunk.as_str())).collect();
            let (s, v) = sync(&app, &p.node, chunks(&p, &items)).await;
            assert_eq!(s, StatusCode::OK, "{engine}: {v}");
        }
        eprintln!("{engine}: 2,000 chunks of 8 KiB recorded in {:?}", began.elapsed());
        let dev = app.token("vision-dev", "demo-password").await;
        let began = Instant::now();
        let (s, v) = read(&app, &dev, p.job, "?offset=8000000&limit=1000").await;
        let took = began.elapsed();
        eprintln!("{engine}: 1,000 bytes at 8 MB of a 16 MB log in {took:?}");
        assert_eq!(s, StatusCode::OK, "{engine}");
        assert_eq!(v["size"], json!(2000 * 8192), "{engine}");
        assert_eq!(v["log"].as_str().unwrap(), &chunk.repeat(2)[8_000_000 % 8192..][..1000], "{engine}");
        assert_eq!(v["next_offset"], json!(8_001_000), "{engine}");
        assert!(took < Duration::from_secs(2), "{engine}: {took:?}");

        // Following from the end: nothing yet, so it waits; new output ends the wait.
        let end = 2000 * 8192;
        let reader = {
            let (state, dev) = (app.state.clone(), dev.clone());
            let job = p.job;
            tokio::spawn(async move {
                let app = TestApp { state, clock: Arc::new(Default::default()) };
                let began = Instant::now();
                let got = read(&app, &dev, job, &format!("?offset={end}&follow_s=20")).await;
                (got, began.elapsed())
            })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        sync(&app, &p.node, chunks(&p, &[(end as u64, "news\n")])).await;
        let ((s, v), waited) = reader.await.unwrap();
        assert_eq!((s, v["log"].clone()), (StatusCode::OK, json!("news\n")), "{engine}: {v}");
        assert!(
            waited >= Duration::from_millis(250) && waited < Duration::from_secs(10),
            "{engine}: {waited:?}"
        );
    }
}

/// Logs recorded before offsets existed get them from migration 0006, so ranges read them.
#[tokio::test]
async fn logs_from_before_offsets_read_in_ranges() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let p = placed(&app).await;
        let pool = &app.state.store.pool;
        for text in ["añ€\n", "😀 two\n", "three\n"] {
            sqlx::query("INSERT INTO job_logs (job_id, allocation_id, at, chunk) VALUES ($1, $2, 1, $3)")
                .bind(p.job)
                .bind(p.fence["allocation"].as_i64().unwrap())
                .bind(text)
                .execute(pool)
                .await
                .unwrap();
        }
        let sql = include_str!("../../migrations/sqlite/0006_log_offsets.sql");
        for statement in
            sql.split(';').filter(|s| s.lines().any(|l| !l.trim().is_empty() && !l.starts_with("--")))
        {
            sqlx::query(sqlx::AssertSqlSafe(statement.to_string())).execute(pool).await.unwrap();
        }
        let dev = app.token("vision-dev", "demo-password").await;
        let (_, v) = read(&app, &dev, p.job, "?offset=7&limit=9").await;
        assert_eq!((v["log"].clone(), v["size"].clone()), (json!("😀 two\n"), json!(22)), "{engine}: {v}");
    }
}

/// Finding 3, end to end: a real agent runs a job that prints 40 KB of 0xFF, 40 KB of
/// control characters and a NUL; the job's log is readable, its node stays in service
/// (no report refused whole, so no lost node) and runs the next job.
#[test]
fn security_hostile_output_leaves_its_node_in_service() {
    use common::live::{Proc, call, free_port, login, serve, wait_for};
    let dir = common::fresh_dir("hostile");
    let dir = dir.to_str().unwrap().to_string();
    let addr = format!("127.0.0.1:{}", free_port());
    let _server = serve(&dir, &addr, None, &["--node-lost-after-s", "5"]);
    let admin = login(&addr, "admin", "admin-pw");
    let user = json!({ "username": "admin2", "password": "admin2-pw", "role": "admin" });
    call(&addr, "POST", "/api/users", &admin, Some(user));
    let admin2 = login(&addr, "admin2", "admin2-pw");
    let change =
        json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 4, "why": "t" });
    let id = call(&addr, "PUT", "/api/quotas", &admin, Some(change))["change"].clone();
    call(&addr, "POST", &format!("/api/changes/{id}/approve"), &admin2, Some(json!({ "note": "ok" })));
    let token =
        call(&addr, "POST", "/api/nodes/tokens", &admin, Some(json!({ "node": "hostile-0" })))["token"]
            .as_str()
            .unwrap()
            .to_string();
    let _agent = Proc(
        std::process::Command::new(env!("CARGO_BIN_EXE_tidepool"))
            .args(["agent", "--server", &format!("http://{addr}"), "--fake-gpus", "4xT4", "--wait-s", "1"])
            .args([
                "--state-dir",
                &format!("{dir}/agent"),
                "--checkpoint-root",
                &format!("{dir}/checkpoints"),
            ])
            .env("TIDEPOOL_NODE_TOKEN", &token)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("agent starts"),
    );
    let dev = login(&addr, "vision-dev", "demo-password");
    let command = "head -c 40000 /dev/zero | tr '\\0' '\\377'; head -c 40000 /dev/zero | tr '\\0' '\\1'; \
                   printf 'a\\0b\\n'; echo all-printed";
    let mut ran = Vec::new();
    for (name, command) in [("hostile", command), ("next", "echo next-ran")] {
        let job = json!({ "name": name, "command": command, "gpus": 4, "model": "T4" });
        let id = call(&addr, "POST", "/api/jobs", &dev, Some(job))["id"].as_i64().unwrap();
        wait_for(40, &format!("job {name} finished"), || {
            (call(&addr, "GET", &format!("/api/jobs/{id}"), &dev, None)["state"] == "succeeded").then_some(())
        });
        let log = wait_for(20, "its whole log", || {
            let v = call(&addr, "GET", &format!("/api/jobs/{id}/log?limit=1048576"), &dev, None);
            v["log"].as_str().is_some_and(|l| l.contains("ran") || l.contains("all-printed")).then_some(v)
        });
        ran.push(log);
    }
    let log = ran[0]["log"].as_str().unwrap();
    assert!(
        !log.contains('\0') && log.contains("ab\n") && log.contains('\u{1}'),
        "{}",
        &log[log.len() - 40..]
    );
    assert_eq!(log.matches('\u{fffd}').count(), 40_000, "every 0xFF byte shown as U+FFFD");
    let events = call(&addr, "GET", "/api/events?kind=node-lost", &admin, None);
    assert_eq!(events["events"], json!([]), "the node was never lost");
}
