//! Projects and their priority grants (P2): a group's manager grants a project the right
//! to run jobs at a class (critical included) until an expiry, up to a GPU cap. Jobs
//! above `normal` need such a grant; the dispatcher warns the owners before a grant
//! lapses and plans a lapsed grant's jobs at `normal`, so nothing dies at expiry.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Row;

use crate::http::auth::Caller;
use crate::http::page::{Filters, Listing, NoFilters, Order};
use crate::http::rows::{Col, objects};
use crate::http::scope::{CLASSES, acting_group, one_of, require_manager, text};
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::projects::REMIND_BEFORE_S;

const YEAR_S: i64 = 366 * 86_400;

/// Projects, oldest first, a page at a time (`next` goes in `after`), with the GPUs their
/// running jobs hold: one grouped read of the (project_id, state) index for the page.
pub async fn list(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(NoFilters {}, page): Listing<NoFilters>,
) -> Result<Json<Value>, ApiError> {
    let now = state.now();
    let pool = &state.store.pool;
    let mut filters = Filters::default();
    filters.page("p.id", &page);
    let sql = format!(
        "SELECT p.id, p.name, g.name, p.class, p.gpu_cap, p.expires_at, p.reminded_at, p.granted_by \
         FROM projects p JOIN groups g ON g.id = p.group_id{} {} LIMIT {}",
        filters.sql(),
        Order::OldestFirst.sql("p.id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(pool).await?;
    let projects = objects(
        &rows,
        &[
            ("id", Col::Int),
            ("name", Col::Text),
            ("group", Col::Text),
            ("class", Col::Text),
            ("gpu_cap", Col::OptInt),
            ("expires_at", Col::Int),
            ("reminded_at", Col::OptInt),
            ("granted_by", Col::Text),
        ],
    )?;
    let (mut projects, next) = page.finish(projects);
    let ids: Vec<i64> = projects.iter().filter_map(|p| p["id"].as_i64()).collect();
    let (lo, hi) = (ids.first().copied().unwrap_or(0), ids.last().copied().unwrap_or(-1));
    let mut running = std::collections::BTreeMap::new();
    for r in sqlx::query(
        "SELECT project_id, COALESCE(SUM(gpus), 0) FROM jobs \
         WHERE project_id BETWEEN $1 AND $2 AND state = 'running' GROUP BY project_id",
    )
    .bind(lo)
    .bind(hi)
    .fetch_all(pool)
    .await?
    {
        running.insert(r.try_get::<i64, _>(0)?, r.try_get::<i64, _>(1)?);
    }
    for p in &mut projects {
        p["running_gpus"] = json!(running.get(&p["id"].as_i64().unwrap_or(0)).copied().unwrap_or(0));
        let expires = p["expires_at"].as_i64().unwrap_or(0);
        p["expired"] = json!(expires <= now);
        p["expiring_soon"] = json!(expires > now && expires - now <= REMIND_BEFORE_S);
    }
    Ok(Json(json!({ "projects": projects, "next": next })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewProject {
    name: String,
    group: Option<String>,
    class: String,
    gpu_cap: Option<u32>,
    expires_at: i64,
}

fn check_expiry(expires_at: i64, now: i64) -> Result<(), ApiError> {
    if expires_at <= now || expires_at > now + YEAR_S {
        return Err(ApiError::Unprocessable("expires_at must be in the future, within a year".into()));
    }
    Ok(())
}

pub async fn create(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewProject>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let group = acting_group(&state.store, &user, body.group.as_deref()).await?;
    require_manager(&user, group, "grant a project priority")?;
    let name = text(&body.name, "name", 100)?;
    one_of(&body.class, CLASSES, "class")?;
    let now = state.now();
    check_expiry(body.expires_at, now)?;
    if body.gpu_cap == Some(0) {
        return Err(ApiError::Unprocessable("gpu_cap must be at least 1".into()));
    }
    let mut tx = state.store.pool.begin().await?;
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
    crate::store::events::record(
        &mut tx,
        now,
        "project-granted",
        None,
        &user.username,
        &message,
        &json!({ "project": id }),
    )
    .await?;
    tx.commit().await?;
    Ok((StatusCode::CREATED, Json(json!({ "id": id, "name": name }))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Renew {
    expires_at: i64,
}

pub async fn renew(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Renew>,
) -> Result<Json<Value>, ApiError> {
    let row = sqlx::query("SELECT group_id, name FROM projects WHERE id = $1")
        .bind(id)
        .fetch_optional(&state.store.pool)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no project {id}")))?;
    let (group, name): (i64, String) = (row.try_get(0)?, row.try_get(1)?);
    require_manager(&user, group, "renew a project's priority")?;
    let now = state.now();
    check_expiry(body.expires_at, now)?;
    let mut tx = state.store.pool.begin().await?;
    sqlx::query("UPDATE projects SET expires_at = $1, reminded_at = NULL, granted_by = $2 WHERE id = $3")
        .bind(body.expires_at)
        .bind(&user.username)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let message = format!("{} renewed project {name}'s grant until {}", user.username, body.expires_at);
    crate::store::events::record(
        &mut tx,
        now,
        "project-renewed",
        None,
        &user.username,
        &message,
        &json!({ "project": id }),
    )
    .await?;
    tx.commit().await?;
    Ok(Json(json!({ "id": id, "expires_at": body.expires_at })))
}
