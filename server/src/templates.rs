//! Templates (T1–T3) as rules: a frozen job shape its group creates, grants to other
//! groups (T2) and retires (T3); launching one gives that shape, once the owning group
//! has granted it to the launching group and while it is not retired. Who may grant and
//! retire (the owning group's manager) is checked by the caller against [`owner`].

use std::collections::BTreeMap;

use serde_json::json;
use sqlx::Row;

use crate::input::{Invalid, filter, text};
use crate::jobs::Spec;
use crate::store::events::record;
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// Why a template cannot be launched.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("no template {0}")]
    NoSuchTemplate(i64),
    #[error("template {0} is retired")]
    Retired(i64),
    #[error("template {0} belongs to another group, which has not granted it to yours (T2)")]
    NotGranted(i64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for LaunchError {
    fn from(e: sqlx::Error) -> Self {
        LaunchError::Store(e.into())
    }
}

/// The job template `id` launches for `group`, named `name` or as the template is.
pub async fn launch_spec(
    store: &Store,
    id: i64,
    group: i64,
    name: Option<&str>,
) -> Result<Spec, LaunchError> {
    let t = sqlx::query(
        "SELECT t.name, t.command, t.gpus, t.model, t.category, t.class, t.topology, t.time_limit_s, \
         CAST(CASE WHEN t.checkpointable THEN 1 ELSE 0 END AS BIGINT), t.group_id, t.retired_at, \
         (SELECT COUNT(*) FROM template_grants tg WHERE tg.template_id = t.id AND tg.group_id = $2), t.image \
         FROM templates t WHERE t.id = $1",
    )
    .bind(id)
    .bind(group)
    .fetch_optional(&store.pool)
    .await?
    .ok_or(LaunchError::NoSuchTemplate(id))?;
    if t.try_get::<Option<i64>, _>(10)?.is_some() {
        return Err(LaunchError::Retired(id));
    }
    if t.try_get::<i64, _>(9)? != group && t.try_get::<i64, _>(11)? == 0 {
        return Err(LaunchError::NotGranted(id));
    }
    Ok(Spec {
        name: name.map_or(t.try_get(0)?, str::to_string),
        command: t.try_get(1)?,
        gpus: t.try_get(2)?,
        model: t.try_get(3)?,
        category: t.try_get(4)?,
        class: t.try_get(5)?,
        topology: t.try_get(6)?,
        time_limit_s: t.try_get(7)?,
        checkpointable: t.try_get::<i64, _>(8)? != 0,
        // The template's image runs the job; its env stays with the template, read
        // when the job is assigned, so later readers of the job never see it.
        image: Some(t.try_get::<String, _>(12)?).filter(|i| !i.is_empty()),
        env: BTreeMap::new(),
    })
}

/// Why a template was not granted or retired.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    #[error("no template {0}")]
    NoSuchTemplate(i64),
    #[error("template {0} is retired")]
    Retired(i64),
    #[error("template {0} is retired already")]
    RetiredAlready(i64),
    #[error("no group `{0}`")]
    NoSuchGroup(String),
    #[error("the owning group uses its templates already")]
    OwnGroup,
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sqlx::Error> for TemplateError {
    fn from(e: sqlx::Error) -> Self {
        TemplateError::Store(e.into())
    }
}

/// A template's owning group, name, and whether it is retired.
pub struct Owner {
    pub group: i64,
    pub name: String,
    pub retired: bool,
}

pub async fn owner(store: &Store, id: i64) -> Result<Owner, TemplateError> {
    let row = sqlx::query("SELECT group_id, name, retired_at FROM templates WHERE id = $1")
        .bind(id)
        .fetch_optional(&store.pool)
        .await?
        .ok_or(TemplateError::NoSuchTemplate(id))?;
    Ok(Owner {
        group: row.try_get(0)?,
        name: row.try_get(1)?,
        retired: row.try_get::<Option<i64>, _>(2)?.is_some(),
    })
}

/// Records `spec` as a template of `group`, created by `user`, with its event; returns
/// its id. The spec is checked already.
pub async fn create(
    store: &Store,
    user: &User,
    group: i64,
    spec: &Spec,
    now: i64,
) -> Result<i64, StoreError> {
    let mut tx = store.pool.begin().await?;
    let row = sqlx::query(
        "INSERT INTO templates (group_id, name, category, class, gpus, model, topology, time_limit_s, \
         checkpointable, image, command, env, created_by, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id",
    )
    .bind(group)
    .bind(&spec.name)
    .bind(&spec.category)
    .bind(&spec.class)
    .bind(spec.gpus)
    .bind(&spec.model)
    .bind(&spec.topology)
    .bind(spec.time_limit_s)
    .bind(spec.checkpointable)
    .bind(spec.image.as_deref().unwrap_or(""))
    .bind(&spec.command)
    .bind(serde_json::to_string(&spec.env).unwrap_or_else(|_| "{}".into()))
    .bind(&user.username)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    let id: i64 = row.try_get(0)?;
    let message = format!("{} created template {}", user.username, spec.name);
    record(&mut tx, now, "template-created", None, &user.username, &message, &json!({ "template": id }))
        .await?;
    tx.commit().await?;
    Ok(id)
}

/// Lets the group called `to` launch template `id` (T2), with its event.
pub async fn grant(
    store: &Store,
    user: &User,
    id: i64,
    t: &Owner,
    to: &str,
    now: i64,
) -> Result<(), TemplateError> {
    if t.retired {
        return Err(TemplateError::Retired(id));
    }
    filter(to, "group")?;
    let to_id = store.group_id(to).await?.ok_or_else(|| TemplateError::NoSuchGroup(to.to_string()))?;
    if to_id == t.group {
        return Err(TemplateError::OwnGroup);
    }
    let mut tx = store.pool.begin().await?;
    sqlx::query(
        "INSERT INTO template_grants (template_id, group_id, granted_by, granted_at) VALUES ($1, $2, $3, $4)",
    )
    .bind(id)
    .bind(to_id)
    .bind(&user.username)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let message = format!("{} granted template {} to {to}", user.username, t.name);
    let detail = json!({ "template": id, "group": to });
    record(&mut tx, now, "template-granted", None, &user.username, &message, &detail).await?;
    tx.commit().await?;
    Ok(())
}

/// Retires template `id` for `reason` (T3), with its event: no launch after this.
pub async fn retire(
    store: &Store,
    user: &User,
    id: i64,
    t: &Owner,
    reason: &str,
    now: i64,
) -> Result<(), TemplateError> {
    let reason = text(reason, "reason", 500)?;
    if t.retired {
        return Err(TemplateError::RetiredAlready(id));
    }
    let mut tx = store.pool.begin().await?;
    sqlx::query("UPDATE templates SET retired_at = $1, retired_by = $2 WHERE id = $3")
        .bind(now)
        .bind(&user.username)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let message = format!("{} retired template {}: {reason}", user.username, t.name);
    record(&mut tx, now, "template-retired", None, &user.username, &message, &json!({ "template": id }))
        .await?;
    tx.commit().await?;
    Ok(())
}
