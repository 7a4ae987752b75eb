//! Policies (admins; O1, A3, B2): upload a module and read its validation report, run it
//! in shadow, ask for its promotion — a second admin approves — roll back, read every
//! version's history. Configuration changes waiting for a second reviewer are here too.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{Value, json};
use wasm_bindgen::JsCast;

use crate::api;
use crate::ui::{act, load, rows, show, status_line, text, when};

#[component]
pub fn PoliciesPage() -> impl IntoView {
    let session = api::session();
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let report = RwSignal::new(None::<String>);
    let policies = load(|| "/api/policies".into(), refresh, None);
    let changes = load(|| "/api/changes".into(), refresh, None);
    let note = RwSignal::new(String::new());
    let file = NodeRef::<leptos::html::Input>::new();
    let upload = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(input) = file.get() else { return };
        let input: web_sys::HtmlInputElement = input.unchecked_into();
        let Some(f) = input.files().and_then(|l| l.get(0)) else {
            status.set(Some("choose a module file".into()));
            return;
        };
        let path = format!("/api/policies?note={}", js_sys::encode_uri_component(&note.get()));
        spawn_local(async move {
            let bytes = match wasm_bindgen_futures::JsFuture::from(f.array_buffer()).await {
                Ok(buf) => js_sys::Uint8Array::new(&buf).to_vec(),
                Err(_) => return status.set(Some("cannot read the file".into())),
            };
            match api::upload(&path, bytes).await {
                Ok(v) => {
                    report.set(Some(format!("{} policy {} validated", text(&v["kind"]), text(&v["sha256"]))));
                    status.set(None);
                    refresh.update(|n| *n += 1);
                }
                Err(e) => status.set(Some(e)),
            }
        });
    };
    let me = move || session.me.get().map(|m| m.username).unwrap_or_default();
    let canary_groups = RwSignal::new(String::new());
    let shadows = load(|| "/api/events?kind=policy-shadow&limit=20".into(), refresh, None);
    let version = move |v: Value| {
        let sha = text(&v["sha256"]);
        let state = text(&v["state"]["state"]);
        let asked = v["promotion_requested_by"].as_str().map(str::to_string);
        let canary_asked = v["canary_requested_by"].as_str().map(str::to_string);
        let (s1, s2, s3, s5) = (sha.clone(), sha.clone(), sha.clone(), sha.clone());
        // Neither the asker nor the author approves (B2); the server enforces it too.
        let author = text(&v["author"]);
        let reviewer =
            move |asker: &Option<String>| asker.as_ref().is_some_and(|a| *a != me() && author != me());
        let can_approve = reviewer(&asked);
        let can_approve_canary = reviewer(&canary_asked);
        view! {
            <tr data-sha=sha.clone() data-state=state.clone()>
                <td title=sha.clone()>{sha.get(..12).unwrap_or_default().to_string()}</td>
                <td class="state">{state.clone()}</td>
                <td>{format!("{} — {}", text(&v["author"]), text(&v["note"]))}</td>
                <td>{rows(&v, "history").into_iter().map(|t| view! {
                    <div class="muted">{format!("{} {} by {}: {}", when(&t["at"]), text(&t["to"]["state"]), text(&t["by"]), text(&t["note"]))}</div>
                }).collect_view()}</td>
                <td>
                    {(state == "validated").then(|| {
                        let s4 = s1.clone();
                        view! {
                            <button on:click=move |_| act("POST", format!("/api/policies/{s1}/shadow"), json!(null), status, refresh)>"Shadow"</button>
                            <button on:click=move |_| {
                                let groups: Vec<String> = canary_groups.get().split(',').map(|g| g.trim().to_string()).filter(|g| !g.is_empty()).collect();
                                act("POST", format!("/api/policies/{s4}/canary"), json!({ "groups": groups }), status, refresh)
                            }>"Canary for the groups below"</button>
                        }
                    })}
                    {(state != "active" && state != "rejected" && asked.is_none()).then(|| view! {
                        <button class="promote" on:click=move |_| act("POST", format!("/api/policies/{s2}/promote"), json!(null), status, refresh)>"Ask to promote"</button>
                    })}
                    {asked.clone().map(|a| view! { <span class="muted">{format!(" promotion asked by {a} ")}</span> })}
                    {can_approve.then(|| view! {
                        <button class="primary approve" on:click=move |_| act("POST", format!("/api/policies/{s3}/approve"), json!({ "note": "approved in review", "action": "promotion" }), status, refresh)>"Approve promotion"</button>
                    })}
                    {canary_asked.clone().map(|a| view! { <span class="muted">{format!(" canary asked by {a} ")}</span> })}
                    {can_approve_canary.then(|| view! {
                        <button class="primary approve-canary" on:click=move |_| act("POST", format!("/api/policies/{s5}/approve"), json!({ "note": "canary approved in review", "action": "canary" }), status, refresh)>"Approve canary"</button>
                    })}
                </td>
            </tr>
        }
    };
    view! {
        <section>
            <h2>"Upload a policy module"</h2>
            <form class="row" on:submit=upload id="upload">
                <input type="file" accept=".wasm" node_ref=file/>
                <input placeholder="what changed" bind:value=note/>
                <button class="primary" type="submit">"Upload"</button>
            </form>
            <p id="report">{move || report.get()}</p>
            {status_line(status)}
        </section>
        <section>
            <div class="row"><span class="muted">"Canary groups:"</span><input placeholder="vision, speech" bind:value=canary_groups/></div>
            <h2>"Shadow differences"</h2>
            {show(shadows, |v| {
                let list = rows(v, "events");
                if list.is_empty() {
                    return view! { <p class="empty">"No version in shadow has differed yet."</p> }.into_any();
                }
                view! { <table>{list.into_iter().map(|e| view! { <tr><td>{when(&e["at"])}</td><td>{text(&e["message"])}</td></tr> }).collect_view()}</table> }.into_any()
            })}
        </section>
        {show(policies, move |v| {
            ["priority", "quota", "reclaim"].into_iter().map(|kind| {
                let k = &v["kinds"][kind];
                let active = k["active"].as_str().map_or("built-in".to_string(), |s| s.get(..12).unwrap_or(s).to_string());
                let versions = rows(k, "versions");
                view! {
                    <section data-kind=kind>
                        <h2>{format!("{kind}: {active} decides")}</h2>
                        <button on:click=move |_| act("POST", "/api/policies/rollback".into(), json!({ "kind": kind, "note": "rolled back from the web app" }), status, refresh)>"Roll back"</button>
                        {if versions.is_empty() {
                            view! { <p class="empty">"No uploaded versions."</p> }.into_any()
                        } else {
                            view! { <table>{versions.into_iter().map(version).collect_view()}</table> }.into_any()
                        }}
                    </section>
                }
            }).collect_view()
        })}
        <section>
            <h2>"Changes waiting for a second reviewer"</h2>
            {show(changes, move |v| {
                let waiting: Vec<Value> = rows(v, "changes").into_iter().filter(|c| c["state"] == "proposed").collect();
                if waiting.is_empty() {
                    return view! { <p class="empty">"Nothing waits for review."</p> }.into_any();
                }
                view! {
                    <table>{waiting.into_iter().map(|c| {
                        let id = c["id"].as_i64().unwrap_or(0);
                        view! {
                            <tr>
                                <td>{text(&c["summary"])}</td><td>{format!("proposed by {}", text(&c["proposed_by"]))}</td>
                                <td>
                                    <button class="primary" on:click=move |_| act("POST", format!("/api/changes/{id}/approve"), json!({ "note": "reviewed" }), status, refresh)>"Apply"</button>
                                    <button on:click=move |_| act("POST", format!("/api/changes/{id}/reject"), json!({ "note": "rejected in review" }), status, refresh)>"Reject"</button>
                                </td>
                            </tr>
                        }
                    }).collect_view()}</table>
                }.into_any()
            })}
        </section>
    }
}
