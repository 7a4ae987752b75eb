//! Projects and their priority grants (P2), as rules: a job above `normal` runs under an
//! unexpired grant of at least its class, within the grant's GPU cap. The dispatcher
//! warns the owners [`REMIND_BEFORE_S`] ahead of expiry. Granting, renewing and the
//! list are in `grants.rs`.

mod grants;

pub use grants::{ProjectError, grant, list, renew};

use sqlx::Row;

use crate::input::{Invalid, filter};
use crate::jobs::Spec;
use crate::jobs::spec::rank;
use crate::store::{Store, StoreError};

/// How long before expiry the owners are reminded.
pub const REMIND_BEFORE_S: i64 = 7 * 86_400;

/// Why a job may not run under the project it names (or names none).
#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    /// A class above `normal` with no project named.
    #[error("{0} jobs run under a project's priority grant: name the project")]
    Unnamed(String),
    #[error("the group has no project `{0}`")]
    NoSuchProject(String),
    #[error("project `{project}` is granted up to {granted}, not {class}")]
    ClassAbove { project: String, granted: String, class: String },
    #[error("project `{project}`'s {granted} grant expired; its manager renews it")]
    Expired { project: String, granted: String },
    #[error("project `{project}` may hold {cap} GPUs at {class}; {used} are asked already")]
    OverCap { project: String, cap: i64, class: String, used: i64 },
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(GrantError);

/// The project a job of `group` runs under, checked against its grant: a class above
/// `normal` needs an unexpired grant of at least that class, within the grant's GPU cap.
pub async fn admit(
    store: &Store,
    group: i64,
    project: Option<&str>,
    spec: &Spec,
    now: i64,
) -> Result<Option<i64>, GrantError> {
    let Some(name) = project else {
        if rank(&spec.class) > rank("normal") {
            return Err(GrantError::Unnamed(spec.class.clone()));
        }
        return Ok(None);
    };
    filter(name, "project")?;
    let row =
        sqlx::query("SELECT id, class, gpu_cap, expires_at FROM projects WHERE group_id = $1 AND name = $2")
            .bind(group)
            .bind(name)
            .fetch_optional(&store.pool)
            .await?
            .ok_or_else(|| GrantError::NoSuchProject(name.to_string()))?;
    let (id, granted, cap, expires): (i64, String, Option<i64>, i64) =
        (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?, row.try_get(3)?);
    if rank(&spec.class) <= rank("normal") {
        return Ok(Some(id));
    }
    let project = name.to_string();
    if rank(&spec.class) > rank(&granted) {
        return Err(GrantError::ClassAbove { project, granted, class: spec.class.clone() });
    }
    if expires <= now {
        return Err(GrantError::Expired { project, granted });
    }
    if let Some(cap) = cap {
        let row = sqlx::query(
            "SELECT COALESCE(SUM(gpus), 0) FROM jobs WHERE project_id = $1 AND class = $2 \
             AND state IN ('pending', 'running')",
        )
        .bind(id)
        .bind(&spec.class)
        .fetch_one(&store.pool)
        .await?;
        let used: i64 = row.try_get(0)?;
        if used + spec.gpus > cap {
            return Err(GrantError::OverCap { project, cap, class: spec.class.clone(), used });
        }
    }
    Ok(Some(id))
}
