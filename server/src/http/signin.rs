//! Signing in and out (issue 10, finding 6): login throttled per username and per client
//! address, refresh tokens rotated with reuse detection, logout, and password change.

use std::net::SocketAddr;

use axum::Extension;
use axum::Json;
use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use tidepool_api::auth::{Login, Logout, Refresh, Tokens};
use tidepool_api::users::NewPassword;

use crate::accounts;
use crate::http::auth::{self, ACCESS_TTL_S, Session};
use crate::http::{ApiError, AppBytes, AppJson, AppState};
use crate::store::sessions::Rotation;
use crate::store::throttle::{Failure, Key};
use crate::store::users::{MAX_PASSWORD_BYTES, User};

/// The one kind of token this server issues.
const BEARER: &str = "Bearer";

/// 429 with `Retry-After`, in the API's error shape.
fn throttled(retry_after_s: i64) -> ApiError {
    let s = retry_after_s.max(1);
    ApiError::TooMany { retry_after_s: s, message: format!("too many failed sign-ins: try again in {s} s") }
}

/// The client's address, when the request came over a socket (the router driven without
/// one, as tests do, has none: then only the username is throttled).
fn address(connect: &Option<Extension<ConnectInfo<SocketAddr>>>) -> Option<String> {
    connect.as_ref().map(|Extension(ConnectInfo(a))| a.ip().to_string())
}

fn keys(username: &str, address: Option<&str>) -> Vec<Key> {
    let mut keys = vec![Key::username(username)];
    keys.extend(address.map(Key::address));
    keys
}

/// Checks a password for `username` unless the username or address is blocked; counts a
/// failure. Blocked, it is the 429 to answer.
async fn checked<T>(
    state: &AppState,
    username: &str,
    address: Option<&str>,
    check: impl Future<Output = Result<Option<T>, ApiError>>,
) -> Result<T, ApiError> {
    let keys = keys(username, address);
    let now = state.now();
    // Blocked: the password is not even looked at, so the right one fares no better.
    if let Some(wait) = state.store.login_blocked(&keys, now).await? {
        return Err(throttled(wait));
    }
    if let Some(found) = check.await? {
        state.store.login_succeeded(username).await?;
        return Ok(found);
    }
    let failure = Failure { username, address };
    if let Some(wait) = state.store.login_failed(&keys, &failure, now).await? {
        return Err(throttled(wait));
    }
    Err(ApiError::Unauthorized("wrong username or password".into()))
}

async fn tokens_for(state: &AppState, user: User) -> Result<Json<Tokens>, ApiError> {
    let now = state.now();
    let (family, refresh_token) = state.store.start_family(user.id, now).await?;
    Ok(Json(Tokens {
        access_token: auth::issue_access(&state.keys, user.id, &family, now)?,
        refresh_token,
        token_type: BEARER.into(),
        expires_in: ACCESS_TTL_S,
        user,
    }))
}

pub async fn login(
    State(state): State<AppState>,
    connect: Option<Extension<ConnectInfo<SocketAddr>>>,
    AppJson(body): AppJson<Login>,
) -> Result<Json<Tokens>, ApiError> {
    if body.username.len() > 200 || body.password.len() > MAX_PASSWORD_BYTES {
        return Err(ApiError::Unprocessable("username or password too long".into()));
    }
    let address = address(&connect);
    let check = async { Ok(state.store.authenticate(&body.username, &body.password).await?) };
    let user = checked(&state, &body.username, address.as_deref(), check).await?;
    tokens_for(&state, user).await
}

pub async fn refresh(
    State(state): State<AppState>,
    AppJson(body): AppJson<Refresh>,
) -> Result<Json<Tokens>, ApiError> {
    let now = state.now();
    let gone = |m: &str| ApiError::Unauthorized(format!("{m}: sign in again"));
    let (user_id, family, token) = match state.store.rotate(&body.refresh_token, now).await? {
        Rotation::Rotated { user_id, family, token } => (user_id, family, token),
        Rotation::Unknown => return Err(gone("invalid token")),
        Rotation::Expired => return Err(gone("the session has expired")),
        Rotation::Revoked => return Err(gone("the session has ended")),
        Rotation::Reused { user_id, family } => {
            tracing::warn!(user = user_id, %family, "refresh token reused: its family is revoked");
            return Err(gone("this refresh token was already used, so the session has ended"));
        }
    };
    let user = state.store.user(user_id).await?.ok_or_else(|| gone("the account no longer exists"))?;
    Ok(Json(Tokens {
        access_token: auth::issue_access(&state.keys, user_id, &family, now)?,
        refresh_token: token,
        token_type: BEARER.into(),
        expires_in: ACCESS_TTL_S,
        user,
    }))
}

/// Ends a sign-in: the family of the refresh token in the body and/or of the bearer
/// access token is revoked; their tokens stop working at once.
pub async fn logout(
    State(state): State<AppState>,
    session: Result<Session, ApiError>,
    AppBytes(bytes): AppBytes,
) -> Result<StatusCode, ApiError> {
    // The body is optional: the web app signs out with its access token alone.
    let body: Logout = if bytes.iter().all(u8::is_ascii_whitespace) {
        Logout::default()
    } else {
        serde_json::from_slice(&bytes).map_err(|e| match e.classify() {
            serde_json::error::Category::Data => ApiError::Unprocessable(format!("the body: {e}")),
            _ => ApiError::BadRequest(format!("the body is not JSON: {e}")),
        })?
    };
    let now = state.now();
    let mut families = Vec::new();
    if let Some(token) = &body.refresh_token {
        let (_, family) = state
            .store
            .family_of(token)
            .await?
            .ok_or_else(|| ApiError::Unauthorized("invalid token: sign in again".into()))?;
        families.push(family);
    }
    match session {
        Ok(Session { family: Some(f), .. }) => families.push(f),
        Ok(_) => {}
        Err(e) if families.is_empty() => return Err(e),
        Err(_) => {}
    }
    for family in families {
        state.store.revoke_family(&family, now).await?;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Changes the caller's own password. The current one is checked under the same throttle
/// as a sign-in (a stolen access token must not become a way to guess it); the user's
/// other sign-ins are ended.
pub async fn change_password(
    State(state): State<AppState>,
    connect: Option<Extension<ConnectInfo<SocketAddr>>>,
    session: Session,
    AppJson(body): AppJson<NewPassword>,
) -> Result<StatusCode, ApiError> {
    if body.current_password.len() > MAX_PASSWORD_BYTES {
        return Err(ApiError::Unauthorized("wrong username or password".into()));
    }
    accounts::password(&body.new_password)?;
    let user = &session.user;
    let address = address(&connect);
    let check = async {
        let ok = state.store.check_password(user.id, &body.current_password).await?;
        Ok(ok.then_some(()))
    };
    checked(&state, &user.username, address.as_deref(), check).await?;
    let family = session.family.as_deref();
    accounts::set_password(&state.store, user, &body.new_password, family, state.now()).await?;
    Ok(StatusCode::NO_CONTENT)
}
