//! Issue 11: the shared API types and the server cannot drift apart silently. Every
//! answer the command line reads comes from the real router (both engines) and is read
//! into its `tidepool-api` type, which refuses unknown fields; written back, it must be
//! the very same JSON, so a field the server renames, adds or drops fails here. The
//! requests are the api types too, so the server accepts exactly what the CLI sends.
//! MISSION D3 (receipt), V1 (nodes), Q1 (quotas), T1 (templates), B1 (loans).

mod common;

use std::any::type_name;
use std::collections::BTreeMap;
use std::sync::Arc;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool_api::*;
use tidepool_core::NativePolicies;

/// `v` read as `T`, which must give back exactly `v`.
fn check<T: DeserializeOwned + Serialize>(v: &Value) -> Result<T, String> {
    let t: T = serde_json::from_value(v.clone())
        .map_err(|e| format!("{} does not read the server's answer: {e}\n{v:#}", type_name::<T>()))?;
    let back = serde_json::to_value(&t).map_err(|e| e.to_string())?;
    if &back != v {
        return Err(format!(
            "{} and the server's answer differ (a field renamed or dropped?)\n{v:#}",
            type_name::<T>()
        ));
    }
    Ok(t)
}

#[track_caller]
fn typed<T: DeserializeOwned + Serialize>(v: &Value) -> T {
    check(v).unwrap_or_else(|e| panic!("{e}"))
}

fn json<T: Serialize>(body: &T) -> String {
    serde_json::to_string(body).expect("serialises")
}

async fn call(
    app: &TestApp,
    method: &str,
    path: &str,
    token: &str,
    body: Option<String>,
) -> (StatusCode, Value) {
    app.call(method, path, Some(token), body.as_deref()).await
}

/// Signs in with the api's `Login`, reading the api's `Tokens`.
async fn sign_in(app: &TestApp, username: &str, password: &str) -> Tokens {
    let body = json(&Login { username: username.into(), password: password.into() });
    let (s, v) = app.call("POST", "/api/auth/login", None, Some(&body)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    typed(&v)
}

#[tokio::test]
async fn auth_answers_read_as_the_api_types() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let tokens = sign_in(&app, "vision-dev", "demo-password").await;
        assert_eq!((tokens.user.role, tokens.token_type.as_str()), (Role::Member, "Bearer"), "{engine}");
        let (s, v) = call(&app, "GET", "/api/me", &tokens.access_token, None).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(typed::<User>(&v), tokens.user, "{engine}");

        // Refresh tokens rotate: the answer is the same shape with a new refresh token.
        let body = json(&Refresh { refresh_token: tokens.refresh_token.clone() });
        let (s, v) = app.call("POST", "/api/auth/refresh", None, Some(&body)).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let fresh: Tokens = typed(&v);
        assert_ne!(fresh.refresh_token, tokens.refresh_token, "{engine}");

        let wrong = json(&Login { username: "vision-dev".into(), password: "nope".into() });
        let (s, v) = app.call("POST", "/api/auth/login", None, Some(&wrong)).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        assert_eq!(typed::<ErrorBody>(&v).error.code, "unauthorized", "{engine}");

        let (groups_status, v) = call(&app, "GET", "/api/groups?limit=500", &fresh.access_token, None).await;
        assert_eq!(groups_status, StatusCode::OK);
        let groups: GroupPage = typed(&v);
        assert!(groups.groups.iter().any(|g| Some(g.id) == fresh.user.group_id), "{engine}");

        let body = json(&Logout { refresh_token: Some(fresh.refresh_token) });
        let (s, v) = app.call("POST", "/api/auth/logout", None, Some(&body)).await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{engine}: {v}");
    }
}

#[tokio::test]
async fn job_answers_read_as_the_api_types() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let dev = sign_in(&app, "vision-dev", "demo-password").await.access_token;
        let other = sign_in(&app, "speech-lead", "demo-password").await.access_token;
        let spec = Submit {
            name: Some("typed".into()),
            command: Some("sh -c 'echo hello'".into()),
            gpus: Some(2),
            model: Some("A100-80G".into()),
            category: Some("training".into()),
            class: Some("normal".into()),
            topology: Some("any".into()),
            time_limit_s: Some(3600),
            checkpointable: Some(true),
            env: Some(BTreeMap::from([("SEED".to_string(), "7".to_string())])),
            tags: vec!["cli".into()],
            ..Submit::default()
        };
        let (s, v) = call(&app, "POST", "/api/jobs/dry-run", &dev, Some(json(&spec))).await;
        assert_eq!(s, StatusCode::OK, "{engine}: {v}");
        assert_eq!(typed::<DryRun>(&v).would, "start", "{engine}");
        let (s, v) = call(&app, "POST", "/api/jobs", &dev, Some(json(&spec))).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {v}");
        let running: Submitted = typed(&v);
        let too_big = Submit { name: Some("waits".into()), gpus: Some(64), ..spec.clone() };
        let (_, v) = call(&app, "POST", "/api/jobs", &dev, Some(json(&too_big))).await;
        let waiting: Submitted = typed(&v);
        let lease = Lease { holder: "t".into(), ttl_s: 60 };
        let now = app.clock.load(std::sync::atomic::Ordering::SeqCst);
        Dispatcher::new(app.state.store.clone(), Arc::new(NativePolicies::default()), lease)
            .cycle(now)
            .await
            .expect("cycle");

        let (s, v) = call(&app, "GET", "/api/jobs?mine=true&state=pending&limit=5", &dev, None).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        let page: JobPage = typed(&v);
        let row = page.jobs.iter().find(|j| j.id == waiting.id).expect("the waiting job is listed");
        assert!(row.reason.is_some() && row.position.is_some(), "{engine}: a waiting job says why: {row:?}");
        let (_, v) = call(&app, "GET", "/api/jobs?group=vision", &dev, None).await;
        assert!(typed::<JobPage>(&v).jobs.iter().any(|j| j.id == running.id && j.state == JobState::Running));

        let (s, v) = call(&app, "GET", &format!("/api/jobs/{}", running.id), &dev, None).await;
        assert_eq!(s, StatusCode::OK);
        let receipt: Receipt = typed(&v);
        assert!(receipt.events.iter().any(|e| e.kind == "placed" && e.policy.is_some()), "{engine}: {v}");
        assert_eq!(receipt.env.get("SEED").map(String::as_str), Some("7"));
        // Another group sees the names of the variables, not their values.
        let (_, v) = call(&app, "GET", &format!("/api/jobs/{}", running.id), &other, None).await;
        assert_ne!(typed::<Receipt>(&v).env.get("SEED").map(String::as_str), Some("7"), "{engine}");

        // The check itself bites: a renamed field is unknown, a dropped one does not come back.
        let mut renamed = v.clone();
        renamed["why"] = renamed["reason"].take();
        renamed.as_object_mut().unwrap().remove("reason");
        assert!(check::<Receipt>(&renamed).unwrap_err().contains("unknown field `why`"));
        let mut dropped = v.clone();
        dropped.as_object_mut().unwrap().remove("position");
        assert!(check::<Receipt>(&dropped).unwrap_err().contains("differ"));

        let (s, v) = call(&app, "GET", &format!("/api/jobs/{}/log?offset=0", running.id), &dev, None).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(typed::<LogRange>(&v).job, running.id);

        let (s, v) = call(&app, "GET", "/api/nodes", &dev, None).await;
        assert_eq!(s, StatusCode::OK);
        let nodes: NodesView = typed(&v);
        let held = nodes.nodes.iter().flat_map(|n| n.gpus.iter().flatten()).filter(|h| h.job == running.id);
        assert_eq!(held.count(), 2, "{engine}: the running job holds two GPUs in the view");
        let (_, v) = call(&app, "GET", "/api/pools", &dev, None).await;
        assert!(!typed::<PoolsView>(&v).pools.is_empty());

        let path = format!("/api/jobs/{}/cancel", waiting.id);
        let (s, v) = call(&app, "POST", &path, &dev, None).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(typed::<Cancelled>(&v).state, JobState::Cancelled);
        let (s, v) = call(&app, "POST", &path, &dev, None).await;
        assert_eq!(s, StatusCode::CONFLICT);
        assert_eq!(typed::<ErrorBody>(&v).error.code, "conflict", "{engine}");
    }
}

#[tokio::test]
async fn organisation_answers_read_as_the_api_types() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let dev = sign_in(&app, "vision-dev", "demo-password").await.access_token;
        let lead = sign_in(&app, "speech-lead", "demo-password").await.access_token;

        let (s, v) = call(&app, "GET", "/api/templates?limit=500", &dev, None).await;
        assert_eq!(s, StatusCode::OK);
        let templates: TemplatePage = typed(&v);
        assert!(templates.templates.iter().any(|t| t.usable && t.env_shown), "{engine}: {v}");
        assert!(templates.templates.iter().any(|t| !t.granted_to.is_empty()), "{engine}");

        let (s, v) = call(&app, "GET", "/api/quotas", &dev, None).await;
        assert_eq!(s, StatusCode::OK);
        let quotas: QuotasView = typed(&v);
        assert!(quotas.quotas.iter().any(|q| q.group == "vision" && q.guaranteed > 0), "{engine}");

        let ask = NewLoan {
            lender: "speech".into(),
            borrower: None,
            model: Some("A100-80G".into()),
            gpus: 2,
            ends_at: app.clock.load(std::sync::atomic::Ordering::SeqCst) + 3600,
            why: "a deadline".into(),
        };
        let (s, v) = call(&app, "POST", "/api/loans", &dev, Some(json(&ask))).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {v}");
        let loan: LoanChanged = typed(&v);
        assert_eq!(loan.state, "requested");
        let approve = json(&Decision { note: "fine".into() });
        let (s, v) =
            call(&app, "POST", &format!("/api/loans/{}/approve", loan.id), &lead, Some(approve)).await;
        assert_eq!(s, StatusCode::OK, "{engine}: {v}");
        assert_eq!(typed::<LoanChanged>(&v).state, "active");
        let (s, v) = call(&app, "POST", &format!("/api/loans/{}/return", loan.id), &dev, None).await;
        assert_eq!(s, StatusCode::OK, "{engine}: {v}");
        assert_eq!(typed::<LoanChanged>(&v).state, "returned");
        let (s, v) = call(&app, "GET", "/api/loans", &dev, None).await;
        assert_eq!(s, StatusCode::OK);
        let loans: LoanPage = typed(&v);
        let ours = loans.loans.iter().find(|l| l.id == loan.id).expect("listed");
        assert_eq!((ours.decision.as_deref(), ours.ended_by.as_deref()), (Some("fine"), Some("vision-dev")));
    }
}
