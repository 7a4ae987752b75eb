//! Cursor pagination, one way for every list route (finding 8): `?limit=` (default 100,
//! 1 to 500) and an id cursor, `?after=` (ids above it) or `?before=` (ids below it).
//! Each list keeps a stable order by id — newest first for jobs, events, the archive,
//! loans and changes (page on with `before`), oldest first for templates, projects and
//! accounts (page on with `after`) — and answers `next`: the cursor for the following
//! page, `null` on the last. A page costs its own rows, never the whole table.

use axum::extract::{FromRequestParts, Query};
use axum::http::Uri;
use axum::http::request::Parts;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::http::ApiError;

pub const DEFAULT_LIMIT: i64 = 100;
pub const MAX_LIMIT: i64 = 500;

/// Which way a list runs, and so which cursor its `next` feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// `ORDER BY id DESC`; `next` goes in `before`.
    NewestFirst,
    /// `ORDER BY id`; `next` goes in `after`.
    OldestFirst,
}

impl Order {
    pub fn sql(self, column: &str) -> String {
        match self {
            Order::NewestFirst => format!("ORDER BY {column} DESC"),
            Order::OldestFirst => format!("ORDER BY {column}"),
        }
    }
}

/// One page's bounds.
#[derive(Clone, Copy, Debug)]
pub struct Page {
    pub limit: i64,
    pub after: Option<i64>,
    pub before: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageQuery {
    limit: Option<i64>,
    after: Option<i64>,
    before: Option<i64>,
}

impl Page {
    pub fn new(limit: Option<i64>, after: Option<i64>, before: Option<i64>) -> Result<Page, ApiError> {
        let limit = limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(ApiError::Unprocessable(format!(
                "limit must be between 1 and {MAX_LIMIT}, not {limit}"
            )));
        }
        Ok(Page { limit, after, before })
    }

    /// `LIMIT` for the query: one row more than the page, to know whether another follows.
    pub fn fetch(&self) -> i64 {
        self.limit + 1
    }

    /// The page's items and the cursor of the next page (the last item's id), if any.
    pub fn finish(&self, mut items: Vec<Value>) -> (Vec<Value>, Option<i64>) {
        if items.len() as i64 <= self.limit {
            return (items, None);
        }
        items.truncate(self.limit as usize);
        let next = items.last().and_then(|v| v["id"].as_i64());
        (items, next)
    }
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

/// A value bound to a query built from the filters a request gives.
pub enum Arg {
    Int(i64),
    Text(String),
}

/// `WHERE` clauses for the filters present only: an absent filter costs nothing and does
/// not keep the engine from using the index of a present one (`($1 IS NULL OR …)` did).
#[derive(Default)]
pub struct Filters {
    clauses: Vec<String>,
    args: Vec<Arg>,
}

impl Filters {
    /// Adds `clause`, whose `?` is this filter's placeholder.
    pub fn and(&mut self, clause: &str, arg: Arg) -> &mut Self {
        self.args.push(arg);
        self.clauses.push(clause.replace('?', &format!("${}", self.args.len())));
        self
    }

    /// Adds a clause that binds nothing.
    pub fn and_fixed(&mut self, clause: &str) -> &mut Self {
        self.clauses.push(clause.to_string());
        self
    }

    /// The page's cursor on `column`.
    pub fn page(&mut self, column: &str, page: &Page) -> &mut Self {
        if let Some(a) = page.after {
            self.and(&format!("{column} > ?"), Arg::Int(a));
        }
        if let Some(b) = page.before {
            self.and(&format!("{column} < ?"), Arg::Int(b));
        }
        self
    }

    /// ` WHERE a AND b`, or nothing.
    pub fn sql(&self) -> String {
        if self.clauses.is_empty() { String::new() } else { format!(" WHERE {}", self.clauses.join(" AND ")) }
    }

    pub fn bind<'q>(
        &'q self,
        mut q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    ) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
        for a in &self.args {
            q = match a {
                Arg::Int(i) => q.bind(*i),
                Arg::Text(t) => q.bind(t.as_str()),
            };
        }
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_keys_are_split_from_a_routes_own_filters() {
        let (page, rest) = split("state=pending&limit=5&before=9&mine=true");
        assert_eq!((page.as_str(), rest.as_str()), ("limit=5&before=9", "state=pending&mine=true"));
    }

    #[test]
    fn limits_outside_one_to_the_maximum_are_refused() {
        assert!(Page::new(Some(0), None, None).is_err());
        assert!(Page::new(Some(MAX_LIMIT + 1), None, None).is_err());
        assert_eq!(Page::new(None, None, None).unwrap().limit, DEFAULT_LIMIT);
    }

    #[test]
    fn a_full_page_names_its_last_id_as_the_next_cursor() {
        let page = Page::new(Some(2), None, None).unwrap();
        let items =
            vec![serde_json::json!({"id": 9}), serde_json::json!({"id": 7}), serde_json::json!({"id": 4})];
        let (kept, next) = page.finish(items);
        assert_eq!((kept.len(), next), (2, Some(7)));
        assert_eq!(page.finish(vec![serde_json::json!({"id": 1})]).1, None);
    }
}
