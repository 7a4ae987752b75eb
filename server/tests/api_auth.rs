//! Signing in, tokens, and tokens that must not work: forged, expired, `alg: none`,
//! a refresh token used as an access token. MISSION Q6.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, assert_error_shape, engines};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;

fn b64url(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=c.len() {
            out.push(A[((v >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

#[tokio::test]
async fn sign_in_and_use_the_token() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (status, v) = app
            .call(
                "POST",
                "/api/auth/login",
                None,
                Some(r#"{"username":"speech-lead","password":"demo-password"}"#),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        assert_eq!(v["token_type"], "Bearer");
        assert_eq!(v["user"]["role"], "manager");
        let token = v["access_token"].as_str().unwrap().to_string();
        let (status, me) = app.call("GET", "/api/me", Some(&token), None).await;
        assert_eq!((status, me["username"].as_str()), (StatusCode::OK, Some("speech-lead")), "{engine}");
        // A refresh token gets a new access token, but is no access token itself.
        let refresh = v["refresh_token"].as_str().unwrap();
        let (status, v2) = app
            .call("POST", "/api/auth/refresh", None, Some(&json!({ "refresh_token": refresh }).to_string()))
            .await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v2}");
        let (status, e) = app.call("GET", "/api/me", Some(refresh), None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{engine}");
        assert_error_shape(&e, "unauthorized");
    }
}

#[tokio::test]
async fn wrong_passwords_and_bad_tokens_are_refused() {
    let app = TestApp::new("sqlite").await;
    for body in [
        r#"{"username":"speech-lead","password":"nope"}"#,
        r#"{"username":"nobody","password":"demo-password"}"#,
    ] {
        let (status, e) = app.call("POST", "/api/auth/login", None, Some(body)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_error_shape(&e, "unauthorized");
    }
    let good = app.token("speech-dev", "demo-password").await;
    let claims = json!({ "sub": 1, "exp": 4_000_000_000i64, "iat": 0, "kind": "access" });
    let forged = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(b"another secret that is long enough!!").unwrap(),
    )
    .unwrap();
    let none =
        format!("{}.{}.", b64url(br#"{"alg":"none","typ":"JWT"}"#), b64url(claims.to_string().as_bytes()));
    let mut tampered = good.clone();
    tampered.insert(good.len() / 2, 'x');
    for (what, token) in
        [("forged", forged), ("alg none", none), ("tampered", tampered), ("garbage", "abc".into())]
    {
        let (status, e) = app.call("GET", "/api/me", Some(&token), None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}");
        assert_error_shape(&e, "unauthorized");
    }
    let (status, _) = app.call("GET", "/api/me", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "no token");
    // Access tokens are short-lived: sixteen minutes later this one is refused.
    app.clock.fetch_add(16 * 60, std::sync::atomic::Ordering::SeqCst);
    let (status, e) = app.call("GET", "/api/me", Some(&good), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "expired");
    assert!(e["error"]["message"].as_str().unwrap().contains("xpired"), "{e}");
}
