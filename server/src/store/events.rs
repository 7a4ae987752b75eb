//! The event log (D2, A4): one writer, used in the same transaction as the change an
//! event records, so a decision and its record are written together or not at all.
//! An event's particulars are the API's [`EventDetail`]: one typed shape for every
//! kind, written and read here.

pub use tidepool_api::records::EventDetail;

/// Appends an event. `policy` stays empty: events that name the deciding policy
/// versions are the dispatcher's, written with its batched placements.
pub async fn record(
    tx: &mut sqlx::AnyConnection,
    at: i64,
    kind: &str,
    job: Option<i64>,
    actor: &str,
    message: &str,
    detail: &EventDetail,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) VALUES ($1, $2, $3, $4, NULL, $5, $6)",
    )
    .bind(at)
    .bind(kind)
    .bind(job)
    .bind(actor)
    .bind(message)
    .bind(stored(detail))
    .execute(tx)
    .await?;
    Ok(())
}

/// The stored text of `detail`.
pub fn stored(detail: &EventDetail) -> String {
    serde_json::to_string(detail).unwrap_or_else(|_| "{}".into())
}

/// The particulars stored as `text`. Rows written before the particulars were typed
/// held other shapes (a placement's slots as a bare list of the dispatcher's internal
/// indices, a preemption's or a policy notice's own object): those read as empty, as
/// their message already says all they did, rather than failing the whole page.
pub fn read(text: &str) -> EventDetail {
    serde_json::from_str(text).unwrap_or_else(|e| {
        tracing::debug!(error = %e, "an event's particulars predate their type");
        EventDetail::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn particulars_round_trip_and_older_shapes_read_as_empty() {
        let d = EventDetail { loan: Some(4), ..EventDetail::default() };
        assert_eq!(stored(&d), r#"{"loan":4}"#);
        assert_eq!(read(&stored(&d)), d);
        assert_eq!(read(r#"[{"node":0,"gpus":3}]"#), EventDetail::default());
        assert_eq!(read(r#"{"kind":"higher-class","for_job":9}"#), EventDetail::default());
    }
}
