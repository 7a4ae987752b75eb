//! Granting projects priority (P2) and the list everyone reads: a group's manager grants
//! a project a class until an expiry, up to a GPU cap, and renews it; each grant is an
//! event. The list shows the GPUs each project's running jobs hold and which grants
//! expire soon, so owners renew before the dispatcher plans their jobs at `normal`.

use std::collections::BTreeMap;

use sqlx::Row;
use sqlx::any::AnyRow;
use tidepool_api::projects::{NewProject, Project, ProjectCreated, ProjectPage, Renewed};

use super::REMIND_BEFORE_S;
use crate::access::{AccessError, acting_group, require_manager};
use crate::input::{Invalid, one_of, text};
use crate::jobs::CLASSES;
use crate::store::events::{EventDetail, record};
use crate::store::listing::{Filters, Keyed, Order, Page};
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// The longest a grant runs before its manager renews it.
const YEAR_S: i64 = 366 * 86_400;

/// Why a project was not granted or renewed.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("no project {0}")]
    NoSuchProject(i64),
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(ProjectError);

impl Keyed for Project {
    fn key(&self) -> i64 {
        self.id
    }
}

/// A grant ends in the future, within a year.
fn check_expiry(expires_at: i64, now: i64) -> Result<(), Invalid> {
    if expires_at <= now || expires_at > now + YEAR_S {
        return Err(Invalid("expires_at must be in the future, within a year".into()));
    }
    Ok(())
}

fn project_of(row: &AnyRow, now: i64) -> Result<Project, sqlx::Error> {
    let expires_at: i64 = row.try_get(5)?;
    Ok(Project {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        group: row.try_get(2)?,
        class: row.try_get(3)?,
        gpu_cap: row.try_get(4)?,
        expires_at,
        reminded_at: row.try_get(6)?,
        granted_by: row.try_get(7)?,
        running_gpus: 0,
        expired: expires_at <= now,
        expiring_soon: expires_at > now && expires_at - now <= REMIND_BEFORE_S,
    })
}

/// Projects, oldest first, a page at a time (`next` goes in `after`), with the GPUs their
/// running jobs hold: one grouped read of the (project_id, state) index for the page.
pub async fn list(store: &Store, page: &Page, now: i64) -> Result<ProjectPage, StoreError> {
    let mut filters = Filters::default();
    filters.page("p.id", page);
    let sql = format!(
        "SELECT p.id, p.name, g.name, p.class, p.gpu_cap, p.expires_at, p.reminded_at, p.granted_by \
         FROM projects p JOIN groups g ON g.id = p.group_id{} {} LIMIT {}",
        filters.sql(),
        Order::OldestFirst.sql("p.id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(&store.pool).await?;
    let projects = rows.iter().map(|r| project_of(r, now)).collect::<Result<Vec<_>, _>>()?;
    let (mut projects, next) = page.finish(projects);
    let (lo, hi) = (projects.first().map_or(0, |p| p.id), projects.last().map_or(-1, |p| p.id));
    let mut running = BTreeMap::new();
    for r in sqlx::query(
        "SELECT project_id, COALESCE(SUM(gpus), 0) FROM jobs \
         WHERE project_id BETWEEN $1 AND $2 AND state = 'running' GROUP BY project_id",
    )
    .bind(lo)
    .bind(hi)
    .fetch_all(&store.pool)
    .await?
    {
        running.insert(r.try_get::<i64, _>(0)?, r.try_get::<i64, _>(1)?);
    }
    for p in &mut projects {
        p.running_gpus = running.get(&p.id).copied().unwrap_or(0);
    }
    Ok(ProjectPage { projects, next })
}

/// Grants a project of `user`'s group (admins name the group) priority up to a class,
/// until an expiry; only the group's manager or an admin may.
pub async fn grant(
    store: &Store,
    user: &User,
    body: &NewProject,
    now: i64,
) -> Result<ProjectCreated, ProjectError> {
    let group = acting_group(store, user, body.group.as_deref()).await?;
    require_manager(user, group, "grant a project priority")?;
    let name = text(&body.name, "name", 100)?;
    one_of(&body.class, CLASSES, "class")?;
    check_expiry(body.expires_at, now)?;
    if body.gpu_cap == Some(0) {
        return Err(Invalid("gpu_cap must be at least 1".into()).into());
    }
    let mut tx = store.begin().await?;
    let row = sqlx::query(
        "INSERT INTO projects (group_id, name, class, gpu_cap, expires_at, reminded_at, granted_by, created_at) \
         VALUES ($1, $2, $3, $4, $5, NULL, $6, $7) RETURNING id",
    )
    .bind(group)
    .bind(name)
    .bind(&body.class)
    .bind(body.gpu_cap.map(i64::from))
    .bind(body.expires_at)
    .bind(&user.username)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    let id: i64 = row.try_get(0)?;
    let message =
        format!("{} granted project {name} {} priority until {}", user.username, body.class, body.expires_at);
    record(
        &mut tx,
        now,
        "project-granted",
        None,
        &user.username,
        &message,
        &EventDetail { project: Some(id), ..EventDetail::default() },
    )
    .await?;
    tx.commit().await?;
    Ok(ProjectCreated { id, name: name.to_string() })
}

/// Renews project `id`'s grant until `expires_at`; the expiry reminder is sent again
/// before the new end.
pub async fn renew(
    store: &Store,
    user: &User,
    id: i64,
    expires_at: i64,
    now: i64,
) -> Result<Renewed, ProjectError> {
    let row = sqlx::query("SELECT group_id, name FROM projects WHERE id = $1")
        .bind(id)
        .fetch_optional(&store.pool)
        .await?
        .ok_or(ProjectError::NoSuchProject(id))?;
    let (group, name): (i64, String) = (row.try_get(0)?, row.try_get(1)?);
    require_manager(user, group, "renew a project's priority")?;
    check_expiry(expires_at, now)?;
    let mut tx = store.begin().await?;
    sqlx::query("UPDATE projects SET expires_at = $1, reminded_at = NULL, granted_by = $2 WHERE id = $3")
        .bind(expires_at)
        .bind(&user.username)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let message = format!("{} renewed project {name}'s grant until {expires_at}", user.username);
    record(
        &mut tx,
        now,
        "project-renewed",
        None,
        &user.username,
        &message,
        &EventDetail { project: Some(id), ..EventDetail::default() },
    )
    .await?;
    tx.commit().await?;
    Ok(Renewed { id, expires_at })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grant_ends_after_now_and_within_a_year() {
        assert!(check_expiry(100, 100).is_err());
        assert!(check_expiry(101, 100).is_ok());
        assert!(check_expiry(100 + YEAR_S, 100).is_ok());
        assert!(check_expiry(101 + YEAR_S, 100).is_err());
    }
}
