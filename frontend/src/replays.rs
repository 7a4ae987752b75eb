//! A version's replay on the policies page (O1, A3): "Replay the last 30 days" runs it over
//! the organisation's recorded submissions beside the active version and what happened,
//! and the latest stored comparison is shown under it — also to the admin who approves
//! its promotion, who reads it before approving.

use leptos::prelude::*;
use tidepool_api::replays::{Replay, ReplayList, ReplayRequest};
use tidepool_web::replay_table;

use crate::api;
use crate::ui::{act, load, show, status_line};

#[component]
pub fn ReplayCell(sha: String, promotion_asked: bool) -> impl IntoView {
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let path = format!("/api/policies/{sha}/replays");
    let listed = path.clone();
    let replays = load::<ReplayList>(move || listed.clone(), refresh, None);
    let start = move |_| {
        let body = ReplayRequest { since: "30d".into(), until: None, with: Vec::new() };
        status.set(Some("replaying…".into()));
        act(api::post::<_, Replay>(path.clone(), body), status, refresh)
    };
    view! {
        <div class="replay">
            <button class="replay" on:click=start>"Replay the last 30 days"</button>
            {status_line(status)}
            {show(replays, move |list| match list.replays.first() {
                None => {
                    let empty = if promotion_asked {
                        "Not replayed yet: replay it on the last 30 days before approving."
                    } else {
                        "Not replayed yet."
                    };
                    view! { <p class="empty">{empty}</p> }.into_any()
                }
                Some(r) => {
                    let t = replay_table::comparison(r);
                    view! {
                        <p class="muted replay-caption">{replay_table::caption(r)}</p>
                        <table class="replay-comparison">
                            <tr>{t.header.iter().map(|h| view! { <th>{h.clone()}</th> }).collect_view()}</tr>
                            {t.rows.iter().map(|row| view! {
                                <tr>{row.iter().map(|c| view! { <td>{c.clone()}</td> }).collect_view()}</tr>
                            }).collect_view()}
                        </table>
                    }
                    .into_any()
                }
            })}
        </div>
    }
}
