//! The alert rules on the records (O2, R2, D1), both engines: policy faults and an open
//! circuit from the event log, a lost node, an idle allocation's notice, a pool whose
//! held GPUs sit idle, and a group's waits far above its own four-week baseline are each
//! raised once, to the right people, repeated while nobody acknowledges them, and
//! resolved when their condition ends.

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use serde_json::json;
use tidepool::alerts::{AlertConfig, Evaluator};
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool_api::alerts::{Alert, Inbox, Severity};
use tidepool_core::NativePolicies;

async fn exec(app: &TestApp, sql: &str) {
    sqlx::query(sqlx::AssertSqlSafe(sql.to_string())).execute(&app.state.store.pool).await.expect(sql);
}

/// An event as the dispatcher and the agents' syncs write them.
async fn event(app: &TestApp, at: i64, kind: &str, job: Option<i64>, detail: &str) {
    sqlx::query(
        "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) VALUES ($1, $2, $3, 'dispatcher', NULL, $4, $5)",
    )
    .bind(at)
    .bind(kind)
    .bind(job)
    .bind(format!("{kind} happened"))
    .bind(detail)
    .execute(&app.state.store.pool)
    .await
    .expect("event");
}

async fn inbox(app: &TestApp, token: &str) -> Vec<Alert> {
    let (status, v) = app.call("GET", "/api/alerts", Some(token), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    serde_json::from_value::<Inbox>(v).expect("an Inbox").alerts
}

fn rules(alerts: &[Alert]) -> Vec<String> {
    let mut r: Vec<String> =
        alerts.iter().filter(|a| a.resolved_at.is_none()).map(|a| a.rule.clone()).collect();
    r.sort();
    r
}

#[tokio::test]
async fn each_rule_is_raised_once_for_the_right_people_and_resolved_when_it_ends() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let store = &app.state.store;
        let t0 = app.clock.load(Ordering::SeqCst);
        let t = t0 + 1800;
        // D1: vision's 8-GPU job runs from t0; speech's 64-GPU job has waited since t0.
        let dev = app.token("vision-dev", "demo-password").await;
        let other_dev = app.token("speech-dev", "demo-password").await;
        for (token, gpus) in [(&dev, 8), (&other_dev, 64)] {
            let body = json!({ "name": "j", "command": "train", "gpus": gpus }).to_string();
            let (status, v) = app.call("POST", "/api/jobs", Some(token), Some(&body)).await;
            assert_eq!(status, StatusCode::CREATED, "{v}");
        }
        let d = Dispatcher::new(
            store.clone(),
            Arc::new(NativePolicies::default()),
            Lease { holder: "a".into(), ttl_s: 30 },
        );
        assert_eq!(d.cycle(t0).await.expect("cycle").placed, 1, "{engine}");
        let job: i64 =
            sqlx::query_scalar("SELECT job_id FROM allocations").fetch_one(&store.pool).await.expect("job");
        // R2: its GPUs have been idle since t0, and its agent gave notice.
        exec(&app, &format!("UPDATE allocations SET idle_since = {t0}")).await;
        event(&app, t - 60, "idle-notice", Some(job), "{}").await;
        // Two faults of one quota module, then its circuit opens.
        let policy = r#"{"policy":{"event":"fault","kind":"quota","sha256":"abcdef0123456789abcdef"}}"#;
        event(&app, t - 30, "policy-fault", None, policy).await;
        event(&app, t - 20, "policy-fault", None, policy).await;
        event(&app, t - 10, "policy-circuit-open", None, policy).await;
        // An old fault, past its hour, is history.
        event(
            &app,
            t - 7200,
            "policy-fault",
            None,
            r#"{"policy":{"event":"fault","kind":"priority","sha256":"0"}}"#,
        )
        .await;
        // A node's agent fell silent.
        exec(&app, &format!("UPDATE nodes SET lost_at = {t}, healthy = FALSE WHERE name = 'gpu-west-3'"))
            .await;
        // speech's usual wait over four weeks: 20 jobs, a minute each.
        exec(
            &app,
            &format!(
                "INSERT INTO usage_hours (hour, group_id, pool, model, category, held_gpu_s, sampled_gpu_s, util_pct_gpu_s, \
                 idle_gpu_s, jobs_started, jobs_finished, wait_s) SELECT {}, id, 'east', 'A100-80G', 'training', 0, 0, 0, 0, 20, 20, 1200 \
                 FROM groups WHERE name = 'speech'",
                t0 - 7 * 86_400
            ),
        )
        .await;

        let evaluator = Evaluator::new(AlertConfig { repeat_s: 600, ..AlertConfig::default() });
        let e = evaluator.evaluate(store, t).await.expect("evaluate");
        assert_eq!(e.raised, 6, "{engine}");
        let admin = app.token("admin", "admin-pw").await;
        let all = inbox(&app, &admin).await;
        assert_eq!(
            rules(&all),
            ["idle-notice", "node-lost", "policy-circuit-open", "policy-fault", "pool-idle", "wait-spike"],
            "{engine}"
        );
        let of = |rule: &str| all.iter().find(|a| a.rule == rule).expect(rule).clone();
        assert_eq!(of("node-lost").severity, Severity::Critical);
        assert_eq!(of("policy-circuit-open").subject, "quota policy abcdef012345");
        assert_eq!(of("idle-notice").group.as_deref(), Some("vision"));
        assert!(
            of("wait-spike").message.contains("30 min, against a usual 1 min"),
            "{}",
            of("wait-spike").message
        );
        // Each to its people: the idle job's group, speech's manager for its waits.
        let lead = app.token("vision-lead", "demo-password").await;
        let other_lead = app.token("speech-lead", "demo-password").await;
        assert_eq!(rules(&inbox(&app, &dev).await), ["idle-notice"], "{engine}");
        assert_eq!(rules(&inbox(&app, &lead).await), ["idle-notice"], "{engine}");
        assert_eq!(rules(&inbox(&app, &other_lead).await), ["wait-spike"], "{engine}");
        assert!(inbox(&app, &other_dev).await.is_empty(), "{engine}");

        // A third fault of the same module is the same open alert.
        event(&app, t + 5, "policy-fault", None, policy).await;
        assert_eq!(evaluator.evaluate(store, t + 10).await.expect("evaluate").raised, 0, "{engine}");

        // The node returns, the job works again and ends its wait: those resolve at once;
        // the faults an hour after the last one.
        exec(&app, "UPDATE nodes SET lost_at = NULL, healthy = TRUE").await;
        exec(&app, "UPDATE allocations SET idle_since = NULL").await;
        exec(&app, "UPDATE jobs SET state = 'cancelled' WHERE state = 'pending'").await;
        evaluator.evaluate(store, t + 20).await.expect("evaluate");
        assert_eq!(
            rules(&inbox(&app, &admin).await),
            ["idle-notice", "policy-circuit-open", "policy-fault"],
            "{engine}"
        );
        // Unacknowledged, the lingering ones are repeated too (an event's alert as a state's).
        assert_eq!(evaluator.evaluate(store, t + 700).await.expect("evaluate").repeated, 3, "{engine}");
        evaluator.evaluate(store, t + 5 + 3600).await.expect("evaluate");
        assert!(rules(&inbox(&app, &admin).await).is_empty(), "{engine}");
    }
}
