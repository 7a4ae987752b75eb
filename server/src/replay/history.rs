//! The recorded history a replay runs over: the period asked for, the jobs submitted in
//! it with what really happened to each.

use std::collections::BTreeMap;

use sqlx::Row;

use crate::replay::ReplayError;
use crate::sim::time::parse_time;
use crate::store::Store;

/// One recorded job and what happened to it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub id: i64,
    pub group: String,
    pub class: String,
    pub gpus: u32,
    /// The GPU model it asked for.
    pub model: String,
    pub checkpointable: bool,
    pub time_limit_s: Option<u64>,
    pub state: String,
    pub submitted_at: i64,
    /// Seconds it held GPUs, over all its segments (up to now for a running one).
    pub run_s: u64,
    /// Segments it ran; a job that never ran has none.
    pub segments: u32,
    /// When its last segment ended, for a job that finished (succeeded, failed, timed out).
    pub finished_at: Option<i64>,
    pub preemptions: u32,
}

/// `30d`, `12h`, `90m` before `now`, or a date, a date-time or Unix seconds.
pub fn parse_instant(s: &str, now: i64, what: &str) -> Result<i64, ReplayError> {
    let t = s.trim();
    let relative = |unit: i64| {
        t[..t.len() - 1].parse::<u32>().ok().filter(|n| *n > 0).map(|n| now - i64::from(n) * unit)
    };
    let parsed = match t.chars().last() {
        Some('d') => relative(86_400),
        Some('h') => relative(3_600),
        Some('m') => relative(60),
        _ => parse_time(t),
    };
    parsed.ok_or_else(|| {
        ReplayError::Period(format!(
            "{what} `{s}` is neither a span before now (30d, 12h, 90m) nor a date, a date-time or Unix seconds"
        ))
    })
}

/// The period `[since, until)`, checked: it must end after it starts and start in the past.
pub fn period(since: &str, until: Option<&str>, now: i64) -> Result<(i64, i64), ReplayError> {
    let from = parse_instant(since, now, "since")?;
    let to = until.map(|u| parse_instant(u, now, "until")).transpose()?.unwrap_or(now);
    if from >= now {
        return Err(ReplayError::Period(format!("since `{since}` is not in the past")));
    }
    if to <= from {
        return Err(ReplayError::Period(format!("the period ends ({to}) before it starts ({from})")));
    }
    Ok((from, to.min(now)))
}

/// The jobs submitted in `[since, until)`, oldest first, with what happened to each.
pub async fn jobs(store: &Store, since: i64, until: i64, now: i64) -> Result<Vec<Recorded>, ReplayError> {
    let mut jobs: Vec<Recorded> = Vec::new();
    for r in sqlx::query(
        "SELECT j.id, g.name, j.class, j.gpus, CAST(CASE WHEN j.checkpointable THEN 1 ELSE 0 END AS BIGINT), \
         j.time_limit_s, j.state, j.submitted_at, j.model FROM jobs j JOIN groups g ON g.id = j.group_id \
         WHERE j.submitted_at >= $1 AND j.submitted_at < $2 ORDER BY j.submitted_at, j.id",
    )
    .bind(since)
    .bind(until)
    .fetch_all(&store.pool)
    .await?
    {
        jobs.push(Recorded {
            id: r.try_get(0)?,
            group: r.try_get(1)?,
            class: r.try_get(2)?,
            gpus: r.try_get::<i64, _>(3)?.clamp(1, i64::from(u32::MAX)) as u32,
            model: r.try_get(8)?,
            checkpointable: r.try_get::<i64, _>(4)? != 0,
            time_limit_s: r.try_get::<Option<i64>, _>(5)?.map(|s| s.max(1) as u64),
            state: r.try_get(6)?,
            submitted_at: r.try_get(7)?,
            run_s: 0,
            segments: 0,
            finished_at: None,
            preemptions: 0,
        });
    }
    let index: BTreeMap<i64, usize> = jobs.iter().enumerate().map(|(i, j)| (j.id, i)).collect();
    // A multi-node segment has one allocation row per node, all started together.
    for r in sqlx::query(
        "SELECT a.job_id, a.started_at, MAX(COALESCE(a.ended_at, $3)) FROM allocations a \
         JOIN jobs j ON j.id = a.job_id WHERE j.submitted_at >= $1 AND j.submitted_at < $2 \
         GROUP BY a.job_id, a.started_at",
    )
    .bind(since)
    .bind(until)
    .bind(now)
    .fetch_all(&store.pool)
    .await?
    {
        let Some(&i) = index.get(&r.try_get::<i64, _>(0)?) else { continue };
        let (start, end): (i64, i64) = (r.try_get(1)?, r.try_get(2)?);
        let job = &mut jobs[i];
        job.run_s += (end - start).max(0) as u64;
        job.segments += 1;
        if matches!(job.state.as_str(), "succeeded" | "failed" | "timed-out") {
            job.finished_at = Some(job.finished_at.map_or(end, |f| f.max(end)));
        }
    }
    for r in sqlx::query(
        "SELECT e.job_id, COUNT(*) FROM events e JOIN jobs j ON j.id = e.job_id \
         WHERE e.kind = 'preempted' AND j.submitted_at >= $1 AND j.submitted_at < $2 GROUP BY e.job_id",
    )
    .bind(since)
    .bind(until)
    .fetch_all(&store.pool)
    .await?
    {
        if let Some(&i) = index.get(&r.try_get::<i64, _>(0)?) {
            jobs[i].preemptions = r.try_get::<i64, _>(1)?.max(0) as u32;
        }
    }
    Ok(jobs)
}
