//! The job list everyone signed in reads (V3: views are team-visible): newest first, a
//! page at a time, filtered by state, group or the caller's own submissions, with each
//! waiting job's reason, queue position and estimated start.

use crate::jobs::PLACE_OF_JOB;
use serde::Deserialize;
use sqlx::Row;
use sqlx::any::AnyRow;
use tidepool_api::jobs::{JobPage, JobRow, JobState};

use crate::access::{AccessError, group_named};
use crate::input::one_of;
use crate::store::listing::{Arg, Filters, Keyed, Order, Page};
use crate::store::users::User;
use crate::store::{Store, StoreError};
use crate::time_limits::LIMIT_OF_JOB;

/// The list's own filters (the page is apart); unknown ones are refused.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobFilter {
    /// Only jobs in this state.
    pub state: Option<String>,
    /// Only this group's jobs.
    pub group: Option<String>,
    /// Only the caller's own submissions.
    #[serde(default)]
    pub mine: bool,
}

impl Keyed for JobRow {
    fn key(&self) -> i64 {
        self.id
    }
}

/// A state as the records spell it, read back; anything else is a record the server
/// cannot read.
pub(crate) fn state_of(s: &str) -> Result<JobState, sqlx::Error> {
    JobState::parse(s).ok_or_else(|| sqlx::Error::Decode(format!("unknown job state `{s}`").into()))
}

fn row(r: &AnyRow) -> Result<JobRow, sqlx::Error> {
    Ok(JobRow {
        id: r.try_get(0)?,
        name: r.try_get(1)?,
        group: r.try_get(2)?,
        gpus: r.try_get(3)?,
        state: state_of(&r.try_get::<String, _>(4)?)?,
        reason: r.try_get(5)?,
        position: r.try_get(6)?,
        submitted_at: r.try_get(7)?,
        class: r.try_get(8)?,
        category: r.try_get(9)?,
        model: r.try_get(10)?,
        submitted_by: r.try_get(11)?,
        template: r.try_get(12)?,
        project: r.try_get(13)?,
        estimated_start: r.try_get(14)?,
        time_limit_s: r.try_get(15)?,
    })
}

/// One page of jobs as `user` filters them; `next` goes in `before`.
pub async fn list(store: &Store, user: &User, f: &JobFilter, page: &Page) -> Result<JobPage, AccessError> {
    let mut filters = Filters::default();
    if let Some(s) = &f.state {
        let states = JobState::ALL.map(JobState::as_str);
        one_of(s, &states, "state")?;
        filters.and("j.state = ?", Arg::Text(s.clone()));
    }
    if let Some(name) = &f.group {
        filters.and("j.group_id = ?", Arg::Int(group_named(store, name).await?));
    }
    if f.mine {
        filters.and("j.submitted_by = ?", Arg::Int(user.id));
    }
    Ok(read(store, &mut filters, page).await.map_err(StoreError::from)?)
}

async fn read(store: &Store, filters: &mut Filters, page: &Page) -> Result<JobPage, sqlx::Error> {
    filters.page("j.id", page);
    let sql = format!(
        "SELECT j.id, j.name, g.name, j.gpus, j.state, j.reason, {PLACE_OF_JOB}, j.submitted_at, j.class, \
         j.category, j.model, u.username, j.template_id, p.name, j.estimated_start, {LIMIT_OF_JOB} FROM jobs j \
         JOIN groups g ON g.id = j.group_id \
         JOIN users u ON u.id = j.submitted_by LEFT JOIN projects p ON p.id = j.project_id{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("j.id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(&store.pool).await?;
    let (jobs, next) = page.finish(rows.iter().map(row).collect::<Result<Vec<_>, _>>()?);
    Ok(JobPage { jobs, next })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_the_api_names_reads_back_and_others_are_refused() {
        for s in JobState::ALL {
            assert_eq!(state_of(s.as_str()).unwrap(), s);
        }
        assert!(state_of("timed_out").is_err());
    }
}
