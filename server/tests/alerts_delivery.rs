//! Alerts (O2, Q3, P2) told at once to the right people, on both engines: a budget past
//! 80 % and a grant lapsing within a week reach a real SMTP server (aiosmtpd) and a
//! webhook receiver on loopback from the first evaluation; evaluations that find the same
//! open conditions send nothing more; a refused post is retried after its backoff; an
//! unacknowledged alert is repeated every `repeat_s` until a recipient acknowledges it;
//! the inbox shows each alert to its recipients only; the chat shape posts `{"text": …}`;
//! a renewed grant resolves its alert. The clock is the test's.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use common::receivers::{SmtpServer, smtpd_python, webhook};
use serde_json::{Value, json};
use tidepool::alerts::deliver::{Outbox, Sent, pass};
use tidepool::alerts::{AlertConfig, Evaluated, Evaluator};
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool::reports::mail::Smtp;
use tidepool_api::alerts::{AlertNotice, ChatMessage, Inbox};
use tidepool_core::NativePolicies;

const DAY: i64 = 86_400;

async fn exec(app: &TestApp, sql: &str) {
    sqlx::query(sqlx::AssertSqlSafe(sql.to_string())).execute(&app.state.store.pool).await.expect(sql);
}

async fn inbox(app: &TestApp, token: &str, query: &str) -> Inbox {
    let (status, v) = app.call("GET", &format!("/api/alerts{query}"), Some(token), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    serde_json::from_value(v).expect("an Inbox")
}

fn subjects(mails: &[String]) -> Vec<String> {
    let mut s: Vec<String> = mails
        .iter()
        .filter_map(|m| m.lines().find_map(|l| l.strip_prefix("Subject: ").map(str::to_string)))
        .collect();
    s.sort();
    s
}

#[tokio::test]
async fn alerts_reach_mail_and_webhook_once_and_repeat_until_acknowledged() {
    let Some(python) = smtpd_python() else { return };
    for engine in engines() {
        let dir = common::fresh_dir("alerts");
        let smtp = SmtpServer::start(&python, &dir).await;
        let (hook, posts) = webhook(1).await;
        let app = TestApp::new(engine).await;
        let store = &app.state.store;
        let t0 = app.clock.load(std::sync::atomic::Ordering::SeqCst);
        for (who, address) in [
            ("admin", "root@example.org"),
            ("vision-lead", "vl@example.org"),
            ("vision-dev", "vd@example.org"),
            ("speech-lead", "sl@example.org"),
            ("speech-dev", "sd@example.org"),
        ] {
            exec(&app, &format!("UPDATE users SET email = '{address}' WHERE username = '{who}'")).await;
        }
        let admin = app.token("admin", "admin-pw").await;
        let body = json!({ "webhook": hook, "shape": "json" }).to_string();
        let (status, v) = app.call("PUT", "/api/alerts/settings", Some(&admin), Some(&body)).await;
        assert_eq!(status, StatusCode::OK, "{v}");

        // Q3: vision runs an 8-GPU job from t0; then its budget becomes 100 GPU-hours.
        let dev = app.token("vision-dev", "demo-password").await;
        let job = json!({ "name": "big", "command": "train", "gpus": 8 }).to_string();
        let (status, v) = app.call("POST", "/api/jobs", Some(&dev), Some(&job)).await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
        let d = Dispatcher::new(
            store.clone(),
            Arc::new(NativePolicies::default()),
            Lease { holder: "a".into(), ttl_s: 30 },
        );
        assert_eq!(d.cycle(t0).await.expect("cycle").placed, 1, "{engine}");
        exec(&app, "UPDATE quotas SET budget_gpu_h = 100 WHERE group_id = (SELECT id FROM groups WHERE name = 'vision')").await;
        // P2: vision's critical grant lapses in three days.
        let lead = app.token("vision-lead", "demo-password").await;
        let project =
            json!({ "name": "deadline", "class": "critical", "expires_at": t0 + 3 * DAY }).to_string();
        let (status, v) = app.call("POST", "/api/projects", Some(&lead), Some(&project)).await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
        let project_id = v["id"].as_i64().expect("project id");

        let evaluator = Evaluator::new(AlertConfig { repeat_s: 600, mail: true, ..AlertConfig::default() });
        let outbox = Outbox {
            smtp: Some(
                Smtp::parse(&format!("127.0.0.1:{}", smtp.port), "Tidepool <alerts@example.org>").unwrap(),
            ),
            ..Outbox::default()
        };
        // 8 GPUs x 40,000 s = 88.9 GPU-hours of 100: past 80 %, short of 95 %.
        let t = t0 + 40_000;
        let e = evaluator.evaluate(store, t).await.expect("evaluate");
        // Budget: admin, vision's manager and member, the webhook; grant: admin, manager, webhook.
        assert_eq!(e, Evaluated { raised: 2, resolved: 0, repeated: 0, queued: 7 }, "{engine}");
        let s = pass(store, &outbox, t).await.expect("pass");
        assert_eq!(s, Sent { delivered: 6, failed: 1, dropped: 0 }, "{engine}: the first post is refused");
        assert_eq!(smtp.mails_to("root@example.org").len(), 2, "{engine}");
        assert_eq!(
            subjects(&smtp.mails_to("vl@example.org")),
            vec![
                "Tidepool alert [warning] project deadline".to_string(),
                "Tidepool alert [warning] vision A100-80G training".to_string()
            ],
            "{engine}"
        );
        assert_eq!(smtp.mails_to("vd@example.org").len(), 1, "{engine}: members hear of the budget only");
        assert!(smtp.mails_to("sl@example.org").is_empty() && smtp.mails_to("sd@example.org").is_empty());
        let budget_mail = &smtp.mails_to("vd@example.org")[0];
        assert!(budget_mail.contains("has spent 88.9 of its 100.0 GPU-hour"), "{engine}: {budget_mail}");

        // The refused post is tried again after its backoff (5 s), not before.
        assert_eq!(pass(store, &outbox, t + 1).await.expect("pass"), Sent::default(), "{engine}");
        assert_eq!(pass(store, &outbox, t + 5).await.expect("pass").delivered, 1, "{engine}");
        let notices: Vec<AlertNotice> = posts
            .lock()
            .unwrap()
            .iter()
            .filter(|(status, _)| *status == 200)
            .map(|(_, b)| serde_json::from_str(b).expect("an AlertNotice"))
            .collect();
        let mut rules: Vec<&str> = notices.iter().map(|n| n.rule.as_str()).collect();
        rules.sort();
        assert_eq!(rules, vec!["budget", "grant-lapsing"], "{engine}");

        // Evaluations that find the same open conditions send nothing more.
        for later in [t + 10, t + 60, t + 300] {
            let e = evaluator.evaluate(store, later).await.expect("evaluate");
            assert_eq!(e, Evaluated::default(), "{engine}: at {later}");
            assert_eq!(pass(store, &outbox, later).await.expect("pass"), Sent::default(), "{engine}");
        }
        assert_eq!(smtp.mails().len(), 5, "{engine}: no duplicates");
        assert_eq!(posts.lock().unwrap().len(), 3, "{engine}: no duplicate posts");

        // The inbox: each alert to its recipients only.
        let count = |i: &Inbox| (i.alerts.len(), i.unread);
        let other_dev = app.token("speech-dev", "demo-password").await;
        let other_lead = app.token("speech-lead", "demo-password").await;
        assert_eq!(count(&inbox(&app, &admin, "").await), (2, 2), "{engine}");
        assert_eq!(count(&inbox(&app, &lead, "").await), (2, 2), "{engine}");
        assert_eq!(count(&inbox(&app, &dev, "").await), (1, 1), "{engine}");
        assert_eq!(count(&inbox(&app, &other_dev, "").await), (0, 0), "{engine}: another group's member");
        assert_eq!(count(&inbox(&app, &other_lead, "").await), (0, 0), "{engine}: another group's manager");
        let mine = inbox(&app, &lead, "").await;
        let grant = mine.alerts.iter().find(|a| a.rule == "grant-lapsing").expect("grant alert").id;
        let budget = mine.alerts.iter().find(|a| a.rule == "budget").expect("budget alert").id;
        for (who, token, id) in [
            ("speech-dev", &other_dev, budget),
            ("speech-lead", &other_lead, grant),
            ("vision-dev", &dev, grant),
        ] {
            let (status, v) = app.call("POST", &format!("/api/alerts/{id}/ack"), Some(token), None).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{engine}: {who} acknowledges alert {id}: {v}");
        }
        // Reading marks one's own copy only.
        let (status, v) = app.call("POST", &format!("/api/alerts/{budget}/read"), Some(&dev), None).await;
        assert_eq!((status, v["read"].clone()), (StatusCode::OK, Value::Bool(true)), "{engine}");
        assert_eq!(count(&inbox(&app, &dev, "?unread=true").await), (0, 0), "{engine}");
        assert_eq!(inbox(&app, &lead, "?unread=true").await.unread, 2, "{engine}");

        // Unacknowledged, both are repeated after repeat_s, to the same people.
        let e = evaluator.evaluate(store, t + 600).await.expect("evaluate");
        assert_eq!((e.repeated, e.queued), (2, 7), "{engine}");
        assert_eq!(pass(store, &outbox, t + 600).await.expect("pass").delivered, 7, "{engine}");
        let reminders = subjects(&smtp.mails()).iter().filter(|s| s.starts_with("Reminder: ")).count();
        assert_eq!(reminders, 5, "{engine}");

        // Acknowledged by vision's manager, the grant's reminders stop; the budget's go on.
        let (status, v) = app.call("POST", &format!("/api/alerts/{grant}/ack"), Some(&lead), None).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        assert_eq!(v["acknowledged_by"], "vision-lead", "{engine}");
        let e = evaluator.evaluate(store, t + 1200).await.expect("evaluate");
        assert_eq!((e.repeated, e.queued), (1, 4), "{engine}");
        assert_eq!(pass(store, &outbox, t + 1200).await.expect("pass").delivered, 4, "{engine}");
        let grant_mails = subjects(&smtp.mails()).iter().filter(|s| s.contains("project deadline")).count();
        assert_eq!(grant_mails, 4, "{engine}: two first tellings and two reminders, no more");

        // The chat shape: `{"text": …}`.
        let body = json!({ "webhook": hook, "shape": "chat" }).to_string();
        let (status, _) = app.call("PUT", "/api/alerts/settings", Some(&admin), Some(&body)).await;
        assert_eq!(status, StatusCode::OK);
        evaluator.evaluate(store, t + 1800).await.expect("evaluate");
        pass(store, &outbox, t + 1800).await.expect("pass");
        let last = posts.lock().unwrap().last().expect("a post").1.clone();
        let chat: ChatMessage = serde_json::from_str(&last).expect("a ChatMessage");
        assert!(
            chat.text.starts_with("[WARNING] vision A100-80G training has spent"),
            "{engine}: {}",
            chat.text
        );
        assert!(chat.text.ends_with("(reminder: not acknowledged yet)"), "{engine}: {}", chat.text);

        // Renewed, the grant's alert resolves; every step is in the event log.
        let renew = json!({ "expires_at": t + 90 * DAY }).to_string();
        let (status, v) =
            app.call("POST", &format!("/api/projects/{project_id}/renew"), Some(&lead), Some(&renew)).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        assert_eq!(evaluator.evaluate(store, t + 1810).await.expect("evaluate").resolved, 1, "{engine}");
        for kind in ["alert-raised", "alert-acknowledged", "alert-resolved"] {
            let (_, v) = app.call("GET", &format!("/api/events?kind={kind}"), Some(&admin), None).await;
            let events = v["events"].as_array().expect("events");
            assert!(!events.is_empty(), "{engine}: {kind}");
        }
        let grant_alert =
            inbox(&app, &lead, "").await.alerts.into_iter().find(|a| a.id == grant).expect("listed");
        assert_eq!(grant_alert.resolved_at, Some(t + 1810), "{engine}");
    }
}
