//! Issue 11: the api types added for the OpenAPI document read the real router's answers
//! field for field, on both engines, as `api_types.rs` does for the command line's: accounts,
//! groups, passwords, projects (P2), quota changes under review (B2), templates (T1-T3),
//! the event log (D2) and the archive (A2). Every request is sent as its api type, so the
//! server accepts exactly what the document describes.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use common::typed::{NONE, send};
use tidepool_api::*;

#[tokio::test]
async fn accounts_groups_and_passwords_read_as_the_api_types() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let group: Group = send(
            &app,
            "POST",
            "/api/groups",
            &admin,
            Some(&NewGroup { name: "optics".into() }),
            StatusCode::CREATED,
        )
        .await;
        assert_eq!(group.name, "optics");
        let ada = NewUser {
            username: "ada".into(),
            password: "a long passphrase".into(),
            role: Role::Member,
            group: Some("optics".into()),
        };
        let created: UserCreated =
            send(&app, "POST", "/api/users", &admin, Some(&ada), StatusCode::CREATED).await;
        let page: UserPage = send(&app, "GET", "/api/users?limit=500", &admin, NONE, StatusCode::OK).await;
        let row = page.users.iter().find(|u| u.id == created.id).expect("listed");
        assert_eq!((row.role, row.group.as_deref()), (Role::Member, Some("optics")), "{engine}");
        assert!(page.users.iter().any(|u| u.role == Role::Admin && u.group.is_none()), "{engine}");

        let token = app.token("ada", "a long passphrase").await;
        let me: User = send(&app, "GET", "/api/me", &token, NONE, StatusCode::OK).await;
        assert_eq!((me.id, me.group_id), (created.id, Some(group.id)), "{engine}");
        let change = NewPassword {
            current_password: "a long passphrase".into(),
            new_password: "another passphrase".into(),
        };
        let body = serde_json::to_string(&change).unwrap();
        let (s, v) = app.call("POST", "/api/auth/password", Some(&token), Some(&body)).await;
        assert_eq!(s, StatusCode::NO_CONTENT, "{engine}: {v}");
        app.token("ada", "another passphrase").await;
    }
}

#[tokio::test]
async fn projects_changes_and_templates_read_as_the_api_types() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let now = app.clock.load(std::sync::atomic::Ordering::SeqCst);
        let (admin, admin2) = (app.token("admin", "admin-pw").await, app.token("admin2", "admin2-pw").await);
        let lead = app.token("vision-lead", "demo-password").await;

        // Projects (P2): granted, listed with their use and expiry, renewed.
        let new = NewProject {
            name: "cvpr".into(),
            group: None,
            class: "critical".into(),
            gpu_cap: Some(8),
            expires_at: now + 3 * 86_400,
        };
        let p: ProjectCreated =
            send(&app, "POST", "/api/projects", &lead, Some(&new), StatusCode::CREATED).await;
        let page: ProjectPage =
            send(&app, "GET", "/api/projects?limit=500", &lead, NONE, StatusCode::OK).await;
        let listed = page.projects.iter().find(|x| x.id == p.id).expect("listed");
        assert!(listed.expiring_soon && !listed.expired && listed.gpu_cap == Some(8), "{engine}: {listed:?}");
        let renew = Renew { expires_at: now + 30 * 86_400 };
        let path = format!("/api/projects/{}/renew", p.id);
        let renewed: Renewed = send(&app, "POST", &path, &lead, Some(&renew), StatusCode::OK).await;
        assert_eq!(renewed.expires_at, renew.expires_at);

        // Quota changes (B2): proposed by one admin, applied by another, or rejected.
        let quota = QuotaChange {
            group: "vision".into(),
            model: None,
            category: "inference".into(),
            guaranteed: 3,
            borrow_limit: Some(2),
            lend_limit: None,
            budget_gpu_h: Some(100.0),
            why: "a new grant".into(),
        };
        let proposed: ChangeProposed =
            send(&app, "PUT", "/api/quotas", &admin, Some(&quota), StatusCode::ACCEPTED).await;
        let review = Review { note: "matches the letter".into() };
        let path = format!("/api/changes/{}/approve", proposed.change);
        let applied: ChangeReviewed = send(&app, "POST", &path, &admin2, Some(&review), StatusCode::OK).await;
        assert_eq!(applied.state, "applied");
        let second: ChangeProposed =
            send(&app, "PUT", "/api/quotas", &admin, Some(&quota), StatusCode::ACCEPTED).await;
        let path = format!("/api/changes/{}/reject", second.change);
        let rejected: ChangeReviewed = send(&app, "POST", &path, &admin, Some(&review), StatusCode::OK).await;
        assert_eq!(rejected.state, "rejected");
        let changes: ChangePage = send(&app, "GET", "/api/changes", &admin, NONE, StatusCode::OK).await;
        let first = changes.changes.iter().find(|c| c.id == proposed.change).expect("listed");
        assert_eq!((first.change.model.as_str(), first.change.lend_limit), ("A100-80G", None), "{engine}");
        assert_eq!(first.reviewed_by.as_deref(), Some("admin2"));

        // Templates (T1-T3): created, granted, retired.
        let template = NewTemplate {
            name: "finetune".into(),
            gpus: 1,
            image: Some(String::new()),
            command: "python finetune.py".into(),
            env: [("SEED".to_string(), "1".to_string())].into(),
            ..NewTemplate::default()
        };
        let t: TemplateCreated =
            send(&app, "POST", "/api/templates", &lead, Some(&template), StatusCode::CREATED).await;
        let grant = TemplateGrant { group: "speech".into() };
        let path = format!("/api/templates/{}/grants", t.id);
        let granted: TemplateGranted =
            send(&app, "POST", &path, &lead, Some(&grant), StatusCode::CREATED).await;
        assert_eq!((granted.template, granted.granted_to.as_str()), (t.id, "speech"));
        let retire = TemplateRetire { reason: "replaced".into() };
        let path = format!("/api/templates/{}/retire", t.id);
        let retired: TemplateRetired = send(&app, "POST", &path, &lead, Some(&retire), StatusCode::OK).await;
        assert_eq!(retired.id, t.id);
    }
}

#[tokio::test]
async fn the_event_log_and_the_archive_read_as_the_api_types() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let dev = app.token("vision-dev", "demo-password").await;
        let spec = Submit {
            name: Some("archived".into()),
            command: Some("true".into()),
            gpus: Some(1),
            tags: vec!["Paper-1".into()],
            ..Submit::default()
        };
        let job: Submitted = send(&app, "POST", "/api/jobs", &dev, Some(&spec), StatusCode::CREATED).await;
        let path = format!("/api/jobs/{}/cancel", job.id);
        let _: Cancelled = send(&app, "POST", &path, &dev, NONE, StatusCode::OK).await;

        let events: EventPage = send(&app, "GET", "/api/events?limit=500", &dev, NONE, StatusCode::OK).await;
        assert!(events.events.iter().any(|e| e.job == Some(job.id) && e.kind == "cancelled"), "{engine}");
        let path = format!("/api/events?job={}&kind=submitted", job.id);
        let mine: EventPage = send(&app, "GET", &path, &dev, NONE, StatusCode::OK).await;
        assert_eq!(mine.events.len(), 1, "{engine}");

        let archive: ArchivePage =
            send(&app, "GET", "/api/archive?tag=paper-1", &dev, NONE, StatusCode::OK).await;
        let row = archive.jobs.iter().find(|j| j.id == job.id).expect("archived");
        assert_eq!((row.state.as_str(), row.tags.as_slice()), ("cancelled", &["paper-1".to_string()][..]));
    }
}

/// D2, A4: a placement's particulars name the nodes by their records' ids and names (they
/// once held the dispatcher's internal indices, in a shape the API type could not read),
/// so the whole log reads as the API type once a job has run.
#[tokio::test]
async fn a_placement_reads_as_typed_particulars_naming_real_nodes() {
    use std::sync::Arc;
    use tidepool::dispatch::{Dispatcher, Lease};
    use tidepool_core::NativePolicies;
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let dev = app.token("vision-dev", "demo-password").await;
        let spec = Submit {
            name: Some("placed".into()),
            command: Some("true".into()),
            gpus: Some(2),
            ..Submit::default()
        };
        let job: Submitted = send(&app, "POST", "/api/jobs", &dev, Some(&spec), StatusCode::CREATED).await;
        let lease = Lease { holder: "d".into(), ttl_s: 60 };
        let now = app.clock.load(std::sync::atomic::Ordering::SeqCst);
        Dispatcher::new(app.state.store.clone(), Arc::new(NativePolicies::default()), lease)
            .cycle(now)
            .await
            .unwrap();

        let path = format!("/api/events?job={}&kind=placed", job.id);
        let placed: EventPage = send(&app, "GET", &path, &dev, NONE, StatusCode::OK).await;
        let slots =
            placed.events.first().and_then(|e| e.detail.slots.clone()).expect("a placement with its slots");
        let nodes: NodesView = send(&app, "GET", "/api/nodes", &dev, NONE, StatusCode::OK).await;
        for slot in &slots {
            let node = nodes.nodes.iter().find(|n| n.id == slot.node).expect("the slot names a real node");
            assert_eq!(node.name, slot.node_name, "{engine}");
        }
        assert_eq!(slots.iter().map(|s| s.gpu_mask.count_ones()).sum::<u32>(), 2, "{engine}");
        let _: EventPage = send(&app, "GET", "/api/events?limit=500", &dev, NONE, StatusCode::OK).await;
    }
}
