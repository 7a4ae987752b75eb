//! Policy modules through the API (O1, A3, B2): admins upload a module and read its
//! validation report, run it in shadow or as a canary for chosen groups, ask for its
//! promotion — which a SECOND admin approves — and roll back in one call. Every version
//! keeps its author, change note and history; everyone signed in may read them.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Row;
use tidepool_core::GroupId;

use crate::http::auth::Caller;
use crate::http::scope::{require_admin, text};
use crate::http::{ApiError, AppBytes, AppJson, AppPath, AppQuery, AppState};
use crate::policy::Kind;
use crate::policy::registry::{Approval, Registry, RegistryError, State as VersionState};

/// The largest module accepted (the runtime refuses larger ones too).
pub const MAX_MODULE_BYTES: usize = 16 << 20;

/// Makes a change to the registry the records' way round: rehearsed on a detached copy,
/// stored, and only then made on the registry the dispatcher follows — a change that
/// cannot be stored never runs. Held under the registry's lock throughout.
async fn change<T>(
    state: &AppState,
    registry: &mut Registry,
    upload: Option<(&str, &[u8])>,
    op: impl Fn(&mut Registry) -> Result<T, RegistryError>,
) -> Result<T, ApiError> {
    let mut trial = registry.detached();
    op(&mut trial)?;
    state.store.save_policy_versions(trial.versions(), upload, state.now()).await?;
    Ok(op(registry)?)
}

pub async fn list(State(state): State<AppState>, _caller: Caller) -> Result<Json<Value>, ApiError> {
    let registry = state.policies.registry.lock().await;
    let mut kinds = serde_json::Map::new();
    for kind in Kind::ALL {
        kinds.insert(
            kind.name().into(),
            json!({
                "active": state.policies.policies.active(kind),
                "versions": registry.history(kind),
            }),
        );
    }
    let unloadable: Vec<&crate::policy::registry::Version> =
        registry.versions().iter().filter(|v| v.kind.is_none()).collect();
    Ok(Json(json!({ "kinds": kinds, "rejected": unloadable })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadQuery {
    /// The change that produced this version (A3).
    note: String,
}

/// Uploads a module (the body is the component's bytes) and returns its validation report.
pub async fn upload(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppQuery(q): AppQuery<UploadQuery>,
    AppBytes(body): AppBytes,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    require_admin(&user, "upload policy modules")?;
    let note = text(&q.note, "note", 500)?.to_string();
    if body.len() < 8 || &body[0..4] != b"\0asm" {
        return Err(ApiError::Unprocessable("the body is not a WebAssembly component".into()));
    }
    // Compile before taking the lock: the runtime caches by content, so the registry's
    // own load below is a lookup, and other admins are not kept waiting on the compiler.
    let runtime = state.policies.runtime.clone();
    let bytes = body.to_vec();
    let compiled = tokio::task::spawn_blocking(move || runtime.load(&bytes).map(|_| ()))
        .await
        .map_err(|e| ApiError::Internal(format!("compiling: {e}")))?;
    let mut registry = state.policies.registry.lock().await;
    let now = state.now();
    let sha = crate::policy::runtime::sha256_hex(&body);
    let version = change(&state, &mut registry, Some((&sha, &body)), |r| {
        Ok(r.upload(&body, &user.username, &note, now).clone())
    })
    .await?;
    drop(registry);
    let report = json!({
        "sha256": version.sha256,
        "kind": version.kind,
        "interface": version.interface,
        "state": version.state,
        "author": version.author,
        "note": version.note,
    });
    match (&version.state, compiled) {
        (VersionState::Rejected { errors }, _) => Err(ApiError::Unprocessable(format!(
            "module {} was rejected (kept with its report): {}",
            &version.sha256[..12],
            errors.join("; ")
        ))),
        _ => Ok((StatusCode::CREATED, Json(report))),
    }
}

pub async fn shadow(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&user, "put policies in shadow")?;
    let mut registry = state.policies.registry.lock().await;
    let now = state.now();
    change(&state, &mut registry, None, |r| r.shadow(&sha, &user.username, now)).await?;
    Ok(Json(json!({ "sha256": sha, "state": "shadow" })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Canary {
    groups: Vec<String>,
}

/// First step of a canary: an admin asks; a second admin approves (B2), since a canary
/// changes the policy for whole groups.
pub async fn canary(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
    AppJson(body): AppJson<Canary>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    require_admin(&user, "ask for canaries")?;
    if body.groups.is_empty() || body.groups.len() > 64 {
        return Err(ApiError::Unprocessable("a canary names 1 to 64 groups".into()));
    }
    // Groups by their place in the dispatcher's snapshot (ordered by id; groups are never deleted).
    let ids: Vec<String> = sqlx::query("SELECT name FROM groups ORDER BY id")
        .fetch_all(&state.store.pool)
        .await?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?;
    let mut groups = Vec::with_capacity(body.groups.len());
    for name in &body.groups {
        let i = ids
            .iter()
            .position(|g| g == name)
            .ok_or_else(|| ApiError::Unprocessable(format!("no group `{name}`")))?;
        groups.push(GroupId(i as u32));
    }
    let mut registry = state.policies.registry.lock().await;
    change(&state, &mut registry, None, |r| r.request_canary(&sha, groups.clone(), &user.username)).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(json!({ "sha256": sha, "canary_requested_by": user.username, "groups": body.groups })),
    ))
}

/// First step of promotion: an admin asks.
pub async fn promote(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    require_admin(&user, "ask for promotions")?;
    let mut registry = state.policies.registry.lock().await;
    change(&state, &mut registry, None, |r| r.request_promotion(&sha, &user.username)).await?;
    Ok((StatusCode::ACCEPTED, Json(json!({ "sha256": sha, "promotion_requested_by": user.username }))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approve {
    note: String,
    /// `canary` or `promotion`; needed only when both wait.
    #[serde(default)]
    action: Option<Approval>,
}

/// Second step: an admin who neither asked nor wrote the version approves the canary or
/// the promotion that waits (B2).
pub async fn approve(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
    AppJson(body): AppJson<Approve>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&user, "approve canaries and promotions")?;
    let note = text(&body.note, "note", 500)?;
    let mut registry = state.policies.registry.lock().await;
    let now = state.now();
    let what =
        change(&state, &mut registry, None, |r| r.approve(&sha, body.action, &user.username, now, note))
            .await?;
    state.wake.notify_one();
    let now_state = if what == Approval::Canary { "canary" } else { "active" };
    Ok(Json(json!({ "sha256": sha, "state": now_state })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rollback {
    kind: String,
    note: String,
}

/// Back to the version active before, in one call.
pub async fn rollback(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<Rollback>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&user, "roll back policies")?;
    let kind = Kind::parse(&body.kind).ok_or_else(|| {
        ApiError::Unprocessable(format!("kind must be priority, quota or reclaim, not `{}`", body.kind))
    })?;
    let note = text(&body.note, "note", 500)?;
    let mut registry = state.policies.registry.lock().await;
    let now = state.now();
    change(&state, &mut registry, None, |r| r.rollback(kind, &user.username, now, note)).await?;
    state.wake.notify_one();
    Ok(Json(json!({ "kind": kind, "active": state.policies.policies.active(kind) })))
}
