//! Policy versions in the records (A3): each module's bytes, state and full history, so a
//! restarted or standby server runs exactly what was promoted.

use sqlx::Row;

use crate::policy::registry::{State, Stored, Transition, Version};
use crate::store::{Store, StoreError};

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

fn corrupt(what: &str, e: serde_json::Error) -> StoreError {
    StoreError::Sqlx(sqlx::Error::Decode(format!("policy {what}: {e}").into()))
}

impl Store {
    /// Every stored version with its history, oldest upload first.
    pub async fn policy_versions(&self) -> Result<Vec<Stored>, StoreError> {
        let rows = sqlx::query(
            "SELECT sha256, author, note, detail, promotion_requested_by, module, canary_requested_by, \
             canary_requested FROM policy_versions ORDER BY uploaded_at, sha256",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let sha: String = r.try_get(0)?;
            let state: State =
                serde_json::from_str(&r.try_get::<String, _>(3)?).map_err(|e| corrupt(&sha, e))?;
            let mut history = Vec::new();
            for t in sqlx::query(
                "SELECT detail, actor, at, note FROM policy_transitions WHERE sha256 = $1 ORDER BY seq",
            )
            .bind(&sha)
            .fetch_all(&self.pool)
            .await?
            {
                history.push(Transition {
                    to: serde_json::from_str(&t.try_get::<String, _>(0)?).map_err(|e| corrupt(&sha, e))?,
                    by: t.try_get(1)?,
                    at: t.try_get(2)?,
                    note: t.try_get(3)?,
                });
            }
            out.push(Stored {
                bytes: r.try_get(5)?,
                author: r.try_get(1)?,
                note: r.try_get(2)?,
                state,
                promotion_requested_by: r.try_get(4)?,
                canary_requested_by: r.try_get(6)?,
                canary_requested: r
                    .try_get::<Option<String>, _>(7)?
                    .map(|g| serde_json::from_str(&g))
                    .transpose()
                    .map_err(|e| corrupt(&sha, e))?,
                history,
            });
        }
        Ok(out)
    }

    /// Writes the registry's versions: a new upload's bytes (`upload`), every version's
    /// state, and the transitions not yet stored — one transaction.
    pub async fn save_policy_versions(
        &self,
        versions: &[Version],
        upload: Option<(&str, &[u8])>,
        now: i64,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        if let Some((sha, bytes)) = upload
            && let Some(v) = versions.iter().find(|v| v.sha256 == sha)
        {
            sqlx::query(
                "INSERT INTO policy_versions (sha256, kind, interface, author, note, state, detail, \
                 promotion_requested_by, module, uploaded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                 ON CONFLICT (sha256) DO NOTHING",
            )
            .bind(sha)
            .bind(v.kind.map(|k| k.name()))
            .bind(v.interface.as_deref())
            .bind(&v.author)
            .bind(&v.note)
            .bind(v.state.name())
            .bind(to_json(&v.state))
            .bind(v.promotion_requested_by.as_deref())
            .bind(bytes.to_vec())
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        for v in versions {
            sqlx::query(
                "UPDATE policy_versions SET state = $1, detail = $2, promotion_requested_by = $3, \
                 canary_requested_by = $4, canary_requested = $5 WHERE sha256 = $6",
            )
            .bind(v.state.name())
            .bind(to_json(&v.state))
            .bind(v.promotion_requested_by.as_deref())
            .bind(v.canary_requested_by.as_deref())
            .bind(v.canary_requested.as_ref().map(to_json))
            .bind(&v.sha256)
            .execute(&mut *tx)
            .await?;
            let row = sqlx::query("SELECT COUNT(*) FROM policy_transitions WHERE sha256 = $1")
                .bind(&v.sha256)
                .fetch_one(&mut *tx)
                .await?;
            let stored: i64 = row.try_get(0)?;
            for (seq, t) in v.history.iter().enumerate().skip(stored.max(0) as usize) {
                sqlx::query(
                    "INSERT INTO policy_transitions (sha256, seq, state, detail, actor, at, note) \
                     SELECT $1, $2, $3, $4, $5, $6, $7 WHERE EXISTS (SELECT 1 FROM policy_versions WHERE sha256 = $1)",
                )
                .bind(&v.sha256)
                .bind(seq as i64)
                .bind(t.to.name())
                .bind(to_json(&t.to))
                .bind(&t.by)
                .bind(t.at)
                .bind(&t.note)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }
}
