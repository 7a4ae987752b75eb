//! Bad input: malformed JSON, wrong types, unknown fields, oversized bodies → a 4xx in
//! the error shape, never a 500, and nothing written.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, assert_error_shape, engines};

#[tokio::test]
async fn bad_bodies_get_a_clear_4xx_and_write_nothing() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let token = app.token("vision-dev", "demo-password").await;
        let (jobs, events) = (app.count("jobs").await, app.count("events").await);
        let big = format!(r#"{{"name":"x","command":"{}","gpus":1}}"#, "a".repeat(300 * 1024));
        let cases: Vec<(&str, String, StatusCode, &str)> = vec![
            ("malformed JSON", r#"{"name": "x", "#.into(), StatusCode::BAD_REQUEST, "bad-request"),
            (
                "wrong type",
                r#"{"name":"x","command":"c","gpus":"four"}"#.into(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "unprocessable",
            ),
            (
                "negative GPUs",
                r#"{"name":"x","command":"c","gpus":-1}"#.into(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "unprocessable",
            ),
            (
                "zero GPUs",
                r#"{"name":"x","command":"c","gpus":0}"#.into(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "unprocessable",
            ),
            (
                "unknown field",
                r#"{"name":"x","command":"c","gpus":1,"sudo":true}"#.into(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "unprocessable",
            ),
            (
                "unknown class",
                r#"{"name":"x","command":"c","gpus":1,"class":"vip"}"#.into(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "unprocessable",
            ),
            (
                "missing field",
                r#"{"name":"x","gpus":1}"#.into(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "unprocessable",
            ),
            ("oversized", big, StatusCode::PAYLOAD_TOO_LARGE, "too-large"),
        ];
        for (what, body, status, code) in cases {
            let (got, e) = app.call("POST", "/api/jobs", Some(&token), Some(&body)).await;
            assert_eq!(got, status, "{engine} {what}: {e}");
            assert_error_shape(&e, code);
        }
        assert_eq!(
            (app.count("jobs").await, app.count("events").await),
            (jobs, events),
            "{engine}: nothing written"
        );
        let (status, e) = app.call("GET", "/api/nowhere", Some(&token), None).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_error_shape(&e, "not-found");
        let (status, e) = app.call("GET", "/api/jobs?state=lost", Some(&token), None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
        let (status, v) = app
            .call(
                "POST",
                "/api/jobs",
                Some(&token),
                Some(r#"{"name":"train","command":"python train.py","gpus":2}"#),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{engine}: {v}");
        assert_eq!((app.count("jobs").await, app.count("events").await), (jobs + 1, events + 1), "{engine}");
    }
}

// The records refuse what breaks their rules whatever the caller: a user of a group
// that does not exist is refused (foreign keys are on for every connection).
#[tokio::test]
async fn the_records_enforce_their_own_rules() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let store = &app.state.store;
        let bad_group =
            store.create_user("ghost", "pw", tidepool::store::users::Role::Member, Some(99_999), 1).await;
        assert!(bad_group.is_err(), "{engine}: a user of a missing group");
        let no_group = store.create_user("loner", "pw", tidepool::store::users::Role::Member, None, 1).await;
        assert!(no_group.is_err(), "{engine}: a member without a group");
        let users = app.count("users").await;
        assert!(store.create_user("ghost", "pw", tidepool::store::users::Role::Admin, None, 1).await.is_ok());
        assert_eq!(app.count("users").await, users + 1, "{engine}: nothing else was written");
    }
}
