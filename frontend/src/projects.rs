//! Projects and their priority grants (P2): the class a project's jobs may run at, up to
//! a GPU cap, until an expiry. A grant about to lapse is marked a week ahead, so its
//! group's manager renews it before a critical job dies with it; managers grant new ones.

use leptos::prelude::*;
use tidepool_api::{GroupPage, NewProject, ProjectCreated, ProjectPage, Renew, Renewed, Role};

use crate::api;
use crate::ui::{act, at, group_name, load, show, status_line};

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
    let projects = load::<ProjectPage>(|| "/api/projects?limit=500".into(), refresh, None);
    let groups = load::<GroupPage>(|| "/api/groups?limit=500".into(), refresh, None);
    // The signed-in manager's group, by name (projects name their group).
    let my_group = move || group_name(groups, session.me.get().and_then(|m| m.group_id));
    let manages = move |group: &str| match session.role() {
        Some(Role::Admin) => true,
        Some(Role::Manager) => my_group().as_deref() == Some(group),
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
        let body = NewProject {
            name: name.get(),
            group: Some(group.get().trim().to_string()).filter(|g| !g.is_empty()),
            class: class.get(),
            gpu_cap: cap.get().trim().parse().ok(),
            expires_at: now_s() + days() * DAY_S,
        };
        act(api::post::<_, ProjectCreated>("/api/projects".into(), body), status, refresh);
    };
    let is_admin = move || session.role() == Some(Role::Admin);
    let may_grant = move || session.role() != Some(Role::Member);
    view! {
        <section id="projects">
            <h2>"Projects and priority grants"</h2>
            {status_line(status)}
            <div class="row"><span class="muted">"Renew or grant for"</span><input size="4" bind:value=renew_days/><span class="muted">"days"</span></div>
            {show(projects, move |v| {
                if v.projects.is_empty() {
                    return view! { <p class="empty">"No projects yet."</p> }.into_any();
                }
                view! {
                    <table>
                        <tr><th>"project"</th><th>"group"</th><th>"class"</th><th>"GPUs running / cap"</th><th>"expires"</th><th>"granted by"</th><th></th></tr>
                        {v.projects.iter().map(|p| {
                            let id = p.id;
                            let state = if p.expired { "expired" } else if p.expiring_soon { "expiring" } else { "granted" };
                            let renewable = manages(&p.group);
                            let renew = move |_| {
                                let body = Renew { expires_at: now_s() + days() * DAY_S };
                                act(api::post::<_, Renewed>(format!("/api/projects/{id}/renew"), body), status, refresh)
                            };
                            view! {
                                <tr data-project=p.name.clone() data-grant=state>
                                    <td>{p.name.clone()}</td><td>{p.group.clone()}</td><td>{p.class.clone()}</td>
                                    <td>{format!("{} / {}", p.running_gpus, p.gpu_cap.map_or_else(|| "no cap".to_string(), |c| c.to_string()))}</td>
                                    <td class=state>{format!("{}{}", at(p.expires_at), match state { "expired" => " (lapsed)", "expiring" => " (within a week)", _ => "" })}</td>
                                    <td>{p.granted_by.clone()}</td>
                                    <td>{renewable.then(|| view! {
                                        <button class="renew" on:click=renew>"Renew"</button>
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
