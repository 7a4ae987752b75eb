//! Templates (T1–T3): the frozen job shapes groups share; create one, grant it to another
//! group (its manager), retire a stale one (usage counts say which).

use std::collections::BTreeMap;

use leptos::prelude::*;
use tidepool_api::{
    GroupPage, NewTemplate, Role, Template, TemplateCreated, TemplateGrant, TemplateGranted, TemplatePage,
    TemplateRetire, TemplateRetired,
};

use crate::api;
use crate::ui::{act, at_or_dash, load, show, status_line};

#[component]
pub fn TemplatesPage() -> impl IntoView {
    let session = api::session();
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let templates = load::<TemplatePage>(|| "/api/templates?limit=500".into(), refresh, None);
    let groups = load::<GroupPage>(|| "/api/groups?limit=500".into(), refresh, None);
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
        let body = NewTemplate {
            name: name.get(),
            group: None,
            category: Some(category.get()),
            class: Some(class.get()),
            gpus: gpus.get().trim().parse().unwrap_or(0),
            model: Some(model.get()),
            topology: Some(topology.get()),
            time_limit_s: hours.get().trim().parse::<f64>().ok().map(|h| (h * 3600.0).round() as u64),
            checkpointable: Some(checkpointable.get()),
            // Empty: the node's sandbox, as the server reads an absent image.
            image: Some(image.get()).filter(|i| !i.trim().is_empty()),
            command: command.get(),
            env: env_of(&env.get()),
        };
        act(api::post::<_, TemplateCreated>("/api/templates".into(), body), status, refresh);
    };
    // Managers manage their own group's templates; admins every group's.
    let manages = move |owner: i64| {
        session
            .me
            .get()
            .is_some_and(|m| m.role == Role::Admin || (m.role == Role::Manager && m.group_id == Some(owner)))
    };
    view! {
        <section>
            <h2>"Templates"</h2>
            {status_line(status)}
            {show(templates, move |v| {
                if v.templates.is_empty() {
                    return view! { <p class="empty">"No templates yet."</p> }.into_any();
                }
                view! {
                    <table id="templates">
                        <tr><th>"name"</th><th>"owner"</th><th>"frozen shape"</th><th>"used"</th><th>"granted to"</th><th></th></tr>
                        {v.templates.iter().map(|t| {
                            let id = t.id;
                            let retired = t.retired_at.is_some();
                            let mine = manages(t.group_id);
                            let grant = move |_| {
                                let body = TemplateGrant { group: grant_to.get() };
                                act(api::post::<_, TemplateGranted>(format!("/api/templates/{id}/grants"), body), status, refresh)
                            };
                            let retire = move |_| {
                                let body = TemplateRetire { reason: "retired in the review".into() };
                                act(api::post::<_, TemplateRetired>(format!("/api/templates/{id}/retire"), body), status, refresh)
                            };
                            view! {
                                <tr data-template=t.name.clone()>
                                    <td>{t.name.clone()}{retired.then_some(" (retired)")}</td>
                                    <td>{t.group.clone()}</td>
                                    <td>{shape(t)}</td>
                                    <td>{format!("{} times, last {}", t.uses, at_or_dash(t.last_used_at))}</td>
                                    <td>{t.granted_to.join(", ")}</td>
                                    <td>{(mine && !retired).then(|| view! {
                                        <button on:click=grant>"Grant to selected group"</button>
                                        <button on:click=retire>"Retire"</button>
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
                        {v.groups.iter().map(|g| view! { <option value=g.name.clone()>{g.name.clone()}</option> }).collect_view()}
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

/// `KEY=VALUE` lines as variables; blank lines are skipped, and the server checks the names.
fn env_of(lines: &str) -> BTreeMap<String, String> {
    lines
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.to_string()))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

/// What a template freezes, in one line: GPUs and topology, class and category, time
/// limit, checkpointing, image, and the environment (values only for the owning group).
fn shape(t: &Template) -> String {
    let limit =
        t.time_limit_s.map(|s| format!("{} h", s as f64 / 3600.0)).unwrap_or_else(|| "no limit".into());
    let image = if t.image.is_empty() { "the node's sandbox" } else { &t.image };
    let env: Vec<String> = t.env.iter().flatten().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "{} × {} {}, {} {}, {limit}, {}, {image}{}",
        t.gpus,
        t.model,
        t.topology,
        t.class,
        t.category,
        if t.checkpointable { "checkpoints" } else { "no checkpoints" },
        if env.is_empty() { String::new() } else { format!(", env {}", env.join(" ")) }
    )
}
