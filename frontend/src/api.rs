//! Talking to the API: JSON with the session's bearer token. A 401 marks the session
//! expired: the sign-in form comes up over the page, so nothing typed is lost.

use gloo_net::http::{Request, RequestBuilder, Response};
use leptos::prelude::*;
use serde_json::Value;

/// Who is signed in.
#[derive(Clone, Debug, PartialEq)]
pub struct Me {
    pub id: i64,
    pub username: String,
    pub role: String,
    pub group_id: Option<i64>,
}

/// The session every page shares.
#[derive(Clone, Copy)]
pub struct Session {
    pub token: RwSignal<Option<String>>,
    pub me: RwSignal<Option<Me>>,
    /// True when the server refused the token: sign in again over the page.
    pub expired: RwSignal<bool>,
}

impl Session {
    pub fn new() -> Session {
        let stored = storage().and_then(|s| s.get_item("tidepool-token").ok().flatten());
        Session { token: RwSignal::new(stored), me: RwSignal::new(None), expired: RwSignal::new(false) }
    }

    pub fn role(&self) -> String {
        self.me.get().map(|m| m.role).unwrap_or_default()
    }

    pub fn sign_in(&self, tokens: &Value) {
        let token = tokens["access_token"].as_str().map(str::to_string);
        if let (Some(s), Some(t)) = (storage(), &token) {
            let _ = s.set_item("tidepool-token", t);
        }
        self.me.set(me_of(&tokens["user"]));
        self.token.set(token);
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

pub fn me_of(v: &Value) -> Option<Me> {
    Some(Me {
        id: v["id"].as_i64()?,
        username: v["username"].as_str()?.to_string(),
        role: v["role"].as_str()?.to_string(),
        group_id: v["group_id"].as_i64(),
    })
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

async fn answer(session: Session, response: Result<Response, gloo_net::Error>) -> Result<Value, String> {
    let response = response.map_err(|e| format!("the server cannot be reached: {e}"))?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    if status == 401 && session.token.get_untracked().is_some() {
        session.expired.set(true);
    }
    if (200..300).contains(&status) {
        Ok(body)
    } else {
        Err(body["error"]["message"].as_str().map_or_else(|| format!("error {status}"), str::to_string))
    }
}

fn authorised(builder: RequestBuilder, session: Session) -> RequestBuilder {
    match session.token.get_untracked() {
        Some(t) => builder.header("Authorization", &format!("Bearer {t}")),
        None => builder,
    }
}

pub async fn get(path: &str) -> Result<Value, String> {
    let s = session();
    answer(s, authorised(Request::get(path), s).send().await).await
}

/// GET, read as the API's own type for the route (`tidepool_api`): a field the server
/// renamed is an error here, never a silent blank on the page.
pub async fn get_as<T: serde::de::DeserializeOwned>(path: &str) -> Result<T, String> {
    let value = get(path).await?;
    serde_json::from_value(value).map_err(|e| format!("unexpected answer from {path}: {e}"))
}

/// POST (or PUT, PATCH) a JSON body.
pub async fn send(method: &str, path: &str, body: Value) -> Result<Value, String> {
    let s = session();
    let builder = match method {
        "PUT" => Request::put(path),
        "PATCH" => Request::patch(path),
        _ => Request::post(path),
    };
    let request = authorised(builder, s).json(&body).map_err(|e| e.to_string())?;
    answer(s, request.send().await).await
}

/// POST raw bytes (a policy module).
pub async fn upload(path: &str, bytes: Vec<u8>) -> Result<Value, String> {
    let s = session();
    let array = js_sys::Uint8Array::from(bytes.as_slice());
    let request = authorised(Request::post(path), s)
        .header("Content-Type", "application/wasm")
        .body(array)
        .map_err(|e| e.to_string())?;
    answer(s, request.send().await).await
}
