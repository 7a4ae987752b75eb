//! Crash safety: kill -9 the server during a burst of submissions and dispatch, restart
//! it on the same records: every job that got a 2xx is there, and no GPU is held twice.
//! MISSION A1, D2, R1.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::live::{free_port, http, login, serve};

fn start(dir: &str, addr: &str, database: Option<&str>) -> common::live::Proc {
    serve(dir, addr, database, &[])
}

#[test]
fn a_killed_server_loses_no_acknowledged_job_and_holds_no_gpu_twice() {
    crash_and_restart("sqlite", None);
    if let Some(url) = common::api::fresh_postgres("crash") {
        crash_and_restart("postgres", Some(&url));
    }
}

fn crash_and_restart(engine: &str, database: Option<&str>) {
    let dir = common::fresh_dir(&format!("crash-{engine}"));
    let dir = dir.to_str().unwrap().to_string();
    let addr = format!("127.0.0.1:{}", free_port());
    let mut server = start(&dir, &addr, database);
    let token = login(&addr, "vision-dev", "demo-password");
    // The token secret the server made is readable by its user only.
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(format!("{dir}/secret")).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);

    let acknowledged = Arc::new(Mutex::new(Vec::<i64>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (addr, token, acknowledged, stop) =
                (addr.clone(), token.clone(), acknowledged.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::SeqCst) {
                    n += 1;
                    let body = format!(r#"{{"name":"burst-{w}-{n}","command":"sleep 600","gpus":1}}"#);
                    if let Ok((201, b)) = http(&addr, "POST", "/api/jobs", Some(&token), Some(&body)) {
                        let v: serde_json::Value = serde_json::from_str(&b).expect("json");
                        acknowledged.lock().unwrap().push(v["id"].as_i64().expect("id"));
                    }
                }
            })
        })
        .collect();
    // Let submissions and dispatch cycles overlap, then pull the plug mid-burst.
    std::thread::sleep(Duration::from_millis(1500));
    server.0.kill().expect("kill -9");
    server.0.wait().ok();
    stop.store(true, Ordering::SeqCst);
    for w in writers {
        w.join().unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() > 20, "{engine}: the burst got going: {}", acknowledged.len());

    let server = start(&dir, &addr, database);
    let token = login(&addr, "vision-dev", "demo-password");
    std::thread::sleep(Duration::from_millis(2500)); // a cycle or two after the restart
    // Each acknowledged job, by its receipt (the list shows only the newest thousand).
    let lost: Vec<i64> = acknowledged
        .iter()
        .copied()
        .filter(|id| {
            http(&addr, "GET", &format!("/api/jobs/{id}"), Some(&token), None).map(|r| r.0).ok() != Some(200)
        })
        .collect();
    assert!(lost.is_empty(), "{engine}: acknowledged but lost after kill -9: {lost:?}");

    let (status, body) = http(&addr, "GET", "/api/nodes", Some(&token), None).expect("view");
    assert_eq!(status, 200);
    let view: serde_json::Value = serde_json::from_str(&body).expect("json");
    let mut holders: Vec<i64> = view["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["gpus"].as_array().unwrap().iter().filter_map(|g| g["job"].as_i64()))
        .collect();
    let held = holders.len();
    // The demo has no loans: vision runs on its 16 guaranteed GPUs, no more (Q1).
    assert_eq!(held, 16, "{engine}: vision's guarantee is in use");
    holders.sort_unstable();
    holders.dedup();
    assert_eq!(holders.len(), held, "{engine}: a job holds one GPU each; none is counted twice");
    let (status, running) =
        http(&addr, "GET", "/api/jobs?state=running&limit=500", Some(&token), None).expect("list");
    assert_eq!(status, 200, "{engine}: {running}");
    let running: serde_json::Value = serde_json::from_str(&running).expect("json");
    assert_eq!(
        running["jobs"].as_array().unwrap().len(),
        held,
        "{engine}: as many running jobs as GPUs held"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}
