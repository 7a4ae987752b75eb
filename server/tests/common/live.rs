//! A live Tidepool: the real binary as a server (and agents) on loopback, spoken to over
//! real HTTP, killed when the test is done or fails.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// One HTTP/1.1 request on a fresh connection: (status, body).
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(20)))?;
    let body = body.unwrap_or("");
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: tidepool\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut raw = String::new();
    s.read_to_string(&mut raw)?;
    let status = raw.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = raw.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    Ok((status, body))
}

/// A request whose answer must be 2xx JSON.
#[track_caller]
pub fn call(addr: &str, method: &str, path: &str, token: &str, body: Option<Value>) -> Value {
    let body = body.map(|b| b.to_string());
    let (status, text) = http(addr, method, path, Some(token), body.as_deref()).expect("request");
    assert!((200..300).contains(&status), "{method} {path}: {status} {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A child process, killed (SIGKILL) when dropped.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `tidepool serve` on `dir` (SQLite there, or `database`), answering on `addr`.
pub fn serve(dir: &str, addr: &str, database: Option<&str>, extra: &[&str]) -> Proc {
    let mut args = vec!["serve", "--data-dir", dir, "--listen", addr, "--dispatch-interval-s", "1"];
    if let Some(url) = database {
        args.extend(["--database-url", url]);
    }
    args.extend(extra);
    let child = Command::new(env!("CARGO_BIN_EXE_tidepool"))
        .args(args)
        .env("TIDEPOOL_ADMIN_PASSWORD", "admin-pw")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("server starts");
    let deadline = Instant::now() + Duration::from_secs(60);
    while http(addr, "GET", "/api/openapi.json", None, None).map(|r| r.0).ok() != Some(200) {
        assert!(Instant::now() < deadline, "the server did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
    Proc(child)
}

/// Signs in; the access token.
#[track_caller]
pub fn login(addr: &str, user: &str, password: &str) -> String {
    let body = serde_json::json!({ "username": user, "password": password }).to_string();
    let (status, text) = http(addr, "POST", "/api/auth/login", None, Some(&body)).expect("login");
    assert_eq!(status, 200, "{text}");
    let v: Value = serde_json::from_str(&text).expect("json");
    v["access_token"].as_str().expect("token").to_string()
}

/// Polls `check` every 100 ms until it returns `Some`, or fails after `secs` saying `what`.
#[track_caller]
pub fn wait_for<T>(secs: u64, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(Instant::now() < deadline, "waited {secs} s for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A node of 4 fake T4 GPUs in pool `lab`, run by a real agent with a node token, once
/// `quota` (a quota change, e.g. a group's T4 guarantee) is proposed by `admin` and
/// approved by a second admin (B2); answers when the server sees the node's GPUs.
pub fn lab_agent(addr: &str, dir: &str, admin: &str, quota: Value) -> Proc {
    let user = serde_json::json!({ "username": "admin2", "password": "admin2-pw", "role": "admin" });
    call(addr, "POST", "/api/users", admin, Some(user));
    let admin2 = login(addr, "admin2", "admin2-pw");
    let id = call(addr, "PUT", "/api/quotas", admin, Some(quota))["change"].clone();
    call(
        addr,
        "POST",
        &format!("/api/changes/{id}/approve"),
        &admin2,
        Some(serde_json::json!({ "note": "ok" })),
    );
    let token = call(addr, "POST", "/api/nodes/tokens", admin, Some(serde_json::json!({ "node": "lab-0" })));
    let child = Command::new(env!("CARGO_BIN_EXE_tidepool"))
        .args(["agent", "--server", &format!("http://{addr}"), "--fake-gpus", "4xT4", "--pool", "lab"])
        .args([
            "--wait-s",
            "1",
            "--state-dir",
            &format!("{dir}/agent"),
            "--checkpoint-root",
            &format!("{dir}/ckpt"),
        ])
        .env("TIDEPOOL_NODE_TOKEN", token["token"].as_str().unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("agent starts");
    let agent = Proc(child);
    wait_for(30, "the agent's node", || {
        let view = call(addr, "GET", "/api/pools", admin, None);
        view["pools"].as_array().unwrap().iter().any(|p| p["pool"] == "lab" && p["gpus"] == 4).then_some(())
    });
    agent
}

/// A job's shell script that counts to `steps`, a step every 0.2 s, keeping the count in
/// its checkpoint; on SIGTERM it saves the count and exits; resumed, it starts from the
/// saved count. Its `trace` file (in its checkpoint directory) says each start and stop.
pub fn counter(steps: u32) -> String {
    format!(
        r#"cd "$TIDEPOOL_CHECKPOINT_DIR"; n=0; if [ "$TIDEPOOL_RESUME" = 1 ]; then n=$(cat step); fi
echo "start $n resume=${{TIDEPOOL_RESUME:-0}} gpus=$CUDA_VISIBLE_DEVICES" >> trace; echo "starting at step $n"
trap 'echo $n > step; echo "checkpoint $n" >> trace; exit 143' TERM
while [ $n -lt {steps} ]; do n=$((n+1)); echo $n > step; sleep 0.2; done; echo "done $n" >> trace"#
    )
}
