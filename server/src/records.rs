//! The records anyone signed in may search (A1, A2, D2): the event log, and the archive
//! of finished jobs by group × year × tag. Both newest first, a page at a time (`next`
//! goes in `before`), each page in a bounded number of queries.

use std::collections::BTreeMap;

use serde::Deserialize;
use sqlx::Row;
use sqlx::any::AnyRow;
use tidepool_api::records::{ArchivePage, ArchivedJob, EventPage, LoggedEvent};

use crate::access::{AccessError, group_named};
use crate::calendar::year_bounds;
use crate::input::{Invalid, filter};
use crate::store::listing::{Arg, Filters, Keyed, Order, Page};
use crate::store::{Store, StoreError};

/// The event log's filters (the page is apart); unknown ones are refused.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventFilter {
    pub kind: Option<String>,
    pub job: Option<i64>,
    pub actor: Option<String>,
}

/// The archive's filters.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveFilter {
    pub group: Option<String>,
    /// Calendar year (UTC) the job was submitted in.
    pub year: Option<i64>,
    pub tag: Option<String>,
}

impl Keyed for LoggedEvent {
    fn key(&self) -> i64 {
        self.id
    }
}

impl Keyed for ArchivedJob {
    fn key(&self) -> i64 {
        self.id
    }
}

fn event(r: &AnyRow) -> Result<LoggedEvent, sqlx::Error> {
    // Details are stored as JSON objects; one that cannot be read shows as empty.
    let detail: String = r.try_get(7)?;
    Ok(LoggedEvent {
        id: r.try_get(0)?,
        at: r.try_get(1)?,
        kind: r.try_get(2)?,
        job: r.try_get(3)?,
        actor: r.try_get(4)?,
        policy: r.try_get(5)?,
        message: r.try_get(6)?,
        detail: crate::store::events::read(&detail),
    })
}

/// One page of the event log (D2, A4).
pub async fn events(store: &Store, f: &EventFilter, page: &Page) -> Result<EventPage, AccessError> {
    let mut filters = Filters::default();
    if let Some(kind) = &f.kind {
        filters.and("kind = ?", Arg::Text(filter(kind, "kind")?.to_string()));
    }
    if let Some(job) = f.job {
        filters.and("job_id = ?", Arg::Int(job));
    }
    if let Some(actor) = &f.actor {
        filters.and("actor = ?", Arg::Text(filter(actor, "actor")?.to_string()));
    }
    Ok(read_events(store, &mut filters, page).await.map_err(StoreError::from)?)
}

async fn read_events(store: &Store, filters: &mut Filters, page: &Page) -> Result<EventPage, sqlx::Error> {
    filters.page("id", page);
    let sql = format!(
        "SELECT id, at, kind, job_id, actor, policy, message, detail FROM events{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(&store.pool).await?;
    let (events, next) = page.finish(rows.iter().map(event).collect::<Result<Vec<_>, _>>()?);
    Ok(EventPage { events, next })
}

fn archived(r: &AnyRow) -> Result<ArchivedJob, sqlx::Error> {
    Ok(ArchivedJob {
        id: r.try_get(0)?,
        name: r.try_get(1)?,
        group: r.try_get(2)?,
        state: r.try_get(3)?,
        class: r.try_get(4)?,
        category: r.try_get(5)?,
        gpus: r.try_get(6)?,
        model: r.try_get(7)?,
        submitted_at: r.try_get(8)?,
        finished_at: r.try_get(9)?,
        gpu_s: r.try_get(10)?,
        tags: Vec::new(),
    })
}

/// The archive's years: those a person could mean.
fn year(y: i64) -> Result<(i64, i64), Invalid> {
    if !(1900..=9999).contains(&y) {
        return Err(Invalid("year must be between 1900 and 9999".into()));
    }
    Ok(year_bounds(y))
}

/// One page of finished jobs with their tags, by group × year × tag (A2).
pub async fn archive(store: &Store, f: &ArchiveFilter, page: &Page) -> Result<ArchivePage, AccessError> {
    let mut filters = Filters::default();
    filters.and_fixed("j.state NOT IN ('pending', 'running')");
    if let Some(name) = &f.group {
        filters.and("j.group_id = ?", Arg::Int(group_named(store, name).await?));
    }
    if let Some(y) = f.year {
        let (from, to) = year(y)?;
        filters.and("j.submitted_at >= ?", Arg::Int(from)).and("j.submitted_at < ?", Arg::Int(to));
    }
    if let Some(tag) = &f.tag {
        let tag = filter(tag, "tag")?.to_lowercase();
        filters.and("EXISTS (SELECT 1 FROM job_tags t WHERE t.job_id = j.id AND t.tag = ?)", Arg::Text(tag));
    }
    Ok(read_archive(store, &mut filters, page).await.map_err(StoreError::from)?)
}

async fn read_archive(store: &Store, filters: &mut Filters, page: &Page) -> Result<ArchivePage, sqlx::Error> {
    filters.page("j.id", page);
    let sql = format!(
        "SELECT j.id, j.name, g.name, j.state, j.class, j.category, j.gpus, j.model, j.submitted_at, \
         j.finished_at, j.attained_gpu_s FROM jobs j JOIN groups g ON g.id = j.group_id{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("j.id"),
        page.fetch()
    );
    let pool = &store.pool;
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(pool).await?;
    let (mut jobs, next) = page.finish(rows.iter().map(archived).collect::<Result<Vec<_>, _>>()?);
    // The tags of the jobs found, in one query over their id range.
    let mut tags: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    if let (Some(lo), Some(hi)) = (jobs.iter().map(|j| j.id).min(), jobs.iter().map(|j| j.id).max()) {
        for r in sqlx::query("SELECT job_id, tag FROM job_tags WHERE job_id BETWEEN $1 AND $2 ORDER BY tag")
            .bind(lo)
            .bind(hi)
            .fetch_all(pool)
            .await?
        {
            tags.entry(r.try_get(0)?).or_default().push(r.try_get(1)?);
        }
    }
    for j in &mut jobs {
        j.tags = tags.remove(&j.id).unwrap_or_default();
    }
    Ok(ArchivePage { jobs, next })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_years_are_those_a_person_could_mean() {
        assert!(year(1899).is_err());
        assert!(year(10_000).is_err());
        let (from, to) = year(2024).unwrap();
        assert_eq!((from, to), (1_704_067_200, 1_735_689_600));
    }
}
