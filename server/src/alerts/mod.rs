//! Alerts (O2): anomalies told at once, not at month end. After each dispatch cycle the
//! leader evaluates the rules ([`rules`], judged by `tidepool_core::alerts`), raises each
//! new condition once under its de-duplication key, resolves those that ended, and queues
//! the first telling (and, until a recipient acknowledges it, a repeat every
//! `repeat_s`) for each recipient: the in-app inbox ([`inbox`]), mail to those with an
//! address and the alert webhook ([`deliver`], retried with backoff, on its own task so a
//! slow or dead receiver never holds up dispatch). Raising, resolving and acknowledging
//! are events of the log.

pub mod deliver;
pub mod inbox;
mod queue;
mod rules;
pub mod settings;

use std::collections::HashMap;

use sqlx::Row;
use tidepool_core::alerts::{Audience, Open, Severity, reconcile, repeat_due};

use crate::access::AccessError;
use crate::input::Invalid;
use crate::store::events::{EventDetail, record};
use crate::store::{Store, StoreError};

/// Why an alert action was refused.
#[derive(Debug, thiserror::Error)]
pub enum AlertError {
    /// No alert of that id among the caller's.
    #[error("no alert {0} among yours")]
    NotFound(i64),
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(AlertError);

/// How the leader's evaluation behaves (`serve` flags).
#[derive(Clone, Debug)]
pub struct AlertConfig {
    /// Seconds between repeats of an open alert nobody acknowledged (0: never repeat).
    pub repeat_s: i64,
    /// Seconds an allocation's GPUs sit idle before they count against their pool.
    pub pool_idle_after_s: i64,
    /// Whether mail goes out (an SMTP server is configured): mail is queued only then.
    pub mail: bool,
}

impl Default for AlertConfig {
    fn default() -> AlertConfig {
        AlertConfig { repeat_s: 4 * 3600, pool_idle_after_s: 1800, mail: false }
    }
}

/// What one evaluation did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evaluated {
    pub raised: usize,
    pub resolved: usize,
    pub repeated: usize,
    /// Mails and webhook posts queued.
    pub queued: usize,
}

/// Group → (name, mean wait in seconds, jobs started) over four weeks (the wait rule's baseline).
pub type Baseline = HashMap<i64, (String, f64, i64)>;

/// An open alert as stored: what its repeats need.
struct Stored {
    severity: Severity,
    acked: bool,
    sent_at: i64,
    rounds: i64,
    group: Option<i64>,
    audience: Audience,
}

/// The leader's evaluator: its settings, and the wait baseline read once an hour.
pub struct Evaluator {
    pub config: AlertConfig,
    baseline: tokio::sync::Mutex<Option<(i64, Baseline)>>,
}

impl Evaluator {
    pub fn new(config: AlertConfig) -> Evaluator {
        Evaluator { config, baseline: Default::default() }
    }

    /// Each group's (name, mean wait, jobs) over the four weeks before `hour`.
    async fn baseline(
        &self,
        store: &Store,
        hour: i64,
    ) -> Result<HashMap<i64, (String, f64, i64)>, AlertError> {
        let mut cached = self.baseline.lock().await;
        if let Some((at, b)) = cached.as_ref()
            && *at == hour
        {
            return Ok(b.clone());
        }
        let b = rules::read_baseline(store, hour).await?;
        *cached = Some((hour, b.clone()));
        Ok(b)
    }

    /// One evaluation at `now`: raise, see, resolve and repeat, queueing what is to be sent.
    pub async fn evaluate(&self, store: &Store, now: i64) -> Result<Evaluated, AlertError> {
        let found = rules::find(store, self, now).await?;
        let rows = sqlx::query(
            "SELECT id, dedup_key, last_seen_at, linger_s, severity, acknowledged_at, sent_at, rounds, group_id, \
             audience FROM alerts WHERE resolved_at IS NULL ORDER BY id",
        )
        .fetch_all(&store.pool)
        .await?;
        let mut open = Vec::new();
        let mut state = std::collections::BTreeMap::new();
        for r in &rows {
            let id: i64 = r.try_get(0)?;
            open.push(Open { id, key: r.try_get(1)?, last_seen_at: r.try_get(2)?, linger_s: r.try_get(3)? });
            let severity = Severity::parse(&r.try_get::<String, _>(4)?).unwrap_or(Severity::Warning);
            let acked = r.try_get::<Option<i64>, _>(5)?.is_some();
            let audience = Audience::parse(&r.try_get::<String, _>(9)?).unwrap_or(Audience::Admins);
            let stored = Stored {
                severity,
                acked,
                sent_at: r.try_get(6)?,
                rounds: r.try_get(7)?,
                group: r.try_get(8)?,
                audience,
            };
            state.insert(id, stored);
        }
        let changes = reconcile(&open, found, now);
        let recipients = queue::Recipients::read(store, &self.config).await?;
        let mut done = Evaluated::default();
        let mut tx = store.begin().await?;
        for c in &changes.raise {
            let id: i64 = sqlx::query(
                "INSERT INTO alerts (dedup_key, rule, severity, group_id, audience, subject, message, linger_s, \
                 opened_at, last_seen_at, sent_at, rounds) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $9, 1) RETURNING id",
            )
            .bind(&c.key)
            .bind(c.rule)
            .bind(c.severity.as_str())
            .bind(c.group)
            .bind(c.audience.as_str())
            .bind(&c.subject)
            .bind(&c.message)
            .bind(c.linger_s)
            .bind(now)
            .bind(c.at.unwrap_or(now))
            .fetch_one(&mut *tx)
            .await?
            .try_get(0)?;
            let detail = EventDetail { alert: Some(id), group: c.group, ..EventDetail::default() };
            let message = format!("alert {id} ({}, {}): {}", c.rule, c.severity.as_str(), c.message);
            record(&mut tx, now, "alert-raised", None, "alerts", &message, &detail).await?;
            done.raised += 1;
            done.queued += recipients.queue(&mut tx, id, 1, c.group, c.audience, now).await?;
        }
        for (id, seen, c) in &changes.seen {
            sqlx::query("UPDATE alerts SET last_seen_at = $1, message = $2, severity = $3 WHERE id = $4")
                .bind(seen)
                .bind(&c.message)
                .bind(c.severity.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?;
            if let Some(stored) = state.get_mut(id) {
                stored.severity = c.severity;
            }
        }
        // Every open alert nobody acknowledged is told again each `repeat_s`, whether
        // found this time (a state) or lingering (an event's).
        for (id, a) in &state {
            if changes.resolve.contains(id)
                || !repeat_due(a.severity, a.acked, a.sent_at, now, self.config.repeat_s)
            {
                continue;
            }
            sqlx::query("UPDATE alerts SET sent_at = $1, rounds = $2 WHERE id = $3")
                .bind(now)
                .bind(a.rounds + 1)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            done.repeated += 1;
            done.queued += recipients.queue(&mut tx, *id, a.rounds + 1, a.group, a.audience, now).await?;
        }
        for id in &changes.resolve {
            sqlx::query("UPDATE alerts SET resolved_at = $1 WHERE id = $2")
                .bind(now)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            let detail = EventDetail { alert: Some(*id), ..EventDetail::default() };
            record(
                &mut tx,
                now,
                "alert-resolved",
                None,
                "alerts",
                &format!("alert {id} resolved: its condition ended"),
                &detail,
            )
            .await?;
            done.resolved += 1;
        }
        tx.commit().await?;
        Ok(done)
    }
}
