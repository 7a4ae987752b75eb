//! The Monday delivery (A2, A5): once the week has ended in the organisation's zone and
//! the hourly roll-up has reached its end, the leader freezes the finished week's reports
//! (each group's and the organisation's) and sends each where [`super::recipients::plan`]
//! says. Every attempt is a row of `report_deliveries` (with the error when it failed); a
//! failure is logged and tried again on the next pass, never stopping the others. Weeks
//! missed while no server ran (up to [`CATCH_UP_WEEKS`]) are delivered late, oldest first.

use std::time::Duration;

use sqlx::Row;
use tidepool_api::reports::WeeklyReport;

use super::mail::{Smtp, post_webhook, send_mail};
use super::recipients::{Channel, FrozenReport, Past, Reader, plan};
use super::{ReportError, Scope, figures, frozen, weekly};
use crate::settings;
use crate::store::Store;
use crate::store::users::Role;

/// How finished weeks leave the server.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    /// None: no mail, only the webhook and the in-app copy.
    pub smtp: Option<Smtp>,
    pub http: reqwest::Client,
}

/// How many finished weeks back a pass still delivers: a server down over a Monday (or a
/// few) sends what it owes when it is back, but a new installation does not mail a year.
pub const CATCH_UP_WEEKS: usize = 4;

/// What one pass did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassSummary {
    /// The finished weeks it worked on, oldest first; none while the last one is not
    /// rolled up yet.
    pub weeks: Vec<String>,
    pub delivered: usize,
    pub failed: usize,
}

/// One pass at `now`: the weeks owed are the last finished one and, back to the newest
/// week anything was delivered for, those before it (at most [`CATCH_UP_WEEKS`]); each is
/// frozen once rolled up, and every delivery still owed for it attempted (each at most once).
pub async fn pass(store: &Store, outbox: &Outbox, now: i64) -> Result<PassSummary, ReportError> {
    let settings = settings::read(store).await?;
    let zone = settings::zone_of(&settings);
    let last = zone.previous_week(&zone.week_of(now))?;
    let (_, end) = zone.week_bounds(&last)?;
    if end > now || figures::rolled_until(store).await? < end {
        return Ok(PassSummary::default());
    }
    // ISO week names ("2026-W48") sort as the weeks do.
    let newest_sent: Option<String> = sqlx::query(
        "SELECT MAX(r.week) FROM report_deliveries d JOIN weekly_reports r ON r.id = d.report_id",
    )
    .fetch_one(&store.pool)
    .await?
    .try_get(0)?;
    let mut weeks = vec![last];
    while let Some(newest) = &newest_sent {
        let before = zone.previous_week(&weeks[weeks.len() - 1])?;
        if weeks.len() >= CATCH_UP_WEEKS || before < *newest {
            break;
        }
        weeks.push(before);
    }
    weeks.reverse();
    let mut summary = PassSummary::default();
    for week in weeks {
        let s = deliver(store, outbox, &settings, &week, now).await?;
        summary.delivered += s.0;
        summary.failed += s.1;
        summary.weeks.push(week);
    }
    Ok(summary)
}

/// Freezes `week` and attempts what is still owed for it: (delivered, failed).
async fn deliver(
    store: &Store,
    outbox: &Outbox,
    settings: &tidepool_api::settings::OrgSettings,
    week: &str,
    now: i64,
) -> Result<(usize, usize), ReportError> {
    freeze_all(store, week, now).await?;

    let rows = sqlx::query("SELECT id, group_id, body FROM weekly_reports WHERE week = $1 ORDER BY group_id")
        .bind(week)
        .fetch_all(&store.pool)
        .await?;
    let mut reports = Vec::new();
    let mut bodies = std::collections::HashMap::new();
    for r in &rows {
        let (report_id, group_id, body): (i64, i64, String) = (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
        match serde_json::from_str::<WeeklyReport>(&body) {
            Ok(report) => {
                reports.push(FrozenReport { report_id, group_id });
                bodies.insert(report_id, report);
            }
            Err(e) => {
                tracing::error!(report_id, error = %e, "a frozen weekly report does not read back; not sent")
            }
        }
    }
    let sends = plan(
        &reports,
        &readers(store).await?,
        settings.report_webhook.as_deref(),
        outbox.smtp.is_some(),
        &past(store, week).await?,
    );

    let (mut delivered, mut failed) = (0, 0);
    for send in sends {
        let Some(report) = bodies.get(&send.report_id) else { continue };
        let result = match (send.channel, &outbox.smtp) {
            (Channel::Email, Some(smtp)) => send_mail(smtp, &send.recipient, report).await,
            (Channel::Email, None) => Err("no SMTP server is configured".into()),
            (Channel::Webhook, _) => post_webhook(&outbox.http, &send.recipient, report).await,
        };
        match &result {
            Ok(()) => {
                delivered += 1;
                tracing::info!(
                    week,
                    channel = send.channel.as_str(),
                    to = send.recipient,
                    "weekly report delivered"
                );
            }
            Err(e) => {
                failed += 1;
                tracing::warn!(week, channel = send.channel.as_str(), to = send.recipient, error = %e, "weekly report not delivered; retried on the next pass");
            }
        }
        sqlx::query(
            "INSERT INTO report_deliveries (report_id, channel, recipient, sent_at, error) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(send.report_id)
        .bind(send.channel.as_str())
        .bind(&send.recipient)
        .bind(now)
        .bind(result.err())
        .execute(&store.pool)
        .await?;
    }
    Ok((delivered, failed))
}

/// Freezes the organisation's report and every group's for `week` (those frozen already
/// are read back untouched). A group whose report fails is logged and skipped.
async fn freeze_all(store: &Store, week: &str, now: i64) -> Result<(), ReportError> {
    let groups = sqlx::query("SELECT id, name FROM groups ORDER BY id").fetch_all(&store.pool).await?;
    let mut scopes = vec![Scope(None)];
    for g in &groups {
        scopes.push(Scope(Some((g.try_get(0)?, g.try_get(1)?))));
    }
    for scope in scopes {
        if frozen::read(store, scope.id(), week).await?.is_some() {
            continue;
        }
        if let Err(e) = weekly(store, &scope, Some(week), now).await {
            tracing::error!(week, group = ?scope.name(), error = %e, "cannot freeze a weekly report");
        }
    }
    Ok(())
}

/// Users with an address.
async fn readers(store: &Store) -> Result<Vec<Reader>, ReportError> {
    let rows = sqlx::query("SELECT email, role, group_id FROM users WHERE email IS NOT NULL ORDER BY id")
        .fetch_all(&store.pool)
        .await?;
    let mut readers = Vec::new();
    for r in rows {
        let role: String = r.try_get(1)?;
        let Some(role) = Role::parse(&role) else { continue };
        readers.push(Reader { email: r.try_get(0)?, role, group_id: r.try_get(2)? });
    }
    Ok(readers)
}

/// Earlier attempts for `week`'s reports.
async fn past(store: &Store, week: &str) -> Result<Vec<Past>, ReportError> {
    let rows = sqlx::query(
        "SELECT d.report_id, d.channel, d.recipient, COUNT(*), \
         CAST(SUM(CASE WHEN d.error IS NULL THEN 1 ELSE 0 END) AS BIGINT) \
         FROM report_deliveries d JOIN weekly_reports r ON r.id = d.report_id WHERE r.week = $1 \
         GROUP BY d.report_id, d.channel, d.recipient",
    )
    .bind(week)
    .fetch_all(&store.pool)
    .await?;
    let mut past = Vec::new();
    for r in rows {
        let channel: String = r.try_get(1)?;
        let Some(channel) = Channel::parse(&channel) else { continue };
        let delivered: i64 = r.try_get(4)?;
        past.push(Past {
            report_id: r.try_get(0)?,
            channel,
            recipient: r.try_get(2)?,
            attempts: r.try_get(3)?,
            delivered: delivered > 0,
        });
    }
    Ok(past)
}

/// The background task: a pass every `every` while `leader` says this server leads.
pub async fn run<F, Fut>(store: Store, outbox: Outbox, every: Duration, leader: F)
where
    F: Fn(i64) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    loop {
        tokio::time::sleep(every).await;
        let now = crate::unix_now();
        if !leader(now).await {
            continue;
        }
        match pass(&store, &outbox, now).await {
            Ok(s) if s.delivered + s.failed > 0 => {
                tracing::info!(weeks = ?s.weeks, delivered = s.delivered, failed = s.failed, "report delivery pass")
            }
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "report delivery pass"),
        }
    }
}
