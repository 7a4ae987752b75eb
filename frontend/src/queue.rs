//! The queue: my jobs and everything pending, with place, reason and receipt; submit from
//! a template in one click (T1) or from a spec; cancel.

use std::time::Duration;

use leptos::prelude::*;
use tidepool_api::{Cancelled, DryRun, GroupPage, JobPage, JobRow, Role, Submit, Submitted, TemplatePage};

use crate::api;
use crate::job::JobPanel;
use crate::ui::{act, at, before_param, group_name, load, or_dash, pager, show, status_line};

#[component]
pub fn QueuePage() -> impl IntoView {
    let session = api::session();
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let mine =
        load::<JobPage>(|| "/api/jobs?mine=true&limit=50".into(), refresh, Some(Duration::from_secs(3)));
    // The queue a page at a time, newest first: "Older" follows the page's `next`.
    let pending_before = RwSignal::new(None::<i64>);
    let pending = load::<JobPage>(
        move || format!("/api/jobs?state=pending&limit=200{}", before_param(pending_before)),
        refresh,
        Some(Duration::from_secs(3)),
    );
    let templates = load::<TemplatePage>(|| "/api/templates?limit=500".into(), refresh, None);
    let receipt_of = RwSignal::new(None::<i64>);
    let is_admin = move || session.role() == Some(Role::Admin);
    // A manager watches the whole group's running and waiting jobs.
    let groups = load::<GroupPage>(|| "/api/groups?limit=500".into(), refresh, None);
    let my_group = move || group_name(groups, session.me.get().and_then(|m| m.group_id));
    let is_manager = move || session.role() == Some(Role::Manager);
    let group_jobs = load::<JobPage>(
        move || match my_group() {
            Some(g) if is_manager() => format!("/api/jobs?group={g}&limit=100"),
            _ => "/api/jobs?mine=true&limit=1".into(),
        },
        refresh,
        Some(Duration::from_secs(5)),
    );

    // The spec form: kept in signals, so an expired session loses nothing.
    let limit_hours = RwSignal::new(String::new());
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
        let given = |s: RwSignal<String>| Some(s.get().trim().to_string()).filter(|s| !s.is_empty());
        Submit {
            name: Some(name.get()),
            command: Some(command.get()),
            gpus: Some(gpus.get().trim().parse().unwrap_or(0)),
            class: Some(class.get()),
            // Hours; left empty, the class's default (a number the server refuses stays).
            time_limit_s: given(limit_hours)
                .map(|h| h.parse::<f64>().map_or(0, |h| (h * 3600.0).round().max(0.0) as u64)),
            project: given(project),
            group: given(group),
            ..Submit::default()
        }
    };
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        act(api::post::<_, Submitted>("/api/jobs".into(), spec()), status, refresh);
    };
    // The dry run (O6): the same form, planned now, nothing written.
    let rehearsal = RwSignal::new(None::<String>);
    let dry_run = move |_| {
        let body = spec();
        leptos::task::spawn_local(async move {
            let answer = api::post::<_, DryRun>("/api/jobs/dry-run".into(), body).await;
            rehearsal.set(Some(match answer {
                Ok(r) => rehearsed(&r),
                Err(e) => e,
            }));
        });
    };
    let jobs_table = move |jobs: &[&JobRow], cancel: bool| {
        if jobs.is_empty() {
            return view! { <p class="empty">"No jobs."</p> }.into_any();
        }
        view! {
            <table>
                <tr><th>"job"</th><th>"group"</th><th>"GPUs"</th><th>"state"</th><th>"place"</th><th>"why"</th><th>"estimated start"</th><th>"time limit"</th><th></th></tr>
                {jobs.iter().map(|j| {
                    let id = j.id;
                    let live = !j.state.is_done();
                    view! {
                        <tr data-job=id.to_string() data-state=j.state.as_str()>
                            <td><a href="#" on:click=move |ev| { ev.prevent_default(); receipt_of.set(Some(id)); }>{format!("{id} {}", j.name)}</a></td>
                            <td>{j.group.clone()}</td><td>{j.gpus}</td><td class="state">{j.state.as_str()}</td>
                            <td>{j.position.map_or_else(|| "—".to_string(), |p| p.to_string())}</td><td>{or_dash(j.reason.as_deref())}</td>
                            <td>{j.estimated_start.map(at).unwrap_or_default()}</td>
                            <td class="limit">{crate::limits::words(j.time_limit_s)}</td>
                            <td>{(cancel && live).then(|| view! {
                                <button on:click=move |_| act(api::post_empty::<Cancelled>(format!("/api/jobs/{id}/cancel")), status, refresh)>"Cancel"</button>
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
                let usable: Vec<_> = v.templates.iter().filter(|t| t.usable).collect();
                if usable.is_empty() {
                    return view! { <p class="empty">"No template your group may use."</p> }.into_any();
                }
                view! {
                    <div class="row" id="launch">
                        {usable.into_iter().map(|t| {
                            let launch = Submit { template: Some(t.id), ..Submit::default() };
                            let owner = t.group.clone();
                            let label = format!("{} ({} × {})", t.name, t.gpus, t.model);
                            view! {
                                <button class="primary" data-template=t.name.clone() on:click=move |_| {
                                    // Admins belong to no group: they launch for the owner.
                                    let body = Submit { group: is_admin().then(|| owner.clone()), ..launch.clone() };
                                    act(api::post::<_, Submitted>("/api/jobs".into(), body), status, refresh)
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
                <input placeholder="time limit (hours)" size="8" bind:value=limit_hours/>
                <input placeholder="project (for critical)" bind:value=project/>
                <Show when=is_admin><input placeholder="group" bind:value=group/></Show>
                <button class="primary" type="submit">"Submit"</button>
                <button type="button" id="dry-run-button" on:click=dry_run>"Dry run"</button>
            </form>
            <p id="dry-run">{move || rehearsal.get()}</p>
        </section>
        <crate::limits::TimeLimits editable=false/>
        <section id="my-jobs"><h2>"My jobs"</h2>{show(mine, move |v| jobs_table(&all(v), true))}</section>
        <section id="pending"><h2>"Waiting, in dispatch order"</h2>{show(pending, move |v| jobs_table(&all(v), false))}{pager(pending, |p| p.next, pending_before)}</section>
        <Show when=is_manager>
            <section id="group-jobs">
                <h2>{move || format!("{}'s running and waiting jobs", my_group().unwrap_or_default())}</h2>
                {show(group_jobs, move |v| {
                    let live: Vec<_> = v.jobs.iter().filter(|j| !j.state.is_done()).collect();
                    jobs_table(&live, true)
                })}
            </section>
        </Show>
        <Show when=move || receipt_of.get().is_some()>
            <JobPanel job=receipt_of changed=refresh/>
        </Show>
    }
}

/// Every job of a page, for the job tables.
fn all(page: &JobPage) -> Vec<&JobRow> {
    page.jobs.iter().collect()
}

/// A dry run in words: where the job would start now, or its place and reason in the
/// queue with its estimated start.
fn rehearsed(r: &DryRun) -> String {
    if r.would == "start" {
        let on: Vec<String> = r.nodes.iter().map(|(node, gpus)| format!("{node} GPUs {gpus:?}")).collect();
        return format!("Would start now on {}: {}", on.join(", "), r.why);
    }
    let start = r.estimated_start.map(|t| format!("; estimated start {}", at(t))).unwrap_or_default();
    format!("Would wait at place {}: {}{start}", r.position, r.why)
}
