//! The event log's page as the web app reads it (`GET /api/events`).
//!
//! Not `tidepool_api::EventPage`: its `LoggedEvent::detail` is declared a JSON object, but
//! the dispatcher records a placement's detail as an array (its GPU slots) and a
//! preemption's as a string (its reason), so a log holding either fails to read as the
//! API type. The pages never show `detail`; this mirror takes it in any shape and is
//! otherwise the API's own (`deny_unknown_fields`, the same fields). Replace it with
//! `EventPage` once the API type accepts every detail the server writes.

use serde::Deserialize;
use serde::de::IgnoredAny;

/// One entry of the event log.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Logged {
    pub id: i64,
    /// Unix seconds.
    pub at: i64,
    pub kind: String,
    pub job: Option<i64>,
    pub actor: Option<String>,
    pub policy: Option<String>,
    pub message: String,
    /// Read past, whatever its shape (see the module's note).
    pub detail: IgnoredAny,
}

/// A page of events, newest first; `next` goes in `?before=`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Events {
    pub events: Vec<Logged>,
    pub next: Option<i64>,
}
