//! Templates (T1–T3): a frozen job shape (class, category, GPUs, model, topology, image,
//! command, environment) that one click launches. Another group uses it only once the
//! owner's manager granted it (T2); stale ones are retired, and usage counts show which
//! to keep (T3).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Row;

use crate::http::auth::Caller;
use crate::http::page::{Arg, Filters, Listing, Order};
use crate::http::rows::{Col, objects};
use crate::http::scope::{acting_group, belongs, require_manager, text};
use crate::http::{ApiError, AppJson, AppPath, AppState, runtime};
use crate::jobs::{Spec, sandbox, validate};
use crate::limits::{known_model, template_cap};
use crate::templates;

const COLUMNS: &[(&str, Col)] = &[
    ("id", Col::Int),
    ("name", Col::Text),
    ("group", Col::Text),
    ("category", Col::Text),
    ("class", Col::Text),
    ("gpus", Col::Int),
    ("model", Col::Text),
    ("topology", Col::Text),
    ("time_limit_s", Col::OptInt),
    ("checkpointable", Col::Bool),
    ("image", Col::Text),
    ("command", Col::Text),
    ("env", Col::Json),
    ("created_by", Col::Text),
    ("created_at", Col::Int),
    ("retired_at", Col::OptInt),
    ("group_id", Col::Int),
];

/// Each template's launches and the last one, for a page's id range, in one grouped
/// read of the (template_id, submitted_at) index: the list costs its page's jobs, never
/// templates × jobs (finding 8).
const USAGE: &str = "SELECT template_id, COUNT(*), MAX(submitted_at) FROM jobs \
     WHERE template_id BETWEEN $1 AND $2 GROUP BY template_id";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only active templates unused for this many days: the retirement review (T3).
    stale_days: Option<u32>,
}

/// Templates, oldest first, a page at a time (`next` goes in `after`), with their usage
/// and grants; env values only for the owning group and admins.
pub async fn list(
    State(state): State<AppState>,
    Caller(user): Caller,
    Listing(q, page): Listing<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    let pool = &state.store.pool;
    let mut filters = Filters::default();
    if let Some(days) = q.stale_days {
        // Active and neither launched nor created within the period (T3).
        let cutoff = state.now() - i64::from(days) * 86_400;
        filters.and_fixed("t.retired_at IS NULL").and(
            "NOT EXISTS (SELECT 1 FROM jobs j WHERE j.template_id = t.id AND j.submitted_at > ?)",
            Arg::Int(cutoff),
        );
        filters.and(
            "(t.created_at <= ? OR EXISTS (SELECT 1 FROM jobs j WHERE j.template_id = t.id))",
            Arg::Int(cutoff),
        );
    }
    filters.page("t.id", &page);
    let sql = format!(
        "SELECT t.id, t.name, g.name, t.category, t.class, t.gpus, t.model, t.topology, t.time_limit_s, \
         CAST(CASE WHEN t.checkpointable THEN 1 ELSE 0 END AS BIGINT), t.image, t.command, t.env, t.created_by, \
         t.created_at, t.retired_at, t.group_id FROM templates t JOIN groups g ON g.id = t.group_id{} {} LIMIT {}",
        filters.sql(),
        Order::OldestFirst.sql("t.id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(pool).await?;
    let (templates, next) = page.finish(objects(&rows, COLUMNS)?);
    let ids: Vec<i64> = templates.iter().filter_map(|t| t["id"].as_i64()).collect();
    let (lo, hi) = (ids.first().copied().unwrap_or(0), ids.last().copied().unwrap_or(-1));
    let mut usage: BTreeMap<i64, (i64, Option<i64>)> = BTreeMap::new();
    for r in sqlx::query(USAGE).bind(lo).bind(hi).fetch_all(pool).await? {
        usage.insert(r.try_get(0)?, (r.try_get(1)?, r.try_get(2)?));
    }
    // Per template: the groups granted its use, as (id, name).
    let mut grants: BTreeMap<i64, Vec<(i64, String)>> = BTreeMap::new();
    for r in sqlx::query(
        "SELECT tg.template_id, g.id, g.name FROM template_grants tg JOIN groups g ON g.id = tg.group_id \
         WHERE tg.template_id BETWEEN $1 AND $2 ORDER BY g.name",
    )
    .bind(lo)
    .bind(hi)
    .fetch_all(pool)
    .await?
    {
        grants.entry(r.try_get(0)?).or_default().push((r.try_get(1)?, r.try_get(2)?));
    }
    let mut out = Vec::with_capacity(templates.len());
    for mut t in templates {
        let id = t["id"].as_i64().unwrap_or_default();
        let owner = t["group_id"].as_i64().unwrap_or_default();
        let granted = grants.remove(&id).unwrap_or_default();
        let retired = !t["retired_at"].is_null();
        let usable =
            !retired && (belongs(&user, owner) || granted.iter().any(|(g, _)| user.group_id == Some(*g)));
        let (uses, last) = usage.get(&id).copied().unwrap_or((0, None));
        t["uses"] = json!(uses);
        t["last_used_at"] = json!(last);
        t["env"] = runtime::shown(t["env"].take(), &user, owner);
        t["env_shown"] = json!(belongs(&user, owner));
        t["granted_to"] = json!(granted.into_iter().map(|(_, name)| name).collect::<Vec<_>>());
        t["usable"] = json!(usable);
        out.push(t);
    }
    Ok(Json(json!({ "templates": out, "next": next })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTemplate {
    name: String,
    group: Option<String>,
    #[serde(default = "training")]
    category: String,
    #[serde(default = "normal")]
    class: String,
    gpus: u32,
    #[serde(default = "a100")]
    model: String,
    #[serde(default = "any")]
    topology: String,
    time_limit_s: Option<u64>,
    #[serde(default)]
    checkpointable: bool,
    /// The container image its jobs run in; empty or absent: the node's sandbox.
    #[serde(default)]
    image: String,
    command: String,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

fn training() -> String {
    "training".into()
}
fn normal() -> String {
    "normal".into()
}
fn a100() -> String {
    "A100-80G".into()
}
fn any() -> String {
    "any".into()
}

pub async fn create(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewTemplate>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let group = acting_group(&state.store, &user, body.group.as_deref()).await?;
    let image = match body.image.as_str() {
        "" => None,
        image => Some(sandbox::image(image)?.to_string()),
    };
    let spec = Spec {
        name: text(&body.name, "name", 100)?.to_string(),
        command: body.command,
        gpus: i64::from(body.gpus),
        model: body.model,
        category: body.category,
        class: body.class,
        topology: body.topology,
        time_limit_s: body.time_limit_s.map(|t| t.min(i64::MAX as u64) as i64),
        checkpointable: body.checkpointable,
        image,
        env: body.env,
    };
    validate(&spec)?;
    known_model(&state.store, &spec.model).await?;
    template_cap(&state.store, &state.bounds, group).await?;
    let id = templates::create(&state.store, &user, group, &spec, state.now()).await?;
    Ok((StatusCode::CREATED, Json(json!({ "id": id, "name": spec.name }))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrantBody {
    group: String,
}

pub async fn grant(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<GrantBody>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let t = templates::owner(&state.store, id).await?;
    require_manager(&user, t.group, "grant the group's templates")?;
    templates::grant(&state.store, &user, id, &t, &body.group, state.now()).await?;
    Ok((StatusCode::CREATED, Json(json!({ "template": id, "granted_to": body.group }))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetireBody {
    reason: String,
}

pub async fn retire(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<RetireBody>,
) -> Result<Json<Value>, ApiError> {
    let t = templates::owner(&state.store, id).await?;
    require_manager(&user, t.group, "retire the group's templates")?;
    let now = state.now();
    templates::retire(&state.store, &user, id, &t, &body.reason, now).await?;
    Ok(Json(json!({ "id": id, "retired_at": now })))
}
