//! Projects and their priority grants (P2): the class a project's jobs may run at, up to
//! a GPU cap, until an expiry. A grant about to lapse is marked a week ahead, so its
//! group's manager renews it before a critical job dies with it; managers grant new ones.

use leptos::prelude::*;
use serde_json::json;

use crate::api;
use crate::ui::{Load, act, load, rows, show, status_line, text, when};

const DAY_S: i64 = 86_400;

/// Now, in Unix seconds, by the browser's clock (the server checks the expiry again).
fn now_s() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

#[component]
pub fn ProjectsPage() -> impl IntoView {
    let session = api::session();
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let projects = load(|| "/api/projects?limit=500".into(), refresh, None);
    let groups = load(|| "/api/groups?limit=500".into(), refresh, None);
    // The signed-in manager's group, by name (projects name their group).
    let my_group = move || match groups.get() {
        Load::Ready(v) => {
            let mine = session.me.get().and_then(|m| m.group_id);
            rows(&v, "groups").into_iter().find(|g| g["id"].as_i64() == mine).map(|g| text(&g["name"]))
        }
        _ => None,
    };
    let manages = move |group: &str| match session.role().as_str() {
        "admin" => true,
        "manager" => my_group().as_deref() == Some(group),
        _ => false,
    };
    let renew_days = RwSignal::new("90".to_string());
    let days = move || renew_days.get().trim().parse::<i64>().unwrap_or(0);
    let (name, class, cap, group) = (
        RwSignal::new(String::new()),
        RwSignal::new("critical".to_string()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
    );
    let create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut body =
            json!({ "name": name.get(), "class": class.get(), "expires_at": now_s() + days() * DAY_S });
        if let Ok(c) = cap.get().trim().parse::<u32>() {
            body["gpu_cap"] = json!(c);
        }
        if !group.get().trim().is_empty() {
            body["group"] = json!(group.get().trim());
        }
        act("POST", "/api/projects".into(), body, status, refresh);
    };
    let is_admin = move || session.role() == "admin";
    let may_grant = move || session.role() != "member";
    view! {
        <section id="projects">
            <h2>"Projects and priority grants"</h2>
            {status_line(status)}
            <div class="row"><span class="muted">"Renew or grant for"</span><input size="4" bind:value=renew_days/><span class="muted">"days"</span></div>
            {show(projects, move |v| {
                let list = rows(v, "projects");
                if list.is_empty() {
                    return view! { <p class="empty">"No projects yet."</p> }.into_any();
                }
                view! {
                    <table>
                        <tr><th>"project"</th><th>"group"</th><th>"class"</th><th>"GPUs running / cap"</th><th>"expires"</th><th>"granted by"</th><th></th></tr>
                        {list.into_iter().map(|p| {
                            let id = p["id"].as_i64().unwrap_or(0);
                            let state = if p["expired"] == true { "expired" } else if p["expiring_soon"] == true { "expiring" } else { "granted" };
                            let renewable = manages(&text(&p["group"]));
                            view! {
                                <tr data-project=text(&p["name"]) data-grant=state>
                                    <td>{text(&p["name"])}</td><td>{text(&p["group"])}</td><td>{text(&p["class"])}</td>
                                    <td>{format!("{} / {}", text(&p["running_gpus"]), if p["gpu_cap"].is_null() { "no cap".to_string() } else { text(&p["gpu_cap"]) })}</td>
                                    <td class=state>{format!("{}{}", when(&p["expires_at"]), match state { "expired" => " (lapsed)", "expiring" => " (within a week)", _ => "" })}</td>
                                    <td>{text(&p["granted_by"])}</td>
                                    <td>{renewable.then(|| view! {
                                        <button class="renew" on:click=move |_| act("POST", format!("/api/projects/{id}/renew"), json!({ "expires_at": now_s() + days() * DAY_S }), status, refresh)>"Renew"</button>
                                    })}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
        </section>
        <Show when=may_grant>
            <section>
                <h2>"Grant a project priority"</h2>
                <form class="row" id="new-project" on:submit=create>
                    <input placeholder="project" bind:value=name/>
                    <select on:change=move |ev| class.set(event_target_value(&ev))>
                        <option value="critical">"critical"</option>
                        <option value="normal">"normal"</option>
                        <option value="batch">"batch"</option>
                        <option value="experiment">"experiment"</option>
                    </select>
                    <input placeholder="GPU cap" size="6" bind:value=cap/>
                    <Show when=is_admin><input placeholder="group" bind:value=group/></Show>
                    <button class="primary" type="submit">"Grant"</button>
                </form>
            </section>
        </Show>
    }
}
