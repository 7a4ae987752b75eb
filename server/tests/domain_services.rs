//! The domain services the handlers call, driven directly on a real database (SQLite,
//! and PostgreSQL when the test command started one): loans (B1), quota changes under
//! two-person review (B2), priority grants (P2), templates (T2, T3) and accounts (Q6).
//! No HTTP here but one check that a refusal keeps its status code on the way out.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, assert_error_shape, engines};
use sqlx::Row;
use tidepool::access::AccessError;
use tidepool::changes::{self, ChangeError};
use tidepool::loans::{self, LenderAct, LoanError};
use tidepool::store::listing::Page;
use tidepool::store::users::User;
use tidepool::{accounts, projects, templates};
use tidepool_api::changes::QuotaChange;
use tidepool_api::loans::NewLoan;
use tidepool_api::projects::NewProject;
use tidepool_api::users::NewUser;

const NOW: i64 = 2_000_000_000;
const DAY: i64 = 86_400;

async fn user(app: &TestApp, name: &str) -> User {
    let row = sqlx::query("SELECT id FROM users WHERE username = $1")
        .bind(name)
        .fetch_one(&app.state.store.pool)
        .await
        .expect("a seeded user");
    app.state.store.user(row.get(0)).await.expect("read").expect("exists")
}

fn ask(lender: &str, borrower: Option<&str>, ends_at: i64) -> NewLoan {
    NewLoan {
        lender: lender.into(),
        borrower: borrower.map(str::to_string),
        model: None,
        gpus: 4,
        ends_at,
        why: "paper deadline".into(),
    }
}

// B1: once a loan has moved on, a decision that needs its earlier state is refused as
// too late (409), whoever asks: no rejected loan is approved, no request is returned.
#[tokio::test]
async fn a_loan_that_has_moved_on_refuses_the_next_step() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let store = &app.state.store;
        let (dev, lead, admin) =
            (user(&app, "vision-dev").await, user(&app, "speech-lead").await, user(&app, "admin").await);
        let id = loans::create(store, &dev, &ask("speech", None, NOW + DAY), NOW).await.unwrap().id;
        let e = loans::give_back(store, &dev, id, NOW).await.unwrap_err();
        assert!(
            matches!(e, LoanError::MovedOn { expected: "active", .. }),
            "{engine}: a request is not returned: {e}"
        );
        let e = loans::decide(store, &lead, id, LenderAct::Reclaim, "need them", NOW).await.unwrap_err();
        assert!(matches!(e, LoanError::MovedOn { expected: "active", .. }), "{engine}: nor reclaimed: {e}");
        let rejected = loans::decide(store, &lead, id, LenderAct::Reject, "busy", NOW).await.unwrap();
        assert_eq!(rejected.state, "rejected", "{engine}");
        let e = loans::decide(store, &admin, id, LenderAct::Approve, "overrule", NOW).await.unwrap_err();
        assert!(matches!(e, LoanError::MovedOn { expected: "requested", .. }), "{engine}: {e}");

        // The refusal answers 409 in the error shape, and the loan stays rejected.
        let token = app.token("speech-lead", "demo-password").await;
        let (s, v) = app
            .call("POST", &format!("/api/loans/{id}/approve"), Some(&token), Some(r#"{"note":"after all"}"#))
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "{engine}: {v}");
        assert_error_shape(&v, "conflict");
        let listed = loans::list(store, &Page::default(), NOW).await.unwrap();
        let loan = listed.loans.iter().find(|l| l.id == id).unwrap();
        assert_eq!((loan.state.as_str(), loan.decision.as_deref()), ("rejected", Some("busy")), "{engine}");
    }
}

// B1: the lender's manager offers GPUs, active at once; an active loan past its end
// lists as expired, while its record keeps `active` for the dispatcher to end.
#[tokio::test]
async fn an_offer_is_active_at_once_and_lists_as_expired_after_its_end() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let store = &app.state.store;
        let lead = user(&app, "speech-lead").await;
        let offer =
            loans::create(store, &lead, &ask("speech", Some("vision"), NOW + 100), NOW).await.unwrap();
        assert_eq!(offer.state, "active", "{engine}: an offer needs no approval");
        let seen =
            |page: tidepool_api::loans::LoanPage| page.loans.into_iter().find(|l| l.id == offer.id).unwrap();
        let now = seen(loans::list(store, &Page::default(), NOW).await.unwrap());
        assert_eq!(
            (now.state.as_str(), now.decided_by.as_deref()),
            ("active", Some("speech-lead")),
            "{engine}"
        );
        assert_eq!(now.model, "A100-80G", "{engine}: the default model");
        let later = seen(loans::list(store, &Page::default(), NOW + 100).await.unwrap());
        assert_eq!(later.state, "expired", "{engine}");
        let row =
            sqlx::query("SELECT state FROM loans WHERE id = $1").bind(offer.id).fetch_one(&store.pool).await;
        assert_eq!(row.unwrap().get::<String, _>(0), "active", "{engine}: the record is unchanged");
        // A group does not borrow from itself, and a loan runs within a year.
        let dev = user(&app, "speech-dev").await;
        let e = loans::create(store, &dev, &ask("speech", None, NOW + DAY), NOW).await.unwrap_err();
        assert!(matches!(e, LoanError::OwnGroup), "{engine}: {e}");
        let e = loans::create(store, &lead, &ask("vision", None, NOW + 400 * DAY), NOW).await.unwrap_err();
        assert!(matches!(e, LoanError::Invalid(_)), "{engine}: {e}");
    }
}

// B1: an admin's loan is a request, never an offer: the admin who asked cannot approve
// it, a second admin (or the lender's manager) can.
#[tokio::test]
async fn an_admins_loan_is_a_request_a_second_admin_may_approve() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let store = &app.state.store;
        let (admin, admin2) = (user(&app, "admin").await, user(&app, "admin2").await);
        let asked =
            loans::create(store, &admin, &ask("speech", Some("vision"), NOW + DAY), NOW).await.unwrap();
        assert_eq!(asked.state, "requested", "{engine}");
        let e = loans::decide(store, &admin, asked.id, LenderAct::Approve, "mine", NOW).await.unwrap_err();
        assert!(matches!(e, LoanError::Access(AccessError::Denied(_))), "{engine}: {e}");
        let done = loans::decide(store, &admin2, asked.id, LenderAct::Approve, "checked", NOW).await.unwrap();
        assert_eq!(done.state, "active", "{engine}");
        // Naming no borrower, an admin is told to name one: there is no offer to anyone.
        let e = loans::create(store, &admin, &ask("speech", None, NOW + DAY), NOW).await.unwrap_err();
        assert!(matches!(e, LoanError::Access(AccessError::GroupNeeded)), "{engine}: {e}");
    }
}

fn quota(guaranteed: u32) -> QuotaChange {
    QuotaChange {
        group: "speech".into(),
        // Padded: the quota set is still the A100-80G row, not one of its own.
        model: Some(" A100-80G ".into()),
        category: "training".into(),
        guaranteed,
        borrow_limit: None,
        lend_limit: Some(2),
        budget_gpu_h: None,
        why: "new hires".into(),
    }
}

// B2, A4, Q1: the setting is stored without its reason (which lives in the summary), the
// proposer cannot apply it, a second admin does once, and a late review is refused.
#[tokio::test]
async fn a_quota_change_is_applied_once_by_a_second_admin() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let store = &app.state.store;
        let (admin, admin2) = (user(&app, "admin").await, user(&app, "admin2").await);
        let proposed = changes::propose_quota(store, &admin, &quota(12), NOW).await.unwrap();
        assert!(proposed.summary.contains("new hires"), "{engine}: {}", proposed.summary);
        let id = proposed.change;
        let e = changes::apply(store, &admin, id, "fine", NOW).await.unwrap_err();
        assert!(matches!(e, ChangeError::SecondAdmin { .. }), "{engine}: {e}");
        assert_eq!(changes::apply(store, &admin2, id, "agreed", NOW).await.unwrap().state, "applied");
        let e = changes::reject(store, &admin, id, "withdrawn", NOW).await.unwrap_err();
        assert!(matches!(&e, ChangeError::Reviewed { state, .. } if state == "applied"), "{engine}: {e}");
        let listed = changes::list(store, &Page::default()).await.unwrap();
        let c = listed.changes.iter().find(|c| c.id == id).unwrap();
        assert_eq!((c.change.model.as_str(), c.change.lend_limit), ("A100-80G", Some(2)), "{engine}");
        let row = sqlx::query(
            "SELECT q.guaranteed FROM quotas q JOIN groups g ON g.id = q.group_id \
             WHERE g.name = 'speech' AND q.model = 'A100-80G' AND q.category = 'training'",
        )
        .fetch_one(&store.pool)
        .await
        .unwrap();
        assert_eq!(row.get::<i64, _>(0), 12, "{engine}: applied");
        let e = changes::apply(store, &admin2, 999_999, "x", NOW).await.unwrap_err();
        assert!(matches!(e, ChangeError::NoSuchChange(999_999)), "{engine}: {e}");
    }
}

// P2, T2, T3, Q6: grants, templates and accounts refuse those who do not manage them.
#[tokio::test]
async fn grants_templates_and_accounts_are_managed_by_their_managers_only() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let store = &app.state.store;
        let (dev, lead, admin) =
            (user(&app, "vision-dev").await, user(&app, "vision-lead").await, user(&app, "admin").await);
        let project = |gpu_cap| NewProject {
            name: "paper".into(),
            group: None,
            class: "critical".into(),
            gpu_cap,
            expires_at: NOW + DAY,
        };
        let e = projects::grant(store, &dev, &project(Some(4)), NOW).await.unwrap_err();
        assert!(matches!(e, projects::ProjectError::Access(AccessError::Denied(_))), "{engine}: {e}");
        let e = projects::grant(store, &lead, &project(Some(0)), NOW).await.unwrap_err();
        assert!(matches!(e, projects::ProjectError::Invalid(_)), "{engine}: {e}");
        let created = projects::grant(store, &lead, &project(Some(4)), NOW).await.unwrap();
        let renewed = projects::renew(store, &lead, created.id, NOW + 2 * DAY, NOW).await.unwrap();
        assert_eq!(renewed.expires_at, NOW + 2 * DAY, "{engine}");
        let e = projects::renew(store, &lead, 999_999, NOW + DAY, NOW).await.unwrap_err();
        assert!(matches!(e, projects::ProjectError::NoSuchProject(999_999)), "{engine}: {e}");

        let row = sqlx::query(
            "SELECT t.id FROM templates t JOIN groups g ON g.id = t.group_id WHERE g.name = 'vision'",
        )
        .fetch_one(&store.pool)
        .await
        .unwrap();
        let template: i64 = row.get(0);
        let e = templates::retire(store, &dev, template, "stale", NOW).await.unwrap_err();
        assert!(matches!(e, templates::TemplateError::Access(AccessError::Denied(_))), "{engine}: {e}");
        assert_eq!(templates::retire(store, &lead, template, "stale", NOW).await.unwrap().retired_at, NOW);
        let e = templates::grant(store, &lead, template, "speech", NOW).await.unwrap_err();
        assert!(
            matches!(e, templates::TemplateError::Retired(_)),
            "{engine}: a retired template is granted to no one"
        );

        let account = |group: Option<&str>| NewUser {
            username: "grace".into(),
            password: "long-enough".into(),
            role: tidepool_api::auth::Role::Admin,
            group: group.map(str::to_string),
        };
        let e = accounts::create_user(store, &lead, &account(None), NOW).await.unwrap_err();
        assert!(matches!(e, accounts::AccountError::Access(AccessError::Denied(_))), "{engine}: {e}");
        let e = accounts::create_user(store, &admin, &account(Some("vision")), NOW).await.unwrap_err();
        assert!(matches!(e, accounts::AccountError::Invalid(_)), "{engine}: admins belong to no group: {e}");
        assert_eq!(
            accounts::create_user(store, &admin, &account(None), NOW).await.unwrap().username,
            "grace"
        );
    }
}
