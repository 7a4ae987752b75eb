//! The periodic reviews, for admins, below the report: the month's quota review with its
//! suggested guarantees turned into proposals in one click (Q5, B2: a second admin
//! approves them on the Quotas page), the idle review (R5), the quarter's stale templates
//! with a link to retire each (T3), and the year's rules with their measured effect. Each
//! table downloads as CSV, like the report's.

use leptos::prelude::*;
use tidepool_api::reviews::{
    IdleReview, ProposeSuggestions, QuotaReview, RulesReview, SuggestionsProposed, TemplateReview,
};
use tidepool_api::{TemplateRetire, TemplateRetired};
use tidepool_web::review_tables;

use crate::api;
use crate::reports::{download, table_view};
use crate::ui::{act, load, show, status_line};

#[component]
pub fn Reviews() -> impl IntoView {
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let proposed = RwSignal::new(None::<String>);
    let quotas = load::<QuotaReview>(|| "/api/reviews/quotas".into(), refresh, None);
    let idle = load::<IdleReview>(|| "/api/reviews/idle".into(), refresh, None);
    let templates = load::<TemplateReview>(|| "/api/reviews/templates".into(), refresh, None);
    let rules = load::<RulesReview>(|| "/api/reviews/rules".into(), refresh, None);
    let propose = move |month: String| {
        leptos::task::spawn_local(async move {
            let body = ProposeSuggestions { month };
            match api::post::<_, SuggestionsProposed>("/api/reviews/quotas/propose".into(), body).await {
                Ok(p) => {
                    let ids: Vec<String> = p.changes.iter().map(|c| format!("#{c}")).collect();
                    proposed.set(Some(format!(
                        "Proposed {} change(s), awaiting a second admin: {}",
                        ids.len(),
                        ids.join(", ")
                    )))
                }
                Err(e) => status.set(Some(e)),
            }
        });
    };
    view! {
        <section id="reviews" class="no-print">
            <h2>"Reviews"</h2>
            {status_line(status)}
            {show(quotas, move |q| {
                let t = review_tables::quotas(q);
                let file = t.review_file_name(&q.month);
                let month = q.month.clone();
                let any = q.lines.iter().any(|l| l.suggested.is_some());
                view! {
                    {table_view(format!("Quotas, {}", q.month), file, "review-quotas".into(), "No quota to review.", t)}
                    {any.then(|| view! { <button class="primary" id="propose" on:click=move |_| propose(month.clone())>"Propose these changes"</button> })}
                    <p id="proposed">{move || proposed.get()}</p>
                }
            })}
            {show(idle, |v| {
                let t = review_tables::idle(v);
                let file = t.review_file_name(&v.month);
                table_view(format!("Idle capacity, {}", v.month), file, "review-idle".into(), "No group held GPUs this month.", t)
            })}
            {show(templates, move |v| {
                let t = review_tables::templates(v);
                let (file, csv) = (t.review_file_name(&v.quarter), t.csv());
                let title = format!("Templates not launched in {}", v.quarter);
                if v.stale.is_empty() {
                    return view! { <h3>{title}</h3><p class="empty">"Every template was launched this quarter."</p> }.into_any();
                }
                view! {
                    <div class="row"><h3>{title}</h3><button class="csv" data-csv="templates" on:click=move |_| download(&file, &csv)>"Download CSV"</button></div>
                    <table id="review-templates">
                        <tr>{t.header.iter().map(|h| view! { <th>{h.clone()}</th> }).collect_view()}<th></th></tr>
                        {v.stale.iter().zip(t.rows).map(|(s, row)| {
                            let id = s.id;
                            let retire = move |ev: leptos::ev::MouseEvent| {
                                ev.prevent_default();
                                let body = TemplateRetire { reason: "not launched this quarter (template review)".into() };
                                act(api::post::<_, TemplateRetired>(format!("/api/templates/{id}/retire"), body), status, refresh)
                            };
                            view! {
                                <tr data-template=s.name.clone()>
                                    {row.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
                                    <td><a href="#" class="retire" on:click=retire>"Retire"</a></td>
                                </tr>
                            }
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
            {show(rules, |v| {
                let t = review_tables::rules(v);
                let file = t.review_file_name(&v.year.to_string());
                table_view(format!("Rules changed in {}", v.year), file, "review-rules".into(), "No rule changed this year.", t)
            })}
        </section>
    }
}
