//! The week's loans, interruptions and outcomes, from their records: a loan counts for
//! the part of its active span inside the week; preemptions and idle reclaims are the
//! dispatcher's and the agents' events; outcomes are the jobs that finished in the week.

use sqlx::Row;
use tidepool_api::reports::{Interruptions, LoanFlows, LoanUse, Outcomes};
use tidepool_core::report::{hours, overlap};

use crate::store::Store;

/// GPU-hours lent and borrowed by group `group` (0: every loan, lent and borrowed alike).
pub async fn loans(store: &Store, group: i64, start: i64, end: i64) -> Result<LoanFlows, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT l.id, lg.name, bg.name, l.model, l.gpus, l.decided_at, l.ends_at, l.ended_at, l.lender_id, l.borrower_id \
         FROM loans l JOIN groups lg ON lg.id = l.lender_id LEFT JOIN groups bg ON bg.id = l.borrower_id \
         WHERE l.state IN ('active', 'returned', 'reclaimed') AND l.decided_at IS NOT NULL AND l.decided_at < $1 \
         AND ($2 = 0 OR l.lender_id = $2 OR l.borrower_id = $2) ORDER BY l.id",
    )
    .bind(end)
    .bind(group)
    .fetch_all(&store.pool)
    .await?;
    let mut flows = LoanFlows { lent_gpu_hours: 0.0, borrowed_gpu_hours: 0.0, loans: Vec::new() };
    for r in &rows {
        let gpus: i64 = r.try_get(4)?;
        let (from, ends_at, ended_at): (i64, i64, Option<i64>) =
            (r.try_get(5)?, r.try_get(6)?, r.try_get(7)?);
        let to = ended_at.map_or(ends_at, |e| e.min(ends_at));
        let s = overlap(from, to, start, end);
        if s == 0 {
            continue;
        }
        let gpu_hours = hours(gpus * s);
        let (lender, borrower): (i64, Option<i64>) = (r.try_get(8)?, r.try_get(9)?);
        if group == 0 || lender == group {
            flows.lent_gpu_hours += gpu_hours;
        }
        if borrower.is_some() && (group == 0 || borrower == Some(group)) {
            flows.borrowed_gpu_hours += gpu_hours;
        }
        flows.loans.push(LoanUse {
            id: r.try_get(0)?,
            lender: r.try_get(1)?,
            borrower: r.try_get(2)?,
            model: r.try_get(3)?,
            gpus,
            gpu_hours,
        });
    }
    Ok(flows)
}

/// Preemptions and idle reclaims of the week; an idle reclaim frees its job's GPUs from
/// the reclaim to the week's end or the end of the job's time limit, whichever is first.
pub async fn interruptions(
    store: &Store,
    group: i64,
    start: i64,
    end: i64,
) -> Result<Interruptions, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT e.kind, e.at, j.gpus, j.time_limit_s, \
         (SELECT MAX(a.started_at) FROM allocations a WHERE a.job_id = j.id AND a.started_at <= e.at) \
         FROM events e JOIN jobs j ON j.id = e.job_id \
         WHERE e.kind IN ('preempted', 'idle-reclaim') AND e.at >= $1 AND e.at < $2 AND ($3 = 0 OR j.group_id = $3)",
    )
    .bind(start)
    .bind(end)
    .bind(group)
    .fetch_all(&store.pool)
    .await?;
    let mut out = Interruptions { preemptions: 0, idle_reclaims: 0, reclaimed_gpu_hours: 0.0 };
    for r in &rows {
        let kind: String = r.try_get(0)?;
        if kind == "preempted" {
            out.preemptions += 1;
            continue;
        }
        out.idle_reclaims += 1;
        let (at, gpus, limit, began): (i64, i64, Option<i64>, Option<i64>) =
            (r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?);
        let until = match (limit, began) {
            (Some(l), Some(b)) => (b + l).min(end),
            _ => end,
        };
        out.reclaimed_gpu_hours += hours(gpus * (until - at).max(0));
    }
    Ok(out)
}

/// How the jobs that finished in the week ended.
pub async fn outcomes(store: &Store, group: i64, start: i64, end: i64) -> Result<Outcomes, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT state, COUNT(*) FROM jobs WHERE finished_at >= $1 AND finished_at < $2 AND ($3 = 0 OR group_id = $3) \
         GROUP BY state",
    )
    .bind(start)
    .bind(end)
    .bind(group)
    .fetch_all(&store.pool)
    .await?;
    let mut out = Outcomes { succeeded: 0, failed: 0, timed_out: 0, cancelled: 0 };
    for r in &rows {
        let n: i64 = r.try_get(1)?;
        match r.try_get::<String, _>(0)?.as_str() {
            "succeeded" => out.succeeded += n,
            "failed" => out.failed += n,
            "timed-out" => out.timed_out += n,
            "cancelled" => out.cancelled += n,
            _ => {}
        }
    }
    Ok(out)
}
