//! Accounts (issue 10, finding 6, and finding 10's token errors; MISSION Q6): sign-in is
//! throttled per username and per client address and checks no password while blocked;
//! failures are events; refresh tokens rotate and a reused one ends its sign-in, which
//! also has an absolute lifetime; logout and password change end sign-ins at once; the
//! initial admin's password has the usual minimum; token errors say nothing of the
//! library. On both engines.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, Request, StatusCode};
use common::api::{TestApp, engines};
use serde_json::{Value, json};
use tower::ServiceExt;

/// A request to the router as if from `from` (a socket's peer address), with headers back.
async fn send(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    body: &Value,
    from: Option<&str>,
) -> (StatusCode, HeaderMap, Value) {
    let mut req = Request::post(path).header("content-type", "application/json");
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let mut req = req.body(Body::from(body.to_string())).expect("request");
    if let Some(ip) = from {
        let addr: SocketAddr = format!("{ip}:40000").parse().expect("address");
        req.extensions_mut().insert(ConnectInfo(addr));
    }
    let resp = tidepool::http::app(app.state.clone()).oneshot(req).await.expect("response");
    let (status, headers) = (resp.status(), resp.headers().clone());
    let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20).await.expect("body");
    (status, headers, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

async fn login(
    app: &TestApp,
    user: &str,
    password: &str,
    from: Option<&str>,
) -> (StatusCode, HeaderMap, Value) {
    send(app, "/api/auth/login", None, &json!({ "username": user, "password": password }), from).await
}

async fn refresh(app: &TestApp, token: &Value) -> (StatusCode, Value) {
    let (s, _, v) = send(app, "/api/auth/refresh", None, &json!({ "refresh_token": token }), None).await;
    (s, v)
}

async fn me(app: &TestApp, access: &Value) -> StatusCode {
    app.call("GET", "/api/me", access.as_str(), None).await.0
}

async fn failure_events(app: &TestApp) -> Vec<(String, String)> {
    use sqlx::Row;
    let rows = sqlx::query("SELECT actor, message || ' ' || detail FROM events WHERE kind = 'login-failed'")
        .fetch_all(&app.state.store.pool)
        .await
        .expect("events");
    rows.iter().map(|r| (r.get(0), r.get(1))).collect()
}

#[tokio::test]
async fn security_login_is_throttled_per_username_and_checks_no_password_while_blocked() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        for i in 0..5 {
            let (status, _, v) = login(&app, "speech-lead", &format!("guess-{i}"), Some("10.0.0.9")).await;
            let want = if i < 4 { StatusCode::UNAUTHORIZED } else { StatusCode::TOO_MANY_REQUESTS };
            assert_eq!(status, want, "{engine}: attempt {i}: {v}");
        }
        // The right password, from another address, while the username is blocked.
        let (status, headers, v) = login(&app, "speech-lead", "demo-password", Some("10.0.0.10")).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{engine}: {v}");
        assert_eq!(v["error"]["code"], "too-many-requests", "{engine}");
        let wait: i64 = headers["retry-after"].to_str().unwrap().parse().expect("seconds");
        assert!((1..=300).contains(&wait), "{engine}: Retry-After {wait}");
        // Each failure is an event naming the address and username, never the password.
        let events = failure_events(&app).await;
        assert_eq!(events.len(), 5, "{engine}: {events:?}");
        assert!(events.iter().all(|(actor, text)| actor == "10.0.0.9" && text.contains("speech-lead")));
        assert!(events.iter().all(|(_, text)| !text.contains("guess-")), "{engine}: {events:?}");
        // Others are not blocked; once the block ends the owner signs in.
        assert_eq!(login(&app, "speech-dev", "demo-password", Some("10.0.0.9")).await.0, StatusCode::OK);
        app.clock.fetch_add(wait, Ordering::SeqCst);
        assert_eq!(login(&app, "speech-lead", "demo-password", None).await.0, StatusCode::OK, "{engine}");
    }
}

#[tokio::test]
async fn security_login_is_throttled_per_address_and_a_flood_writes_nothing() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        for i in 0..20 {
            let (status, _, _) =
                login(&app, &format!("nobody-{i}"), "wrong-password", Some("192.0.2.7")).await;
            let want = if i < 19 { StatusCode::UNAUTHORIZED } else { StatusCode::TOO_MANY_REQUESTS };
            assert_eq!(status, want, "{engine}: attempt {i}");
        }
        // A real account with its right password, from the blocked address: refused.
        let (status, headers, _) = login(&app, "vision-dev", "demo-password", Some("192.0.2.7")).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{engine}");
        assert!(headers.contains_key("retry-after"), "{engine}");
        // A flood from the blocked address adds no events and no throttle rows.
        let (events, rows) = (failure_events(&app).await.len(), app.count("login_throttle").await);
        for i in 0..50 {
            login(&app, &format!("flood-{i}"), "x", Some("192.0.2.7")).await;
        }
        assert_eq!((failure_events(&app).await.len(), app.count("login_throttle").await), (events, rows));
        assert_eq!(login(&app, "vision-dev", "demo-password", Some("192.0.2.8")).await.0, StatusCode::OK);
    }
}

/// A spray of made-up usernames leaves no rows for good: keys past their window are
/// pruned once their window and any block have passed; fresh ones stay (finding 6).
#[tokio::test]
async fn security_throttle_rows_past_their_window_are_pruned() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        for i in 0..3 {
            login(&app, &format!("sprayed-{i}"), "wrong-password", Some("192.0.2.9")).await;
        }
        for _ in 0..5 {
            login(&app, "vision-dev", "wrong-password", Some("192.0.2.10")).await;
        }
        let rows = app.count("login_throttle").await;
        assert_eq!(rows, 6, "{engine}: three sprayed names, vision-dev and two addresses");
        let store = &app.state.store;
        assert_eq!(
            store.prune_login_throttle(app.state.now()).await.expect("prune"),
            0,
            "{engine}: all fresh"
        );
        app.clock.fetch_add(301, Ordering::SeqCst);
        login(&app, "latecomer", "wrong-password", Some("192.0.2.11")).await;
        let pruned = store.prune_login_throttle(app.state.now()).await.expect("prune");
        assert_eq!(pruned, 6, "{engine}: every key past its window (and its block) goes");
        assert_eq!(app.count("login_throttle").await, 2, "{engine}: the fresh name and address stay");
        app.clock.fetch_add(301, Ordering::SeqCst);
        store.prune_login_throttle(app.state.now()).await.expect("prune");
        assert_eq!(app.count("login_throttle").await, 0, "{engine}");
    }
}

#[tokio::test]
async fn security_refresh_tokens_rotate_and_a_reused_one_ends_the_sign_in() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (_, _, first) = login(&app, "vision-dev", "demo-password", None).await;
        let (status, second) = refresh(&app, &first["refresh_token"]).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {second}");
        assert_ne!(second["refresh_token"], first["refresh_token"], "{engine}: a new token each time");
        assert_eq!(me(&app, &second["access_token"]).await, StatusCode::OK);
        // The used token again: refused, and its whole family ends, the newest token too.
        let (status, e) = refresh(&app, &first["refresh_token"]).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{engine}: {e}");
        assert_eq!(refresh(&app, &second["refresh_token"]).await.0, StatusCode::UNAUTHORIZED, "{engine}");
        assert_eq!(me(&app, &second["access_token"]).await, StatusCode::UNAUTHORIZED, "{engine}");
        assert_eq!(me(&app, &first["access_token"]).await, StatusCode::UNAUTHORIZED, "{engine}");
        // Another sign-in of the same user is untouched.
        let (_, _, other) = login(&app, "vision-dev", "demo-password", None).await;
        assert_eq!(refresh(&app, &other["refresh_token"]).await.0, StatusCode::OK, "{engine}");
    }
}

#[tokio::test]
async fn security_a_sign_in_ends_after_thirty_days_however_often_refreshed() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (_, _, mut tokens) = login(&app, "vision-dev", "demo-password", None).await;
        for _ in 0..4 {
            app.clock.fetch_add(6 * 86_400, Ordering::SeqCst);
            let (status, next) = refresh(&app, &tokens["refresh_token"]).await;
            assert_eq!(status, StatusCode::OK, "{engine}: {next}");
            tokens = next;
        }
        app.clock.fetch_add(6 * 86_400 + 1, Ordering::SeqCst);
        let (status, e) = refresh(&app, &tokens["refresh_token"]).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{engine}: day 30: {e}");
    }
}

#[tokio::test]
async fn security_logout_ends_the_sign_in() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        // With the refresh token: both tokens stop.
        let (_, _, a) = login(&app, "vision-dev", "demo-password", None).await;
        let (status, _, _) =
            send(&app, "/api/auth/logout", None, &json!({ "refresh_token": a["refresh_token"] }), None).await;
        assert_eq!(status, StatusCode::NO_CONTENT, "{engine}");
        assert_eq!(refresh(&app, &a["refresh_token"]).await.0, StatusCode::UNAUTHORIZED, "{engine}");
        assert_eq!(me(&app, &a["access_token"]).await, StatusCode::UNAUTHORIZED, "{engine}");
        // With the access token alone (the web app's sign-out button).
        let (_, _, b) = login(&app, "vision-dev", "demo-password", None).await;
        let (status, _) = app.call("POST", "/api/auth/logout", b["access_token"].as_str(), None).await;
        assert_eq!(status, StatusCode::NO_CONTENT, "{engine}");
        assert_eq!(me(&app, &b["access_token"]).await, StatusCode::UNAUTHORIZED, "{engine}");
        assert_eq!(refresh(&app, &b["refresh_token"]).await.0, StatusCode::UNAUTHORIZED, "{engine}");
    }
}

#[tokio::test]
async fn security_password_change_needs_the_current_one_and_ends_other_sign_ins() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (_, _, here) = login(&app, "speech-dev", "demo-password", None).await;
        let (_, _, elsewhere) = login(&app, "speech-dev", "demo-password", None).await;
        let token = here["access_token"].as_str();
        let change = |current: &str, new: &str| json!({ "current_password": current, "new_password": new });
        let (status, _, v) =
            send(&app, "/api/auth/password", token, &change("wrong-one", "a-new-password"), None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{engine}: {v}");
        let (status, _, v) =
            send(&app, "/api/auth/password", token, &change("demo-password", "short"), None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {v}");
        let (status, _, v) =
            send(&app, "/api/auth/password", None, &change("demo-password", "a-new-password"), None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{engine}: signed-in only: {v}");
        let (status, _, v) =
            send(&app, "/api/auth/password", token, &change("demo-password", "a-new-password"), None).await;
        assert_eq!(status, StatusCode::NO_CONTENT, "{engine}: {v}");
        assert_eq!(login(&app, "speech-dev", "demo-password", None).await.0, StatusCode::UNAUTHORIZED);
        assert_eq!(login(&app, "speech-dev", "a-new-password", None).await.0, StatusCode::OK, "{engine}");
        // The other sign-in ends at once; this one goes on.
        assert_eq!(me(&app, &elsewhere["access_token"]).await, StatusCode::UNAUTHORIZED, "{engine}");
        assert_eq!(refresh(&app, &elsewhere["refresh_token"]).await.0, StatusCode::UNAUTHORIZED, "{engine}");
        assert_eq!(me(&app, &here["access_token"]).await, StatusCode::OK, "{engine}");
        assert_eq!(refresh(&app, &here["refresh_token"]).await.0, StatusCode::OK, "{engine}");
    }
}

#[tokio::test]
async fn security_the_initial_admin_password_has_the_usual_minimum() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        sqlx::query("UPDATE users SET role = 'member', group_id = 1 WHERE role = 'admin'")
            .execute(&app.state.store.pool)
            .await
            .expect("no admin left");
        for weak in ["", "short"] {
            let refused = tidepool::store::bootstrap_admin(&app.state.store, Some(weak.into()), 1_000).await;
            let message = refused.expect_err("a weak initial password is refused").to_string();
            assert!(
                message.contains("TIDEPOOL_ADMIN_PASSWORD") && message.contains('8'),
                "{engine}: {message}"
            );
        }
        assert_eq!(app.state.store.count_admins().await.unwrap(), 0, "{engine}: no admin was made");
    }
    // The server refuses to start with one, saying why.
    let dir = common::fresh_dir("weak-admin");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tidepool"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data-dir", dir.to_str().unwrap()])
        .env("TIDEPOOL_ADMIN_PASSWORD", "")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("TIDEPOOL_ADMIN_PASSWORD"), "{stderr}");
}

#[tokio::test]
async fn security_invalid_token_errors_say_nothing_of_the_library() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let good = app.token("speech-dev", "demo-password").await;
        let mut tampered = good.clone();
        tampered.insert(good.len() / 2, 'x');
        let parts: Vec<&str> = good.split('.').collect();
        let bad_json = format!("{}.eyJub3QiOiJjbGFpbXMifQ.{}", parts[0], parts[2]);
        for token in ["garbage", "a.b.c", &tampered, &bad_json] {
            let (status, e) = app.call("GET", "/api/me", Some(token), None).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{engine}");
            assert_eq!(e["error"]["message"], "invalid token: sign in again", "{engine}: {token}: {e}");
        }
        let (status, e) = refresh(&app, &json!("not-a-token")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{engine}");
        assert_eq!(e["error"]["message"], "invalid token: sign in again", "{engine}: {e}");
    }
}
