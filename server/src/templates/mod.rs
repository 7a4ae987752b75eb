//! Templates (T1–T3) as rules: a frozen job shape its group creates, grants to other
//! groups (T2) and retires (T3); launching one gives that shape, once the owning group
//! has granted it to the launching group and while it is not retired. Creating,
//! granting and retiring are in `manage.rs`; the list with usage and grants in `list.rs`.

mod list;
mod manage;

pub use list::list;
pub use manage::{TemplateError, create, grant, retire};

use std::collections::BTreeMap;

use sqlx::Row;

use crate::jobs::Spec;
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

crate::store::from_sqlx!(LaunchError);

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
