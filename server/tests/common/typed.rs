//! The api types against the real router: an answer read as its `tidepool_api` type must
//! give back exactly the JSON the server sent, so a renamed, added or dropped field fails.
#![allow(dead_code)] // each test file uses its own subset

use std::any::type_name;

use axum::http::StatusCode;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::common::api::TestApp;

/// `v` read as `T`, which must give back exactly `v`.
#[track_caller]
pub fn typed<T: DeserializeOwned + Serialize>(v: &Value) -> T {
    let t: T = serde_json::from_value(v.clone())
        .unwrap_or_else(|e| panic!("{} does not read the server's answer: {e}\n{v:#}", type_name::<T>()));
    let back = serde_json::to_value(&t).expect("serialises");
    assert_eq!(&back, v, "{} and the server's answer differ", type_name::<T>());
    t
}

/// Sends `body` (an api type) and reads the answer as `T`, expecting `status`.
pub async fn send<T: DeserializeOwned + Serialize>(
    app: &TestApp,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&impl Serialize>,
    status: StatusCode,
) -> T {
    let body = body.map(|b| serde_json::to_string(b).expect("serialises"));
    let (s, v) = app.call(method, path, Some(token), body.as_deref()).await;
    assert_eq!(s, status, "{method} {path}: {v}");
    typed(&v)
}

/// No request body.
pub const NONE: Option<&()> = None;
