//! The Monday delivery (A2, A5) against a real SMTP server on loopback (aiosmtpd, from the
//! virtual environment tests/run.sh makes; its python is `TIDEPOOL_TEST_SMTPD`) and a
//! webhook receiver on loopback: each manager and admin with an address gets one mail for
//! the finished week with its subject and figures and the CSV attached; the webhook gets
//! every report; a second pass sends nothing more; a refused delivery is recorded and
//! tried again on the next pass. Both engines.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use common::live::free_port;
use common::receivers::{SmtpServer, smtpd_python, webhook};
use sqlx::Row;
use tidepool::reports::delivery::{Outbox, PassSummary, pass};
use tidepool::reports::mail::Smtp;
use tidepool_api::reports::WeeklyReport;

/// Monday 2026-11-23 00:00 UTC: the start of 2026-W48.
const W48: i64 = 1_795_392_000;
const H: i64 = 3600;
const DAY: i64 = 86_400;

async fn exec(app: &TestApp, sql: &str, bind: &str) {
    sqlx::query(sqlx::AssertSqlSafe(sql.to_string()))
        .bind(bind)
        .execute(&app.state.store.pool)
        .await
        .expect("sql");
}

/// vision held 8 GPUs for an hour at 50 % (2 GPU-h idle) and 2 GPUs for an hour at 100 %:
/// 10 GPU-hours, 6 busy, 2 idle, 25.00 EUR at 2.50; speech one GPU-hour, 2.50 EUR; the
/// organisation 11 GPU-hours, 27.50 EUR.
async fn history(app: &TestApp, hook: &str) {
    let pool = &app.state.store.pool;
    let admin = app.token("admin", "admin-pw").await;
    let body = format!(
        r#"{{"time_zone":"UTC","currency":"EUR","prices":[{{"model":"A100-80G","per_gpu_hour":2.5}}],"report_webhook":"{hook}"}}"#
    );
    let (status, v) = app.call("PUT", "/api/settings", Some(&admin), Some(&body)).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    for (who, address) in [
        ("admin", "root@example.org"),
        ("vision-lead", "vl@example.org"),
        ("speech-lead", "sl@example.org"),
        ("vision-dev", "vd@example.org"),
    ] {
        exec(app, &format!("UPDATE users SET email = '{address}' WHERE username = $1"), who).await;
    }
    for (at, group, held, util, idle) in
        [(W48, "vision", 8, 50, 2), (W48 + DAY, "vision", 2, 100, 0), (W48 + 2 * H, "speech", 1, 100, 0)]
    {
        sqlx::query(
            "INSERT INTO usage_hours (hour, group_id, pool, model, category, held_gpu_s, sampled_gpu_s, util_pct_gpu_s, \
             idle_gpu_s, jobs_started, jobs_finished, wait_s) SELECT $1, id, 'east', 'A100-80G', 'training', $2, $2, $3, $4, 0, 0, 0 \
             FROM groups WHERE name = $5",
        )
        .bind(at)
        .bind(held * H)
        .bind(util * held * H)
        .bind(idle * H)
        .bind(group)
        .execute(pool)
        .await
        .expect("usage hour");
    }
}

async fn rolled_until(app: &TestApp, t: i64) {
    sqlx::query("UPDATE usage_rollup SET rolled_until = $1")
        .bind(t)
        .execute(&app.state.store.pool)
        .await
        .expect("rolled");
}

// A2, A5: the finished week goes out once to each reader and the webhook; failures retried.
#[tokio::test]
async fn the_finished_week_is_mailed_and_posted_once_and_failures_are_retried() {
    let Some(python) = smtpd_python() else { return };
    for engine in engines() {
        let dir = common::fresh_dir("smtp");
        let smtp = SmtpServer::start(&python, &dir).await;
        let (hook, posted) = webhook(1).await;
        let app = TestApp::new(engine).await;
        history(&app, &hook).await;
        let from = "Tidepool <reports@example.org>";
        let dead = Outbox {
            smtp: Some(Smtp::parse(&format!("127.0.0.1:{}", free_port()), from).unwrap()),
            ..Outbox::default()
        };
        let live = Outbox {
            smtp: Some(Smtp::parse(&format!("127.0.0.1:{}", smtp.port), from).unwrap()),
            ..Outbox::default()
        };
        let monday = W48 + 7 * DAY + 60;

        // Monday, but the roll-up has not reached the week's end: nothing is frozen or sent.
        rolled_until(&app, W48 + 7 * DAY - H).await;
        assert_eq!(
            pass(&app.state.store, &live, monday).await.expect("pass"),
            PassSummary::default(),
            "{engine}"
        );
        assert_eq!(app.count("weekly_reports").await, 0, "{engine}");

        // Rolled up; the SMTP server is not there and the webhook refuses its first POST.
        rolled_until(&app, W48 + 7 * DAY).await;
        let groups = app.count("groups").await as usize;
        let s = pass(&app.state.store, &dead, monday).await.expect("pass");
        // Three mails (admin: the organisation's; vision's and speech's managers: theirs;
        // the member and admin2 without an address: none) fail; one webhook POST of the
        // groups' + organisation's reports is refused.
        assert_eq!(s.weeks, vec!["2026-W48".to_string()], "{engine}");
        assert_eq!((s.delivered, s.failed), (groups, 3 + 1), "{engine}");
        assert_eq!(app.count("weekly_reports").await as usize, groups + 1, "{engine}");
        let errors = sqlx::query(
            "SELECT channel, error FROM report_deliveries WHERE error IS NOT NULL ORDER BY channel",
        )
        .fetch_all(&app.state.store.pool)
        .await
        .expect("deliveries");
        assert_eq!(errors.len(), 4, "{engine}");
        assert!(errors[0].get::<String, _>(1).starts_with("SMTP"), "{engine}");
        assert_eq!(errors[3].get::<String, _>(1), "the webhook answered 503 Service Unavailable", "{engine}");
        assert!(smtp.mails().is_empty());

        // The next pass: the mails go out and the refused POST is made again, nothing else.
        let s = pass(&app.state.store, &live, monday + 60).await.expect("pass");
        assert_eq!((s.delivered, s.failed), (4, 0), "{engine}");
        let mails = smtp.mails();
        assert_eq!(mails.len(), 3, "{engine}");
        for (to, about, hours, cost) in [
            ("root@example.org", "the organisation", "11.00", "27.50"),
            ("vl@example.org", "vision", "10.00", "25.00"),
            ("sl@example.org", "speech", "1.00", "2.50"),
        ] {
            let got = smtp.mails_to(to);
            assert_eq!(got.len(), 1, "{engine}: one mail to {to}");
            let m = &got[0];
            assert!(
                m.contains(&format!("Subject: Tidepool weekly report 2026-W48: {about}")),
                "{engine}: {m}"
            );
            assert!(m.contains(&format!("GPU-hours held: {hours}")), "{engine}: {m}");
            assert!(m.contains(&format!("Cost: {cost} EUR")), "{engine}: {m}");
            assert!(m.contains("From: Tidepool <reports@example.org>"), "{engine}: {m}");
            assert!(m.contains("text/csv") && m.contains(".csv\""), "{engine}: the CSV is attached: {m}");
        }
        assert!(
            m_contains(&mails[..], "busy 6.00, idle while held 2.00"),
            "{engine}: vision's busy and idle"
        );

        // The webhook: every report once accepted (and the refused first one).
        let bodies = posted.lock().expect("lock").clone();
        assert_eq!(bodies.len(), groups + 2, "{engine}");
        let accepted: Vec<WeeklyReport> = bodies
            .iter()
            .filter(|(status, _)| *status == 200)
            .map(|(_, b)| serde_json::from_str(b).expect("a WeeklyReport"))
            .collect();
        assert_eq!(accepted.len(), groups + 1, "{engine}");
        let org = accepted.iter().find(|r| r.group.is_none()).expect("the organisation's");
        assert_eq!((org.week.as_str(), org.totals.gpu_hours, org.totals.cost), ("2026-W48", 11.0, 27.5));
        assert!(org.frozen_at.is_some(), "{engine}: the frozen copy is posted");
        let vision = accepted.iter().find(|r| r.group.as_deref() == Some("vision")).expect("vision's");
        assert_eq!(
            (vision.totals.gpu_hours, vision.totals.busy_gpu_hours, vision.totals.idle_gpu_hours),
            (10.0, 6.0, 2.0)
        );

        // A third pass sends nothing more.
        let s = pass(&app.state.store, &live, monday + 120).await.expect("pass");
        assert_eq!((s.delivered, s.failed), (0, 0), "{engine}");
        assert_eq!(smtp.mails().len(), 3, "{engine}");
        assert_eq!(posted.lock().expect("lock").len(), groups + 2, "{engine}");
        // GET /api/reports counts them: the organisation's was delivered twice (mail and
        // webhook) after one failure of each.
        let (status, v) =
            app.call("GET", "/api/reports", Some(&app.token("admin", "admin-pw").await), None).await;
        assert_eq!(status, StatusCode::OK);
        let org =
            v["weeks"].as_array().expect("weeks").iter().find(|w| w["group"].is_null()).expect("org").clone();
        // (Its report was frozen first, so its POST was the one refused.)
        assert!(bodies[0].1.contains("\"group\":null"), "{engine}");
        assert_eq!(
            (org["delivered"].as_i64(), org["failed"].as_i64()),
            (Some(2), Some(2)),
            "{engine}: {org}"
        );

        // No server ran through W49 and W50: on the Monday of W51 both are owed and go
        // out late, oldest first; W48 is not sent again.
        rolled_until(&app, W48 + 21 * DAY).await;
        let s = pass(&app.state.store, &live, W48 + 21 * DAY + 60).await.expect("pass");
        assert_eq!(s.weeks, vec!["2026-W48", "2026-W49", "2026-W50"], "{engine}");
        assert_eq!((s.delivered, s.failed), (2 * (3 + groups + 1), 0), "{engine}");
        let mails = smtp.mails();
        for week in ["2026-W49", "2026-W50"] {
            let subject = format!("Subject: Tidepool weekly report {week}: the organisation");
            assert_eq!(mails.iter().filter(|m| m.contains(&subject)).count(), 1, "{engine}: {week}");
        }
        assert_eq!(mails.len(), 3 + 2 * 3, "{engine}");
    }
}

fn m_contains(mails: &[String], needle: &str) -> bool {
    mails.iter().any(|m| m.contains(needle))
}
