//! The queue: my jobs and everything pending, with place, reason and receipt; submit from
//! a template in one click (T1) or from a spec; cancel.

use std::time::Duration;

use leptos::prelude::*;
use serde_json::{Value, json};

use crate::api;
use crate::job::JobPanel;
use crate::ui::{act, before_param, load, pager, rows, show, status_line, text, when};

#[component]
pub fn QueuePage() -> impl IntoView {
    let session = api::session();
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let mine = load(|| "/api/jobs?mine=true&limit=50".into(), refresh, Some(Duration::from_secs(3)));
    // The queue a page at a time, newest first: "Older" follows the page's `next`.
    let pending_before = RwSignal::new(None::<i64>);
    let pending = load(
        move || format!("/api/jobs?state=pending&limit=200{}", before_param(pending_before)),
        refresh,
        Some(Duration::from_secs(3)),
    );
    let templates = load(|| "/api/templates?limit=500".into(), refresh, None);
    let receipt_of = RwSignal::new(None::<i64>);
    let is_admin = move || session.role() == "admin";
    // A manager watches the whole group's running and waiting jobs.
    let groups = load(|| "/api/groups?limit=500".into(), refresh, None);
    let my_group = move || match groups.get() {
        crate::ui::Load::Ready(v) => {
            let mine = session.me.get().and_then(|m| m.group_id);
            rows(&v, "groups").into_iter().find(|g| g["id"].as_i64() == mine).map(|g| text(&g["name"]))
        }
        _ => None,
    };
    let is_manager = move || session.role() == "manager";
    let group_jobs = load(
        move || match my_group() {
            Some(g) if is_manager() => format!("/api/jobs?group={g}&limit=100"),
            _ => "/api/jobs?mine=true&limit=1".into(),
        },
        refresh,
        Some(Duration::from_secs(5)),
    );

    // The spec form: kept in signals, so an expired session loses nothing.
    let (name, command, gpus, class, project, group) = (
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new("1".to_string()),
        RwSignal::new("normal".to_string()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
    );
    // The job the form describes, for a submission or a dry run.
    let spec = move || {
        let mut body = json!({
            "name": name.get(), "command": command.get(),
            "gpus": gpus.get().trim().parse::<u32>().unwrap_or(0), "class": class.get(),
        });
        if !project.get().trim().is_empty() {
            body["project"] = json!(project.get().trim());
        }
        if !group.get().trim().is_empty() {
            body["group"] = json!(group.get().trim());
        }
        body
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        act("POST", "/api/jobs".into(), spec(), status, refresh);
    };
    // The dry run (O6): the same form, planned now, nothing written.
    let rehearsal = RwSignal::new(None::<String>);
    let dry_run = move |_| {
        let body = spec();
        leptos::task::spawn_local(async move {
            rehearsal.set(Some(match api::send("POST", "/api/jobs/dry-run", body).await {
                Ok(r) if r["would"] == "start" => {
                    let on: Vec<String> =
                        rows(&r, "nodes").iter().map(|n| format!("{} GPUs {}", text(&n[0]), n[1])).collect();
                    format!("Would start now on {}: {}", on.join(", "), text(&r["why"]))
                }
                Ok(r) => format!(
                    "Would wait at place {}: {}{}",
                    text(&r["position"]),
                    text(&r["why"]),
                    r["estimated_start"]
                        .as_i64()
                        .map(|_| format!("; estimated start {}", when(&r["estimated_start"])))
                        .unwrap_or_default()
                ),
                Err(e) => e,
            }));
        });
    };
    let jobs_table = move |v: &Value, cancel: bool| {
        let jobs = rows(v, "jobs");
        if jobs.is_empty() {
            return view! { <p class="empty">"No jobs."</p> }.into_any();
        }
        view! {
            <table>
                <tr><th>"job"</th><th>"group"</th><th>"GPUs"</th><th>"state"</th><th>"place"</th><th>"why"</th><th>"estimated start"</th><th></th></tr>
                {jobs.into_iter().map(|j| {
                    let id = j["id"].as_i64().unwrap_or(0);
                    let live = j["state"] == "pending" || j["state"] == "running";
                    view! {
                        <tr data-job=id.to_string() data-state=text(&j["state"])>
                            <td><a href="#" on:click=move |ev| { ev.prevent_default(); receipt_of.set(Some(id)); }>{format!("{id} {}", text(&j["name"]))}</a></td>
                            <td>{text(&j["group"])}</td><td>{text(&j["gpus"])}</td><td class="state">{text(&j["state"])}</td>
                            <td>{text(&j["position"])}</td><td>{text(&j["reason"])}</td>
                            <td>{if j["estimated_start"].is_null() { String::new() } else { when(&j["estimated_start"]) }}</td>
                            <td>{(cancel && live).then(|| view! {
                                <button on:click=move |_| act("POST", format!("/api/jobs/{id}/cancel"), json!({}), status, refresh)>"Cancel"</button>
                            })}</td>
                        </tr>
                    }
                }).collect_view()}
            </table>
        }.into_any()
    };
    view! {
        <section>
            <h2>"Launch a template"</h2>
            {status_line(status)}
            {show(templates, move |v| {
                let usable: Vec<Value> = rows(v, "templates").into_iter().filter(|t| t["usable"] == true).collect();
                if usable.is_empty() {
                    return view! { <p class="empty">"No template your group may use."</p> }.into_any();
                }
                view! {
                    <div class="row" id="launch">
                        {usable.into_iter().map(|t| {
                            let id = t["id"].as_i64().unwrap_or(0);
                            let label = format!("{} ({} × {})", text(&t["name"]), text(&t["gpus"]), text(&t["model"]));
                            view! {
                                <button class="primary" data-template=text(&t["name"]) on:click=move |_| {
                                    let mut body = json!({ "template": id });
                                    if is_admin() { body["group"] = t["group"].clone(); }
                                    act("POST", "/api/jobs".into(), body, status, refresh)
                                }>{format!("Launch {label}")}</button>
                            }
                        }).collect_view()}
                    </div>
                }.into_any()
            })}
            <form class="row" on:submit=submit id="submit-spec">
                <input placeholder="name" bind:value=name/>
                <input placeholder="command" bind:value=command/>
                <input placeholder="GPUs" size="4" bind:value=gpus/>
                <select on:change=move |ev| class.set(event_target_value(&ev))>
                    <option value="normal">"normal"</option>
                    <option value="batch">"batch"</option>
                    <option value="experiment">"experiment"</option>
                    <option value="critical">"critical"</option>
                </select>
                <input placeholder="project (for critical)" bind:value=project/>
                <Show when=is_admin><input placeholder="group" bind:value=group/></Show>
                <button class="primary" type="submit">"Submit"</button>
                <button type="button" id="dry-run-button" on:click=dry_run>"Dry run"</button>
            </form>
            <p id="dry-run">{move || rehearsal.get()}</p>
        </section>
        <section id="my-jobs"><h2>"My jobs"</h2>{show(mine, move |v| jobs_table(v, true))}</section>
        <section id="pending"><h2>"Waiting, in dispatch order"</h2>{show(pending, move |v| jobs_table(v, false))}{pager(pending, pending_before)}</section>
        <Show when=is_manager>
            <section id="group-jobs">
                <h2>{move || format!("{}'s running and waiting jobs", my_group().unwrap_or_default())}</h2>
                {show(group_jobs, move |v| {
                    let live: Vec<Value> = rows(v, "jobs").into_iter().filter(|j| j["state"] == "pending" || j["state"] == "running").collect();
                    jobs_table(&json!({ "jobs": live }), true)
                })}
            </section>
        </Show>
        <Show when=move || receipt_of.get().is_some()>
            <JobPanel job=receipt_of changed=refresh/>
        </Show>
    }
}
