//! Node tokens: the credential an agent presents. Only the token's sha256 is kept, so a
//! copy of the records does not let anyone act as a node.

use crate::policy::runtime::sha256_hex;
use crate::store::events::record;
use crate::store::users::random_b64;
use crate::store::{Store, StoreError};

impl Store {
    /// Issues a token for node `node` and records who did; returns the token (shown once).
    pub async fn issue_node_token(&self, node: &str, by: &str, now: i64) -> Result<String, StoreError> {
        let token = format!("tpn_{}", random_b64(32));
        let mut tx = self.pool.begin().await?;
        sqlx::query("INSERT INTO node_tokens (token_sha256, node_name, created_by, created_at) VALUES ($1, $2, $3, $4)")
            .bind(sha256_hex(token.as_bytes()))
            .bind(node)
            .bind(by)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        let message = format!("{by} issued a token for node {node}");
        record(&mut tx, now, "node-token", None, by, &message, &serde_json::json!({})).await?;
        tx.commit().await?;
        Ok(token)
    }
}
