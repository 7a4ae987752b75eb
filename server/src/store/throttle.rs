//! Sign-in throttling (issue 10, finding 6): failed sign-ins are counted per username and
//! per client address in a window; past a limit the key is blocked for a while and no
//! password is checked for it, the right one included. The counts live in the records,
//! so every server (leader or standby) and a restarted one see the same blocks.

use serde::Serialize;
use sqlx::Row;
use tidepool_api::records::{SignInFailure, ThrottleCount};

use crate::store::{Store, StoreError, events};

/// How many failures a key may have in a window before it is blocked, and for how long.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Limit {
    pub failures: i64,
    pub window_s: i64,
    pub block_s: i64,
}

/// Per username: a person mistyping a few times is not blocked; a guesser gets five tries
/// per five minutes, whatever addresses it comes from.
pub const PER_USERNAME: Limit = Limit { failures: 5, window_s: 300, block_s: 300 };
/// Per client address: one machine trying many usernames.
pub const PER_ADDRESS: Limit = Limit { failures: 20, window_s: 300, block_s: 300 };

/// A key of the throttle: what is counted, and its limit.
#[derive(Clone, Debug)]
pub struct Key {
    pub key: String,
    pub limit: Limit,
}

impl Key {
    pub fn username(name: &str) -> Key {
        Key { key: format!("user:{name}"), limit: PER_USERNAME }
    }

    pub fn address(ip: &str) -> Key {
        Key { key: format!("addr:{ip}"), limit: PER_ADDRESS }
    }
}

/// Who failed to sign in, for the event.
pub struct Failure<'a> {
    pub username: &'a str,
    /// The client's address; `None` when the request came without a socket (tests).
    pub address: Option<&'a str>,
}

impl Store {
    /// Forgets keys whose window has passed and that are not blocked (their count would
    /// start again anyway): without it, a spray of made-up usernames leaves a row each
    /// for good. Returns how many went.
    pub async fn prune_login_throttle(&self, now: i64) -> Result<u64, StoreError> {
        let longest = PER_USERNAME.window_s.max(PER_ADDRESS.window_s);
        let done = sqlx::query(
            "DELETE FROM login_throttle WHERE window_start <= $1 AND (blocked_until IS NULL OR blocked_until <= $2)",
        )
        .bind(now - longest)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// Seconds until every blocked key among `keys` is unblocked; `None` if none is.
    /// Only reads, so a flood of attempts on a blocked key writes nothing.
    pub async fn login_blocked(&self, keys: &[Key], now: i64) -> Result<Option<i64>, StoreError> {
        let mut wait = None;
        for k in keys {
            let row =
                sqlx::query("SELECT blocked_until FROM login_throttle WHERE key = $1 AND blocked_until > $2")
                    .bind(&k.key)
                    .bind(now)
                    .fetch_optional(&self.pool)
                    .await?;
            if let Some(row) = row {
                let until: i64 = row.try_get(0)?;
                wait = wait.max(Some(until - now));
            }
        }
        Ok(wait)
    }

    /// Counts a failure against every key and records it as a `login-failed` event (the
    /// username and address, never the password). Returns the seconds the caller is now
    /// blocked for, if this failure reached a limit.
    pub async fn login_failed(
        &self,
        keys: &[Key],
        who: &Failure<'_>,
        now: i64,
    ) -> Result<Option<i64>, StoreError> {
        let mut tx = self.begin().await?;
        let mut blocked: Option<i64> = None;
        let mut counts = Vec::new();
        for k in keys {
            let row = sqlx::query(
                "INSERT INTO login_throttle (key, window_start, failures, blocked_until) VALUES ($1, $2, 1, NULL) \
                 ON CONFLICT (key) DO UPDATE SET \
                 window_start = CASE WHEN login_throttle.window_start <= $3 THEN $2 ELSE login_throttle.window_start END, \
                 failures = CASE WHEN login_throttle.window_start <= $3 THEN 1 ELSE login_throttle.failures + 1 END, \
                 blocked_until = CASE WHEN login_throttle.window_start <= $3 THEN NULL ELSE login_throttle.blocked_until END \
                 RETURNING failures",
            )
            .bind(&k.key)
            .bind(now)
            .bind(now - k.limit.window_s)
            .fetch_one(&mut *tx)
            .await?;
            let failures: i64 = row.try_get(0)?;
            counts.push(ThrottleCount { key: k.key.clone(), failures });
            if failures >= k.limit.failures {
                sqlx::query("UPDATE login_throttle SET blocked_until = $1 WHERE key = $2")
                    .bind(now + k.limit.block_s)
                    .bind(&k.key)
                    .execute(&mut *tx)
                    .await?;
                blocked = blocked.max(Some(k.limit.block_s));
            }
        }
        let actor = who.address.unwrap_or("unknown address");
        let mut message = format!("sign-in failed for {:?} from {actor}", who.username);
        if let Some(s) = blocked {
            message.push_str(&format!("; further sign-ins refused for {s} s"));
        }
        let sign_in = SignInFailure {
            username: who.username.to_string(),
            address: who.address.map(str::to_string),
            counts,
            blocked_s: blocked,
        };
        let detail = events::EventDetail { sign_in: Some(sign_in), ..events::EventDetail::default() };
        events::record(&mut tx, now, "login-failed", None, actor, &message, &detail).await?;
        tx.commit().await?;
        Ok(blocked)
    }

    /// A successful sign-in clears its username's count (only someone with the password
    /// gets here); the address's count stays, or one valid account would reset it.
    pub async fn login_succeeded(&self, username: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM login_throttle WHERE key = $1")
            .bind(Key::username(username).key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}
