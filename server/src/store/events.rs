//! The event log (D2, A4): one writer, used in the same transaction as the change an
//! event records, so a decision and its record are written together or not at all.

use serde_json::Value;

/// Appends an event. `policy` stays empty: events that name the deciding policy
/// versions are the dispatcher's, written with its batched placements.
pub async fn record(
    tx: &mut sqlx::AnyConnection,
    at: i64,
    kind: &str,
    job: Option<i64>,
    actor: &str,
    message: &str,
    detail: &Value,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) VALUES ($1, $2, $3, $4, NULL, $5, $6)",
    )
    .bind(at)
    .bind(kind)
    .bind(job)
    .bind(actor)
    .bind(message)
    .bind(detail.to_string())
    .execute(tx)
    .await?;
    Ok(())
}
