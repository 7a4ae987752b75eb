//! Talking to the API: JSON with the session's bearer token, every answer read as the
//! route's `tidepool_api` type (a field the server renamed is an error on the page, never
//! a silent blank). A 401 marks the session expired: the sign-in form comes up over the
//! page, so nothing typed is lost.

use gloo_net::http::{Request, RequestBuilder, Response};
use leptos::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tidepool_api::{ErrorBody, Role, Tokens, User};

/// The session every page shares.
#[derive(Clone, Copy)]
pub struct Session {
    pub token: RwSignal<Option<String>>,
    /// Who is signed in.
    pub me: RwSignal<Option<User>>,
    /// True when the server refused the token: sign in again over the page.
    pub expired: RwSignal<bool>,
}

impl Session {
    pub fn new() -> Session {
        let stored = storage().and_then(|s| s.get_item("tidepool-token").ok().flatten());
        Session { token: RwSignal::new(stored), me: RwSignal::new(None), expired: RwSignal::new(false) }
    }

    /// The signed-in user's role; none before sign-in.
    pub fn role(&self) -> Option<Role> {
        self.me.get().map(|m| m.role)
    }

    pub fn sign_in(&self, tokens: Tokens) {
        if let Some(s) = storage() {
            let _ = s.set_item("tidepool-token", &tokens.access_token);
        }
        self.me.set(Some(tokens.user));
        self.token.set(Some(tokens.access_token));
        self.expired.set(false);
    }

    pub fn sign_out(&self) {
        if let Some(s) = storage() {
            let _ = s.remove_item("tidepool-token");
        }
        self.token.set(None);
        self.me.set(None);
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

thread_local! {
    // The one session of this page; kept here (not only in context) so requests made from
    // spawned tasks, which run outside any component, reach it.
    static SESSION: std::cell::Cell<Option<Session>> = const { std::cell::Cell::new(None) };
}

pub fn install(s: Session) {
    SESSION.with(|c| c.set(Some(s)));
}

pub fn session() -> Session {
    SESSION.with(|c| c.get()).expect("the session is installed at start")
}

/// The answer as `T`, or the message of the API's error shape. An empty success (204)
/// reads as JSON `null`, which `()` accepts.
async fn answer<T: DeserializeOwned>(
    path: &str,
    session: Session,
    response: Result<Response, gloo_net::Error>,
) -> Result<T, String> {
    let response = response.map_err(|e| format!("the server cannot be reached: {e}"))?;
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    if status == 401 && session.token.get_untracked().is_some() {
        session.expired.set(true);
    }
    if (200..300).contains(&status) {
        let body = if body.trim().is_empty() { "null" } else { &body };
        serde_json::from_str(body).map_err(|e| format!("unexpected answer from {path}: {e}"))
    } else {
        Err(serde_json::from_str::<ErrorBody>(&body)
            .map_or_else(|_| format!("error {status}"), |b| b.error.message))
    }
}

fn authorised(builder: RequestBuilder, session: Session) -> RequestBuilder {
    match session.token.get_untracked() {
        Some(t) => builder.header("Authorization", &format!("Bearer {t}")),
        None => builder,
    }
}

/// GET `path`, read as the API's type for the route.
pub async fn get<T: DeserializeOwned>(path: &str) -> Result<T, String> {
    let s = session();
    answer(path, s, authorised(Request::get(path), s).send().await).await
}

/// POST a typed body; the answer as the route's type.
pub async fn post<B: Serialize, T: DeserializeOwned>(path: String, body: B) -> Result<T, String> {
    let s = session();
    let request = authorised(Request::post(&path), s).json(&body).map_err(|e| e.to_string())?;
    answer(&path, s, request.send().await).await
}

/// POST to a route that takes no body (cancel, return, shadow, promote).
pub async fn post_empty<T: DeserializeOwned>(path: String) -> Result<T, String> {
    let s = session();
    let request = authorised(Request::post(&path), s).build().map_err(|e| e.to_string())?;
    answer(&path, s, request.send().await).await
}

/// POST raw bytes (a policy module).
pub async fn upload<T: DeserializeOwned>(path: String, bytes: Vec<u8>) -> Result<T, String> {
    let s = session();
    let array = js_sys::Uint8Array::from(bytes.as_slice());
    let request = authorised(Request::post(&path), s)
        .header("Content-Type", "application/wasm")
        .body(array)
        .map_err(|e| e.to_string())?;
    answer(&path, s, request.send().await).await
}

/// PUT a typed body (the settings); the answer as the route's type.
pub async fn put<B: Serialize, T: DeserializeOwned>(path: String, body: B) -> Result<T, String> {
    let s = session();
    let request = authorised(Request::put(&path), s).json(&body).map_err(|e| e.to_string())?;
    answer(&path, s, request.send().await).await
}
