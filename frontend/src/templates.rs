//! Templates (T1–T3): the frozen job shapes groups share; create one, grant it to another
//! group (its manager), retire a stale one (usage counts say which).

use leptos::prelude::*;
use serde_json::json;

use crate::api;
use crate::ui::{act, load, rows, show, status_line, text, when};

#[component]
pub fn TemplatesPage() -> impl IntoView {
    let session = api::session();
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let templates = load(|| "/api/templates?limit=500".into(), refresh, None);
    let groups = load(|| "/api/groups?limit=500".into(), refresh, None);
    let (name, image, command, gpus) = (
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new("1".to_string()),
    );
    let grant_to = RwSignal::new(String::new());
    let create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let body = json!({ "name": name.get(), "image": image.get(), "command": command.get(),
            "gpus": gpus.get().trim().parse::<u32>().unwrap_or(0) });
        act("POST", "/api/templates".into(), body, status, refresh);
    };
    // Managers manage their own group's templates; admins every group's.
    let manages = move |owner: i64| {
        session
            .me
            .get()
            .is_some_and(|m| m.role == "admin" || (m.role == "manager" && m.group_id == Some(owner)))
    };
    view! {
        <section>
            <h2>"Templates"</h2>
            {status_line(status)}
            {show(templates, move |v| {
                let list = rows(v, "templates");
                if list.is_empty() {
                    return view! { <p class="empty">"No templates yet."</p> }.into_any();
                }
                view! {
                    <table id="templates">
                        <tr><th>"name"</th><th>"owner"</th><th>"shape"</th><th>"used"</th><th>"granted to"</th><th></th></tr>
                        {list.into_iter().map(|t| {
                            let id = t["id"].as_i64().unwrap_or(0);
                            let retired = !t["retired_at"].is_null();
                            let mine = manages(t["group_id"].as_i64().unwrap_or(-1));
                            view! {
                                <tr data-template=text(&t["name"])>
                                    <td>{text(&t["name"])}{retired.then_some(" (retired)")}</td>
                                    <td>{text(&t["group"])}</td>
                                    <td>{format!("{} × {} {}, {}, {}", text(&t["gpus"]), text(&t["model"]), text(&t["topology"]), text(&t["class"]), text(&t["image"]))}</td>
                                    <td>{format!("{} times, last {}", text(&t["uses"]), when(&t["last_used_at"]))}</td>
                                    <td>{t["granted_to"].as_array().map(|g| g.iter().map(text).collect::<Vec<_>>().join(", ")).unwrap_or_default()}</td>
                                    <td>{(mine && !retired).then(|| view! {
                                        <button on:click=move |_| act("POST", format!("/api/templates/{id}/grants"), json!({ "group": grant_to.get() }), status, refresh)>"Grant to selected group"</button>
                                        <button on:click=move |_| act("POST", format!("/api/templates/{id}/retire"), json!({ "reason": "retired in the review" }), status, refresh)>"Retire"</button>
                                    })}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
            <div class="row">
                <span class="muted">"Grant to:"</span>
                {show(groups, move |v| view! {
                    <select on:change=move |ev| grant_to.set(event_target_value(&ev))>
                        <option value="">"choose a group"</option>
                        {rows(v, "groups").into_iter().map(|g| view! { <option value=text(&g["name"])>{text(&g["name"])}</option> }).collect_view()}
                    </select>
                })}
            </div>
        </section>
        <section>
            <h2>"New template for my group"</h2>
            <form class="row" on:submit=create>
                <input placeholder="name" bind:value=name/>
                <input placeholder="image" bind:value=image/>
                <input placeholder="command" bind:value=command/>
                <input placeholder="GPUs" size="4" bind:value=gpus/>
                <button class="primary" type="submit">"Create"</button>
            </form>
        </section>
    }
}
