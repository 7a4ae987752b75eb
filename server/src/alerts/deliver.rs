//! Sending what evaluations queued: each due row of `alert_deliveries` mailed (the
//! `serve --smtp-server` relay, issue 12's lettre code) or posted to the alert webhook
//! in the configured shape. A failure is recorded and tried again after a backoff
//! (`tidepool_core::alerts::retry_after`) up to `MAX_ATTEMPTS`; a repeat whose alert was
//! acknowledged or resolved before it went out is dropped. The task runs beside the
//! dispatcher, woken after each of the leader's cycles, so no receiver can hold it up.

use std::sync::Arc;
use std::time::Duration;

use sqlx::Row;
use tidepool_api::alerts::{AlertNotice, ChatMessage, Severity, WebhookShape};
use tidepool_core::alerts::{self as rule, MAX_ATTEMPTS, retry_after};

use super::{AlertError, Evaluator, settings};
use crate::reports::mail::{Smtp, post_webhook, send_text};
use crate::store::Store;

/// How alerts leave the server.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    /// None: no mail (the inbox and the webhook only).
    pub smtp: Option<Smtp>,
    pub http: reqwest::Client,
}

/// What one pass sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    pub delivered: usize,
    pub failed: usize,
    /// Repeats dropped: their alert was acknowledged or resolved first.
    pub dropped: usize,
}

/// Deliveries one pass attempts at most; the rest wait for the next.
const BATCH: i64 = 200;

fn severity(s: &str) -> Severity {
    match s {
        "info" => Severity::Info,
        "critical" => Severity::Critical,
        _ => Severity::Warning,
    }
}

fn core_severity(s: Severity) -> rule::Severity {
    match s {
        Severity::Info => rule::Severity::Info,
        Severity::Warning => rule::Severity::Warning,
        Severity::Critical => rule::Severity::Critical,
    }
}

/// Attempts every delivery due at `now`.
pub async fn pass(store: &Store, outbox: &Outbox, now: i64) -> Result<Sent, AlertError> {
    let rows = sqlx::query(
        "SELECT d.id, d.round, d.channel, d.recipient, d.attempts, a.id, a.rule, a.severity, g.name, a.subject, \
         a.message, a.opened_at, a.acknowledged_at, a.resolved_at FROM alert_deliveries d \
         JOIN alerts a ON a.id = d.alert_id LEFT JOIN groups g ON g.id = a.group_id \
         WHERE d.delivered_at IS NULL AND d.attempts < $1 AND d.next_at <= $2 ORDER BY d.id LIMIT $3",
    )
    .bind(MAX_ATTEMPTS)
    .bind(now)
    .bind(BATCH)
    .fetch_all(&store.pool)
    .await?;
    let shape = settings::read(store).await?.shape;
    let mut sent = Sent::default();
    for r in rows {
        let (id, round, channel, recipient, attempts): (i64, i64, String, String, i64) =
            (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?);
        let settled =
            r.try_get::<Option<i64>, _>(12)?.is_some() || r.try_get::<Option<i64>, _>(13)?.is_some();
        if round > 1 && settled {
            sqlx::query("UPDATE alert_deliveries SET attempts = $1, error = $2 WHERE id = $3")
                .bind(MAX_ATTEMPTS)
                .bind("not repeated: acknowledged or resolved first")
                .bind(id)
                .execute(&store.pool)
                .await?;
            sent.dropped += 1;
            continue;
        }
        let notice = AlertNotice {
            id: r.try_get(5)?,
            rule: r.try_get(6)?,
            severity: severity(&r.try_get::<String, _>(7)?),
            group: r.try_get(8)?,
            subject: r.try_get(9)?,
            message: r.try_get(10)?,
            opened_at: r.try_get(11)?,
            reminder: round > 1,
        };
        let result = send(outbox, shape, &channel, &recipient, &notice).await;
        let attempts = attempts + 1;
        match &result {
            Ok(()) => {
                sent.delivered += 1;
                tracing::info!(alert = notice.id, channel, to = recipient, "alert delivered");
            }
            Err(e) => {
                sent.failed += 1;
                tracing::warn!(alert = notice.id, channel, to = recipient, attempts, error = %e, "alert not delivered; retried later");
            }
        }
        sqlx::query(
            "UPDATE alert_deliveries SET attempts = $1, delivered_at = $2, next_at = $3, error = $4 WHERE id = $5",
        )
        .bind(attempts)
        .bind(result.is_ok().then_some(now))
        .bind(now + retry_after(attempts))
        .bind(result.err())
        .bind(id)
        .execute(&store.pool)
        .await?;
    }
    Ok(sent)
}

/// One mail or post.
async fn send(
    outbox: &Outbox,
    shape: WebhookShape,
    channel: &str,
    to: &str,
    n: &AlertNotice,
) -> Result<(), String> {
    let text = rule::chat_text(core_severity(n.severity), &n.message, n.reminder);
    match channel {
        "email" => {
            let Some(smtp) = &outbox.smtp else { return Err("no SMTP server is configured".into()) };
            let again = if n.reminder { "Reminder: " } else { "" };
            let subject = format!("{again}Tidepool alert [{}] {}", n.severity.as_str(), n.subject);
            let body = format!(
                "{text}\n\nRule: {}\nGroup: {}\nOpened at: {} (Unix seconds)\n\n\
                 Acknowledge it in the web app's Inbox or with `tidepool alerts ack {}` to stop the reminders.\n",
                n.rule,
                n.group.as_deref().unwrap_or("(the organisation)"),
                n.opened_at,
                n.id
            );
            send_text(smtp, to, &subject, body).await
        }
        _ => match shape {
            WebhookShape::Json => post_webhook(&outbox.http, to, n).await,
            WebhookShape::Chat => post_webhook(&outbox.http, to, &ChatMessage { text }).await,
        },
    }
}

/// The alerts task: after each of the leader's cycles (`wake`), an evaluation and a
/// delivery pass; between cycles, a delivery pass every `retry_tick` while `leader` says
/// this server leads, for retries that have come due.
pub async fn run<F, Fut>(
    store: Store,
    evaluator: Evaluator,
    outbox: Outbox,
    wake: Arc<tokio::sync::Notify>,
    retry_tick: Duration,
    leader: F,
) where
    F: Fn(i64) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    loop {
        let woken = tokio::select! {
            _ = wake.notified() => true,
            _ = tokio::time::sleep(retry_tick) => false,
        };
        let now = crate::unix_now();
        if woken {
            match evaluator.evaluate(&store, now).await {
                Ok(e) if e.raised + e.resolved + e.repeated > 0 => tracing::info!(
                    raised = e.raised,
                    resolved = e.resolved,
                    repeated = e.repeated,
                    queued = e.queued,
                    "alerts evaluated"
                ),
                Ok(_) => {}
                Err(e) => tracing::error!(error = %e, "evaluating alerts"),
            }
        } else if !leader(now).await {
            continue;
        }
        if let Err(e) = pass(&store, &outbox, crate::unix_now()).await {
            tracing::error!(error = %e, "delivering alerts");
        }
    }
}
