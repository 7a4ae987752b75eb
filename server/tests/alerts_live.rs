//! Alerts with the live dispatcher (O2, P2), on both engines: a real `tidepool serve`
//! (one-second dispatch interval, `--smtp-server` on aiosmtpd) and a webhook receiver on
//! loopback, both started by the test. A grant that lapses within a week reaches the
//! manager's and the admin's mailboxes and the webhook within one dispatch interval of
//! its creation, the following cycles send nothing more, and the inbox shows it to the
//! group's manager and the admin, not to another group's member; `tidepool alerts` lists
//! and acknowledges it.

mod common;

use std::time::Duration;

use common::live::{call, free_port, login, serve, wait_for};
use common::receivers::{SmtpServer, smtpd_python, webhook};
use common::shell::Shell;
use serde_json::json;
use tidepool_api::alerts::{Alert, AlertNotice, Inbox};

/// Runs `sql` on the server's database (the test's way to give users addresses).
async fn exec(url: &str, sql: &str) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url).await.expect("the server's database");
    sqlx::query(sqlx::AssertSqlSafe(sql.to_string())).execute(&pool).await.expect(sql);
    pool.close().await;
}

fn inbox(addr: &str, token: &str) -> Inbox {
    serde_json::from_value(call(addr, "GET", "/api/alerts", token, None)).expect("an Inbox")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lapsing_grant_is_mailed_and_posted_within_one_dispatch_interval() {
    let Some(python) = smtpd_python() else { return };
    let mut databases = vec![None];
    if let Some(url) =
        common::api::postgres_database(&format!("tidepool_alerts_live_{}", std::process::id())).await
    {
        databases.push(Some(url));
    }
    for database in databases {
        let engine = if database.is_some() { "postgres" } else { "sqlite" };
        let dir = common::fresh_dir("alerts-live");
        let smtp = SmtpServer::start(&python, &dir).await;
        let (hook, posts) = webhook(0).await;
        let addr = format!("127.0.0.1:{}", free_port());
        let data = dir.join("data");
        let smtp_server = format!("127.0.0.1:{}", smtp.port);
        let flags =
            ["--no-demo", "--smtp-server", &smtp_server, "--smtp-from", "Tidepool <alerts@example.org>"];
        let _server = serve(data.to_str().unwrap(), &addr, database.as_deref(), &flags);
        let url =
            database.clone().unwrap_or_else(|| format!("sqlite:{}", data.join("tidepool.db").display()));

        let admin = login(&addr, "admin", "admin-pw");
        for group in ["vision", "speech"] {
            call(&addr, "POST", "/api/groups", &admin, Some(json!({ "name": group })));
        }
        for (user, role, group) in [("vision-lead", "manager", "vision"), ("speech-dev", "member", "speech")]
        {
            let body = json!({ "username": user, "password": "demo-password", "role": role, "group": group });
            call(&addr, "POST", "/api/users", &admin, Some(body));
        }
        for (who, address) in [
            ("admin", "root@example.org"),
            ("vision-lead", "vl@example.org"),
            ("speech-dev", "sd@example.org"),
        ] {
            exec(&url, &format!("UPDATE users SET email = '{address}' WHERE username = '{who}'")).await;
        }
        call(&addr, "PUT", "/api/alerts/settings", &admin, Some(json!({ "webhook": hook, "shape": "json" })));

        // P2: vision's critical grant, lapsing in three days.
        let lead = login(&addr, "vision-lead", "demo-password");
        let created = tidepool::unix_now();
        let project = json!({ "name": "deadline", "class": "critical", "expires_at": created + 3 * 86_400 });
        call(&addr, "POST", "/api/projects", &lead, Some(project));

        let mails = wait_for(30, "the alert's mail to vision's manager", || {
            let m = smtp.mails_to("vl@example.org");
            (!m.is_empty()).then_some(m)
        });
        assert!(
            mails[0].contains("Subject: Tidepool alert [warning] project deadline"),
            "{engine}: {}",
            mails[0]
        );
        let alert = inbox(&addr, &lead).alerts.into_iter().next().expect("in the manager's inbox");
        // Within one dispatch interval (1 s) of the grant, counted in whole seconds.
        assert!(
            alert.opened_at <= created + 2,
            "{engine}: opened at {} for a grant made at {created}",
            alert.opened_at
        );
        wait_for(10, "the webhook's post", || (!posts.lock().unwrap().is_empty()).then_some(()));

        // Several cycles later: still one mail each, one post, and no mail to speech.
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert_eq!(smtp.mails_to("vl@example.org").len(), 1, "{engine}");
        assert_eq!(smtp.mails_to("root@example.org").len(), 1, "{engine}");
        assert!(smtp.mails_to("sd@example.org").is_empty(), "{engine}");
        let posted = posts.lock().unwrap().clone();
        assert_eq!(posted.len(), 1, "{engine}");
        let notice: AlertNotice = serde_json::from_str(&posted[0].1).expect("an AlertNotice");
        assert_eq!(
            (notice.rule.as_str(), notice.group.as_deref(), notice.reminder),
            ("grant-lapsing", Some("vision"), false)
        );

        // The inbox: the manager and the admin, not another group's member.
        let other = login(&addr, "speech-dev", "demo-password");
        assert_eq!(inbox(&addr, &other).alerts.len(), 0, "{engine}");
        assert_eq!(inbox(&addr, &lead).unread, 1, "{engine}");
        assert_eq!(inbox(&addr, &admin).alerts.len(), 1, "{engine}");

        // `tidepool alerts` on the command line: the unread list, `ack ID`; another
        // group's member is refused (exit 1) as if the alert did not exist.
        let server = format!("http://{addr}");
        for (who, home) in [("vision-lead", "lead"), ("speech-dev", "other")] {
            let sh = Shell::in_dir(&dir.join(home));
            let out = sh.run(&["login", "--server", &server, "-u", who], "demo-password\n");
            assert!(out.status.success(), "{engine}: login {who}");
        }
        let (sh, other_sh) = (Shell::in_dir(&dir.join("lead")), Shell::in_dir(&dir.join("other")));
        let listed = sh.ok(&["alerts", "--unread"]);
        assert!(listed.starts_with("1 unread") && listed.contains("grant-lapsing"), "{engine}: {listed}");
        let id = alert.id.to_string();
        let (_, err) = other_sh.expect(1, &["alerts", "ack", &id]);
        assert!(err.contains(&format!("no alert {id}")), "{engine}: {err}");
        let acked: Alert =
            serde_json::from_str(&sh.ok(&["alerts", "--format", "json", "ack", &id])).expect("an Alert");
        assert_eq!(acked.acknowledged_by.as_deref(), Some("vision-lead"), "{engine}");
        assert!(sh.ok(&["alerts", "--unread"]).starts_with("0 unread"), "{engine}");
    }
}
