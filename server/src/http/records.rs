//! The records anyone signed in may search (A1, A2, D2) over HTTP: the event log and the
//! archive of finished jobs (`crate::records` holds the filters and the SQL).

use axum::Json;
use axum::extract::State;
use tidepool_api::records::{ArchivePage, EventPage};

use crate::http::auth::Caller;
use crate::http::page::Listing;
use crate::http::{ApiError, AppState};
use crate::records::{self, ArchiveFilter, EventFilter};

/// The event log, newest first (D2, A4), a page at a time (`next` goes in `before`).
pub async fn events(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(filter, page): Listing<EventFilter>,
) -> Result<Json<EventPage>, ApiError> {
    Ok(Json(records::events(&state.store, &filter, &page).await?))
}

/// Finished jobs with their tags, by group × year × tag (A2), newest first, a page at a
/// time (`next` goes in `before`).
pub async fn archive(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(filter, page): Listing<ArchiveFilter>,
) -> Result<Json<ArchivePage>, ApiError> {
    Ok(Json(records::archive(&state.store, &filter, &page).await?))
}
