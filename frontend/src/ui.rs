//! What every page shares: data loaded from the API with loading, empty and error
//! states; actions that report their outcome; colours for groups.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::api;

#[derive(Clone, Debug, PartialEq)]
pub enum Load {
    Loading,
    Ready(Value),
    Failed(String),
}

/// `path`'s JSON, fetched again whenever `refresh` changes and, with `every`, on a timer.
pub fn load(
    path: impl Fn() -> String + Send + Sync + 'static,
    refresh: RwSignal<u32>,
    every: Option<Duration>,
) -> RwSignal<Load> {
    let state = RwSignal::new(Load::Loading);
    Effect::new(move |_| {
        refresh.track();
        let p = path();
        spawn_local(async move {
            let next = match api::get(&p).await {
                Ok(v) => Load::Ready(v),
                Err(e) => Load::Failed(e),
            };
            // Keep the last good view through a failed refresh of a live page.
            if !(matches!(next, Load::Failed(_)) && matches!(state.get_untracked(), Load::Ready(_))) {
                state.set(next);
            }
        });
    });
    if let Some(every) = every
        && let Ok(handle) = set_interval_with_handle(move || refresh.update(|n| *n += 1), every)
    {
        on_cleanup(move || handle.clear());
    }
    state
}

/// A typed load: the route's answer as its `tidepool_api` type.
#[derive(Clone, Debug, PartialEq)]
pub enum Typed<T> {
    Loading,
    Ready(T),
    Failed(String),
}

/// `path`'s answer as `T`, fetched again whenever `refresh` changes and, with `every`, on
/// a timer; a failed refresh keeps the last good answer on screen.
pub fn load_as<T>(
    path: impl Fn() -> String + Send + Sync + 'static,
    refresh: RwSignal<u32>,
    every: Option<Duration>,
) -> RwSignal<Typed<T>>
where
    T: serde::de::DeserializeOwned + Clone + Send + Sync + 'static,
{
    let state = RwSignal::new(Typed::Loading);
    Effect::new(move |_| {
        refresh.track();
        let p = path();
        spawn_local(async move {
            let next = match api::get_as::<T>(&p).await {
                Ok(v) => Typed::Ready(v),
                Err(e) => Typed::Failed(e),
            };
            if !(matches!(next, Typed::Failed(_)) && matches!(state.get_untracked(), Typed::Ready(_))) {
                state.set(next);
            }
        });
    });
    if let Some(every) = every
        && let Ok(handle) = set_interval_with_handle(move || refresh.update(|n| *n += 1), every)
    {
        on_cleanup(move || handle.clear());
    }
    state
}

/// Renders a typed load: a line while loading, the error if it failed, else `render`.
pub fn show_as<T, V>(
    state: RwSignal<Typed<T>>,
    render: impl Fn(&T) -> V + Send + Sync + 'static,
) -> impl IntoView
where
    T: Clone + Send + Sync + 'static,
    V: IntoView + 'static,
{
    move || match state.get() {
        Typed::Loading => view! { <p class="muted">"Loading…"</p> }.into_any(),
        Typed::Failed(e) => view! { <p class="error">{e}</p> }.into_any(),
        Typed::Ready(v) => render(&v).into_view().into_any(),
    }
}

/// Unix seconds as a short UTC date-time.
pub fn at(t: i64) -> String {
    when(&serde_json::json!(t))
}

/// Renders a load: a line while loading, the error if it failed, else `render`.
pub fn show<V: IntoView + 'static>(
    state: RwSignal<Load>,
    render: impl Fn(&Value) -> V + Send + Sync + 'static,
) -> impl IntoView {
    move || match state.get() {
        Load::Loading => view! { <p class="muted">"Loading…"</p> }.into_any(),
        Load::Failed(e) => view! { <p class="error">{e}</p> }.into_any(),
        Load::Ready(v) => render(&v).into_view().into_any(),
    }
}

/// Runs a change against the API; says how it went in `status` and refreshes on success.
pub fn act(
    method: &'static str,
    path: String,
    body: Value,
    status: RwSignal<Option<String>>,
    refresh: RwSignal<u32>,
) {
    spawn_local(async move {
        match api::send(method, &path, body).await {
            Ok(_) => {
                status.set(None);
                refresh.update(|n| *n += 1);
            }
            Err(e) => status.set(Some(e)),
        }
    });
}

/// A stable colour per group.
pub fn colour(group: &str) -> String {
    let hue = group.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))) % 360;
    format!("hsl({hue}, 55%, 45%)")
}

/// Unix seconds as a short UTC date-time.
pub fn when(t: &Value) -> String {
    let Some(t) = t.as_i64() else { return "—".into() };
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(t as f64 * 1000.0));
    let iso: String = d.to_iso_string().into();
    iso.get(..16).unwrap_or(&iso).replace('T', " ")
}

pub fn text(v: &Value) -> String {
    match v {
        Value::Null => "—".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The array at `key`, or none.
pub fn rows(v: &Value, key: &str) -> Vec<Value> {
    v[key].as_array().cloned().unwrap_or_default()
}

pub fn status_line(status: RwSignal<Option<String>>) -> impl IntoView {
    move || status.get().map(|e| view! { <p class="error">{e}</p> })
}

/// Paging for a newest-first list (the API answers `next`, the cursor of the next page):
/// "Older" shows the page after `state`'s, "Newest" goes back to the first.
pub fn pager(state: RwSignal<Load>, before: RwSignal<Option<i64>>) -> impl IntoView {
    move || {
        let next = match state.get() {
            Load::Ready(v) => v["next"].as_i64(),
            _ => None,
        };
        view! {
            <div class="row pager">
                {before.get().is_some().then(|| view! { <button on:click=move |_| before.set(None)>"Newest"</button> })}
                {next.map(|n| view! { <button on:click=move |_| before.set(Some(n))>"Older"</button> })}
            </div>
        }
    }
}

/// `&before=N` for a page cursor, or nothing.
pub fn before_param(before: RwSignal<Option<i64>>) -> String {
    before.get().map(|b| format!("&before={b}")).unwrap_or_default()
}
