//! HTTPS end to end (issue 14, TLS): a real server process serving TLS with certificates
//! made here, real agent processes reaching it over `https://` and running a job, agents
//! that trust the wrong CA refused, mutual TLS for agents (browsers still welcome), a
//! client that never finishes its handshake unable to hold the server, and bad
//! certificate files refused at start. The jobs run here are the lab's (D1: central
//! dispatch to nodes); HTTPS is what carries them between node and server.

mod common;

use std::io::Read;
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use common::api::{engines, fresh_postgres};
use common::live::{free_port, wait_for};
use common::shell::Shell;
use common::tls::{Https, Pki, agent, serve_https};
use serde_json::json;

/// A server over HTTPS with vision's T4 guarantee approved and a node token for each of
/// `nodes`; the admin's client, its token, and the node tokens.
fn lab(admin_client: &Https, nodes: &[&str]) -> (String, Vec<String>) {
    let admin = admin_client.login("admin", "admin-pw");
    let user = json!({ "username": "admin2", "password": "admin2-pw", "role": "admin" });
    admin_client.call("POST", "/api/users", &admin, Some(user));
    let admin2 = admin_client.login("admin2", "admin2-pw");
    let change = json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 4, "why": "the lab's T4s" });
    let id = admin_client.call("PUT", "/api/quotas", &admin, Some(change))["change"].clone();
    admin_client.call("POST", &format!("/api/changes/{id}/approve"), &admin2, Some(json!({ "note": "ok" })));
    let tokens = nodes
        .iter()
        .map(|n| {
            admin_client.call("POST", "/api/nodes/tokens", &admin, Some(json!({ "node": n })))["token"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    (admin, tokens)
}

/// The GPUs of pool `lab`: 4 for each agent registered there.
fn lab_gpus(client: &Https, admin: &str) -> i64 {
    let view = client.call("GET", "/api/pools", admin, None);
    view["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pool"] == "lab")
        .map_or(0, |p| p["gpus"].as_i64().unwrap())
}

/// A job of vision's on the lab's T4s runs to the end over HTTPS; its log says so.
fn runs_a_job(client: &Https) {
    let dev = client.login("vision-dev", "demo-password");
    let job = json!({ "name": "over-tls", "command": "echo hello over tls", "gpus": 4, "model": "T4" });
    let id = client.call("POST", "/api/jobs", &dev, Some(job))["id"].as_i64().unwrap();
    wait_for(60, "the job to succeed over HTTPS", || {
        (client.call("GET", &format!("/api/jobs/{id}"), &dev, None)["state"] == "succeeded").then_some(())
    });
    let log = client.call("GET", &format!("/api/jobs/{id}/log"), &dev, None);
    assert!(log["log"].as_str().unwrap().contains("hello over tls"), "{log}");
}

/// Waits until `log` (an agent's stderr) holds `what`; the log on failure.
fn log_says(log: &Path, what: &str) {
    wait_for(30, &format!("the agent to say `{what}`"), || {
        std::fs::read_to_string(log).ok().filter(|text| text.contains(what)).map(|_| ())
    });
}

#[test]
fn an_agent_runs_a_job_over_https_and_one_trusting_another_ca_is_refused() {
    for engine in engines() {
        let database = (engine == "postgres").then(|| fresh_postgres("tls_job").expect("postgres"));
        let dir = common::fresh_dir("tls");
        let pki = Pki::new(&dir);
        let dir = dir.to_str().unwrap().to_string();
        let addr = format!("127.0.0.1:{}", free_port());
        let _server = serve_https(&dir, &addr, &pki, database.as_deref(), &[]);
        let client = Https::new(&addr, &pki.ca, None);
        let (admin, tokens) = lab(&client, &["lab-0", "lab-1"]);
        let url = format!("https://{addr}");

        // Trusting another CA: the server's certificate is refused, and the agent says why.
        let wrong_log = dir.clone() + "/wrong.log";
        let _wrong =
            agent(&url, &dir, "wrong", &tokens[1], &[("--ca-cert", &pki.other_ca)], Path::new(&wrong_log));
        log_says(Path::new(&wrong_log), "UnknownIssuer");

        // The command line: without the CA it cannot reach the server and says why (exit
        // 4); with `--ca-cert` it signs in and keeps using it.
        let sh = Shell::in_dir(Path::new(&dir));
        let out = sh.run(&["login", "--server", &url, "-u", "vision-dev"], "demo-password\n");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.code() == Some(4) && err.contains("UnknownIssuer"), "{out:?}");
        let ca = pki.ca.to_str().unwrap();
        let out =
            sh.run(&["login", "--server", &url, "-u", "vision-dev", "--ca-cert", ca], "demo-password\n");
        assert!(out.status.success(), "{out:?}");
        assert!(sh.ok(&["whoami", "--ca-cert", ca]).contains("vision-dev"));

        let log = dir.clone() + "/agent.log";
        let _agent = agent(&url, &dir, "lab-0", &tokens[0], &[("--ca-cert", &pki.ca)], Path::new(&log));
        wait_for(30, "the agent to register over HTTPS", || (lab_gpus(&client, &admin) == 4).then_some(()));
        runs_a_job(&client);
        assert_eq!(lab_gpus(&client, &admin), 4, "{engine}: the agent trusting another CA never registered");
    }
}

#[test]
fn with_a_client_ca_only_agents_with_its_certificates_sync_and_browsers_still_sign_in() {
    let dir = common::fresh_dir("mtls");
    let pki = Pki::new(&dir);
    let dir = dir.to_str().unwrap().to_string();
    let addr = format!("127.0.0.1:{}", free_port());
    let ca = pki.ca.to_str().unwrap().to_string();
    let _server = serve_https(&dir, &addr, &pki, None, &["--tls-client-ca", &ca]);
    // A browser: no client certificate, and the health check and sign-in work.
    let browser = Https::new(&addr, &pki.ca, None);
    assert_eq!(browser.try_call("GET", "/healthz", None, None).expect("healthz").0, 200);
    let (admin, tokens) = lab(&browser, &["lab-0", "lab-1", "lab-2"]);
    let url = format!("https://{addr}");

    // A valid node token without a certificate: refused, saying what is missing.
    let (status, body) =
        browser.try_call("POST", "/api/agent/sync", Some(&tokens[0]), Some(json!({}))).expect("an answer");
    assert_eq!(status, 401, "{body}");
    assert!(body.to_string().contains("--client-cert"), "{body}");

    let bare_log = dir.clone() + "/bare.log";
    let _bare = agent(&url, &dir, "bare", &tokens[1], &[("--ca-cert", &pki.ca)], Path::new(&bare_log));
    log_says(Path::new(&bare_log), "client certificate");
    let other_log = dir.clone() + "/other.log";
    let other = [
        ("--ca-cert", pki.ca.as_path()),
        ("--client-cert", &pki.other_client_cert),
        ("--client-key", &pki.other_client_key),
    ];
    let _other = agent(&url, &dir, "other", &tokens[2], &other, Path::new(&other_log));
    log_says(Path::new(&other_log), "UnknownCA");

    let log = dir.clone() + "/agent.log";
    let ours = [
        ("--ca-cert", pki.ca.as_path()),
        ("--client-cert", &pki.client_cert),
        ("--client-key", &pki.client_key),
    ];
    let _agent = agent(&url, &dir, "lab-0", &tokens[0], &ours, Path::new(&log));
    wait_for(30, "the agent with the CA's certificate to register", || {
        (lab_gpus(&browser, &admin) == 4).then_some(())
    });
    runs_a_job(&browser);
    // Neither the agent without a certificate nor the one with another CA's registered.
    assert_eq!(lab_gpus(&browser, &admin), 4);
}

#[test]
fn a_client_that_never_finishes_its_handshake_holds_no_one_up() {
    let dir = common::fresh_dir("tls-stall");
    let pki = Pki::new(&dir);
    let dir = dir.to_str().unwrap().to_string();
    let addr = format!("127.0.0.1:{}", free_port());
    let flags = ["--max-connections", "2", "--header-timeout-s", "3"];
    let _server = serve_https(&dir, &addr, &pki, None, &flags);
    // Two connections, the whole cap, that never send a ClientHello.
    let mut silent: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(&addr).expect("connect")).collect();
    std::thread::sleep(Duration::from_millis(300));
    let client = Https::new(&addr, &pki.ca, None);
    let (status, _) = client.try_call("GET", "/healthz", None, None).expect("a caller gets through");
    assert_eq!(status, 200);
    // And each silent one is closed by the header timeout (3 s), not left open.
    let started = Instant::now();
    for s in &mut silent {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut buf = [0u8; 16];
        let read = s.read(&mut buf);
        assert!(matches!(read, Ok(0) | Err(_)) && started.elapsed() < Duration::from_secs(9), "{read:?}");
    }
}

#[test]
fn bad_certificate_files_stop_the_server_with_a_clear_error() {
    let dir = common::fresh_dir("tls-bad");
    let pki = Pki::new(&dir);
    let missing = dir.join("missing.pem");
    let data = dir.join("data");
    let fails = |flags: &[&Path], says: &str| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tidepool"));
        cmd.args(["serve", "--listen", "127.0.0.1:0", "--data-dir"]).arg(&data);
        for pair in flags.chunks(2) {
            cmd.arg(pair[0]).arg(pair[1]);
        }
        let out = cmd.output().expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "wanted `{says}` in: {err}");
    };
    let (cert, key, flag) = (Path::new("--tls-cert"), Path::new("--tls-key"), Path::new("--tls-client-ca"));
    fails(&[cert, &missing, key, &pki.server_key], "--tls-cert");
    fails(&[cert, &pki.server_cert, key, &missing], "--tls-key");
    fails(&[cert, &pki.server_key, key, &pki.server_key], "holds no certificate");
    fails(&[cert, &pki.server_cert, key, &pki.server_cert], "no private key");
    // The key of another certificate.
    fails(&[cert, &pki.server_cert, key, &pki.client_key], "is the key the certificate's?");
    fails(&[cert, &pki.server_cert, key, &pki.server_key, flag, &missing], "--tls-client-ca");
    fails(&[cert, &pki.server_cert], "--tls-key");
}
