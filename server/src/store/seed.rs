//! First start: the initial admin, and a demo organisation so a newcomer sees something real.

use sqlx::Row;

use crate::store::users::{Role, password_problem, random_b64};
use crate::store::{Store, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum BootstrapError {
    /// The initial admin's password is held to the same rule as every other (finding 6 of
    /// issue 10: an empty one made an admin anyone could sign in as).
    #[error("TIDEPOOL_ADMIN_PASSWORD: {0}; unset it to have one generated")]
    WeakPassword(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Creates the admin `admin` if there is no admin yet. The password comes from
/// `password` (the environment), else is generated and returned so it can be printed once.
/// A password that breaks the rules is refused whether or not an admin exists, so a
/// mistake in the environment shows at the first start, not at the first restore.
pub async fn bootstrap_admin(
    store: &Store,
    password: Option<String>,
    now: i64,
) -> Result<Option<String>, BootstrapError> {
    if let Some(problem) = password.as_deref().and_then(password_problem) {
        return Err(BootstrapError::WeakPassword(problem));
    }
    if store.count_admins().await? > 0 {
        return Ok(None);
    }
    let generated = password.is_none();
    let password = password.unwrap_or_else(|| random_b64(18));
    if let Err(e) = store.create_user("admin", &password, Role::Admin, None, now).await {
        // Servers started together on one database (high availability): one made it.
        if store.count_admins().await? > 0 {
            return Ok(None);
        }
        return Err(e.into());
    }
    Ok(generated.then_some(password))
}

/// Groups, quotas, nodes with fake GPUs, a manager and member per group, templates, a
/// priority grant, a loan waiting for approval and some finished history, once.
pub async fn seed_demo(store: &Store, now: i64) -> Result<bool, StoreError> {
    let row = sqlx::query("SELECT COUNT(*) FROM groups").fetch_one(&store.pool).await?;
    let groups: i64 = row.try_get(0)?;
    if groups > 0 {
        return Ok(false);
    }
    for (name, guaranteed) in [("vision", 16), ("speech", 8), ("robotics", 8)] {
        let id = store.create_group(name, now).await?;
        sqlx::query(
            "INSERT INTO quotas (group_id, model, category, guaranteed, borrow_limit, lend_limit, budget_gpu_h) \
             VALUES ($1, 'A100-80G', 'training', $2, NULL, NULL, $3)",
        )
        .bind(id)
        .bind(guaranteed)
        .bind(f64::from(guaranteed) * 24.0 * 30.0)
        .execute(&store.pool)
        .await?;
        store.create_user(&format!("{name}-lead"), "demo-password", Role::Manager, Some(id), now).await?;
        store.create_user(&format!("{name}-dev"), "demo-password", Role::Member, Some(id), now).await?;
    }
    for (i, pool) in ["east", "east", "west", "west"].iter().enumerate() {
        sqlx::query(
            "INSERT INTO nodes (name, pool, model, gpus, nvlink_group, healthy, created_at) \
             VALUES ($1, $2, 'A100-80G', 8, 4, TRUE, $3)",
        )
        .bind(format!("gpu-{pool}-{i}"))
        .bind(*pool)
        .bind(now)
        .execute(&store.pool)
        .await?;
    }
    super::demo::organise(store, now).await?;
    Ok(true)
}
