//! One job: its dispatch receipt (what ran where, when, under which policy version and
//! why — D2, D3), its output as it arrives (the log is read in byte ranges and followed
//! while the job lives), and cancel for those the API allows.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use tidepool_api::{Cancelled, LogRange, Receipt, WaitSpan};
use tidepool_web::scale::duration;
use tidepool_web::timeline;

use crate::api;
use crate::ui::{act, at, load, show, status_line};

/// The most of a job's output the page keeps: the tail, like a terminal's scrollback.
const KEPT: usize = 256 * 1024;

/// The log so far and where the next read starts.
#[derive(Clone, Debug, Default, PartialEq)]
struct Output {
    text: String,
    offset: i64,
    done: bool,
    error: Option<String>,
}

#[component]
pub fn JobPanel(job: RwSignal<Option<i64>>, changed: RwSignal<u32>) -> impl IntoView {
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let receipt = load::<Receipt>(
        move || format!("/api/jobs/{}", job.get().unwrap_or(0)),
        refresh,
        Some(Duration::from_secs(5)),
    );
    let output = RwSignal::new(Output::default());
    // A new job: start its log from the beginning.
    Effect::new(move |_| {
        job.track();
        output.set(Output::default());
    });
    // Follow the log: read what is new every two seconds until the job is done.
    if let Ok(handle) = set_interval_with_handle(
        move || {
            let (Some(id), current) = (job.get_untracked(), output.get_untracked()) else { return };
            if current.done {
                return;
            }
            spawn_local(async move {
                let path = format!("/api/jobs/{id}/log?offset={}&limit=65536", current.offset);
                let next = match api::get::<LogRange>(&path).await {
                    Ok(page) => append(current, &page),
                    Err(e) => Output { error: Some(e), ..current },
                };
                // The job may have changed while the read was out.
                if job.get_untracked() == Some(id) {
                    output.set(next);
                }
            });
        },
        Duration::from_secs(2),
    ) {
        on_cleanup(move || handle.clear());
    }
    let cancel = move |id: i64| {
        act(api::post_empty::<Cancelled>(format!("/api/jobs/{id}/cancel")), status, refresh);
        changed.update(|n| *n += 1);
    };
    view! {
        <section id="job">
            <div class="row">
                <h2>"Job"</h2>
                <button on:click=move |_| job.set(None)>"Close"</button>
            </div>
            {status_line(status)}
            {show(receipt, move |r: &Receipt| {
                let id = r.id;
                let live = !r.state.is_done();
                view! {
                    <p id="job-summary" data-state=r.state.as_str()>
                        {format!("job {id} {} — {} GPUs in {}, {}", r.name, r.gpus, r.group, r.state)}
                        {live.then(|| view! { " " <button class="cancel" on:click=move |_| cancel(id)>"Cancel"</button> })}
                    </p>
                    <p class="muted" id="job-limit">{format!("time limit: {}", crate::limits::words(r.time_limit_s))}</p>
                    {r.reason.clone().map(|why| view! { <p class="muted">{format!("why: {why}")}</p> })}
                    {waits(&r.waits)}
                    <table id="job-receipt">
                        <tr><th>"when"</th><th>"what"</th><th>"why"</th><th>"policy"</th></tr>
                        {r.events.iter().map(|e| view! {
                            <tr data-kind=e.kind.clone()><td>{at(e.at)}</td><td>{e.kind.clone()}</td><td>{e.message.clone()}</td><td class="muted">{e.policy.clone().unwrap_or_default()}</td></tr>
                        }).collect_view()}
                    </table>
                }
            })}
            <h3>"Output"</h3>
            {move || {
                let o = output.get();
                let empty = o.text.is_empty();
                view! {
                    {o.error.map(|e| view! { <p class="error">{e}</p> })}
                    <pre id="job-log" data-done=o.done.to_string()>{o.text}</pre>
                    {empty.then(|| view! { <p class="empty">{if o.done { "It printed nothing." } else { "No output yet." }}</p> })}
                }
            }}
        </section>
    }
}

/// Why it waited, span by span (D2): the timeline band, then its spans in words.
fn waits(spans: &[WaitSpan]) -> impl IntoView + use<> {
    if spans.is_empty() {
        return None;
    }
    let now = (js_sys::Date::now() / 1000.0) as i64;
    let rows = spans
        .iter()
        .map(|w| {
            let secs = timeline::end_of(w, now) - w.since;
            view! {
                <tr data-kind=w.kind.clone()>
                    <td>{at(w.since)}</td>
                    <td>{w.until.map_or_else(|| "still waiting".to_string(), at)}</td>
                    <td>{duration(secs as f64)}</td>
                    <td><span class="swatch" style=format!("background:{}", timeline::colour(&w.kind))></span>{w.label.clone()}</td>
                    <td class="muted">{w.reason.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    Some(view! {
        <h3>"Why it waited"</h3>
        <div class="chart-box" inner_html=timeline::svg(spans, now)></div>
        <table id="job-waits">
            <tr><th>"from"</th><th>"to"</th><th>"for"</th><th>"why"</th><th>"first given as"</th></tr>
            {rows}
        </table>
    })
}

/// `current` with a log page added; the oldest output goes once the page keeps too much.
fn append(mut current: Output, page: &LogRange) -> Output {
    current.text.push_str(&page.log);
    if current.text.len() > KEPT {
        let mut cut = current.text.len() - KEPT;
        while !current.text.is_char_boundary(cut) {
            cut += 1;
        }
        current.text.drain(..cut);
    }
    current.offset = page.next_offset;
    // Done when the job has ended and every byte is read.
    current.done = page.done && current.offset >= page.size;
    current.error = None;
    current
}
