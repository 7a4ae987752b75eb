//! The signed-in user, accounts and groups (signing in and out: `signin`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::http::auth::Caller;
use crate::http::{ApiError, AppJson, AppState};
use crate::store::users::{Role, User};

pub async fn me(Caller(user): Caller) -> Json<User> {
    Json(user)
}

/// Every group, oldest first, a page at a time (finding 8).
pub async fn groups(
    State(state): State<AppState>,
    _caller: Caller,
    crate::http::page::Listing(crate::http::page::NoFilters {}, page): crate::http::page::Listing<
        crate::http::page::NoFilters,
    >,
) -> Result<Json<Value>, ApiError> {
    let rows = sqlx::query("SELECT id, name FROM groups WHERE id > $1 AND id < $2 ORDER BY id LIMIT $3")
        .bind(page.after.unwrap_or(i64::MIN))
        .bind(page.before.unwrap_or(i64::MAX))
        .bind(page.fetch())
        .fetch_all(&state.store.pool)
        .await?;
    let groups = crate::http::rows::objects(
        &rows,
        &[("id", crate::http::rows::Col::Int), ("name", crate::http::rows::Col::Text)],
    )?;
    let (groups, next) = page.finish(groups);
    Ok(Json(json!({ "groups": groups, "next": next })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGroup {
    name: String,
}

pub async fn create_group(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewGroup>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    if user.role != Role::Admin {
        return Err(ApiError::Forbidden("only an admin creates groups".into()));
    }
    let name = body.name.trim();
    if name.is_empty()
        || name.len() > 64
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(ApiError::Unprocessable("a group name is 1-64 letters, digits, '-' or '_'".into()));
    }
    let id = state.store.create_group(name, state.now()).await?;
    Ok((StatusCode::CREATED, Json(json!({ "id": id, "name": name }))))
}

/// Everyone's username, role and group: who holds what is team-visible (V3). Oldest
/// first, a page at a time (`next` goes in `after`).
pub async fn users(
    State(state): State<AppState>,
    _caller: Caller,
    crate::http::page::Listing(crate::http::page::NoFilters {}, page): crate::http::page::Listing<
        crate::http::page::NoFilters,
    >,
) -> Result<Json<Value>, ApiError> {
    let rows = sqlx::query(
        "SELECT u.id, u.username, u.role, g.name FROM users u LEFT JOIN groups g ON g.id = u.group_id \
         WHERE u.id > $1 AND u.id < $2 ORDER BY u.id LIMIT $3",
    )
    .bind(page.after.unwrap_or(i64::MIN))
    .bind(page.before.unwrap_or(i64::MAX))
    .bind(page.fetch())
    .fetch_all(&state.store.pool)
    .await?;
    let users = crate::http::rows::objects(
        &rows,
        &[
            ("id", crate::http::rows::Col::Int),
            ("username", crate::http::rows::Col::Text),
            ("role", crate::http::rows::Col::Text),
            ("group", crate::http::rows::Col::OptText),
        ],
    )?;
    let (users, next) = page.finish(users);
    Ok(Json(json!({ "users": users, "next": next })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewUser {
    username: String,
    password: String,
    role: String,
    group: Option<String>,
}

pub async fn create_user(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<NewUser>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    crate::http::scope::require_admin(&user, "create accounts")?;
    let role = Role::parse(&body.role)
        .ok_or_else(|| ApiError::Unprocessable("role must be admin, manager or member".into()))?;
    let name = body.username.trim();
    if name.is_empty()
        || name.len() > 64
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(ApiError::Unprocessable("a username is 1-64 letters, digits, '-', '_' or '.'".into()));
    }
    if let Some(problem) = crate::store::users::password_problem(&body.password) {
        return Err(ApiError::Unprocessable(problem));
    }
    let group = match (&body.group, role) {
        (None, Role::Admin) => None,
        (Some(_), Role::Admin) => return Err(ApiError::Unprocessable("admins belong to no group".into())),
        (Some(g), _) => Some(crate::http::scope::group_named(&state.store, g).await?),
        (None, _) => return Err(ApiError::Unprocessable("managers and members belong to a group".into())),
    };
    let id = state.store.create_user(name, &body.password, role, group, state.now()).await?;
    Ok((StatusCode::CREATED, Json(json!({ "id": id, "username": name }))))
}
