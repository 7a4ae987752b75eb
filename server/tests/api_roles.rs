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
    admin2: String,
    other_lead: String, // manager of speech
    lead: String,       // manager of vision
    dev: String,        // member of vision
    dev2: String,       // another member of vision
    other: String,      // member of speech
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
            admin2: app.token("admin2", "admin2-pw").await,
            other_lead: app.token("speech-lead", "demo-password").await,
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
        assert!(rows >= 48, "{engine}: the document lists every route ({rows})");
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
        ("post", "/api/auth/logout") => {
            // Anyone holding a sign-in's refresh or access token may end it; nobody else.
            expect(app.call("POST", path, None, None).await, ANON, &format!("{route} anonymous"));
            let (_, login) = app
                .call(
                    "POST",
                    "/api/auth/login",
                    None,
                    Some(r#"{"username":"vision-dev","password":"demo-password"}"#),
                )
                .await;
            let body = json!({ "refresh_token": login["refresh_token"] }).to_string();
            expect(app.call("POST", path, None, Some(&body)).await, StatusCode::NO_CONTENT, &route);
            let access = login["access_token"].as_str().unwrap();
            expect(app.call("GET", "/api/me", Some(access), None).await, ANON, &format!("{route}: ended"));
        }
        ("post", "/api/auth/password") => {
            let body =
                json!({ "current_password": "demo-password", "new_password": "demo-password" }).to_string();
            expect(app.call("POST", path, None, Some(&body)).await, ANON, &format!("{route} anonymous"));
            expect(
                app.call("POST", path, Some(&who.dev2), Some(&body)).await,
                StatusCode::NO_CONTENT,
                &route,
            );
        }
        (
            "get",
            "/api/me" | "/api/users" | "/api/groups" | "/api/jobs" | "/api/nodes" | "/api/quotas"
            | "/api/projects" | "/api/templates" | "/api/loans" | "/api/changes" | "/api/pools"
            | "/api/events" | "/api/archive" | "/api/policies",
        ) => {
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
        _ => organisation::check(app, who, method, path, &route).await,
    }
}

/// Rows for projects, templates, loans, changes, nodes and policies: each case is
/// (who, expected status), run in order against resources made for the row.
mod organisation {
    use super::*;

    const GONE: StatusCode = StatusCode::NOT_FOUND;
    const CONFLICT: StatusCode = StatusCode::CONFLICT;
    const UNPROCESSABLE: StatusCode = StatusCode::UNPROCESSABLE_ENTITY;
    const ACCEPTED: StatusCode = StatusCode::ACCEPTED;
    const LATER: i64 = 2_000_000_000 + 30 * 86_400;

    async fn cases(
        app: &TestApp,
        method: &str,
        path: &str,
        body: &str,
        route: &str,
        rows: &[(&str, Option<&str>, StatusCode)],
    ) {
        for (label, token, want) in rows {
            let got = app.call(method, path, *token, Some(body)).await;
            expect(got, *want, &format!("{route} {label}"));
        }
    }

    async fn created(app: &TestApp, path: &str, token: &str, body: Value) -> i64 {
        let (status, v) = app.call("POST", path, Some(token), Some(&body.to_string())).await;
        assert!(status.is_success(), "{path}: {status} {v}");
        v["id"].as_i64().or(v["change"].as_i64()).expect("id")
    }

    async fn project(app: &TestApp, lead: &str) -> i64 {
        let body = json!({ "name": format!("p{}", app.count("projects").await), "class": "critical", "expires_at": LATER });
        created(app, "/api/projects", lead, body).await
    }

    async fn template(app: &TestApp, dev: &str) -> i64 {
        let name = format!("t{}", app.count("templates").await);
        let body = json!({ "name": name, "gpus": 1, "image": "pytorch:2", "command": "python train.py" });
        created(app, "/api/templates", dev, body).await
    }

    /// vision asks speech for 2 GPUs.
    async fn loan(app: &TestApp, dev: &str) -> i64 {
        let body = json!({ "lender": "speech", "gpus": 2, "ends_at": LATER, "why": "deadline" });
        created(app, "/api/loans", dev, body).await
    }

    async fn approved_loan(app: &TestApp, who: &Who) -> i64 {
        let id = loan(app, &who.dev).await;
        let (s, v) = app
            .call(
                "POST",
                &format!("/api/loans/{id}/approve"),
                Some(&who.other_lead),
                Some(r#"{"note":"ok"}"#),
            )
            .await;
        assert_eq!(s, OK, "{v}");
        id
    }

    async fn change(app: &TestApp, admin: &str) -> i64 {
        let body = json!({ "group": "speech", "category": "inference", "guaranteed": 2, "why": "serving" });
        let (s, v) = app.call("PUT", "/api/quotas", Some(admin), Some(&body.to_string())).await;
        assert_eq!(s, ACCEPTED, "{v}");
        v["change"].as_i64().expect("change id")
    }

    pub async fn check(app: &TestApp, who: &Who, method: &str, path: &str, route: &str) {
        let (admin, admin2, lead, dev, dev2, other, other_lead) = (
            Some(who.admin.as_str()),
            Some(who.admin2.as_str()),
            Some(who.lead.as_str()),
            Some(who.dev.as_str()),
            Some(who.dev2.as_str()),
            Some(who.other.as_str()),
            Some(who.other_lead.as_str()),
        );
        match (method, path) {
            ("post", "/api/users") => {
                let body = |n: &str| {
                    json!({ "username": n, "password": "long-enough", "role": "member", "group": "vision" })
                        .to_string()
                };
                cases(
                    app,
                    "POST",
                    path,
                    &body("u0"),
                    route,
                    &[("anonymous", None, ANON), ("member", dev, NO), ("manager", lead, NO)],
                )
                .await;
                cases(
                    app,
                    "POST",
                    path,
                    &body("u1"),
                    route,
                    &[("admin", admin, CREATED), ("admin again", admin, CONFLICT)],
                )
                .await;
            }
            ("post", "/api/projects") => {
                let body = |n: &str, g: &str| {
                    json!({ "name": n, "group": g, "class": "critical", "expires_at": LATER }).to_string()
                };
                cases(
                    app,
                    "POST",
                    path,
                    &body("a", "vision"),
                    route,
                    &[("anonymous", None, ANON), ("member, own group", dev, NO)],
                )
                .await;
                cases(
                    app,
                    "POST",
                    path,
                    &body("a", "vision"),
                    route,
                    &[("manager, own group", lead, CREATED)],
                )
                .await;
                cases(
                    app,
                    "POST",
                    path,
                    &body("b", "speech"),
                    route,
                    &[("manager, other group", lead, NO), ("admin, any group", admin, CREATED)],
                )
                .await;
            }
            ("post", "/api/projects/{id}/renew") => {
                let id = project(app, &who.lead).await;
                let path = format!("/api/projects/{id}/renew");
                let body = json!({ "expires_at": LATER + 86_400 }).to_string();
                let rows = [
                    ("anonymous", None, ANON),
                    ("member, own group", dev, NO),
                    ("manager, other group", other_lead, NO),
                    ("manager, own group", lead, OK),
                    ("admin", admin, OK),
                ];
                cases(app, "POST", &path, &body, route, &rows).await;
                cases(app, "POST", "/api/projects/999999/renew", &body, route, &[("unknown", admin, GONE)])
                    .await;
            }
            ("post", "/api/templates") => {
                let body = |n: &str, g: Option<&str>| {
                    let mut b = json!({ "name": n, "gpus": 2, "image": "img", "command": "run" });
                    if let Some(g) = g {
                        b["group"] = json!(g);
                    }
                    b.to_string()
                };
                cases(
                    app,
                    "POST",
                    path,
                    &body("x", None),
                    route,
                    &[("anonymous", None, ANON), ("member, own group", dev, CREATED)],
                )
                .await;
                cases(
                    app,
                    "POST",
                    path,
                    &body("y", Some("speech")),
                    route,
                    &[("member, other group", dev, NO), ("admin, any group", admin, CREATED)],
                )
                .await;
            }
            ("post", "/api/templates/{id}/grants") => {
                let id = template(app, &who.dev).await;
                let path = format!("/api/templates/{id}/grants");
                let rows = [
                    ("anonymous", None, ANON),
                    ("member, own group", dev, NO),
                    ("manager, other group", other_lead, NO),
                    ("manager, own group", lead, CREATED),
                    ("manager, granted twice", lead, CONFLICT),
                ];
                cases(app, "POST", &path, r#"{"group":"speech"}"#, route, &rows).await;
                cases(app, "POST", &path, r#"{"group":"robotics"}"#, route, &[("admin", admin, CREATED)])
                    .await;
            }
            ("post", "/api/templates/{id}/retire") => {
                let id = template(app, &who.dev).await;
                let path = format!("/api/templates/{id}/retire");
                let rows = [
                    ("anonymous", None, ANON),
                    ("member, own group", dev, NO),
                    ("manager, other group", other_lead, NO),
                    ("manager, own group", lead, OK),
                    ("admin, retired already", admin, CONFLICT),
                ];
                cases(app, "POST", &path, r#"{"reason":"stale"}"#, route, &rows).await;
            }
            ("post", "/api/loans") => {
                let ask = |borrower: Option<&str>| {
                    let mut b = json!({ "lender": "speech", "gpus": 2, "ends_at": LATER, "why": "deadline" });
                    if let Some(g) = borrower {
                        b["borrower"] = json!(g);
                    }
                    b.to_string()
                };
                cases(
                    app,
                    "POST",
                    path,
                    &ask(None),
                    route,
                    &[("anonymous", None, ANON), ("member asks", dev, CREATED)],
                )
                .await;
                cases(
                    app,
                    "POST",
                    path,
                    &ask(Some("robotics")),
                    route,
                    &[("member, for another group", dev, NO)],
                )
                .await;
                cases(
                    app,
                    "POST",
                    path,
                    &ask(None),
                    route,
                    &[("lender's member, from itself", other, UNPROCESSABLE)],
                )
                .await;
                cases(
                    app,
                    "POST",
                    path,
                    &ask(None),
                    route,
                    &[("lender's manager offers", other_lead, CREATED)],
                )
                .await;
                // B1: an admin's loan is created as a request, never an active offer.
                cases(
                    app,
                    "POST",
                    path,
                    &ask(Some("vision")),
                    route,
                    &[("admin asks for vision", admin, CREATED)],
                )
                .await;
            }
            ("post", "/api/loans/{id}/approve" | "/api/loans/{id}/reject") => {
                let template = path;
                let id = loan(app, &who.dev).await;
                let path = template.replace("{id}", &id.to_string());
                let rows = [
                    ("anonymous", None, ANON),
                    ("borrower's member", dev, NO),
                    ("borrower's manager", lead, NO),
                    ("lender's member", other, NO),
                    ("lender's manager", other_lead, OK),
                    ("twice", admin, CONFLICT),
                ];
                cases(app, "POST", &path, r#"{"note":"fine"}"#, route, &rows).await;
                let id = loan(app, &who.dev).await;
                let path = template.replace("{id}", &id.to_string());
                cases(app, "POST", &path, r#"{"note":"fine"}"#, route, &[("admin", admin, OK)]).await;
                // B1: an admin's own request is decided by someone else (approving it
                // oneself is refused; withdrawing it by rejecting is not).
                let body = json!({ "lender": "speech", "borrower": "vision", "gpus": 2, "ends_at": LATER, "why": "w" });
                let id = created(app, "/api/loans", &who.admin, body).await;
                let path = template.replace("{id}", &id.to_string());
                let own = if template.ends_with("approve") { NO } else { OK };
                cases(app, "POST", &path, r#"{"note":"mine"}"#, route, &[("admin, own request", admin, own)])
                    .await;
            }
            ("post", "/api/loans/{id}/return") => {
                let id = approved_loan(app, who).await;
                let path = format!("/api/loans/{id}/return");
                let rows = [
                    ("anonymous", None, ANON),
                    ("lender's member", other, NO),
                    ("lender's manager", other_lead, NO),
                    ("borrower's member", dev2, OK),
                    ("twice", admin, CONFLICT),
                ];
                cases(app, "POST", &path, "", route, &rows).await;
            }
            ("post", "/api/loans/{id}/reclaim") => {
                let id = approved_loan(app, who).await;
                let path = format!("/api/loans/{id}/reclaim");
                let rows = [
                    ("anonymous", None, ANON),
                    ("borrower's member", dev, NO),
                    ("borrower's manager", lead, NO),
                    ("lender's member", other, NO),
                    ("lender's manager", other_lead, OK),
                    ("twice", admin, CONFLICT),
                ];
                cases(app, "POST", &path, r#"{"note":"we need them"}"#, route, &rows).await;
            }
            ("put", "/api/quotas") => {
                let body =
                    json!({ "group": "speech", "category": "training", "guaranteed": 9, "why": "growth" })
                        .to_string();
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, ACCEPTED),
                ];
                cases(app, "PUT", path, &body, route, &rows).await;
            }
            ("post", "/api/changes/{id}/approve" | "/api/changes/{id}/reject") => {
                let id = change(app, &who.admin).await;
                let path = path.replace("{id}", &id.to_string());
                let proposer = if path.ends_with("approve") { NO } else { OK };
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("the proposer", admin, proposer),
                ];
                cases(app, "POST", &path, r#"{"note":"reviewed"}"#, route, &rows).await;
                let id = change(app, &who.admin).await;
                let path = format!("/api/changes/{id}/{}", path.rsplit('/').next().unwrap_or_default());
                cases(
                    app,
                    "POST",
                    &path,
                    r#"{"note":"reviewed"}"#,
                    route,
                    &[("second admin", admin2, OK), ("twice", admin2, CONFLICT)],
                )
                .await;
                cases(
                    app,
                    "POST",
                    "/api/changes/999999/approve",
                    r#"{"note":"x"}"#,
                    route,
                    &[("unknown", admin2, GONE)],
                )
                .await;
            }
            ("post", "/api/nodes") => {
                let body =
                    |n: &str| json!({ "name": n, "pool": "north", "model": "H100", "gpus": 8 }).to_string();
                cases(
                    app,
                    "POST",
                    path,
                    &body("n0"),
                    route,
                    &[("anonymous", None, ANON), ("member", dev, NO), ("manager", lead, NO)],
                )
                .await;
                cases(
                    app,
                    "POST",
                    path,
                    &body("n1"),
                    route,
                    &[("admin", admin, CREATED), ("admin again", admin, CONFLICT)],
                )
                .await;
            }
            ("patch", "/api/nodes/{id}") => {
                let (_, nodes) = app.call("GET", "/api/nodes", admin, None).await;
                let id = nodes["nodes"][0]["id"].as_i64().expect("a node");
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, OK),
                ];
                cases(app, "PATCH", &format!("/api/nodes/{id}"), r#"{"pool":"east"}"#, route, &rows).await;
                cases(
                    app,
                    "PATCH",
                    "/api/nodes/999999",
                    r#"{"healthy":false}"#,
                    route,
                    &[("unknown", admin, GONE)],
                )
                .await;
            }
            ("post", "/api/policies") => {
                let path = "/api/policies?note=first";
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin, not a module", admin, UNPROCESSABLE),
                ];
                cases(app, "POST", path, "not wasm", route, &rows).await;
            }
            ("post", "/api/policies/{sha256}/shadow" | "/api/policies/{sha256}/promote") => {
                let path = path.replace("{sha256}", "00ff");
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin, unknown version", admin, GONE),
                ];
                cases(app, "POST", &path, "", route, &rows).await;
            }
            ("post", "/api/policies/{sha256}/canary" | "/api/policies/{sha256}/approve") => {
                let path = path.replace("{sha256}", "00ff");
                let body =
                    if path.ends_with("canary") { r#"{"groups":["vision"]}"# } else { r#"{"note":"ok"}"# };
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin, unknown version", admin, GONE),
                ];
                cases(app, "POST", &path, body, route, &rows).await;
            }
            ("post" | "get", "/api/policies/{sha256}/replays") => {
                // Replays are admins' (O1, A3): the rest are refused before the version is looked up.
                let path = path.replace("{sha256}", "00ff");
                let (verb, body) =
                    if method == "post" { ("POST", r#"{"since":"30d"}"#) } else { ("GET", "") };
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin, unknown version", admin, GONE),
                ];
                cases(app, verb, &path, body, route, &rows).await;
            }
            ("post", "/api/policies/rollback") => {
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin, nothing to roll back", admin, CONFLICT),
                ];
                cases(app, "POST", path, r#"{"kind":"priority","note":"bad week"}"#, route, &rows).await;
            }
            ("post", "/api/jobs/dry-run") => {
                let body = |g: Option<&str>| {
                    let mut b = json!({ "name": "d", "command": "c", "gpus": 1 });
                    if let Some(g) = g {
                        b["group"] = json!(g);
                    }
                    b.to_string()
                };
                let rows = [
                    ("anonymous", None, ANON),
                    ("member, own group", dev, OK),
                    ("manager, own group", lead, OK),
                ];
                cases(app, "POST", path, &body(None), route, &rows).await;
                let rows = [("member, other group", dev, NO), ("admin, any group", admin, OK)];
                cases(app, "POST", path, &body(Some("speech")), route, &rows).await;
            }
            ("get", "/api/jobs/{id}/log") => {
                let id =
                    created(app, "/api/jobs", &who.other, json!({ "name": "l", "command": "c", "gpus": 1 }))
                        .await;
                let path = format!("/api/jobs/{id}/log");
                // A job's log is its group's and admins' (issue 10, finding 2).
                let rows = [
                    ("anonymous", None, ANON),
                    ("member, other group", dev, NO),
                    ("manager, other group", lead, NO),
                    ("admin", admin, OK),
                ];
                for (label, token, want) in rows {
                    expect(app.call("GET", &path, token, None).await, want, &format!("{route} {label}"));
                }
                expect(app.call("GET", "/api/jobs/999999/log", dev, None).await, GONE, route);
            }
            ("post", "/api/nodes/tokens") => {
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, CREATED),
                ];
                cases(app, "POST", path, r#"{"node":"n-roles"}"#, route, &rows).await;
            }
            ("get", "/api/nodes/tokens") => {
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, OK),
                ];
                for (label, token, want) in rows {
                    expect(app.call("GET", path, token, None).await, want, &format!("{route} {label}"));
                }
            }
            ("post", "/api/nodes/tokens/{id}/revoke") => {
                let (_, t) =
                    app.call("POST", "/api/nodes/tokens", admin, Some(r#"{"node":"n-revoke"}"#)).await;
                let path = format!("/api/nodes/tokens/{}/revoke", t["id"]);
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, OK),
                ];
                cases(app, "POST", &path, "", route, &rows).await;
                expect(app.call("POST", "/api/nodes/tokens/999999/revoke", admin, None).await, GONE, route);
            }
            ("post", "/api/agent/register" | "/api/agent/sync") => {
                // Agents only: a user's token is not a node token, whatever the user's role.
                let name = if path.ends_with("sync") { "n-sync" } else { "n-register" };
                let body = json!({ "node": name }).to_string();
                let (_, t) = app.call("POST", "/api/nodes/tokens", admin, Some(&body)).await;
                let node = t["token"].as_str().expect("node token").to_string();
                let body = if path.ends_with("register") {
                    r#"{"gpus":[{"index":0,"uuid":"GPU-0","model":"A100-80G","memory_total_mb":81920}]}"#
                } else {
                    "{}"
                };
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, ANON),
                    ("admin", admin, ANON),
                    ("forged", Some("tpn_forged"), ANON),
                ];
                cases(app, "POST", path, body, route, &rows).await;
                if path.ends_with("sync") {
                    cases(
                        app,
                        "POST",
                        path,
                        body,
                        route,
                        &[("node, unregistered", Some(node.as_str()), CONFLICT)],
                    )
                    .await;
                } else {
                    cases(app, "POST", path, body, route, &[("node", Some(node.as_str()), OK)]).await;
                }
            }
            ("get", "/api/settings" | "/api/settings/limits" | "/api/reports") => {
                let rows = [("anonymous", None, ANON), ("member", dev, OK), ("admin", admin, OK)];
                for (label, token, want) in rows {
                    expect(app.call("GET", path, token, None).await, want, &format!("{route} {label}"));
                }
            }
            ("put", "/api/settings") => {
                let body =
                    r#"{"time_zone":"Europe/Berlin","currency":"EUR","prices":[],"report_webhook":null}"#;
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, OK),
                ];
                cases(app, "PUT", path, body, route, &rows).await;
            }
            ("put", "/api/settings/limits") => {
                // P1: everyone reads the time limits; only admins change them.
                let body = r#"{"classes":[{"class":"batch","default_s":3600,"max_s":7200}]}"#;
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, OK),
                ];
                cases(app, "PUT", path, body, route, &rows).await;
            }
            ("get", "/api/reports/weekly" | "/api/reports/weekly.csv" | "/api/usage") => {
                // A5: one's own group's report and the organisation's; another group's: admins only.
                let own = format!("{path}?group=vision");
                let others = format!("{path}?group=speech");
                let rows = [
                    ("anonymous", None, path, ANON),
                    ("member, organisation", dev, path, OK),
                    ("member, own group", dev, &own, OK),
                    ("member, other group", dev, &others, NO),
                    ("manager, other group", lead, &others, NO),
                    ("admin, any group", admin, &others, OK),
                ];
                for (label, token, path, want) in rows {
                    expect(app.call("GET", path, token, None).await, want, &format!("{route} {label}"));
                }
            }
            (
                "get",
                "/api/reviews/quotas" | "/api/reviews/idle" | "/api/reviews/templates" | "/api/reviews/rules",
            ) => {
                // Q5, R5, T3: everyone signed in; members and managers see their group's lines.
                let rows = [("anonymous", None, ANON), ("member", dev, OK), ("admin", admin, OK)];
                for (label, token, want) in rows {
                    expect(app.call("GET", path, token, None).await, want, &format!("{route} {label}"));
                }
            }
            ("post", "/api/reviews/quotas/propose") => {
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, ACCEPTED),
                ];
                cases(app, "POST", path, r#"{"month":"2026-11"}"#, route, &rows).await;
            }
            ("get", "/metrics") => {
                // O2: a scraper, not a user: loopback callers or the metrics token
                // (server/tests/metrics.rs). In-process calls come from no address, and
                // no token is set here: a session alone reads nothing.
                let rows = [("anonymous", None, NO), ("member", dev, NO), ("admin", admin, NO)];
                for (label, token, want) in rows {
                    expect(app.call("GET", path, token, None).await, want, &format!("{route} {label}"));
                }
            }
            ("get", "/healthz" | "/readyz") => {
                // Issue 14: probes answer anyone (a load balancer holds no token), signed in or not.
                let rows = [("anonymous", None, OK), ("member", dev, OK), ("admin", admin, OK)];
                for (label, token, want) in rows {
                    expect(app.call("GET", path, token, None).await, want, &format!("{route} {label}"));
                }
            }
            ("get", "/api/alerts") => {
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, OK),
                    ("manager", lead, OK),
                    ("admin", admin, OK),
                ];
                for (label, token, want) in rows {
                    expect(app.call("GET", path, token, None).await, want, &format!("{route} {label}"));
                }
            }
            ("post", "/api/alerts/{id}/read" | "/api/alerts/{id}/ack") => {
                // O2: an alert of vision's for its members and managers; another group's
                // member is answered as if it did not exist.
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO alerts (dedup_key, rule, severity, group_id, audience, subject, message, linger_s, \
                     opened_at, last_seen_at, sent_at, rounds) SELECT 'k' || CAST(COUNT(*) AS TEXT), 'budget', 'warning', \
                     (SELECT id FROM groups WHERE name = 'vision'), 'members', 's', 'm', 0, 1, 1, 1, 1 FROM alerts RETURNING id",
                )
                .fetch_one(&app.state.store.pool)
                .await
                .expect("an alert");
                let path = path.replace("{id}", &id.to_string());
                let rows = [
                    ("anonymous", None, ANON),
                    ("member, other group", other, GONE),
                    ("manager, other group", other_lead, GONE),
                    ("member", dev, OK),
                    ("manager", lead, OK),
                    ("admin", admin, OK),
                ];
                for (label, token, want) in rows {
                    expect(app.call("POST", &path, token, None).await, want, &format!("{route} {label}"));
                }
            }
            // O3: the failover drills' records are the operators' (admins') to read.
            ("get", "/api/alerts/settings" | "/api/drills") => {
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, OK),
                ];
                for (label, token, want) in rows {
                    expect(app.call("GET", path, token, None).await, want, &format!("{route} {label}"));
                }
            }
            ("put", "/api/alerts/settings") => {
                let body = r#"{"webhook":"https://chat.example.org/hook","shape":"chat"}"#;
                let rows = [
                    ("anonymous", None, ANON),
                    ("member", dev, NO),
                    ("manager", lead, NO),
                    ("admin", admin, OK),
                ];
                cases(app, "PUT", path, body, route, &rows).await;
            }
            _ => panic!("no row in the role matrix for {route}: add one"),
        }
    }
}
