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
use crate::policy::registry::State as VersionState;

/// The largest module accepted (the runtime refuses larger ones too).
pub const MAX_MODULE_BYTES: usize = 16 << 20;

/// Stores the registry's state after a change, under the registry's lock.
async fn save(
    state: &AppState,
    registry: &crate::policy::registry::Registry,
    upload: Option<(&str, &[u8])>,
) -> Result<(), ApiError> {
    state.store.save_policy_versions(registry.versions(), upload, state.now()).await?;
    Ok(())
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
    let version = registry.upload(&body, &user.username, &note, now).clone();
    save(&state, &registry, Some((&version.sha256, &body))).await?;
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Note {
    note: String,
}

pub async fn shadow(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&user, "put policies in shadow")?;
    let mut registry = state.policies.registry.lock().await;
    registry.shadow(&sha, &user.username, state.now())?;
    save(&state, &registry, None).await?;
    Ok(Json(json!({ "sha256": sha, "state": "shadow" })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Canary {
    groups: Vec<String>,
}

pub async fn canary(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
    AppJson(body): AppJson<Canary>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&user, "start canaries")?;
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
    registry.canary(&sha, groups, &user.username, state.now())?;
    save(&state, &registry, None).await?;
    Ok(Json(json!({ "sha256": sha, "state": "canary", "groups": body.groups })))
}

/// First step of promotion: an admin asks.
pub async fn promote(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    require_admin(&user, "ask for promotions")?;
    let mut registry = state.policies.registry.lock().await;
    registry.request_promotion(&sha, &user.username)?;
    save(&state, &registry, None).await?;
    Ok((StatusCode::ACCEPTED, Json(json!({ "sha256": sha, "promotion_requested_by": user.username }))))
}

/// Second step: a different admin approves and the version becomes active (B2).
pub async fn approve(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(sha): AppPath<String>,
    AppJson(body): AppJson<Note>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&user, "approve promotions")?;
    let note = text(&body.note, "note", 500)?;
    let mut registry = state.policies.registry.lock().await;
    registry.approve_promotion(&sha, &user.username, state.now(), note)?;
    save(&state, &registry, None).await?;
    state.wake.notify_one();
    Ok(Json(json!({ "sha256": sha, "state": "active" })))
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
    registry.rollback(kind, &user.username, state.now(), note)?;
    save(&state, &registry, None).await?;
    state.wake.notify_one();
    Ok(Json(json!({ "kind": kind, "active": state.policies.policies.active(kind) })))
}
