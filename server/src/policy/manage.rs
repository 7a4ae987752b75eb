//! What admins do with policy versions (O1, A3, B2): upload a module and read its
//! validation report, run it in shadow, ask for a canary or a promotion — which a SECOND
//! admin approves — and roll back in one call. Each change is made the records' way
//! round: rehearsed on a detached copy of the registry, stored, and only then made on the
//! registry the dispatcher follows, so a change that cannot be stored never runs.

use sqlx::Row;
use tidepool_api::policies::{
    CanaryRequest, CanaryRequested, PolicyApproval, PolicyMoved, PromotionRequested, Rollback, RolledBack,
    Uploaded,
};
use tidepool_core::GroupId;

use crate::access::{AccessError, require_admin};
use crate::input::{Invalid, text};
use crate::policy::desk::PolicyDesk;
use crate::policy::registry::{Approval, Registry, RegistryError, State};
use crate::policy::{Kind, runtime::sha256_hex};
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// The largest module accepted (the runtime refuses larger ones too).
pub const MAX_MODULE_BYTES: usize = 16 << 20;

/// Why a policy change was refused.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The module failed validation; it is kept with its report.
    #[error("module {short} was rejected (kept with its report): {}", errors.join("; "))]
    Rejected { short: String, errors: Vec<String> },
    /// The compiler's task failed (not the module: a rejected module is `Rejected`).
    #[error("compiling: {0}")]
    Compile(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(PolicyError);

/// Makes `op` on `registry` the records' way round (above); held under the registry's lock.
async fn change<T>(
    store: &Store,
    registry: &mut Registry,
    upload: Option<(&str, &[u8])>,
    now: i64,
    op: impl Fn(&mut Registry) -> Result<T, RegistryError>,
) -> Result<T, PolicyError> {
    let mut trial = registry.detached();
    op(&mut trial)?;
    store.save_policy_versions(trial.versions(), upload, now).await?;
    Ok(op(registry)?)
}

/// An admin uploads a module (`bytes`, the component) with the change `note` that
/// produced it (A3), and reads its validation report.
pub async fn upload(
    desk: &PolicyDesk,
    store: &Store,
    user: &User,
    note: &str,
    bytes: &[u8],
    now: i64,
) -> Result<Uploaded, PolicyError> {
    require_admin(user, "upload policy modules")?;
    let note = text(note, "note", 500)?.to_string();
    if bytes.len() < 8 || &bytes[0..4] != b"\0asm" {
        return Err(Invalid("the body is not a WebAssembly component".into()).into());
    }
    // Compile before taking the lock: the runtime caches by content, so the registry's
    // own load below is a lookup, and other admins are not kept waiting on the compiler.
    let runtime = desk.runtime.clone();
    let owned = bytes.to_vec();
    // Whether it compiled is the registry's to judge below (a module that does not is rejected).
    let _ = tokio::task::spawn_blocking(move || runtime.load(&owned).map(|_| ()))
        .await
        .map_err(|e| PolicyError::Compile(e.to_string()))?;
    let mut registry = desk.registry.lock().await;
    let sha = sha256_hex(bytes);
    let version = change(store, &mut registry, Some((&sha, bytes)), now, |r| {
        Ok(r.upload(bytes, &user.username, &note, now).clone())
    })
    .await?;
    drop(registry);
    if let State::Rejected { errors } = &version.state {
        return Err(PolicyError::Rejected {
            short: version.sha256[..12].to_string(),
            errors: errors.clone(),
        });
    }
    Ok(Uploaded {
        sha256: version.sha256.clone(),
        kind: version.kind.map(Into::into),
        interface: version.interface.clone(),
        state: (&version.state).into(),
        author: version.author.clone(),
        note: version.note.clone(),
    })
}

/// An admin runs version `sha` in shadow beside the active one.
pub async fn shadow(
    desk: &PolicyDesk,
    store: &Store,
    user: &User,
    sha: &str,
    now: i64,
) -> Result<PolicyMoved, PolicyError> {
    require_admin(user, "put policies in shadow")?;
    let mut registry = desk.registry.lock().await;
    change(store, &mut registry, None, now, |r| r.shadow(sha, &user.username, now)).await?;
    Ok(PolicyMoved { sha256: sha.to_string(), state: "shadow".into() })
}

/// The groups named, by their place in the dispatcher's snapshot (ordered by id; groups
/// are never deleted).
async fn snapshot_groups(store: &Store, names: &[String]) -> Result<Vec<GroupId>, PolicyError> {
    let ids: Vec<String> = sqlx::query("SELECT name FROM groups ORDER BY id")
        .fetch_all(&store.pool)
        .await?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?;
    names
        .iter()
        .map(|name| match ids.iter().position(|g| g == name) {
            Some(i) => Ok(GroupId(i as u32)),
            None => Err(AccessError::NoSuchGroup(name.clone()).into()),
        })
        .collect()
}

/// First step of a canary: an admin asks; a second admin approves (B2), since a canary
/// changes the policy for whole groups.
pub async fn canary(
    desk: &PolicyDesk,
    store: &Store,
    user: &User,
    sha: &str,
    body: &CanaryRequest,
    now: i64,
) -> Result<CanaryRequested, PolicyError> {
    require_admin(user, "ask for canaries")?;
    if body.groups.is_empty() || body.groups.len() > 64 {
        return Err(Invalid("a canary names 1 to 64 groups".into()).into());
    }
    let groups = snapshot_groups(store, &body.groups).await?;
    let mut registry = desk.registry.lock().await;
    change(store, &mut registry, None, now, |r| r.request_canary(sha, groups.clone(), &user.username))
        .await?;
    Ok(CanaryRequested {
        sha256: sha.to_string(),
        canary_requested_by: user.username.clone(),
        groups: body.groups.clone(),
    })
}

/// First step of promotion: an admin asks.
pub async fn promote(
    desk: &PolicyDesk,
    store: &Store,
    user: &User,
    sha: &str,
    now: i64,
) -> Result<PromotionRequested, PolicyError> {
    require_admin(user, "ask for promotions")?;
    let mut registry = desk.registry.lock().await;
    change(store, &mut registry, None, now, |r| r.request_promotion(sha, &user.username)).await?;
    Ok(PromotionRequested { sha256: sha.to_string(), promotion_requested_by: user.username.clone() })
}

/// Second step: an admin who neither asked nor wrote the version approves the canary or
/// the promotion that waits (B2). The caller wakes the dispatcher.
pub async fn approve(
    desk: &PolicyDesk,
    store: &Store,
    user: &User,
    sha: &str,
    body: &PolicyApproval,
    now: i64,
) -> Result<PolicyMoved, PolicyError> {
    require_admin(user, "approve canaries and promotions")?;
    let note = text(&body.note, "note", 500)?;
    let mut registry = desk.registry.lock().await;
    let what =
        change(store, &mut registry, None, now, |r| r.approve(sha, body.action, &user.username, now, note))
            .await?;
    let state = if what == Approval::Canary { "canary" } else { "active" };
    Ok(PolicyMoved { sha256: sha.to_string(), state: state.into() })
}

/// Back to the kind's version active before, in one call. The caller wakes the dispatcher.
pub async fn rollback(
    desk: &PolicyDesk,
    store: &Store,
    user: &User,
    body: &Rollback,
    now: i64,
) -> Result<RolledBack, PolicyError> {
    require_admin(user, "roll back policies")?;
    let kind = Kind::from(body.kind);
    let note = text(&body.note, "note", 500)?;
    let mut registry = desk.registry.lock().await;
    change(store, &mut registry, None, now, |r| r.rollback(kind, &user.username, now, note)).await?;
    Ok(RolledBack { kind: body.kind, active: desk.policies.active(kind) })
}
