//! Creating, granting and retiring templates: a group creates its own (admins name the
//! group), within the active-template cap and for a model the cluster has (T1); the
//! owning group's manager grants one to another group (T2) and retires it (T3). Each
//! step is an event.

use sqlx::Row;
use tidepool_api::templates::{NewTemplate, TemplateCreated, TemplateGranted, TemplateRetired};

use crate::access::{AccessError, acting_group, require_manager};
use crate::input::{Invalid, filter, text};
use crate::jobs::spec::DEFAULT_MODEL;
use crate::jobs::{Spec, sandbox, validate};
use crate::limits::{Bounds, Limited, known_model, template_cap};
use crate::store::events::{EventDetail, record};
use crate::store::users::User;
use crate::store::{Store, StoreError};

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
    Access(#[from] AccessError),
    /// Over the group's active-template cap, or a model the cluster lacks.
    #[error(transparent)]
    Limited(#[from] Limited),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(TemplateError);

/// A template's owning group, name, and whether it is retired.
struct Owner {
    group: i64,
    name: String,
    retired: bool,
}

async fn owner(store: &Store, id: i64) -> Result<Owner, TemplateError> {
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

/// The shape `body` freezes, with the server's defaults for what it leaves out.
fn spec_of(body: &NewTemplate) -> Result<Spec, Invalid> {
    let image = match body.image.as_deref().unwrap_or("") {
        "" => None,
        image => Some(sandbox::image(image)?.to_string()),
    };
    let or = |v: &Option<String>, default: &str| v.clone().unwrap_or_else(|| default.to_string());
    Ok(Spec {
        name: text(&body.name, "name", 100)?.to_string(),
        command: body.command.clone(),
        gpus: i64::from(body.gpus),
        model: or(&body.model, DEFAULT_MODEL),
        category: or(&body.category, "training"),
        class: or(&body.class, "normal"),
        topology: or(&body.topology, "any"),
        time_limit_s: body.time_limit_s.map(|t| t.min(i64::MAX as u64) as i64),
        checkpointable: body.checkpointable.unwrap_or(false),
        image,
        env: body.env.clone(),
    })
}

/// Creates a template of `user`'s group (admins name the group) from `body`, checked as
/// a job is, with its event.
pub async fn create(
    store: &Store,
    bounds: &Bounds,
    user: &User,
    body: &NewTemplate,
    now: i64,
) -> Result<TemplateCreated, TemplateError> {
    let group = acting_group(store, user, body.group.as_deref()).await?;
    let spec = spec_of(body)?;
    validate(&spec)?;
    // A frozen limit above its class's maximum could never launch (P1). One left out
    // stays out: each launch gets the class's default as it is then.
    crate::time_limits::within(&spec, crate::time_limits::of_class(store, &spec.class).await?.1)?;
    known_model(store, &spec.model).await?;
    template_cap(store, bounds, group).await?;
    let id = insert(store, user, group, &spec, now).await?;
    Ok(TemplateCreated { id, name: spec.name })
}

/// Records `spec` as a template of `group`, created by `user`, with its event; returns
/// its id. The spec is checked already.
async fn insert(store: &Store, user: &User, group: i64, spec: &Spec, now: i64) -> Result<i64, StoreError> {
    let mut tx = store.begin().await?;
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
    record(
        &mut tx,
        now,
        "template-created",
        None,
        &user.username,
        &message,
        &EventDetail { template: Some(id), ..EventDetail::default() },
    )
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// Lets the group called `to` launch template `id` (T2), with its event; only the
/// owning group's manager or an admin may.
pub async fn grant(
    store: &Store,
    user: &User,
    id: i64,
    to: &str,
    now: i64,
) -> Result<TemplateGranted, TemplateError> {
    let t = owner(store, id).await?;
    require_manager(user, t.group, "grant the group's templates")?;
    if t.retired {
        return Err(TemplateError::Retired(id));
    }
    filter(to, "group")?;
    let to_id = store.group_id(to).await?.ok_or_else(|| TemplateError::NoSuchGroup(to.to_string()))?;
    if to_id == t.group {
        return Err(TemplateError::OwnGroup);
    }
    let mut tx = store.begin().await?;
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
    let detail =
        EventDetail { template: Some(id), group_name: Some(to.to_string()), ..EventDetail::default() };
    record(&mut tx, now, "template-granted", None, &user.username, &message, &detail).await?;
    tx.commit().await?;
    Ok(TemplateGranted { template: id, granted_to: to.to_string() })
}

/// Retires template `id` for `reason` (T3), with its event: no launch after this. Only
/// the owning group's manager or an admin may.
pub async fn retire(
    store: &Store,
    user: &User,
    id: i64,
    reason: &str,
    now: i64,
) -> Result<TemplateRetired, TemplateError> {
    let t = owner(store, id).await?;
    require_manager(user, t.group, "retire the group's templates")?;
    let reason = text(reason, "reason", 500)?;
    if t.retired {
        return Err(TemplateError::RetiredAlready(id));
    }
    let mut tx = store.begin().await?;
    sqlx::query("UPDATE templates SET retired_at = $1, retired_by = $2 WHERE id = $3")
        .bind(now)
        .bind(&user.username)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    let message = format!("{} retired template {}: {reason}", user.username, t.name);
    record(
        &mut tx,
        now,
        "template-retired",
        None,
        &user.username,
        &message,
        &EventDetail { template: Some(id), ..EventDetail::default() },
    )
    .await?;
    tx.commit().await?;
    Ok(TemplateRetired { id, retired_at: now })
}
