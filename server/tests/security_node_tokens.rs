//! Issue 10, finding 5: node tokens expire, are listed (never their secret) and revoked by
//! admins only, are refused at once when revoked or expired, and cannot move their node to
//! another pool: the pool is an admin's choice. Both engines; the same from `tidepool admin`.
//! MISSION V1, A4.

mod common;

use std::sync::atomic::Ordering;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use serde_json::{Value, json};

async fn issue(app: &TestApp, admin: &str, body: Value) -> Value {
    let (s, v) = app.call("POST", "/api/nodes/tokens", Some(admin), Some(&body.to_string())).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v
}

async fn register(app: &TestApp, token: &str, pool: Option<&str>) -> (StatusCode, Value) {
    let mut body =
        json!({ "gpus": [{ "index": 0, "uuid": "GPU-0", "model": "T4", "memory_total_mb": 16_000 }] });
    if let Some(p) = pool {
        body["pool"] = json!(p);
    }
    app.call("POST", "/api/agent/register", Some(token), Some(&body.to_string())).await
}

async fn pool_of(app: &TestApp, node: &str) -> String {
    use sqlx::Row;
    let row = sqlx::query("SELECT pool FROM nodes WHERE name = $1")
        .bind(node)
        .fetch_one(&app.state.store.pool)
        .await
        .expect("node");
    row.try_get(0).expect("pool")
}

#[tokio::test]
async fn security_revoked_node_token_is_refused_at_once() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let t = issue(&app, &admin, json!({ "node": "n1" })).await;
        let token = t["token"].as_str().unwrap();
        assert_eq!(register(&app, token, None).await.0, StatusCode::OK, "{engine}");
        assert_eq!(app.call("POST", "/api/agent/sync", Some(token), Some("{}")).await.0, StatusCode::OK);
        let path = format!("/api/nodes/tokens/{}/revoke", t["id"]);
        let (s, v) = app.call("POST", &path, Some(&admin), None).await;
        assert_eq!((s, v["revoked_at"].is_i64()), (StatusCode::OK, true), "{engine}: {v}");
        for (path, body) in [("/api/agent/sync", "{}".to_string()), ("/api/agent/register", "{}".to_string())]
        {
            let (s, v) = app.call("POST", path, Some(token), Some(&body)).await;
            assert_eq!(s, StatusCode::UNAUTHORIZED, "{engine} {path}: {v}");
            assert!(v["error"]["message"].as_str().unwrap().contains("revoked"), "{engine}: {v}");
        }
        // Revoking twice changes nothing; both the issue and the revocation are events.
        assert_eq!(app.call("POST", &path, Some(&admin), None).await.0, StatusCode::OK, "{engine}");
        assert_eq!(app.count("events WHERE kind = 'node-token-revoked'").await, 1, "{engine}");
        assert_eq!(app.count("events WHERE kind = 'node-token'").await, 1, "{engine}");
    }
}

#[tokio::test]
async fn security_expired_node_token_is_refused() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let t = issue(&app, &admin, json!({ "node": "n1", "expires_in_s": 60 })).await;
        let now = app.clock.load(Ordering::SeqCst);
        assert_eq!(t["expires_at"], json!(now + 60), "{engine}");
        let token = t["token"].as_str().unwrap();
        assert_eq!(register(&app, token, None).await.0, StatusCode::OK, "{engine}");
        app.clock.store(now + 60, Ordering::SeqCst);
        let (s, v) = app.call("POST", "/api/agent/sync", Some(token), Some("{}")).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{engine}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("expired"), "{engine}: {v}");
        for bad in [json!(0), json!(-5), json!(400_000_000)] {
            let body = json!({ "node": "n2", "expires_in_s": bad }).to_string();
            let (s, _) = app.call("POST", "/api/nodes/tokens", Some(&admin), Some(&body)).await;
            assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {bad}");
        }
    }
}

#[tokio::test]
async fn security_node_token_cannot_move_its_node_to_another_pool() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        // A new node whose token names no pool joins the pool its agent asks for…
        let t = issue(&app, &admin, json!({ "node": "n1" })).await;
        let token = t["token"].as_str().unwrap();
        assert_eq!(register(&app, token, Some("lab")).await.0, StatusCode::OK, "{engine}");
        // …and its agent can never move it after that.
        let (s, v) = register(&app, token, Some("prod")).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{engine}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("in pool lab"), "{engine}: {v}");
        assert_eq!(register(&app, token, None).await.0, StatusCode::OK, "{engine}");
        assert_eq!(register(&app, token, Some("lab")).await.0, StatusCode::OK, "{engine}");
        assert_eq!(pool_of(&app, "n1").await, "lab", "{engine}");

        // A token that names a pool puts its node there; its agent cannot ask for another.
        let t = issue(&app, &admin, json!({ "node": "n2", "pool": "gpu-a" })).await;
        let token = t["token"].as_str().unwrap();
        assert_eq!(register(&app, token, Some("lab")).await.0, StatusCode::FORBIDDEN, "{engine}");
        assert_eq!(register(&app, token, None).await.0, StatusCode::OK, "{engine}");
        assert_eq!(pool_of(&app, "n2").await, "gpu-a", "{engine}");

        // An admin moves the node: re-registering with the same token keeps it there.
        let (_, nodes) = app.call("GET", "/api/nodes", Some(&admin), None).await;
        let id = find_node(&nodes, "n2");
        let (s, _) =
            app.call("PATCH", &format!("/api/nodes/{id}"), Some(&admin), Some(r#"{"pool":"gpu-b"}"#)).await;
        assert_eq!(s, StatusCode::OK, "{engine}");
        assert_eq!(register(&app, token, None).await.0, StatusCode::OK, "{engine}");
        assert_eq!(pool_of(&app, "n2").await, "gpu-b", "{engine}");
        // A new token naming a pool is the admin's new choice: its first use applies it.
        let t = issue(&app, &admin, json!({ "node": "n2", "pool": "gpu-c" })).await;
        assert_eq!(register(&app, t["token"].as_str().unwrap(), None).await.0, StatusCode::OK);
        assert_eq!(pool_of(&app, "n2").await, "gpu-c", "{engine}");
    }
}

fn find_node(v: &Value, name: &str) -> i64 {
    fn walk(v: &Value, name: &str) -> Option<i64> {
        match v {
            Value::Object(m) if m.get("name") == Some(&json!(name)) => m.get("id").and_then(Value::as_i64),
            Value::Object(m) => m.values().find_map(|x| walk(x, name)),
            Value::Array(a) => a.iter().find_map(|x| walk(x, name)),
            _ => None,
        }
    }
    walk(v, name).unwrap_or_else(|| panic!("no node {name} in {v}"))
}

#[tokio::test]
async fn security_node_tokens_listed_without_secrets_by_admins_only() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let t = issue(&app, &admin, json!({ "node": "n1", "pool": "lab", "expires_in_s": 3600 })).await;
        let token = t["token"].as_str().unwrap().to_string();
        assert_eq!(register(&app, &token, None).await.0, StatusCode::OK, "{engine}");
        let (s, v) = app.call("GET", "/api/nodes/tokens", Some(&admin), None).await;
        assert_eq!(s, StatusCode::OK, "{engine}: {v}");
        let listed = &v["tokens"][0];
        assert_eq!(
            (&listed["id"], &listed["node"], &listed["pool"], &listed["created_by"], &listed["revoked_at"]),
            (&t["id"], &json!("n1"), &json!("lab"), &json!("admin"), &Value::Null),
            "{engine}: {v}"
        );
        assert!(listed["last_used_at"].is_i64() && listed["expires_at"].is_i64(), "{engine}: {v}");
        let hash = tidepool::policy::runtime::sha256_hex(token.as_bytes());
        let text = v.to_string();
        assert!(
            !text.contains(&token) && !text.contains(&hash) && !text.contains("tpn_"),
            "{engine}: {text}"
        );
        let revoke = format!("/api/nodes/tokens/{}/revoke", t["id"]);
        for user in ["vision-dev", "vision-lead"] {
            let u = app.token(user, "demo-password").await;
            assert_eq!(app.call("GET", "/api/nodes/tokens", Some(&u), None).await.0, StatusCode::FORBIDDEN);
            assert_eq!(app.call("POST", &revoke, Some(&u), None).await.0, StatusCode::FORBIDDEN, "{engine}");
        }
        assert_eq!(
            app.call("GET", "/api/nodes/tokens", Some(&token), None).await.0,
            StatusCode::UNAUTHORIZED
        );
        let (s, _) = app.call("POST", "/api/nodes/tokens/999999/revoke", Some(&admin), None).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{engine}");
        assert_eq!(register(&app, &token, None).await.0, StatusCode::OK, "{engine}: still valid");
    }
}

/// The same from the shell: issue with a pool and expiry, list, revoke.
#[test]
fn security_node_tokens_from_the_shell() {
    let dir = common::fresh_dir("node-tokens");
    let dir = dir.to_str().unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tidepool"))
            .args(["admin", "--data-dir", dir])
            .args(args)
            .output()
            .expect("runs");
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.success(), text)
    };
    let (ok, out) = run(&["node-token", "n1", "--pool", "lab", "--expires-in-s", "3600"]);
    assert!(ok && out.contains("node token 1 for `n1`"), "{out}");
    let token = out.split_whitespace().last().unwrap().to_string();
    let (ok, out) = run(&["node-tokens"]);
    assert!(ok && out.lines().nth(1).is_some_and(|l| l.starts_with("1\tn1\tlab\ttidepool admin\t")), "{out}");
    assert!(!out.contains(&token), "{out}");
    let (ok, out) = run(&["revoke-node-token", "1"]);
    assert!(ok && out.contains("revoked"), "{out}");
    let (ok, out) = run(&["node-tokens"]);
    assert!(ok && !out.lines().nth(1).unwrap().ends_with("\t-"), "revoked_at shown: {out}");
    let (ok, out) = run(&["revoke-node-token", "7"]);
    assert!(!ok && out.contains("no node token 7"), "{out}");
    let _ = std::fs::remove_dir_all(dir);
}
