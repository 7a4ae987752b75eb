//! A job's log as records: the chunks its agents send, each checked on its own (NUL
//! removed, cut to a size on a UTF-8 boundary), recorded once per agent offset, kept up
//! to a per-job cap (then one marker, the rest dropped), and read back in byte ranges
//! without loading the whole log. Finding 2 and 3 of issue 10: a job's output is untrusted
//! and must neither take its node out of service nor the server's memory with it.

use sqlx::Row;

/// The per-job cap when the server is not told otherwise (`serve --log-cap-bytes`).
pub const DEFAULT_CAP_BYTES: u64 = 16 * 1024 * 1024;
/// The most bytes of one chunk kept. An agent reads at most 32 KiB at a time, which its
/// lossy UTF-8 decoding can make up to 96 KiB: that always fits.
pub const MAX_CHUNK_BYTES: usize = 128 * 1024;

/// The marker that ends a capped log.
pub fn marker(cap: u64) -> String {
    format!("\n[tidepool: log capped at {cap} bytes; later output dropped]\n")
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub fn floor_boundary(s: &[u8], max: usize) -> usize {
    let mut end = max.min(s.len());
    // A UTF-8 continuation byte is 0b10xx_xxxx: a boundary is anything else (or the end).
    while end > 0 && end < s.len() && (s[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    end
}

/// The first character boundary at or after `at`.
pub fn ceil_boundary(s: &[u8], at: usize) -> usize {
    let mut at = at.min(s.len());
    while at < s.len() && (s[at] & 0xC0) == 0x80 {
        at += 1;
    }
    at
}

/// A chunk as it will be stored: NUL removed (PostgreSQL's TEXT refuses it), at most
/// [`MAX_CHUNK_BYTES`]; and how many bytes were cut off the end, if any.
pub fn clean(text: &str) -> (String, usize) {
    let mut t = if text.contains('\0') { text.replace('\0', "") } else { text.to_string() };
    let end = floor_boundary(t.as_bytes(), MAX_CHUNK_BYTES);
    let cut = t.len() - end;
    t.truncate(end);
    (t, cut)
}

/// What became of one chunk.
#[derive(Debug, PartialEq, Eq)]
pub enum Appended {
    /// Recorded, this many bytes (with the marker, if it reached the cap).
    Kept(usize),
    /// Recorded before (a retried report): nothing changed.
    Duplicate,
    /// The job's log is capped: dropped.
    Dropped,
}

/// Appends a cleaned chunk of `allocation`'s output that starts at `agent_offset` in it.
/// The job's row is locked first, so two syncs adding to one log get disjoint offsets.
pub async fn append(
    tx: &mut sqlx::AnyConnection,
    allocation: i64,
    agent_offset: i64,
    text: &str,
    cap: u64,
    now: i64,
) -> Result<Appended, sqlx::Error> {
    if text.is_empty() {
        return Ok(Appended::Kept(0));
    }
    let row = sqlx::query(
        "UPDATE jobs SET log_bytes = log_bytes WHERE id = (SELECT job_id FROM allocations WHERE id = $1) \
         RETURNING id, log_bytes, CAST(CASE WHEN log_capped THEN 1 ELSE 0 END AS BIGINT)",
    )
    .bind(allocation)
    .fetch_one(&mut *tx)
    .await?;
    let (job, size, capped): (i64, i64, bool) =
        (row.try_get(0)?, row.try_get(1)?, row.try_get::<i64, _>(2)? == 1);
    if capped {
        return Ok(Appended::Dropped);
    }
    let room = (cap as i64).saturating_sub(size).max(0) as usize;
    let kept = &text[..floor_boundary(text.as_bytes(), room)];
    let insert = |chunk: &str, agent_offset: Option<i64>, log_offset: i64| {
        sqlx::query(
            "INSERT INTO job_logs (job_id, allocation_id, at, chunk, agent_offset, log_offset) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (allocation_id, agent_offset) DO NOTHING",
        )
        .bind(job)
        .bind(allocation)
        .bind(now)
        .bind(chunk.to_string())
        .bind(agent_offset)
        .bind(log_offset)
    };
    let mut grown = 0;
    if !kept.is_empty() {
        if insert(kept, Some(agent_offset), size).execute(&mut *tx).await?.rows_affected() == 0 {
            return Ok(Appended::Duplicate);
        }
        grown += kept.len();
    }
    if kept.len() < text.len() {
        // The marker has no agent offset: it is the server's, and written once.
        let m = marker(cap);
        insert(&m, None, size + grown as i64).execute(&mut *tx).await?;
        grown += m.len();
        sqlx::query("UPDATE jobs SET log_bytes = log_bytes + $1, log_capped = TRUE WHERE id = $2")
    } else {
        sqlx::query("UPDATE jobs SET log_bytes = log_bytes + $1 WHERE id = $2")
    }
    .bind(grown as i64)
    .bind(job)
    .execute(&mut *tx)
    .await?;
    Ok(Appended::Kept(grown))
}

/// The bytes `[offset, offset + limit)` of a job's log, moved onto character boundaries
/// (the start forward, the end back, but never to an empty range when there is more),
/// and where they start and end. Only the chunks that overlap the range are read.
pub async fn read(
    pool: &sqlx::AnyPool,
    job: i64,
    offset: i64,
    limit: usize,
) -> Result<(i64, i64, String), sqlx::Error> {
    let rows = sqlx::query(
        "SELECT log_offset, chunk FROM job_logs WHERE job_id = $1 AND log_offset >= \
         COALESCE((SELECT MAX(log_offset) FROM job_logs WHERE job_id = $1 AND log_offset <= $2), 0) \
         AND log_offset < $3 ORDER BY log_offset",
    )
    .bind(job)
    .bind(offset)
    .bind(offset.saturating_add(limit as i64))
    .fetch_all(pool)
    .await?;
    let Some(first) = rows.first() else { return Ok((offset, offset, String::new())) };
    let base: i64 = first.try_get(0)?;
    let mut buf = Vec::new();
    for r in &rows {
        buf.extend_from_slice(r.try_get::<String, _>(1)?.as_bytes());
    }
    let start = ceil_boundary(&buf, (offset - base).max(0) as usize);
    let mut end = floor_boundary(&buf, start.saturating_add(limit));
    if end <= start {
        end = ceil_boundary(&buf, start + 1);
    }
    let text = String::from_utf8_lossy(&buf[start..end]).into_owned();
    Ok((base + start as i64, base + end as i64, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_never_split_a_character() {
        let s = "aé€😀".as_bytes(); // 1 + 2 + 3 + 4 bytes
        assert_eq!(
            (0..=s.len()).map(|m| floor_boundary(s, m)).collect::<Vec<_>>(),
            [0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10]
        );
        assert_eq!(
            (0..=s.len()).map(|m| ceil_boundary(s, m)).collect::<Vec<_>>(),
            [0, 1, 3, 3, 6, 6, 6, 10, 10, 10, 10]
        );
    }

    #[test]
    fn clean_drops_nul_and_cuts_on_a_boundary() {
        assert_eq!(clean("a\0b"), ("ab".to_string(), 0));
        let long = "€".repeat(MAX_CHUNK_BYTES / 3 + 1);
        let (t, cut) = clean(&long);
        assert!(t.len() <= MAX_CHUNK_BYTES && t.len() % 3 == 0, "{}", t.len());
        assert_eq!(t.len() + cut, long.len());
    }
}
