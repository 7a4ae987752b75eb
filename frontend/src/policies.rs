//! Policies (admins; O1, A3, B2): upload a module and read its validation report, run it
//! in shadow, ask for its promotion — a second admin approves — roll back, read every
//! version's history, replay a version over the last 30 days and read the comparison the
//! approving admin sees. Configuration changes waiting for a second reviewer are here too.

use leptos::prelude::*;
use leptos::task::spawn_local;
use tidepool_api::{
    Approval, CanaryRequest, CanaryRequested, ChangePage, ChangeReviewed, EventPage, PolicyApproval,
    PolicyKind, PolicyList, PolicyMoved, PolicyState, PolicyVersion, PromotionRequested, Review, Rollback,
    RolledBack, Uploaded,
};
use wasm_bindgen::JsCast;

use crate::api;
use crate::replays::ReplayCell;
use crate::ui::{act, at, load, show, status_line};

#[component]
pub fn PoliciesPage() -> impl IntoView {
    let session = api::session();
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let report = RwSignal::new(None::<String>);
    let policies = load::<PolicyList>(|| "/api/policies".into(), refresh, None);
    let changes = load::<ChangePage>(|| "/api/changes".into(), refresh, None);
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
            match api::upload::<Uploaded>(path, bytes).await {
                Ok(u) => {
                    let kind = u.kind.map_or("—", kind_name);
                    report.set(Some(format!("{kind} policy {} {}", u.sha256, state_name(&u.state))));
                    status.set(None);
                    refresh.update(|n| *n += 1);
                }
                Err(e) => status.set(Some(e)),
            }
        });
    };
    let me = move || session.me.get().map(|m| m.username).unwrap_or_default();
    let canary_groups = RwSignal::new(String::new());
    let shadows = load::<EventPage>(|| "/api/events?kind=policy-shadow&limit=20".into(), refresh, None);
    let approve = move |sha: &str, note: &str, action: Approval| {
        let body = PolicyApproval { note: note.into(), action: Some(action) };
        act(api::post::<_, PolicyMoved>(format!("/api/policies/{sha}/approve"), body), status, refresh)
    };
    let version = move |v: &PolicyVersion| {
        let sha = v.sha256.clone();
        let state = state_name(&v.state);
        let asked = v.promotion_requested_by.clone();
        let canary_asked = v.canary_requested_by.clone();
        let (s1, s2, s3, s4, s5, s6) =
            (sha.clone(), sha.clone(), sha.clone(), sha.clone(), sha.clone(), sha.clone());
        let runnable = !matches!(v.state, PolicyState::Rejected { .. });
        // Neither the asker nor the author approves (B2); the server enforces it too.
        let author = v.author.clone();
        let reviewer =
            move |asker: &Option<String>| asker.as_ref().is_some_and(|a| *a != me() && author != me());
        let can_approve = reviewer(&asked);
        let can_approve_canary = reviewer(&canary_asked);
        view! {
            <tr data-sha=sha.clone() data-state=state>
                <td title=sha.clone()>{sha.get(..12).unwrap_or_default().to_string()}</td>
                <td class="state">{state}</td>
                <td>{format!("{} — {}", v.author, v.note)}</td>
                <td>{v.history.iter().map(|t| view! {
                    <div class="muted">{format!("{} {} by {}: {}", at(t.at), state_name(&t.to), t.by, t.note)}</div>
                }).collect_view()}</td>
                <td>
                    {matches!(v.state, PolicyState::Validated).then(|| view! {
                        <button on:click=move |_| act(api::post_empty::<PolicyMoved>(format!("/api/policies/{s1}/shadow")), status, refresh)>"Shadow"</button>
                        <button on:click=move |_| {
                            let groups = canary_groups.get().split(',').map(|g| g.trim().to_string()).filter(|g| !g.is_empty()).collect();
                            act(api::post::<_, CanaryRequested>(format!("/api/policies/{s4}/canary"), CanaryRequest { groups }), status, refresh)
                        }>"Canary for the groups below"</button>
                    })}
                    {(!matches!(v.state, PolicyState::Active | PolicyState::Rejected { .. }) && asked.is_none()).then(|| view! {
                        <button class="promote" on:click=move |_| act(api::post_empty::<PromotionRequested>(format!("/api/policies/{s2}/promote")), status, refresh)>"Ask to promote"</button>
                    })}
                    {asked.clone().map(|a| view! { <span class="muted">{format!(" promotion asked by {a} ")}</span> })}
                    {can_approve.then(|| view! {
                        <button class="primary approve" on:click=move |_| approve(&s3, "approved in review", Approval::Promotion)>"Approve promotion"</button>
                    })}
                    {canary_asked.clone().map(|a| view! { <span class="muted">{format!(" canary asked by {a} ")}</span> })}
                    {can_approve_canary.then(|| view! {
                        <button class="primary approve-canary" on:click=move |_| approve(&s5, "canary approved in review", Approval::Canary)>"Approve canary"</button>
                    })}
                </td>
                <td class="replay-cell">{runnable.then(|| view! { <ReplayCell sha=s6.clone() promotion_asked=asked.is_some()/> })}</td>
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
                if v.events.is_empty() {
                    return view! { <p class="empty">"No version in shadow has differed yet."</p> }.into_any();
                }
                view! { <table>{v.events.iter().map(|e| view! { <tr><td>{at(e.at)}</td><td>{e.message.clone()}</td></tr> }).collect_view()}</table> }.into_any()
            })}
        </section>
        {show(policies, move |v| {
            [PolicyKind::Priority, PolicyKind::Quota, PolicyKind::Reclaim].into_iter().map(|kind| {
                let name = kind_name(kind);
                let listed = v.kinds.get(name);
                let active = listed
                    .and_then(|k| k.active.as_deref())
                    .map_or("built-in".to_string(), |s| s.get(..12).unwrap_or(s).to_string());
                let versions = listed.map(|k| k.versions.as_slice()).unwrap_or_default();
                let rollback = Rollback { kind, note: "rolled back from the web app".into() };
                view! {
                    <section data-kind=name>
                        <h2>{format!("{name}: {active} decides")}</h2>
                        <button on:click=move |_| act(api::post::<_, RolledBack>("/api/policies/rollback".into(), rollback.clone()), status, refresh)>"Roll back"</button>
                        {if versions.is_empty() {
                            view! { <p class="empty">"No uploaded versions."</p> }.into_any()
                        } else {
                            view! { <table>{versions.iter().map(version).collect_view()}</table> }.into_any()
                        }}
                    </section>
                }
            }).collect_view()
        })}
        <section>
            <h2>"Changes waiting for a second reviewer"</h2>
            {show(changes, move |v| {
                let waiting: Vec<_> = v.changes.iter().filter(|c| c.state == "proposed").collect();
                if waiting.is_empty() {
                    return view! { <p class="empty">"Nothing waits for review."</p> }.into_any();
                }
                let review = move |id: i64, verb: &str, note: &str| {
                    let body = Review { note: note.into() };
                    act(api::post::<_, ChangeReviewed>(format!("/api/changes/{id}/{verb}"), body), status, refresh)
                };
                view! {
                    <table>{waiting.into_iter().map(|c| {
                        let id = c.id;
                        view! {
                            <tr>
                                <td>{c.summary.clone()}</td><td>{format!("proposed by {}", c.proposed_by)}</td>
                                <td>
                                    <button class="primary" on:click=move |_| review(id, "approve", "reviewed")>"Apply"</button>
                                    <button on:click=move |_| review(id, "reject", "rejected in review")>"Reject"</button>
                                </td>
                            </tr>
                        }
                    }).collect_view()}</table>
                }.into_any()
            })}
        </section>
    }
}

/// A kind as the API spells it (the keys of [`PolicyList::kinds`]).
fn kind_name(kind: PolicyKind) -> &'static str {
    match kind {
        PolicyKind::Priority => "priority",
        PolicyKind::Quota => "quota",
        PolicyKind::Reclaim => "reclaim",
    }
}

/// A version's state as the API spells it (its `state` tag).
fn state_name(state: &PolicyState) -> &'static str {
    match state {
        PolicyState::Rejected { .. } => "rejected",
        PolicyState::Validated => "validated",
        PolicyState::Shadow => "shadow",
        PolicyState::Canary { .. } => "canary",
        PolicyState::Active => "active",
        PolicyState::Retired => "retired",
    }
}
