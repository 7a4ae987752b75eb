//! Records (A1, A2, D2): the event log, and the archive searched by group × year × tag.

use leptos::prelude::*;
use tidepool_api::{ArchivePage, EventPage, Receipt};

use crate::ui::{at, before_param, load, or_dash, pager, show};

#[component]
pub fn RecordsPage() -> impl IntoView {
    let refresh = RwSignal::new(0);
    let kind = RwSignal::new(String::new());
    let (group, year, tag) =
        (RwSignal::new(String::new()), RwSignal::new(String::new()), RwSignal::new(String::new()));
    let query = RwSignal::new(String::new());
    // Both lists are newest first, a page at a time: "Older" follows the page's `next`.
    let (events_before, archive_before) = (RwSignal::new(None::<i64>), RwSignal::new(None::<i64>));
    let events = load::<EventPage>(
        move || {
            let k = kind.get();
            let page = before_param(events_before);
            if k.trim().is_empty() {
                format!("/api/events?limit=100{page}")
            } else {
                format!("/api/events?limit=100&kind={}{page}", js_sys::encode_uri_component(k.trim()))
            }
        },
        refresh,
        None,
    );
    // Another kind starts from the newest again.
    Effect::new(move |_| {
        kind.track();
        events_before.set(None);
    });
    let archive = load::<ArchivePage>(
        move || format!("/api/archive?limit=100{}{}", query.get(), before_param(archive_before)),
        refresh,
        None,
    );
    let job_id = RwSignal::new(String::new());
    let shown = RwSignal::new(None::<i64>);
    let receipt = load::<Receipt>(move || format!("/api/jobs/{}", shown.get().unwrap_or(0)), refresh, None);
    let search = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut q = String::new();
        for (key, v) in [("group", group.get()), ("year", year.get()), ("tag", tag.get())] {
            if !v.trim().is_empty() {
                q.push_str(&format!("&{key}={}", js_sys::encode_uri_component(v.trim())));
            }
        }
        archive_before.set(None);
        query.set(q);
    };
    view! {
        <section>
            <h2>"Archive"</h2>
            <form class="row" on:submit=search>
                <input placeholder="group" bind:value=group/>
                <input placeholder="year" size="6" bind:value=year/>
                <input placeholder="tag" bind:value=tag/>
                <button class="primary" type="submit">"Search"</button>
            </form>
            {show(archive, |v| {
                if v.jobs.is_empty() {
                    return view! { <p class="empty">"Nothing archived matches."</p> }.into_any();
                }
                view! {
                    <table id="archive">
                        <tr><th>"job"</th><th>"group"</th><th>"state"</th><th>"submitted"</th><th>"GPU-h"</th><th>"tags"</th></tr>
                        {v.jobs.iter().map(|j| view! {
                            <tr>
                                <td>{format!("{} {}", j.id, j.name)}</td><td>{j.group.clone()}</td>
                                <td>{j.state.clone()}</td><td>{at(j.submitted_at)}</td>
                                <td>{format!("{:.1}", j.gpu_s as f64 / 3600.0)}</td>
                                <td>{j.tags.join(", ")}</td>
                            </tr>
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
            {pager(archive, |p| p.next, archive_before)}
        </section>
        <section>
            <h2>"A job's dispatch receipt"</h2>
            <form class="row" on:submit=move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); shown.set(job_id.get().trim().parse().ok()); }>
                <input placeholder="job id" size="8" bind:value=job_id/>
                <button class="primary" type="submit">"Show"</button>
            </form>
            <Show when=move || shown.get().is_some()>
                {show(receipt, |r| view! {
                    <p>{format!("job {} {} of {} — {} GPUs, {}", r.id, r.name, r.group, r.gpus, r.state)}</p>
                    <table id="receipt">
                        {r.events.iter().map(|e| view! {
                            <tr><td>{at(e.at)}</td><td>{e.kind.clone()}</td><td>{e.message.clone()}</td><td class="muted">{or_dash(e.policy.as_deref())}</td></tr>
                        }).collect_view()}
                    </table>
                })}
            </Show>
        </section>
        <section>
            <h2>"Event log"</h2>
            <div class="row"><input placeholder="kind (placed, loan-active, …)" bind:value=kind/></div>
            {show(events, |v| {
                if v.events.is_empty() {
                    return view! { <p class="empty">"No events."</p> }.into_any();
                }
                view! {
                    <table id="events">
                        {v.events.iter().map(|e| view! {
                            <tr><td>{at(e.at)}</td><td>{e.kind.clone()}</td><td>{or_dash(e.actor.as_deref())}</td><td>{e.message.clone()}</td></tr>
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
            {pager(events, |p| p.next, events_before)}
        </section>
    }
}
