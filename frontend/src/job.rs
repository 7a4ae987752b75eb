//! One job: its dispatch receipt (what ran where, when, under which policy version and
//! why — D2, D3), its output as it arrives (the log is read in byte ranges and followed
//! while the job lives), and cancel for those the API allows.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{Value, json};

use crate::api;
use crate::ui::{act, load, rows, show, status_line, text, when};

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
    let receipt =
        load(move || format!("/api/jobs/{}", job.get().unwrap_or(0)), refresh, Some(Duration::from_secs(5)));
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
                let next = match api::get(&path).await {
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
        act("POST", format!("/api/jobs/{id}/cancel"), json!({}), status, refresh);
        changed.update(|n| *n += 1);
    };
    view! {
        <section id="job">
            <div class="row">
                <h2>"Job"</h2>
                <button on:click=move |_| job.set(None)>"Close"</button>
            </div>
            {status_line(status)}
            {show(receipt, move |r| {
                let id = r["id"].as_i64().unwrap_or(0);
                let live = r["state"] == "pending" || r["state"] == "running";
                view! {
                    <p id="job-summary" data-state=text(&r["state"])>
                        {format!("job {id} {} — {} GPUs, {}, {}", text(&r["name"]), text(&r["gpus"]), text(&r["class"]), text(&r["state"]))}
                        {live.then(|| view! { " " <button class="cancel" on:click=move |_| cancel(id)>"Cancel"</button> })}
                    </p>
                    {(!r["reason"].is_null()).then(|| view! { <p class="muted">{format!("waiting: {}", text(&r["reason"]))}</p> })}
                    <table id="job-receipt">
                        <tr><th>"when"</th><th>"what"</th><th>"why"</th><th>"policy"</th></tr>
                        {rows(r, "events").into_iter().map(|e| view! {
                            <tr data-kind=text(&e["kind"])><td>{when(&e["at"])}</td><td>{text(&e["kind"])}</td><td>{text(&e["message"])}</td><td class="muted">{text(&e["policy"])}</td></tr>
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

/// `current` with a log page added; the oldest output goes once the page keeps too much.
fn append(mut current: Output, page: &Value) -> Output {
    current.text.push_str(page["log"].as_str().unwrap_or_default());
    if current.text.len() > KEPT {
        let mut cut = current.text.len() - KEPT;
        while !current.text.is_char_boundary(cut) {
            cut += 1;
        }
        current.text.drain(..cut);
    }
    current.offset = page["next_offset"].as_i64().unwrap_or(current.offset);
    let size = page["size"].as_i64().unwrap_or(0);
    // Done when the job has ended and every byte is read.
    current.done = page["done"].as_bool().unwrap_or(false) && current.offset >= size;
    current.error = None;
    current
}
