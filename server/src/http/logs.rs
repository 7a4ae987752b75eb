//! `GET /api/jobs/{id}/log`: what a job printed, for its own group and admins only (a
//! job's output can hold anything its command saw: finding 2 of issue 10), in byte
//! ranges so no read loads a whole log, and followable: a read past the end waits a while
//! for more output or the job's end.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::fleet::logs;
use crate::http::auth::Caller;
use crate::http::scope::belongs;
use crate::http::{ApiError, AppPath, AppQuery, AppState};

/// Bytes served when the reader names no limit, and the most it may name.
pub const DEFAULT_LIMIT: usize = 256 * 1024;
pub const MAX_LIMIT: usize = 1024 * 1024;
/// The longest a followed read waits.
pub const MAX_FOLLOW_S: u64 = 25;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogQuery {
    /// Where to start, in bytes of the log (a `next_offset` from an earlier read).
    #[serde(default)]
    offset: Option<i64>,
    /// At most this many bytes.
    #[serde(default)]
    limit: Option<usize>,
    /// With nothing past `offset` yet, wait up to this many seconds for more.
    #[serde(default)]
    follow_s: Option<u64>,
}

/// A range of a job's log.
#[derive(Serialize)]
pub struct LogRange {
    pub job: i64,
    /// Where `log` starts (the offset asked for, moved onto a character boundary).
    pub offset: i64,
    /// Where the next read starts.
    pub next_offset: i64,
    /// The log's size so far, in bytes.
    pub size: i64,
    /// The job's output reached the cap: the rest was dropped, after a marker.
    pub capped: bool,
    /// The job has finished.
    pub done: bool,
    pub log: String,
}

/// The job's group, log size, cap flag and whether it has finished; `None`: no such job.
async fn head(state: &AppState, id: i64) -> Result<Option<(i64, i64, bool, bool)>, ApiError> {
    let row = sqlx::query(
        "SELECT group_id, log_bytes, CAST(CASE WHEN log_capped THEN 1 ELSE 0 END AS BIGINT), \
         CAST(CASE WHEN state IN ('succeeded', 'failed', 'timed-out', 'cancelled') THEN 1 ELSE 0 END AS BIGINT) \
         FROM jobs WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&state.store.pool)
    .await?;
    Ok(match row {
        Some(r) => {
            Some((r.try_get(0)?, r.try_get(1)?, r.try_get::<i64, _>(2)? == 1, r.try_get::<i64, _>(3)? == 1))
        }
        None => None,
    })
}

pub async fn log(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppQuery(q): AppQuery<LogQuery>,
) -> Result<Json<LogRange>, ApiError> {
    let offset = q.offset.unwrap_or(0);
    if offset < 0 {
        return Err(ApiError::Unprocessable("offset is a byte position, 0 or more".into()));
    }
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(ApiError::Unprocessable(format!("limit is 1 to {MAX_LIMIT} bytes")));
    }
    let follow = Duration::from_secs(q.follow_s.unwrap_or(0).min(MAX_FOLLOW_S));
    let Some((group, mut size, mut capped, mut done)) = head(&state, id).await? else {
        return Err(ApiError::NotFound(format!("no job {id}")));
    };
    if !belongs(&user, group) {
        return Err(ApiError::Forbidden("a job's log is for its group and admins".into()));
    }
    // Follow: subscribed before looking, so output added meanwhile still wakes the wait.
    // The wait also polls, for output another server took.
    let deadline = tokio::time::Instant::now() + follow;
    let mut news = state.fleet.watch_logs();
    while size <= offset && !done && tokio::time::Instant::now() < deadline {
        let wake = deadline.min(tokio::time::Instant::now() + Duration::from_secs(1));
        let _ = tokio::time::timeout_at(wake, news.changed()).await;
        (_, size, capped, done) =
            head(&state, id).await?.ok_or_else(|| ApiError::NotFound(format!("no job {id}")))?;
    }
    let from = offset.min(size);
    let (start, next, text) = logs::read(&state.store.pool, id, from, limit).await?;
    let (start, next) = if text.is_empty() { (from, from) } else { (start, next) };
    Ok(Json(LogRange {
        job: id,
        offset: start,
        next_offset: next,
        size: size.max(next),
        capped,
        done,
        log: text,
    }))
}
