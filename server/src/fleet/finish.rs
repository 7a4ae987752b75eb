//! Ending a job's segment: its allocation rows close (the GPUs return at once, R1), and
//! the job finishes, or goes back to the queue to resume from its checkpoint (D4). The
//! event says who held what for how long (R3), and for a stop the server asked for, how
//! long the GPUs took to come free, not counting the grace the job used.

use sqlx::{AnyConnection, Row};

use crate::fleet::protocol::{Finished, Outcome};
use crate::store::events::{EventDetail, record};

/// An allocation the records hold open, as the sync and the sweep read it.
#[derive(Clone, Debug)]
pub struct Open {
    pub id: i64,
    pub epoch: i64,
    pub job: i64,
    pub gpu_mask: u64,
    pub started_at: i64,
    pub stop_reason: Option<String>,
    pub stop_requested_ms: Option<i64>,
    pub acked_at: Option<i64>,
    pub idle_since: Option<i64>,
    pub idle_notice_at: Option<i64>,
    pub job_state: String,
}

/// The columns [`Open::read`] expects, from `allocations a JOIN jobs j`.
pub const OPEN_COLUMNS: &str = "a.id, a.epoch, a.job_id, a.gpu_mask, a.started_at, a.stop_reason, \
     a.stop_requested_ms, a.acked_at, a.idle_since, a.idle_notice_at, j.state";

impl Open {
    pub fn read(r: &sqlx::any::AnyRow) -> Result<Open, sqlx::Error> {
        Ok(Open {
            id: r.try_get(0)?,
            epoch: r.try_get(1)?,
            job: r.try_get(2)?,
            gpu_mask: r.try_get::<i64, _>(3)? as u64,
            started_at: r.try_get(4)?,
            stop_reason: r.try_get(5)?,
            stop_requested_ms: r.try_get(6)?,
            acked_at: r.try_get(7)?,
            idle_since: r.try_get(8)?,
            idle_notice_at: r.try_get(9)?,
            job_state: r.try_get(10)?,
        })
    }

    pub fn gpus(&self) -> i64 {
        i64::from(self.gpu_mask.count_ones())
    }
}

/// Every allocation the records hold open on node `node_id`.
pub async fn open_on(tx: &mut AnyConnection, node_id: i64) -> Result<Vec<Open>, sqlx::Error> {
    let sql = format!(
        "SELECT {OPEN_COLUMNS} FROM allocations a JOIN jobs j ON j.id = a.job_id \
         WHERE a.node_id = $1 AND a.ended_at IS NULL ORDER BY a.id"
    );
    sqlx::query(sqlx::AssertSqlSafe(sql)).bind(node_id).fetch_all(tx).await?.iter().map(Open::read).collect()
}

/// Why a segment ended.
pub enum Ending<'a> {
    /// The agent reported the process's end.
    Reported(&'a Finished),
    /// The agent no longer runs it and never said it ended (reconciliation).
    Missing,
    /// The node stopped sending heartbeats.
    NodeLost,
    /// It reached its time limit (seconds) on a node without an agent: the server ends it.
    TimeLimit(i64),
}

/// Ends `a`'s segment (and the job's rows on other nodes) and moves the job on.
pub async fn end_segment(
    tx: &mut AnyConnection,
    node: &str,
    a: &Open,
    ending: Ending<'_>,
    now: i64,
) -> Result<(), sqlx::Error> {
    let exit_code = match &ending {
        Ending::Reported(f) => f.exit_code,
        _ => None,
    };
    // This row gets the exit code; a gang's rows on other nodes end with it (their agents
    // are told to stop).
    sqlx::query(
        "UPDATE allocations SET ended_at = $1, exit_code = CASE WHEN id = $2 THEN $3 ELSE exit_code END \
         WHERE job_id = $4 AND ended_at IS NULL",
    )
    .bind(now)
    .bind(a.id)
    .bind(exit_code)
    .bind(a.job)
    .execute(&mut *tx)
    .await?;
    let held_s = (now - a.started_at).max(0);
    let requeue = a.stop_reason.as_deref().is_some_and(|r| r != "cancelled")
        || matches!(ending, Ending::Missing | Ending::NodeLost)
        || matches!(ending, Ending::Reported(f) if f.outcome == Outcome::Abandoned || f.outcome == Outcome::Stopped);
    let (kind, next) = if a.job_state == "cancelled" {
        ("stopped", None)
    } else if requeue {
        ("requeued", Some("pending"))
    } else {
        match ending {
            Ending::Reported(f) if f.outcome == Outcome::TimedOut => ("timed-out", Some("timed-out")),
            Ending::TimeLimit(_) => ("timed-out", Some("timed-out")),
            Ending::Reported(f) if f.outcome == Outcome::Exited && f.exit_code == Some(0) => {
                ("finished", Some("succeeded"))
            }
            _ => ("failed", Some("failed")),
        }
    };
    match next {
        Some("pending") => {
            sqlx::query(
                "UPDATE jobs SET state = 'pending', queued_at = $1, attained_gpu_s = attained_gpu_s + $2, \
                 reason = NULL, position = NULL WHERE id = $3 AND state = 'running'",
            )
            .bind(now)
            .bind(held_s * a.gpus())
            .bind(a.job)
            .execute(&mut *tx)
            .await?;
        }
        Some(state) => {
            sqlx::query(
                "UPDATE jobs SET state = $1, finished_at = $2, attained_gpu_s = attained_gpu_s + $3 \
                 WHERE id = $4 AND state = 'running'",
            )
            .bind(state)
            .bind(now)
            .bind(held_s * a.gpus())
            .bind(a.job)
            .execute(&mut *tx)
            .await?;
        }
        None => {
            sqlx::query("UPDATE jobs SET finished_at = COALESCE(finished_at, $1) WHERE id = $2")
                .bind(now)
                .bind(a.job)
                .execute(&mut *tx)
                .await?;
        }
    }
    let why = match &ending {
        Ending::Reported(f) => match (f.outcome, f.exit_code) {
            (Outcome::Exited, Some(code)) => format!("exited with status {code}"),
            (outcome, _) => format!("{outcome:?}").to_lowercase(),
        },
        Ending::Missing => "no longer running on its node (reconciled)".into(),
        Ending::NodeLost => format!("node {node} stopped sending heartbeats"),
        Ending::TimeLimit(limit) => {
            format!("reached its time limit of {limit} s (ended by the server: no agent)")
        }
    };
    let stopped_for = a.stop_reason.as_deref().map(|r| format!(", stopped: {r}")).unwrap_or_default();
    let message =
        format!("job {} {why}{stopped_for}; it held {} GPUs on {node} for {held_s} s", a.job, a.gpus());
    // Decision to free GPUs, less the grace the job itself used to checkpoint.
    let latency_ms = match (&ending, a.stop_requested_ms) {
        (Ending::Reported(f), Some(asked)) => {
            Some((crate::unix_now_ms() - asked - f.grace_used_ms.unwrap_or(0) as i64).max(0))
        }
        _ => None,
    };
    let detail = EventDetail {
        allocation: Some(a.id),
        node_name: Some(node.to_string()),
        gpus: Some(a.gpus()),
        held_s: Some(held_s),
        stop_reason: a.stop_reason.clone(),
        exit_code: exit_code.map(i64::from),
        reclaim_latency_ms: latency_ms,
        ..EventDetail::default()
    };
    let actor = if matches!(ending, Ending::TimeLimit(_)) {
        "dispatcher".to_string()
    } else {
        format!("agent {node}")
    };
    record(tx, now, kind, Some(a.job), &actor, &message, &detail).await
}
