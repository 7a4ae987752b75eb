//! The role matrix: every route of the OpenAPI document × anonymous / member / manager /
//! admin × own / other group. A route without a row here fails the test. MISSION Q6, B2.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use serde_json::{Value, json};

const OK: StatusCode = StatusCode::OK;
const CREATED: StatusCode = StatusCode::CREATED;
const NO: StatusCode = StatusCode::FORBIDDEN;
const ANON: StatusCode = StatusCode::UNAUTHORIZED;

struct Who {
    admin: String,
    lead: String,  // manager of vision
    dev: String,   // member of vision
    dev2: String,  // another member of vision
    other: String, // member of speech
}

async fn submit(app: &TestApp, token: &str, group: Option<&str>) -> (StatusCode, Value) {
    let mut body = json!({ "name": "t", "command": "sleep 1", "gpus": 1 });
    if let Some(g) = group {
        body["group"] = json!(g);
    }
    app.call("POST", "/api/jobs", Some(token), Some(&body.to_string())).await
}

async fn job_of(app: &TestApp, token: &str) -> i64 {
    let (status, v) = submit(app, token, None).await;
    assert_eq!(status, CREATED, "{v}");
    v["id"].as_i64().expect("id")
}

#[tokio::test]
async fn every_route_has_a_row_and_every_row_holds() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        app.state
            .store
            .create_user(
                "vision-dev2",
                "demo-password",
                tidepool::store::users::Role::Member,
                app.state.store.group_id("vision").await.unwrap(),
                1_000,
            )
            .await
            .unwrap();
        let who = Who {
            admin: app.token("admin", "admin-pw").await,
            lead: app.token("vision-lead", "demo-password").await,
            dev: app.token("vision-dev", "demo-password").await,
            dev2: app.token("vision-dev2", "demo-password").await,
            other: app.token("speech-dev", "demo-password").await,
        };
        let (_, doc) = app.call("GET", "/api/openapi.json", None, None).await;
        let paths = doc["paths"].as_object().expect("paths");
        let mut rows = 0;
        for (path, methods) in paths {
            for method in methods.as_object().expect("methods").keys() {
                check(&app, &who, method, path).await;
                rows += 1;
            }
        }
        assert!(rows >= 9, "{engine}: the document lists every route ({rows})");
    }
}

#[track_caller]
fn expect(got: (StatusCode, Value), want: StatusCode, what: &str) {
    assert_eq!(got.0, want, "{what}: {}", got.1);
    if !want.is_success() {
        assert!(got.1["error"]["code"].is_string(), "{what}: error shape {}", got.1);
    }
}

async fn check(app: &TestApp, who: &Who, method: &str, path: &str) {
    let route = format!("{} {path}", method.to_uppercase());
    match (method, path) {
        ("get", "/api/openapi.json") => expect(app.call("GET", path, None, None).await, OK, &route),
        ("post", "/api/auth/login") => {
            let body = r#"{"username":"vision-dev","password":"demo-password"}"#;
            expect(app.call("POST", path, None, Some(body)).await, OK, &route);
        }
        ("post", "/api/auth/refresh") => {
            let (_, login) = app
                .call(
                    "POST",
                    "/api/auth/login",
                    None,
                    Some(r#"{"username":"vision-dev","password":"demo-password"}"#),
                )
                .await;
            let body = json!({ "refresh_token": login["refresh_token"] }).to_string();
            expect(app.call("POST", path, None, Some(&body)).await, OK, &route);
            expect(app.call("POST", path, None, Some(r#"{"refresh_token":"x"}"#)).await, ANON, &route);
        }
        ("get", "/api/me" | "/api/groups" | "/api/jobs" | "/api/nodes" | "/api/quotas") => {
            expect(app.call("GET", path, None, None).await, ANON, &format!("{route} anonymous"));
            for (role, t) in [("admin", &who.admin), ("manager", &who.lead), ("member", &who.dev)] {
                expect(app.call("GET", path, Some(t), None).await, OK, &format!("{route} {role}"));
            }
        }
        ("post", "/api/groups") => {
            let body = |n: &str| json!({ "name": n }).to_string();
            expect(
                app.call("POST", path, None, Some(&body("g0"))).await,
                ANON,
                &format!("{route} anonymous"),
            );
            expect(
                app.call("POST", path, Some(&who.dev), Some(&body("g1"))).await,
                NO,
                &format!("{route} member"),
            );
            expect(
                app.call("POST", path, Some(&who.lead), Some(&body("g2"))).await,
                NO,
                &format!("{route} manager"),
            );
            expect(
                app.call("POST", path, Some(&who.admin), Some(&body("g3"))).await,
                CREATED,
                &format!("{route} admin"),
            );
            expect(
                app.call("POST", path, Some(&who.admin), Some(&body("g3"))).await,
                StatusCode::CONFLICT,
                &route,
            );
        }
        ("post", "/api/jobs") => {
            let anon = app.call("POST", path, None, Some(r#"{"name":"t","command":"c","gpus":1}"#)).await;
            expect(anon, ANON, &format!("{route} anonymous"));
            expect(submit(app, &who.dev, None).await, CREATED, &format!("{route} member, own group"));
            expect(submit(app, &who.dev, Some("speech")).await, NO, &format!("{route} member, other group"));
            expect(
                submit(app, &who.lead, Some("vision")).await,
                CREATED,
                &format!("{route} manager, own group"),
            );
            expect(
                submit(app, &who.lead, Some("speech")).await,
                NO,
                &format!("{route} manager, other group"),
            );
            expect(
                submit(app, &who.admin, Some("speech")).await,
                CREATED,
                &format!("{route} admin, any group"),
            );
            expect(
                submit(app, &who.admin, None).await,
                StatusCode::UNPROCESSABLE_ENTITY,
                &format!("{route} admin"),
            );
        }
        ("post", "/api/jobs/{id}/cancel") => {
            let cancel = |id: i64| format!("/api/jobs/{id}/cancel");
            let (mine, colleague, theirs) =
                (job_of(app, &who.dev).await, job_of(app, &who.dev2).await, job_of(app, &who.other).await);
            expect(app.call("POST", &cancel(mine), None, None).await, ANON, &format!("{route} anonymous"));
            expect(
                app.call("POST", &cancel(colleague), Some(&who.dev), None).await,
                NO,
                &format!("{route} member, colleague's job"),
            );
            expect(
                app.call("POST", &cancel(theirs), Some(&who.dev), None).await,
                NO,
                &format!("{route} member, other group"),
            );
            expect(
                app.call("POST", &cancel(mine), Some(&who.dev), None).await,
                OK,
                &format!("{route} member, own job"),
            );
            expect(
                app.call("POST", &cancel(theirs), Some(&who.lead), None).await,
                NO,
                &format!("{route} manager, other group"),
            );
            expect(
                app.call("POST", &cancel(colleague), Some(&who.lead), None).await,
                OK,
                &format!("{route} manager, own group"),
            );
            expect(
                app.call("POST", &cancel(theirs), Some(&who.admin), None).await,
                OK,
                &format!("{route} admin, any group"),
            );
            expect(
                app.call("POST", &cancel(theirs), Some(&who.admin), None).await,
                StatusCode::CONFLICT,
                &format!("{route} twice"),
            );
            expect(
                app.call("POST", &cancel(999_999), Some(&who.admin), None).await,
                StatusCode::NOT_FOUND,
                &route,
            );
        }
        ("get", "/api/jobs/{id}") => {
            let id = job_of(app, &who.other).await;
            let path = format!("/api/jobs/{id}");
            expect(app.call("GET", &path, None, None).await, ANON, &format!("{route} anonymous"));
            // Records are team-visible (V3, A1): anyone signed in reads any receipt.
            for (role, t) in [("admin", &who.admin), ("manager", &who.lead), ("member", &who.dev)] {
                expect(
                    app.call("GET", &path, Some(t), None).await,
                    OK,
                    &format!("{route} {role}, other group"),
                );
            }
            expect(
                app.call("GET", "/api/jobs/999999", Some(&who.dev), None).await,
                StatusCode::NOT_FOUND,
                &route,
            );
        }
        _ => panic!("no row in the role matrix for {route}: add one"),
    }
}
