//! Node tokens: the credential an agent presents. Only the token's sha256 is kept, so a
//! copy of the records does not let anyone act as a node. A token is bound to one node,
//! may expire, may name the pool an admin puts the node in, and is revoked at once
//! (finding 5 of issue 10); issuing and revoking are events.

use serde::Serialize;
use sqlx::Row;

use crate::policy::runtime::sha256_hex;
use crate::store::events::record;
use crate::store::users::random_b64;
use crate::store::{Store, StoreError};

/// What an admin asks for when issuing a token.
#[derive(Clone, Debug, Default)]
pub struct NewNodeToken {
    pub node: String,
    /// The pool the node goes to; `None`: its current pool, else the agent's choice for a
    /// new node, else "default".
    pub pool: Option<String>,
    /// Refused from then on (Unix seconds); `None`: no expiry.
    pub expires_at: Option<i64>,
}

/// A token as admins see it listed: never the token or its hash.
#[derive(Clone, Debug, Serialize)]
pub struct NodeTokenInfo {
    pub id: i64,
    pub node: String,
    pub pool: Option<String>,
    pub created_by: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub last_used_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

const COLUMNS: &str = "id, node_name, pool, created_by, created_at, expires_at, last_used_at, revoked_at";

fn info(r: &sqlx::any::AnyRow) -> Result<NodeTokenInfo, sqlx::Error> {
    Ok(NodeTokenInfo {
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

impl Store {
    /// Issues a token for node `node` with no pool and no expiry; returns the token.
    pub async fn issue_node_token(&self, node: &str, by: &str, now: i64) -> Result<String, StoreError> {
        let new = NewNodeToken { node: node.to_string(), ..NewNodeToken::default() };
        Ok(self.issue_node_token_with(&new, by, now).await?.1)
    }

    /// Issues a token and records who did; returns its id and the token (shown once).
    pub async fn issue_node_token_with(
        &self,
        new: &NewNodeToken,
        by: &str,
        now: i64,
    ) -> Result<(i64, String), StoreError> {
        let token = format!("tpn_{}", random_b64(32));
        let mut tx = self.pool.begin().await?;
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
        let detail =
            serde_json::json!({ "token": id, "node": node, "pool": new.pool, "expires_at": new.expires_at });
        record(&mut tx, now, "node-token", None, by, &message, &detail).await?;
        tx.commit().await?;
        Ok((id, token))
    }

    /// Every node token, newest first.
    pub async fn node_tokens(&self) -> Result<Vec<NodeTokenInfo>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM node_tokens ORDER BY id DESC");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_all(&self.pool).await?;
        Ok(rows.iter().map(info).collect::<Result<_, _>>()?)
    }

    /// Revokes token `id` (refused from the next request on) and records who did; a token
    /// already revoked stays as it was. `None`: no such token.
    pub async fn revoke_node_token(
        &self,
        id: i64,
        by: &str,
        now: i64,
    ) -> Result<Option<NodeTokenInfo>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query("UPDATE node_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
            .bind(now)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let sql = format!("SELECT {COLUMNS} FROM node_tokens WHERE id = $1");
        let Some(row) = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(id).fetch_optional(&mut *tx).await? else {
            return Ok(None);
        };
        let token = info(&row)?;
        if done.rows_affected() > 0 {
            let message = format!("{by} revoked node token {id} of node {}", token.node);
            let detail = serde_json::json!({ "token": id, "node": token.node });
            record(&mut tx, now, "node-token-revoked", None, by, &message, &detail).await?;
        }
        tx.commit().await?;
        Ok(Some(token))
    }
}
