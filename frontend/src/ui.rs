//! What every page shares: the API's answers loaded as their `tidepool_api` types, with
//! loading, empty and error states; actions that report their outcome; dates, groups'
//! colours and paging.

use std::future::Future;
use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::de::DeserializeOwned;
use tidepool_api::GroupPage;

use crate::api;

/// A route's answer as it loads.
#[derive(Clone, Debug, PartialEq)]
pub enum Load<T> {
    Loading,
    Ready(T),
    Failed(String),
}

/// `path`'s answer as `T`, fetched again whenever `refresh` changes and, with `every`, on
/// a timer; a failed refresh keeps the last good answer on screen.
pub fn load<T>(
    path: impl Fn() -> String + Send + Sync + 'static,
    refresh: RwSignal<u32>,
    every: Option<Duration>,
) -> RwSignal<Load<T>>
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    let state = RwSignal::new(Load::Loading);
    Effect::new(move |_| {
        refresh.track();
        let p = path();
        spawn_local(async move {
            let next = match api::get::<T>(&p).await {
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

/// Renders a load: a line while loading, the error if it failed, else `render`.
pub fn show<T, V>(state: RwSignal<Load<T>>, render: impl Fn(&T) -> V + Send + Sync + 'static) -> impl IntoView
where
    T: Clone + Send + Sync + 'static,
    V: IntoView + 'static,
{
    move || match state.get() {
        Load::Loading => view! { <p class="muted">"Loading…"</p> }.into_any(),
        Load::Failed(e) => view! { <p class="error">{e}</p> }.into_any(),
        Load::Ready(v) => render(&v).into_view().into_any(),
    }
}

/// Runs a change against the API (a request from [`api`]); says how it went in `status`
/// and refreshes on success.
pub fn act<T: 'static>(
    request: impl Future<Output = Result<T, String>> + 'static,
    status: RwSignal<Option<String>>,
    refresh: RwSignal<u32>,
) {
    spawn_local(async move {
        match request.await {
            Ok(_) => {
                status.set(None);
                refresh.update(|n| *n += 1);
            }
            Err(e) => status.set(Some(e)),
        }
    });
}

pub fn status_line(status: RwSignal<Option<String>>) -> impl IntoView {
    move || status.get().map(|e| view! { <p class="error">{e}</p> })
}

/// The name of the group with id `id` in a loaded group list (pages name groups, users
/// carry their group's id).
pub fn group_name(groups: RwSignal<Load<GroupPage>>, id: Option<i64>) -> Option<String> {
    match groups.get() {
        Load::Ready(page) => page.groups.into_iter().find(|g| Some(g.id) == id).map(|g| g.name),
        _ => None,
    }
}

/// A stable colour per group.
pub fn colour(group: &str) -> String {
    let hue = group.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b))) % 360;
    format!("hsl({hue}, 55%, 45%)")
}

/// Unix seconds as a short UTC date-time.
pub fn at(t: i64) -> String {
    let d = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(t as f64 * 1000.0));
    let iso: String = d.to_iso_string().into();
    iso.get(..16).unwrap_or(&iso).replace('T', " ")
}

/// A time that may be absent: "—" when it is.
pub fn at_or_dash(t: Option<i64>) -> String {
    t.map_or_else(|| "—".into(), at)
}

/// Text that may be absent: "—" when it is.
pub fn or_dash(v: Option<&str>) -> String {
    v.unwrap_or("—").to_string()
}

/// Paging for a newest-first list (the API answers `next`, the cursor of the next page,
/// which `next` reads from the page): "Older" shows the page after `state`'s, "Newest"
/// goes back to the first.
pub fn pager<T: Clone + Send + Sync + 'static>(
    state: RwSignal<Load<T>>,
    next: fn(&T) -> Option<i64>,
    before: RwSignal<Option<i64>>,
) -> impl IntoView {
    move || {
        let next = match state.get() {
            Load::Ready(v) => next(&v),
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

/// `path`'s answer as `T` for a view that changes what it shows (another week, another
/// group): each change shows "Loading…" again, never the previous answer, and an answer
/// that arrives after a newer request is dropped.
pub fn load_each<T>(path: impl Fn() -> String + Send + Sync + 'static) -> RwSignal<Load<T>>
where
    T: DeserializeOwned + Clone + Send + Sync + 'static,
{
    let state = RwSignal::new(Load::Loading);
    let asked = RwSignal::new(0u32);
    Effect::new(move |_| {
        let p = path();
        let n = asked.get_untracked() + 1;
        asked.set(n);
        state.set(Load::Loading);
        spawn_local(async move {
            let next = match api::get::<T>(&p).await {
                Ok(v) => Load::Ready(v),
                Err(e) => Load::Failed(e),
            };
            if asked.get_untracked() == n {
                state.set(next);
            }
        });
    });
    state
}

/// Text for a query string.
pub fn enc(s: &str) -> String {
    js_sys::encode_uri_component(s).into()
}
