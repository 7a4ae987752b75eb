//! The HTTP side of pagination ([`crate::store::listing`]): `?limit=`, `?after=` and
//! `?before=` read into a [`Page`], beside each list route's own filters (unknown ones
//! refused). Each list keeps a stable order by id — newest first for jobs, events, the
//! archive, loans and changes (page on with `before`), oldest first for templates,
//! projects and accounts (page on with `after`) — and answers `next`.

use axum::extract::{FromRequestParts, Query};
use axum::http::Uri;
use axum::http::request::Parts;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::http::ApiError;
pub use crate::store::listing::{DEFAULT_LIMIT, MAX_LIMIT, Page};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageQuery {
    limit: Option<i64>,
    after: Option<i64>,
    before: Option<i64>,
}

/// A list route's query: its own filters `Q` (unknown ones refused, as before) and the page.
pub struct Listing<Q>(pub Q, pub Page);

const PAGE_KEYS: [&str; 3] = ["limit", "after", "before"];

/// The query parameters named `keys` and the rest, as two query strings.
fn split(query: &str) -> (String, String) {
    let (mut page, mut rest) = (Vec::new(), Vec::new());
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let key = part.split('=').next().unwrap_or_default();
        if PAGE_KEYS.contains(&key) { page.push(part) } else { rest.push(part) }
    }
    (page.join("&"), rest.join("&"))
}

fn parse<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    let uri: Uri =
        format!("/?{query}").parse().map_err(|_| ApiError::BadRequest("unreadable query".into()))?;
    Query::<T>::try_from_uri(&uri).map(|Query(v)| v).map_err(|e| ApiError::BadRequest(e.body_text()))
}

impl<S: Send + Sync, Q: DeserializeOwned> FromRequestParts<S> for Listing<Q> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let (page, rest) = split(parts.uri.query().unwrap_or_default());
        let p: PageQuery = parse(&page)?;
        Ok(Listing(parse(&rest)?, Page::new(p.limit, p.after, p.before)?))
    }
}

/// A list with no filters of its own.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoFilters {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_keys_are_split_from_a_routes_own_filters() {
        let (page, rest) = split("state=pending&limit=5&before=9&mine=true");
        assert_eq!((page.as_str(), rest.as_str()), ("limit=5&before=9", "state=pending&mine=true"));
    }
}
