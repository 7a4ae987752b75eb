//! Users, groups and passwords.

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use sqlx::Row;

use crate::store::{Store, StoreError};

/// The three tiers of MISSION Q6: the API's own type, so the records, the server's
/// answers and the command line spell them one way.
pub use tidepool_api::auth::Role;

/// An account as the server acts on it and answers with: the API's own type, so
/// `/api/me` and a sign-in's answer are the records' user, never a twin of it.
pub use tidepool_api::auth::User;

/// At most this many argon2 computations at once (each takes ~19 MiB and a core for tens
/// of milliseconds): a flood of sign-ins queues here instead of taking the memory.
fn hashers() -> &'static tokio::sync::Semaphore {
    static HASHERS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    HASHERS.get_or_init(|| {
        tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    })
}

/// Runs an argon2 computation on the blocking pool, never on the async workers, so a
/// sign-in in progress does not stall every other request on the same worker.
async fn off_workers<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let _permit = hashers().acquire().await.expect("the semaphore is never closed");
    tokio::task::spawn_blocking(work).await.expect("argon2 does not panic")
}

/// [`hash_password`] off the async workers.
pub async fn hash_password_off_workers(password: &str) -> String {
    let password = password.to_string();
    off_workers(move || hash_password(&password)).await
}

/// [`verify_password`] off the async workers.
pub async fn verify_password_off_workers(password: &str, hash: String) -> bool {
    let password = password.to_string();
    off_workers(move || verify_password(&password, &hash)).await
}

/// An argon2id hash of `password` with a fresh salt.
pub fn hash_password(password: &str) -> String {
    let salt = SaltString::from_b64(&random_b64(16)).expect("valid salt");
    Argon2::default().hash_password(password.as_bytes(), &salt).expect("argon2 hashes any input").to_string()
}

pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok())
}

/// `n` random bytes as unpadded base64, from the operating system's generator.
pub fn random_b64(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).expect("the OS random generator works");
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((v >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

impl Store {
    pub async fn create_group(&self, name: &str, now: i64) -> Result<i64, StoreError> {
        let row = sqlx::query("INSERT INTO groups (name, created_at) VALUES ($1, $2) RETURNING id")
            .bind(name)
            .bind(now)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get(0)?)
    }

    pub async fn group_id(&self, name: &str) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query("SELECT id FROM groups WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get(0)).transpose()?)
    }

    pub async fn create_user(
        &self,
        username: &str,
        password: &str,
        role: Role,
        group_id: Option<i64>,
        now: i64,
    ) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO users (username, password_hash, role, group_id, created_at) \
             VALUES ($1, $2, $3, $4, $5) RETURNING id",
        )
        .bind(username)
        .bind(hash_password_off_workers(password).await)
        .bind(role.as_str())
        .bind(group_id)
        .bind(now)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get(0)?)
    }

    /// The user, if the username exists and the password matches.
    pub async fn authenticate(&self, username: &str, password: &str) -> Result<Option<User>, StoreError> {
        let row =
            sqlx::query("SELECT id, username, role, group_id, password_hash FROM users WHERE username = $1")
                .bind(username)
                .fetch_optional(&self.pool)
                .await?;
        let Some(row) = row else {
            // Spend the same time as a wrong password, so names cannot be probed by timing.
            verify_password_off_workers(password, DUMMY_HASH.into()).await;
            return Ok(None);
        };
        let hash: String = row.try_get(4)?;
        if !verify_password_off_workers(password, hash).await {
            return Ok(None);
        }
        Ok(Some(user(&row)?))
    }

    /// Whether `password` is the user's current one.
    pub async fn check_password(&self, user_id: i64, password: &str) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT password_hash FROM users WHERE id = $1")
            .bind(user_id)
            .fetch_optional(&self.pool)
            .await?;
        let hash = match row {
            Some(row) => row.try_get(0)?,
            None => DUMMY_HASH.to_string(),
        };
        Ok(verify_password_off_workers(password, hash).await)
    }

    /// Replaces the user's password (the caller checked the current one).
    pub async fn set_password(&self, user_id: i64, password: &str) -> Result<(), StoreError> {
        let hash = hash_password_off_workers(password).await;
        sqlx::query("UPDATE users SET password_hash = $1 WHERE id = $2")
            .bind(hash)
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn user(&self, id: i64) -> Result<Option<User>, StoreError> {
        let row = sqlx::query("SELECT id, username, role, group_id FROM users WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| user(&r)).transpose()?)
    }

    pub async fn count_admins(&self) -> Result<i64, StoreError> {
        let row =
            sqlx::query("SELECT COUNT(*) FROM users WHERE role = 'admin'").fetch_one(&self.pool).await?;
        Ok(row.try_get(0)?)
    }
}

/// A well-formed hash no password matches, verified when the username is unknown.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// The shortest password accepted, the initial admin's included.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// The longest password accepted (argon2 hashes any length; this bounds the work).
pub const MAX_PASSWORD_BYTES: usize = 1000;

/// Why a new password is refused, if it is.
pub fn password_problem(password: &str) -> Option<String> {
    (password.chars().count() < MIN_PASSWORD_CHARS || password.len() > MAX_PASSWORD_BYTES)
        .then(|| format!("a password is {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_BYTES} characters"))
}

/// A user from a row of (id, username, role, group_id).
pub(crate) fn user_of_row(row: &sqlx::any::AnyRow) -> Result<User, sqlx::Error> {
    user(row)
}

fn user(row: &sqlx::any::AnyRow) -> Result<User, sqlx::Error> {
    let role: String = row.try_get(2)?;
    Ok(User {
        id: row.try_get(0)?,
        username: row.try_get(1)?,
        role: Role::parse(&role).ok_or_else(|| sqlx::Error::Decode(format!("unknown role {role}").into()))?,
        group_id: row.try_get(3)?,
    })
}
