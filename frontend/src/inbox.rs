//! The inbox (O2): the alerts the signed-in person receives (admins every alert, a
//! group's managers and members their group's), newest first; mark one read, or
//! acknowledge it (no more reminders to anyone). The navigation's badge counts the
//! unread ones for every role and follows new alerts on a timer.

use std::time::Duration;

use leptos::prelude::*;
use tidepool_api::alerts::{Alert, Inbox};

use crate::api;
use crate::ui::{Load, act, at, at_or_dash, load, or_dash, show, status_line};

/// Bumped when an alert is read or acknowledged, so the badge counts again at once.
#[derive(Clone, Copy)]
pub struct Unread(pub RwSignal<u32>);

/// Seconds between looks for new alerts.
const EVERY: Duration = Duration::from_secs(10);

/// The unread count beside the Inbox button; nothing when there is none.
#[component]
pub fn UnreadBadge() -> impl IntoView {
    let Unread(refresh) = expect_context::<Unread>();
    let inbox = load::<Inbox>(|| "/api/alerts?unread=true".into(), refresh, Some(EVERY));
    move || match inbox.get() {
        Load::Ready(i) if i.unread > 0 => {
            Some(view! { <span class="badge live" id="unread-badge" data-unread=i.unread>{i.unread}</span> })
        }
        _ => None,
    }
}

fn state(a: &Alert) -> &'static str {
    match (a.resolved_at.is_some(), a.acknowledged_at.is_some()) {
        (true, _) => "resolved",
        (false, true) => "acknowledged",
        (false, false) => "open",
    }
}

#[component]
pub fn InboxPage() -> impl IntoView {
    let Unread(unread) = expect_context::<Unread>();
    let refresh = RwSignal::new(0);
    // A change here is a change of the badge too.
    Effect::new(move |_| {
        refresh.track();
        unread.update(|n| *n += 1);
    });
    let status = RwSignal::new(None::<String>);
    let only_unread = RwSignal::new(false);
    let inbox = load::<Inbox>(
        move || if only_unread.get() { "/api/alerts?unread=true".into() } else { "/api/alerts".into() },
        refresh,
        Some(EVERY),
    );
    view! {
        <section id="inbox">
            <h2>"Inbox"</h2>
            {status_line(status)}
            <label class="row">
                <input type="checkbox" id="only-unread" on:change=move |ev| only_unread.set(event_target_checked(&ev))/>
                "Unread only"
            </label>
            {show(inbox, move |i| {
                if i.alerts.is_empty() {
                    return view! { <p class="empty">"No alerts."</p> }.into_any();
                }
                view! {
                    <p class="muted">{format!("{} unread", i.unread)}</p>
                    <table>
                        <tr><th>"severity"</th><th>"rule"</th><th>"group"</th><th>"message"</th><th>"opened"</th><th>"state"</th><th>"acknowledged by"</th><th></th></tr>
                        {i.alerts.iter().map(|a| {
                            let id = a.id;
                            let ack = move |_| act(api::post_empty::<Alert>(format!("/api/alerts/{id}/ack")), status, refresh);
                            let read = move |_| act(api::post_empty::<Alert>(format!("/api/alerts/{id}/read")), status, refresh);
                            let open = a.acknowledged_at.is_none() && a.resolved_at.is_none();
                            view! {
                                <tr data-alert=id data-rule=a.rule.clone() data-read=a.read.to_string() class:unread=!a.read>
                                    <td class=a.severity.as_str()>{a.severity.as_str()}</td>
                                    <td>{a.rule.clone()}</td>
                                    <td>{or_dash(a.group.as_deref())}</td>
                                    <td>{a.message.clone()}</td>
                                    <td>{at(a.opened_at)}</td>
                                    <td class="state">{format!("{}{}", state(a), a.resolved_at.map(|t| format!(" {}", at(t))).unwrap_or_default())}</td>
                                    <td>{format!("{} {}", or_dash(a.acknowledged_by.as_deref()), if a.acknowledged_at.is_some() { at_or_dash(a.acknowledged_at) } else { String::new() })}</td>
                                    <td>
                                        {open.then(|| view! { <button class="ack" on:click=ack>"Acknowledge"</button> })}
                                        {(!a.read).then(|| view! { <button class="read" on:click=read>"Mark read"</button> })}
                                    </td>
                                </tr>
                            }
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
        </section>
    }
}
