//! The periodic reviews, for admins, below the report: the month's quota review with its
//! suggested guarantees turned into proposals in one click (Q5, B2: a second admin
//! approves them on the Quotas page), the idle review (R5), the quarter's stale templates
//! with a retire button (T3), and the year's rules with their measured effect.

use leptos::prelude::*;
use tidepool_api::reviews::{
    IdleReview, ProposeSuggestions, QuotaReview, RulesReview, SuggestionsProposed, TemplateReview,
};
use tidepool_api::{TemplateRetire, TemplateRetired};
use tidepool_web::scale::duration;
use tidepool_web::tables::hours;

use crate::api;
use crate::ui::{act, at, at_or_dash, load, or_dash, show, status_line};

#[component]
pub fn Reviews() -> impl IntoView {
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let proposed = RwSignal::new(None::<String>);
    let quotas = load::<QuotaReview>(|| "/api/reviews/quotas".into(), refresh, None);
    let idle = load::<IdleReview>(|| "/api/reviews/idle".into(), refresh, None);
    let templates = load::<TemplateReview>(|| "/api/reviews/templates".into(), refresh, None);
    let rules = load::<RulesReview>(|| "/api/reviews/rules".into(), refresh, None);
    view! {
        <section id="reviews" class="no-print">
            <h2>"Reviews"</h2>
            {status_line(status)}
            {show(quotas, move |q| {
                let month = q.month.clone();
                let suggestions = q.lines.iter().filter(|l| l.suggested.is_some()).count();
                let propose = move |_| {
                    let body = ProposeSuggestions { month: month.clone() };
                    leptos::task::spawn_local(async move {
                        match api::post::<_, SuggestionsProposed>("/api/reviews/quotas/propose".into(), body).await {
                            Ok(p) => proposed.set(Some(format!("Proposed {} change(s), awaiting a second admin: {}", p.changes.len(),
                                p.changes.iter().map(|c| format!("#{c}")).collect::<Vec<_>>().join(", ")))),
                            Err(e) => status.set(Some(e)),
                        }
                    });
                };
                view! {
                    <h3>{format!("Quotas, {}", q.month)}</h3>
                    <table id="review-quotas">
                        <tr><th>"quota"</th><th>"guaranteed"</th><th>"held p50 / p95"</th><th>"borrowed / lent GPU-h"</th><th>"wait p95"</th><th>"suggested"</th><th>"why"</th></tr>
                        {q.lines.iter().map(|l| view! {
                            <tr>
                                <td>{format!("{} {} {}", l.group, l.model, l.category)}</td><td>{l.guaranteed}</td>
                                <td>{format!("{:.1} / {:.1}", l.held_p50, l.held_p95)}</td>
                                <td>{format!("{} / {}", hours(l.borrowed_gpu_hours), hours(l.lent_gpu_hours))}</td>
                                <td>{duration(l.wait_p95_s)}</td>
                                <td>{l.suggested.map_or_else(|| "keep".to_string(), |s| s.to_string())}</td><td>{l.why.clone()}</td>
                            </tr>
                        }).collect_view()}
                    </table>
                    {(suggestions > 0).then(|| view! { <button class="primary" id="propose" on:click=propose>"Propose these changes"</button> })}
                    <p id="proposed">{move || proposed.get()}</p>
                }
            })}
            {show(idle, |v| view! {
                <h3>{format!("Idle capacity, {}", v.month)}</h3>
                <table id="review-idle">
                    <tr><th>"group"</th><th>"held GPU-h"</th><th>"idle GPU-h"</th><th>"idle"</th><th>"reclaims"</th><th>"unused guarantee"</th><th>"suggestion"</th></tr>
                    {v.lines.iter().map(|l| view! {
                        <tr>
                            <td>{l.group.clone()}</td><td>{hours(l.held_gpu_hours)}</td><td>{hours(l.idle_gpu_hours)}</td>
                            <td>{format!("{:.0}%", l.idle_share * 100.0)}</td><td>{l.idle_reclaims}</td>
                            <td>{format!("{:.1} GPUs", l.unused_guarantee_avg)}</td><td>{l.suggestion.clone()}</td>
                        </tr>
                    }).collect_view()}
                </table>
            })}
            {show(templates, move |v| {
                if v.stale.is_empty() {
                    return view! { <h3>{format!("Templates, {}", v.quarter)}</h3><p class="empty">"Every template was launched this quarter."</p> }.into_any();
                }
                view! {
                    <h3>{format!("Templates not launched in {}", v.quarter)}</h3>
                    <table id="review-templates">
                        <tr><th>"template"</th><th>"group"</th><th>"by"</th><th>"launches"</th><th>"last"</th><th></th></tr>
                        {v.stale.iter().map(|t| {
                            let id = t.id;
                            let retire = move |_| {
                                let body = TemplateRetire { reason: "not launched this quarter (template review)".into() };
                                act(api::post::<_, TemplateRetired>(format!("/api/templates/{id}/retire"), body), status, refresh)
                            };
                            view! {
                                <tr data-template=t.name.clone()>
                                    <td>{t.name.clone()}</td><td>{t.group.clone()}</td><td>{t.created_by.clone()}</td>
                                    <td>{t.launches}</td><td>{at_or_dash(t.last_launch)}</td>
                                    <td><a href="#" class="retire" on:click=move |ev| { ev.prevent_default(); retire(()) }>"Retire"</a></td>
                                </tr>
                            }
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
            {show(rules, |v| view! {
                <h3>{format!("Rules changed in {}", v.year)}</h3>
                <table id="review-rules">
                    <tr><th>"when"</th><th>"what"</th><th>"why"</th><th>"by / approved"</th><th>"p95 wait before → after"</th><th>"idle before → after"</th></tr>
                    {v.entries.iter().map(|e| view! {
                        <tr data-kind=e.kind.clone()>
                            <td>{at(e.at)}</td><td>{e.what.clone()}</td><td>{e.why.clone()}</td>
                            <td>{format!("{} / {}", e.by, or_dash(e.approved_by.as_deref()))}</td>
                            <td>{format!("{} → {}", duration(e.before.wait_p95_s), duration(e.after.wait_p95_s))}</td>
                            <td>{format!("{:.0}% → {:.0}%", e.before.idle_share * 100.0, e.after.idle_share * 100.0)}</td>
                        </tr>
                    }).collect_view()}
                </table>
            })}
        </section>
    }
}
