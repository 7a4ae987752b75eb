//! Reading what a job printed: for its own group and admins only (a job's output can hold
//! anything its command saw: finding 2 of issue 10), in byte ranges so no read loads a
//! whole log, and followable: a read past the end waits a while for more output or the
//! job's end. The chunks themselves are `crate::fleet::logs`.

use std::time::Duration;

use serde::Deserialize;
use sqlx::Row;
use tidepool_api::logs::LogRange;

use crate::access::belongs;
use crate::fleet::{Fleet, logs};
use crate::input::Invalid;
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// Bytes served when the reader names no limit, and the most it may name.
pub const DEFAULT_LIMIT: usize = 256 * 1024;
pub const MAX_LIMIT: usize = 1024 * 1024;
/// The longest a followed read waits.
pub const MAX_FOLLOW_S: u64 = 25;

/// Which range to read, and how long to wait for one not written yet.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogAsk {
    /// Where to start, in bytes of the log (a `next_offset` from an earlier read).
    #[serde(default)]
    pub offset: Option<i64>,
    /// At most this many bytes.
    #[serde(default)]
    pub limit: Option<usize>,
    /// With nothing past `offset` yet, wait up to this many seconds for more.
    #[serde(default)]
    pub follow_s: Option<u64>,
}

/// Why a log is not read.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("no job {0}")]
    NoSuchJob(i64),
    #[error("a job's log is for its group and admins")]
    NotYours,
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(LogError);

/// What the records say of a job's log now.
struct Head {
    group: i64,
    size: i64,
    capped: bool,
    done: bool,
}

async fn head(store: &Store, id: i64) -> Result<Head, LogError> {
    let r = sqlx::query(
        "SELECT group_id, log_bytes, CAST(CASE WHEN log_capped THEN 1 ELSE 0 END AS BIGINT), \
         CAST(CASE WHEN state IN ('succeeded', 'failed', 'timed-out', 'cancelled') THEN 1 ELSE 0 END AS BIGINT) \
         FROM jobs WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(&store.pool)
    .await?
    .ok_or(LogError::NoSuchJob(id))?;
    Ok(Head {
        group: r.try_get(0)?,
        size: r.try_get(1)?,
        capped: r.try_get::<i64, _>(2)? == 1,
        done: r.try_get::<i64, _>(3)? == 1,
    })
}

/// The offset, limit and wait `ask` names, checked.
fn bounds(ask: &LogAsk) -> Result<(i64, usize, Duration), Invalid> {
    let offset = ask.offset.unwrap_or(0);
    if offset < 0 {
        return Err(Invalid("offset is a byte position, 0 or more".into()));
    }
    let limit = ask.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(Invalid(format!("limit is 1 to {MAX_LIMIT} bytes")));
    }
    Ok((offset, limit, Duration::from_secs(ask.follow_s.unwrap_or(0).min(MAX_FOLLOW_S))))
}

/// The range of job `id`'s log that `ask` names, as `user` may read it; a followed read
/// waits on `fleet`'s news of output (and polls, for output another server took).
pub async fn read(
    store: &Store,
    fleet: &Fleet,
    user: &User,
    id: i64,
    ask: &LogAsk,
) -> Result<LogRange, LogError> {
    let (offset, limit, follow) = bounds(ask)?;
    let mut h = head(store, id).await?;
    if !belongs(user, h.group) {
        return Err(LogError::NotYours);
    }
    // Subscribed before looking, so output added meanwhile still wakes the wait.
    let deadline = tokio::time::Instant::now() + follow;
    let mut news = fleet.watch_logs();
    while h.size <= offset && !h.done && tokio::time::Instant::now() < deadline {
        let wake = deadline.min(tokio::time::Instant::now() + Duration::from_secs(1));
        let _ = tokio::time::timeout_at(wake, news.changed()).await;
        h = head(store, id).await?;
    }
    let from = offset.min(h.size);
    let (start, next, text) = logs::read(&store.pool, id, from, limit).await?;
    let (start, next) = if text.is_empty() { (from, from) } else { (start, next) };
    Ok(LogRange {
        job: id,
        offset: start,
        next_offset: next,
        size: h.size.max(next),
        capped: h.capped,
        done: h.done,
        log: text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_starts_at_zero_or_later_and_holds_one_byte_to_the_maximum() {
        let ask = |offset, limit| LogAsk { offset, limit, follow_s: Some(3600) };
        assert!(bounds(&ask(Some(-1), None)).is_err());
        assert!(bounds(&ask(None, Some(0))).is_err());
        assert!(bounds(&ask(None, Some(MAX_LIMIT + 1))).is_err());
        let (offset, limit, wait) = bounds(&ask(None, None)).unwrap();
        assert_eq!((offset, limit, wait), (0, DEFAULT_LIMIT, Duration::from_secs(MAX_FOLLOW_S)));
    }
}
