//! Authentication: username and password (argon2) give a short-lived access token (JWT,
//! HS256 only: a token naming another algorithm, `none` included, is refused) and a
//! refresh token (opaque, rotated on use: see `store::sessions`). Every request after
//! login carries `Authorization: Bearer <token>`. An access token names its sign-in's
//! family, so signing out or changing the password stops it at once, not in 15 minutes.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::http::{ApiError, AppState};
use crate::store::users::User;

pub const ACCESS_TTL_S: i64 = 15 * 60;
pub use crate::store::sessions::REFRESH_TTL_S;

/// What a client is told about any token the library refuses: its reasons (a bad
/// signature, base64, JSON) are the library's, not the caller's business.
const INVALID: &str = "invalid token: sign in again";

/// Signing keys from the server's secret.
pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl Keys {
    /// Keys from a secret of at least 32 bytes.
    pub fn new(secret: &[u8]) -> Result<Keys, String> {
        if secret.len() < 32 {
            return Err("the token secret must be at least 32 bytes".into());
        }
        let bad = |e: jsonwebtoken::errors::Error| format!("token secret: {e}");
        Ok(Keys {
            encoding: EncodingKey::from_secret(secret).map_err(bad)?,
            decoding: DecodingKey::from_secret(secret).map_err(bad)?,
        })
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    /// The user's id.
    pub sub: i64,
    pub exp: i64,
    pub iat: i64,
    /// "access" (refresh tokens are no longer JWTs; an older "refresh" JWT is refused).
    pub kind: String,
    /// The sign-in's family (`store::sessions`): revoking it stops this token too.
    /// Absent only on tokens the server mints for itself (benchmarks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fam: Option<String>,
}

/// A token of `kind` outside any sign-in (the server's own use, e.g. benchmarks).
pub fn issue(keys: &Keys, user: &User, kind: &str, now: i64) -> Result<String, ApiError> {
    let ttl = if kind == "refresh" { REFRESH_TTL_S } else { ACCESS_TTL_S };
    sign(keys, &Claims { sub: user.id, exp: now + ttl, iat: now, kind: kind.into(), fam: None })
}

/// An access token for a sign-in's family.
pub fn issue_access(keys: &Keys, user_id: i64, family: &str, now: i64) -> Result<String, ApiError> {
    let claims = Claims {
        sub: user_id,
        exp: now + ACCESS_TTL_S,
        iat: now,
        kind: "access".into(),
        fam: Some(family.into()),
    };
    sign(keys, &claims)
}

fn sign(keys: &Keys, claims: &Claims) -> Result<String, ApiError> {
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &keys.encoding)
        .map_err(|e| ApiError::Internal(format!("signing a token: {e}")))
}

/// The claims of a valid token of `kind`, unexpired at `now` (the server's clock, which
/// tests control; the library's own expiry check would read the system clock).
pub fn verify(keys: &Keys, token: &str, kind: &str, now: i64) -> Result<Claims, ApiError> {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.validate_exp = false;
    validation.required_spec_claims = ["exp".to_string()].into_iter().collect();
    let data = jsonwebtoken::decode::<Claims>(token, &keys.decoding, &validation)
        .map_err(|_| ApiError::Unauthorized(INVALID.into()))?;
    if data.claims.exp <= now {
        return Err(ApiError::Unauthorized("the token has expired: sign in again".into()));
    }
    if data.claims.kind != kind {
        return Err(ApiError::Unauthorized(format!("a {} token cannot be used here", data.claims.kind)));
    }
    Ok(data.claims)
}

/// The signed-in user, from the bearer token; 401 otherwise.
pub struct Caller(pub User);

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        Ok(Caller(Session::from_request_parts(parts, state).await?.user))
    }
}

/// The signed-in user and the sign-in (family) the token belongs to: signing out and
/// changing the password act on it.
pub struct Session {
    pub user: User,
    pub family: Option<String>,
}

impl FromRequestParts<AppState> for Session {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let header = parts
            .headers
            .get(axum::http::header::AUTHORIZATION)
            .ok_or_else(|| ApiError::Unauthorized("sign in: no Authorization header".into()))?;
        let token = header.to_str().ok().and_then(|h| h.strip_prefix("Bearer ")).ok_or_else(|| {
            ApiError::Unauthorized("the Authorization header must be `Bearer <token>`".into())
        })?;
        let claims = verify(&state.keys, token, "access", state.now())?;
        let user = state.store.session_user(claims.sub, claims.fam.as_deref()).await?;
        let user =
            user.ok_or_else(|| ApiError::Unauthorized("the session has ended: sign in again".into()))?;
        Ok(Session { user, family: claims.fam })
    }
}
