//! Reasons over time (D2): the history of why each job waited, kept compactly as spans
//! of one kind of reason. The dispatcher turns a job's span when its reason changes kind;
//! a start or a cancellation closes it. "Why did my job wait three hours" reads here.

use sqlx::Row;
use tidepool_api::WaitSpan;
use tidepool_core::reason::wait_kind_label;

use crate::store::Store;

/// Closes `job`'s open span, if any, and opens one of `kind` at `now`.
pub async fn turn(
    conn: &mut sqlx::AnyConnection,
    job: i64,
    kind: &str,
    reason: &str,
    now: i64,
) -> Result<(), sqlx::Error> {
    close(conn, job, now).await?;
    sqlx::query("INSERT INTO job_waits (job_id, kind, reason, since, until) VALUES ($1, $2, $3, $4, NULL)")
        .bind(job)
        .bind(kind)
        .bind(reason)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Ends `job`'s open span at `now` (it started, was cancelled, or waits for another reason).
pub async fn close(conn: &mut sqlx::AnyConnection, job: i64, now: i64) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE job_waits SET until = $1 WHERE job_id = $2 AND until IS NULL")
        .bind(now)
        .bind(job)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// `job`'s waits, oldest first.
pub async fn history(store: &Store, job: i64) -> Result<Vec<WaitSpan>, sqlx::Error> {
    let rows =
        sqlx::query("SELECT kind, reason, since, until FROM job_waits WHERE job_id = $1 ORDER BY since, id")
            .bind(job)
            .fetch_all(&store.pool)
            .await?;
    rows.iter()
        .map(|r| {
            let kind: String = r.try_get(0)?;
            Ok(WaitSpan {
                label: wait_kind_label(&kind).to_string(),
                kind,
                reason: r.try_get(1)?,
                since: r.try_get(2)?,
                until: r.try_get(3)?,
            })
        })
        .collect()
}

/// Seconds waited per kind within `[start, end)` by the jobs of `group` (0: all), and how
/// many jobs waited for each, largest first: the weekly report's "why jobs waited" (A5).
pub async fn by_kind(
    store: &Store,
    group: i64,
    start: i64,
    end: i64,
) -> Result<Vec<(String, i64, i64)>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT w.kind, CAST(SUM((CASE WHEN COALESCE(w.until, $2) < $2 THEN COALESCE(w.until, $2) ELSE $2 END) \
         - (CASE WHEN w.since > $1 THEN w.since ELSE $1 END)) AS BIGINT), COUNT(DISTINCT w.job_id) \
         FROM job_waits w JOIN jobs j ON j.id = w.job_id \
         WHERE w.since < $2 AND (w.until IS NULL OR w.until > $1) AND ($3 = 0 OR j.group_id = $3) \
         GROUP BY w.kind",
    )
    .bind(start)
    .bind(end)
    .bind(group)
    .fetch_all(&store.pool)
    .await?;
    let mut kinds: Vec<(String, i64, i64)> = rows
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get::<i64, _>(1)?.max(0), r.try_get(2)?)))
        .collect::<Result<_, sqlx::Error>>()?;
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(kinds)
}
