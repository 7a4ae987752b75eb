//! Node tokens: the credential an agent presents. Only the token's sha256 is kept, so a
//! copy of the records does not let anyone act as a node. A token is bound to one node,
//! may expire, may name the pool an admin puts the node in, and is revoked at once: it is
//! checked on every request against the server's clock (finding 5 of issue 10). Admins
//! issue, list and revoke them; issuing and revoking are events.

use sqlx::Row;
use tidepool_api::fleet::{IssuedNodeToken, NewNodeToken, NodeToken, NodeTokenList};

use crate::access::{AccessError, require_admin};
use crate::input::{Invalid, text};
use crate::policy::runtime::sha256_hex;
use crate::store::events::{EventDetail, record};
use crate::store::users::{User, random_b64};
use crate::store::{Store, StoreError};

/// The longest expiry an admin may give a token: ten years.
pub const MAX_EXPIRES_IN_S: i64 = 10 * 365 * 86_400;
/// `last_used_at` is brought up to date at most this often by syncs (registration always).
const USE_RESOLUTION_S: i64 = 60;

/// Why a token was not issued, listed, revoked or accepted.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error("no node token {0}")]
    NoSuchToken(i64),
    /// No token has this hash: the agent is not signed in.
    #[error("not a valid node token")]
    NotValid,
    #[error("this node token was revoked: ask an admin for a new one")]
    Revoked,
    #[error("this node token has expired: ask an admin for a new one")]
    Expired,
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(TokenError);

/// A token to issue, checked.
#[derive(Clone, Debug, Default)]
pub struct Issue {
    pub node: String,
    /// The pool the node goes to; `None`: its current pool, else the agent's choice for a
    /// new node, else "default".
    pub pool: Option<String>,
    /// Refused from then on (Unix seconds); `None`: no expiry.
    pub expires_at: Option<i64>,
}

const COLUMNS: &str = "id, node_name, pool, created_by, created_at, expires_at, last_used_at, revoked_at";

fn listed(r: &sqlx::any::AnyRow) -> Result<NodeToken, sqlx::Error> {
    Ok(NodeToken {
        id: r.try_get(0)?,
        node: r.try_get(1)?,
        pool: r.try_get(2)?,
        created_by: r.try_get(3)?,
        created_at: r.try_get(4)?,
        expires_at: r.try_get(5)?,
        last_used_at: r.try_get(6)?,
        revoked_at: r.try_get(7)?,
    })
}

/// `body` checked at `now`: a node name, a pool name, an expiry within ten years.
fn checked(body: &NewNodeToken, now: i64) -> Result<Issue, Invalid> {
    Ok(Issue {
        node: text(&body.node, "node", 128)?.to_string(),
        pool: body.pool.as_deref().map(|p| text(p, "pool", 64).map(str::to_string)).transpose()?,
        expires_at: match body.expires_in_s {
            Some(s) if !(1..=MAX_EXPIRES_IN_S).contains(&s) => {
                return Err(Invalid(format!(
                    "expires_in_s is 1 to {MAX_EXPIRES_IN_S} seconds, or omitted for no expiry"
                )));
            }
            s => s.map(|s| now + s),
        },
    })
}

/// An admin issues a token for the node `body` names; shown once, only its hash is kept.
pub async fn issue(
    store: &Store,
    user: &User,
    body: &NewNodeToken,
    now: i64,
) -> Result<IssuedNodeToken, TokenError> {
    require_admin(user, "issue node tokens")?;
    Ok(issue_as(store, &checked(body, now)?, &user.username, now).await?)
}

/// Issues `new` and records that `by` did (the API, `tidepool admin`, the demo's agents).
pub async fn issue_as(store: &Store, new: &Issue, by: &str, now: i64) -> Result<IssuedNodeToken, StoreError> {
    let token = format!("tpn_{}", random_b64(32));
    let mut tx = store.begin().await?;
    let row = sqlx::query(
        "INSERT INTO node_tokens (token_sha256, node_name, created_by, created_at, pool, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(sha256_hex(token.as_bytes()))
    .bind(&new.node)
    .bind(by)
    .bind(now)
    .bind(new.pool.clone())
    .bind(new.expires_at)
    .fetch_one(&mut *tx)
    .await?;
    let id: i64 = row.try_get(0)?;
    let node = &new.node;
    let mut message = format!("{by} issued node token {id} for node {node}");
    if let Some(pool) = &new.pool {
        message += &format!(", in pool {pool}");
    }
    if let Some(at) = new.expires_at {
        message += &format!(", expiring at {at}");
    }
    let detail = EventDetail {
        token: Some(id),
        node_name: Some(node.to_string()),
        pool: new.pool.clone(),
        expires_at: new.expires_at,
        ..EventDetail::default()
    };
    record(&mut tx, now, "node-token", None, by, &message, &detail).await?;
    tx.commit().await?;
    Ok(IssuedNodeToken {
        id,
        node: new.node.clone(),
        pool: new.pool.clone(),
        expires_at: new.expires_at,
        token,
    })
}

/// Every node token with its node, pool, expiry and use, newest first; never the token.
pub async fn all(store: &Store) -> Result<Vec<NodeToken>, StoreError> {
    let sql = format!("SELECT {COLUMNS} FROM node_tokens ORDER BY id DESC");
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_all(&store.pool).await?;
    Ok(rows.iter().map(listed).collect::<Result<_, _>>()?)
}

/// Every node token, for an admin.
pub async fn list(store: &Store, user: &User) -> Result<NodeTokenList, TokenError> {
    require_admin(user, "list node tokens")?;
    Ok(NodeTokenList { tokens: all(store).await? })
}

/// An admin revokes token `id`: its agent is refused from its next request on.
pub async fn revoke(store: &Store, user: &User, id: i64, now: i64) -> Result<NodeToken, TokenError> {
    require_admin(user, "revoke node tokens")?;
    revoke_as(store, id, &user.username, now).await?.ok_or(TokenError::NoSuchToken(id))
}

/// Revokes token `id` and records that `by` did; a token already revoked stays as it
/// was. `None`: no such token.
pub async fn revoke_as(store: &Store, id: i64, by: &str, now: i64) -> Result<Option<NodeToken>, StoreError> {
    let mut tx = store.begin().await?;
    let done = sqlx::query("UPDATE node_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let sql = format!("SELECT {COLUMNS} FROM node_tokens WHERE id = $1");
    let Some(row) = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(&mut *tx).await? else {
        return Ok(None);
    };
    let token = listed(&row)?;
    if done.rows_affected() > 0 {
        let message = format!("{by} revoked node token {id} of node {}", token.node);
        let detail =
            EventDetail { token: Some(id), node_name: Some(token.node.clone()), ..EventDetail::default() };
        record(&mut tx, now, "node-token-revoked", None, by, &message, &detail).await?;
    }
    tx.commit().await?;
    Ok(Some(token))
}

/// The node an agent's token lets it act as, and the token.
#[derive(Clone, Debug)]
pub struct NodeCaller {
    pub node: String,
    pub token_id: i64,
    /// The pool the admin put the node in with this token.
    pub pool: Option<String>,
    /// None until the token's first use (its registration).
    pub last_used_at: Option<i64>,
}

/// The node `token` speaks for at `now`, if the token is known, unrevoked and unexpired.
/// Registration records the first use; syncs keep `last_used_at` roughly current, cheaply.
pub async fn authenticate(store: &Store, token: &str, now: i64) -> Result<NodeCaller, TokenError> {
    let row = sqlx::query(
        "SELECT id, node_name, pool, last_used_at, expires_at, revoked_at FROM node_tokens \
         WHERE token_sha256 = $1",
    )
    .bind(sha256_hex(token.as_bytes()))
    .fetch_optional(&store.pool)
    .await?
    .ok_or(TokenError::NotValid)?;
    if row.try_get::<Option<i64>, _>(5)?.is_some() {
        return Err(TokenError::Revoked);
    }
    if row.try_get::<Option<i64>, _>(4)?.is_some_and(|at| at <= now) {
        return Err(TokenError::Expired);
    }
    let caller = NodeCaller {
        token_id: row.try_get(0)?,
        node: row.try_get(1)?,
        pool: row.try_get(2)?,
        last_used_at: row.try_get(3)?,
    };
    if caller.last_used_at.is_some_and(|at| now - at >= USE_RESOLUTION_S) {
        sqlx::query("UPDATE node_tokens SET last_used_at = $1 WHERE id = $2")
            .bind(now)
            .bind(caller.token_id)
            .execute(&store.pool)
            .await?;
    }
    Ok(caller)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(expires_in_s: Option<i64>) -> NewNodeToken {
        NewNodeToken { node: " gpu-01 ".into(), pool: Some("east".into()), expires_in_s }
    }

    #[test]
    fn an_expiry_is_one_second_to_ten_years_or_none() {
        assert!(checked(&ask(Some(0)), 100).is_err());
        assert!(checked(&ask(Some(MAX_EXPIRES_IN_S + 1)), 100).is_err());
        let ok = checked(&ask(Some(60)), 100).unwrap();
        assert_eq!(
            (ok.node.as_str(), ok.pool.as_deref(), ok.expires_at),
            ("gpu-01", Some("east"), Some(160))
        );
        assert_eq!(checked(&ask(None), 100).unwrap().expires_at, None);
    }
}
