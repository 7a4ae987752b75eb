//! Cursor pagination and optional filters, one way for every list (finding 8): a page is
//! a limit (default 100, 1 to 500) and an id cursor, `after` (ids above it) or `before`
//! (ids below it). Each list keeps a stable order by id and answers `next`, the cursor of
//! the following page (none on the last), so a page costs its own rows, never the table.
//! The HTTP layer reads a [`Page`] from the query string (`http/page.rs`); the domain
//! services build their SQL with [`Filters`].

use crate::input::Invalid;

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

/// What a list is paged by: its items' ids.
pub trait Keyed {
    fn key(&self) -> i64;
}

/// One page's bounds.
#[derive(Clone, Copy, Debug)]
pub struct Page {
    pub limit: i64,
    pub after: Option<i64>,
    pub before: Option<i64>,
}

impl Default for Page {
    fn default() -> Self {
        Page { limit: DEFAULT_LIMIT, after: None, before: None }
    }
}

impl Page {
    pub fn new(limit: Option<i64>, after: Option<i64>, before: Option<i64>) -> Result<Page, Invalid> {
        let limit = limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(Invalid(format!("limit must be between 1 and {MAX_LIMIT}, not {limit}")));
        }
        Ok(Page { limit, after, before })
    }

    /// `LIMIT` for the query: one row more than the page, to know whether another follows.
    pub fn fetch(&self) -> i64 {
        self.limit + 1
    }

    /// The page's items and the cursor of the next page (the last item's id), if any.
    pub fn finish<T: Keyed>(&self, mut items: Vec<T>) -> (Vec<T>, Option<i64>) {
        if items.len() as i64 <= self.limit {
            return (items, None);
        }
        items.truncate(self.limit as usize);
        let next = items.last().map(Keyed::key);
        (items, next)
    }
}

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

    struct Item(i64);
    impl Keyed for Item {
        fn key(&self) -> i64 {
            self.0
        }
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
        let (kept, next) = page.finish(vec![Item(9), Item(7), Item(4)]);
        assert_eq!((kept.len(), next), (2, Some(7)));
        assert_eq!(page.finish(vec![Item(1)]).1, None);
    }

    #[test]
    fn absent_filters_add_no_clause_and_present_ones_number_their_placeholders() {
        let mut f = Filters::default();
        assert_eq!(f.sql(), "");
        f.and("a = ?", Arg::Int(1))
            .and_fixed("b IS NULL")
            .page("id", &Page { before: Some(5), ..Page::default() });
        assert_eq!(f.sql(), " WHERE a = $1 AND b IS NULL AND id < $2");
    }
}
