//! Sign-in sessions (issue 10, finding 6): each sign-in starts a family of refresh tokens.
//! A refresh token is an opaque random string, kept only as its sha256; using it marks it
//! used and issues the next one of the family. A used or revoked token presented again
//! means it was copied: the whole family is revoked, the thief's newest token and the
//! owner's alike. No family outlives its absolute lifetime: then the user signs in again.

use sha2::{Digest, Sha256};
use sqlx::Row;

use crate::store::users::{User, random_b64, user_of_row};
use crate::store::{Store, StoreError};

/// One refresh token's lifetime; each rotation gets a fresh one, up to the family's end.
pub const REFRESH_TTL_S: i64 = 7 * 86_400;
/// A sign-in's absolute lifetime, however often it is refreshed.
pub const FAMILY_TTL_S: i64 = 30 * 86_400;

/// What presenting a refresh token came to.
#[derive(Debug)]
pub enum Rotation {
    /// The next token of the family, for this user.
    Rotated { user_id: i64, family: String, token: String },
    /// No such token (never issued, or mistyped).
    Unknown,
    /// Past its own or its family's lifetime.
    Expired,
    /// Its family was revoked (signed out, password changed, or a reuse).
    Revoked,
    /// Used before: the family is revoked now.
    Reused { user_id: i64, family: String },
}

fn sha256_hex(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

impl Store {
    /// A new family for a sign-in: (family, its first refresh token).
    pub async fn start_family(&self, user_id: i64, now: i64) -> Result<(String, String), StoreError> {
        let family = random_b64(15);
        let token = random_b64(33);
        sqlx::query(
            "INSERT INTO refresh_tokens (user_id, family, token_sha256, issued_at, expires_at, family_expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(user_id)
        .bind(&family)
        .bind(sha256_hex(&token))
        .bind(now)
        .bind(now + REFRESH_TTL_S)
        .bind(now + FAMILY_TTL_S)
        .execute(&self.pool)
        .await?;
        Ok((family, token))
    }

    /// Uses a refresh token: the next one of its family, or why not.
    pub async fn rotate(&self, token: &str, now: i64) -> Result<Rotation, StoreError> {
        let mut tx = self.begin().await?;
        let row = sqlx::query(
            "SELECT id, user_id, family, expires_at, family_expires_at, used_at, revoked_at \
             FROM refresh_tokens WHERE token_sha256 = $1",
        )
        .bind(sha256_hex(token))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else { return Ok(Rotation::Unknown) };
        let (id, user_id, family): (i64, i64, String) = (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
        let (expires_at, family_expires_at): (i64, i64) = (row.try_get(3)?, row.try_get(4)?);
        let (used_at, revoked_at): (Option<i64>, Option<i64>) = (row.try_get(5)?, row.try_get(6)?);
        if revoked_at.is_some() {
            return Ok(Rotation::Revoked);
        }
        // Marking it used is conditional, so of two requests racing with one token only
        // one rotates; the other is a reuse.
        let claimed = used_at.is_none()
            && sqlx::query("UPDATE refresh_tokens SET used_at = $1 WHERE id = $2 AND used_at IS NULL")
                .bind(now)
                .bind(id)
                .execute(&mut *tx)
                .await?
                .rows_affected()
                == 1;
        if !claimed {
            revoke(&mut tx, &family, now).await?;
            tx.commit().await?;
            return Ok(Rotation::Reused { user_id, family });
        }
        if expires_at <= now || family_expires_at <= now {
            return Ok(Rotation::Expired);
        }
        let next = random_b64(33);
        sqlx::query(
            "INSERT INTO refresh_tokens (user_id, family, token_sha256, issued_at, expires_at, family_expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(user_id)
        .bind(&family)
        .bind(sha256_hex(&next))
        .bind(now)
        .bind((now + REFRESH_TTL_S).min(family_expires_at))
        .bind(family_expires_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Rotation::Rotated { user_id, family, token: next })
    }

    /// The family and user of a refresh token, whatever its state (signing out with it).
    pub async fn family_of(&self, token: &str) -> Result<Option<(i64, String)>, StoreError> {
        let row = sqlx::query("SELECT user_id, family FROM refresh_tokens WHERE token_sha256 = $1")
            .bind(sha256_hex(token))
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| Ok::<_, sqlx::Error>((r.try_get(0)?, r.try_get(1)?))).transpose()?)
    }

    /// Revokes a family: its refresh tokens and the access tokens issued with them stop.
    pub async fn revoke_family(&self, family: &str, now: i64) -> Result<u64, StoreError> {
        let mut conn = self.pool.acquire().await?;
        Ok(revoke(&mut conn, family, now).await?)
    }

    /// Revokes every family of a user but `keep` (the session changing the password).
    pub async fn revoke_families_of(&self, user_id: i64, keep: &str, now: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE refresh_tokens SET revoked_at = $1 WHERE user_id = $2 AND family <> $3 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(user_id)
        .bind(keep)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// The user behind an access token, unless the account is gone or the token's family
    /// was revoked (one query: every API call runs it).
    pub async fn session_user(&self, user_id: i64, family: Option<&str>) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(
            "SELECT u.id, u.username, u.role, u.group_id FROM users u WHERE u.id = $1 AND NOT EXISTS \
             (SELECT 1 FROM refresh_tokens r WHERE r.family = $2 AND r.revoked_at IS NOT NULL)",
        )
        .bind(user_id)
        .bind(family.unwrap_or(""))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| user_of_row(&r)).transpose()?)
    }
}

async fn revoke(conn: &mut sqlx::AnyConnection, family: &str, now: i64) -> Result<u64, sqlx::Error> {
    let done =
        sqlx::query("UPDATE refresh_tokens SET revoked_at = $1 WHERE family = $2 AND revoked_at IS NULL")
            .bind(now)
            .bind(family)
            .execute(conn)
            .await?;
    Ok(done.rows_affected())
}
