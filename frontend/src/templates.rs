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
    // Every field a template freezes (T1): shape, class, category, topology, time limit,
    // image, command and environment.
    let (name, image, command, gpus) = (
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new("1".to_string()),
    );
    let (model, category, class, topology) = (
        RwSignal::new("A100-80G".to_string()),
        RwSignal::new("training".to_string()),
        RwSignal::new("normal".to_string()),
        RwSignal::new("any".to_string()),
    );
    let (hours, checkpointable, env) =
        (RwSignal::new(String::new()), RwSignal::new(true), RwSignal::new(String::new()));
    let grant_to = RwSignal::new(String::new());
    let create = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut body = json!({ "name": name.get(), "image": image.get(), "command": command.get(),
            "gpus": gpus.get().trim().parse::<u32>().unwrap_or(0), "model": model.get(),
            "category": category.get(), "class": class.get(), "topology": topology.get(),
            "checkpointable": checkpointable.get(), "env": env_of(&env.get()) });
        if let Ok(h) = hours.get().trim().parse::<f64>() {
            body["time_limit_s"] = json!((h * 3600.0).round() as u64);
        }
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
                        <tr><th>"name"</th><th>"owner"</th><th>"frozen shape"</th><th>"used"</th><th>"granted to"</th><th></th></tr>
                        {list.into_iter().map(|t| {
                            let id = t["id"].as_i64().unwrap_or(0);
                            let retired = !t["retired_at"].is_null();
                            let mine = manages(t["group_id"].as_i64().unwrap_or(-1));
                            view! {
                                <tr data-template=text(&t["name"])>
                                    <td>{text(&t["name"])}{retired.then_some(" (retired)")}</td>
                                    <td>{text(&t["group"])}</td>
                                    <td>{shape(&t)}</td>
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
            <form class="row" id="new-template" on:submit=create>
                <input placeholder="name" bind:value=name/>
                <input placeholder="GPUs" size="4" bind:value=gpus/>
                <input placeholder="GPU model" size="10" bind:value=model/>
                {choice(category, &["training", "inference", "pretraining"])}
                {choice(class, &["normal", "batch", "experiment", "critical"])}
                {choice(topology, &["any", "same-node", "same-nvlink"])}
                <input placeholder="time limit (hours)" size="8" bind:value=hours/>
                <label><input type="checkbox" bind:checked=checkpointable/>" checkpoints"</label>
                <input placeholder="image (empty: the node's sandbox)" bind:value=image/>
                <input placeholder="command" bind:value=command/>
                <textarea placeholder="environment, KEY=VALUE a line" rows="2" bind:value=env></textarea>
                <button class="primary" type="submit">"Create"</button>
            </form>
        </section>
    }
}

/// A select bound to `value`, offering `options`.
fn choice(value: RwSignal<String>, options: &'static [&'static str]) -> impl IntoView {
    view! {
        <select on:change=move |ev| value.set(event_target_value(&ev))>
            {options.iter().map(|o| view! { <option value=*o selected=move || value.get() == *o>{*o}</option> }).collect_view()}
        </select>
    }
}

/// `KEY=VALUE` lines as an object; blank lines are skipped, and the server checks the names.
fn env_of(lines: &str) -> serde_json::Value {
    let vars: serde_json::Map<String, serde_json::Value> = lines
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), json!(v)))
        .filter(|(k, _)| !k.is_empty())
        .collect();
    serde_json::Value::Object(vars)
}

/// What a template freezes, in one line: GPUs and topology, class and category, time
/// limit, checkpointing, image, and the environment (values only for the owning group).
fn shape(t: &serde_json::Value) -> String {
    let limit = t["time_limit_s"]
        .as_i64()
        .map(|s| format!("{} h", s as f64 / 3600.0))
        .unwrap_or_else(|| "no limit".into());
    let image = match text(&t["image"]).as_str() {
        "" | "—" => "the node's sandbox".to_string(),
        i => i.to_string(),
    };
    let env: Vec<String> = t["env"]
        .as_object()
        .map(|o| o.iter().map(|(k, v)| format!("{k}={}", text(v))).collect())
        .unwrap_or_default();
    format!(
        "{} × {} {}, {} {}, {limit}, {}, {image}{}",
        text(&t["gpus"]),
        text(&t["model"]),
        text(&t["topology"]),
        text(&t["class"]),
        text(&t["category"]),
        if t["checkpointable"] == true { "checkpoints" } else { "no checkpoints" },
        if env.is_empty() { String::new() } else { format!(", env {}", env.join(" ")) }
    )
}
