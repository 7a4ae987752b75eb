//! The Reports page (A5, O4, V4, Q3): one ISO week's report for a group or the whole
//! organisation — managers see their group's, members their group's and the
//! organisation's, admins every group's — with its charts, drawn here as SVG, and its
//! tables, each downloadable as CSV built from the report on screen. Admins also find the
//! periodic reviews and the organisation's settings below the report.

use leptos::prelude::*;
use tidepool_api::reports::{FrozenWeeks, WeeklyReport};
use tidepool_api::usage::UsageCurves;
use tidepool_api::{GroupPage, Role};
use tidepool_web::charts;
use tidepool_web::tables::{self, Table, hours, money};
use tidepool_web::week::IsoWeek;

use crate::ui::{Load, at, enc, group_name, load, load_each, show};
use crate::{api, reviews, settings};

/// Whose report: a group's, or (`None`) the organisation's.
type Scope = Option<String>;

#[component]
pub fn ReportsPage() -> impl IntoView {
    let session = api::session();
    let me = session.me.get_untracked();
    let role = me.as_ref().map(|m| m.role);
    let mine = me.and_then(|m| m.group_id);
    let groups = load::<GroupPage>(|| "/api/groups?limit=500".into(), RwSignal::new(0), None);
    let current = IsoWeek::of_unix((js_sys::Date::now() / 1000.0) as i64);
    // The last finished week first: the one the Monday report is about, with all its days.
    let week = RwSignal::new(current.previous());
    // Admins start on the organisation; the others on their group, once its name is known.
    let scope = RwSignal::new((role == Some(Role::Admin)).then_some(None::<String>));
    Effect::new(move |_| {
        if scope.get_untracked().is_none()
            && let Some(name) = group_name(groups, mine)
        {
            scope.set(Some(Some(name)));
        }
    });
    let picker = move || {
        // Admins: every group; members: their own; managers: no picker (their group only).
        let choices: Vec<String> = match (role, groups.get()) {
            (Some(Role::Admin), Load::Ready(page)) => page.groups.into_iter().map(|g| g.name).collect(),
            (Some(Role::Member), _) => group_name(groups, mine).into_iter().collect(),
            _ => return None,
        };
        let pick = move |ev: leptos::ev::Event| {
            let v = event_target_value(&ev);
            scope.set(Some((!v.is_empty()).then_some(v)));
        };
        Some(view! {
            <select id="report-group" on:change=pick>
                <option value="">"The organisation"</option>
                {choices.into_iter().map(|g| {
                    let selected = scope.get() == Some(Some(g.clone()));
                    view! { <option value=g.clone() selected=selected>{g.clone()}</option> }
                }).collect_view()}
            </select>
        })
    };
    view! {
        <section id="reports">
            <div class="row no-print" id="week-picker">
                <h2>"Weekly report"</h2>
                {picker}
                <button id="week-previous" on:click=move |_| week.update(|w| *w = w.previous())>"◀ Previous"</button>
                <strong id="week-shown">{move || week.get().to_string()}</strong>
                <button id="week-next" disabled=move || { week.get() >= current } on:click=move |_| week.update(|w| *w = w.next())>"Next ▶"</button>
                <button id="week-current" disabled=move || { week.get() == current } on:click=move |_| week.set(current)>"This week"</button>
                <button on:click=move |_| { if let Some(w) = web_sys::window() { let _ = w.print(); } }>"Print"</button>
            </div>
            {move || match scope.get() {
                Some(s) => view! { <Frozen scope=s.clone() week=week/> <Report scope=s week=week/> }.into_any(),
                None => show(groups, |_| view! { <p class="muted">"Loading…"</p> }).into_any(),
            }}
        </section>
        {(role == Some(Role::Admin)).then(|| view! { <reviews::Reviews/> <settings::SettingsForm/> <crate::limits::TimeLimits editable=true/> })}
    }
}

/// The scope's frozen weeks, newest first, to jump to (with their deliveries for admins).
#[component]
fn Frozen(scope: Scope, week: RwSignal<IsoWeek>) -> impl IntoView {
    let frozen = load::<FrozenWeeks>(|| "/api/reports".into(), RwSignal::new(0), None);
    move || {
        let Load::Ready(list) = frozen.get() else { return None };
        let weeks: Vec<_> = list.weeks.into_iter().filter(|w| w.group == scope).take(8).collect();
        (!weeks.is_empty()).then(|| {
            view! {
                <div class="row no-print frozen-weeks">
                    <span class="muted">"Frozen weeks:"</span>
                    {weeks.into_iter().filter_map(|w| {
                        let to = IsoWeek::parse(&w.week)?;
                        let sent = format!("frozen {}; {} delivered, {} failed", at(w.frozen_at), w.delivered, w.failed);
                        Some(view! {
                            <button class="link" data-week=w.week.clone() title=sent class:on=move || week.get() == to
                                on:click=move |_| week.set(to)>{w.week.clone()}</button>
                        })
                    }).collect_view()}
                </div>
            }
        })
    }
}

#[component]
fn Report(scope: Scope, week: RwSignal<IsoWeek>) -> impl IntoView {
    let group = scope.as_deref().map(|g| format!("&group={}", enc(g))).unwrap_or_default();
    let report = load_each::<WeeklyReport>(move || format!("/api/reports/weekly?week={}{group}", week.get()));
    move || match report.get() {
        Load::Loading => view! { <p class="muted">"Loading…"</p> }.into_any(),
        Load::Failed(e) => {
            view! { <p class="error" id="report-error">{format!("This report cannot be shown: {e}")}</p> }
                .into_any()
        }
        Load::Ready(r) => body(r).into_any(),
    }
}

fn body(r: WeeklyReport) -> impl IntoView {
    let who = r.group.clone().unwrap_or_else(|| "the organisation".into());
    let badge = match r.frozen_at {
        Some(f) => {
            view! { <span class="badge" id="frozen">{format!("frozen on {}", at(f))}</span> }.into_any()
        }
        None => view! { <span class="badge live">"under way"</span> }.into_any(),
    };
    let head = view! {
        <div class="report-head" data-week=r.week.clone() data-group=r.group.clone().unwrap_or_default()>
            <h2>{format!("{} — {who}", r.week)} " " {badge}</h2>
            <p class="muted">{format!("{} to {} UTC; weeks, days and hours in {}.", at(r.starts_at), at(r.ends_at), r.time_zone)}</p>
        </div>
    };
    if r.totals.gpu_hours == 0.0 && r.usage.is_empty() && r.totals.jobs_started == 0 {
        return view! { {head} <p class="empty" id="report-empty">{format!("Nothing ran for {who} in {}: no GPU was held.", r.week)}</p> }.into_any();
    }
    let t = &r.totals;
    let idle_share = if t.gpu_hours > 0.0 { t.idle_gpu_hours / t.gpu_hours * 100.0 } else { 0.0 };
    let figures = [
        ("GPU-hours", hours(t.gpu_hours)),
        ("busy GPU-hours", hours(t.busy_gpu_hours)),
        ("idle while held", format!("{idle_share:.0}%")),
        ("cost", format!("{} {}", money(t.cost), r.currency)),
        ("jobs started / finished", format!("{} / {}", t.jobs_started, t.jobs_finished)),
    ];
    let chart = |title: &'static str, svg: String, empty: Option<&'static str>| {
        match empty {
        Some(e) => view! { <figure><figcaption>{title}</figcaption><p class="empty">{e}</p></figure> }.into_any(),
        None => view! { <figure><figcaption>{title}</figcaption><div class="chart-box" inner_html=svg></div></figure> }.into_any(),
    }
    };
    let (from, to, group) = (r.starts_at, r.ends_at, r.group.clone());
    view! {
        {head}
        <div class="figures">
            {figures.into_iter().map(|(k, v)| view! { <div class="figure"><span class="muted">{k}</span><strong>{v}</strong></div> }).collect_view()}
        </div>
        <div class="charts">
            {chart("GPU-hours by day and category", charts::stacked_days(&r.days), r.days.is_empty().then_some("No days in this report."))}
            <figure><figcaption>"GPUs held by hour and weekday"</figcaption><Heat from=from to=to group=group/></figure>
            {chart("Waits by class: p50 and p95", charts::wait_bars(&r.waits), r.waits.is_empty().then_some("No job waited to start this week."))}
            {chart("Budget burn and forecast to month end", charts::budget_burn(&r.budgets), r.budgets.is_empty().then_some("No quota has a monthly budget."))}
        </div>
        {tables::tables(&r).into_iter().map(|t| {
            let (file, dom_id) = (t.file_name(&r), format!("report-{}", t.id));
            table_view(t.title.into(), file, dom_id, "Nothing this week.", t)
        }).collect_view()}
    }
    .into_any()
}

/// The hour × weekday heatmap of the report's week, from the usage curves.
#[component]
fn Heat(from: i64, to: i64, group: Option<String>) -> impl IntoView {
    let group = group.map(|g| format!("&group={}", enc(&g))).unwrap_or_default();
    let curves =
        load::<UsageCurves>(move || format!("/api/usage?from={from}&to={to}{group}"), RwSignal::new(0), None);
    show(curves, |c| {
        if c.heatmap.iter().all(|h| h.gpus_held == 0.0) {
            view! { <p class="empty">"No GPU was held this week."</p> }.into_any()
        } else {
            view! { <div class="chart-box" inner_html=charts::heatmap(&c.heatmap)></div> }.into_any()
        }
    })
}

/// A table under its title, with its "Download CSV" button; `empty` says why it has no
/// rows when it has none.
pub fn table_view(
    title: String,
    file: String,
    dom_id: String,
    empty: &'static str,
    t: Table,
) -> impl IntoView {
    let csv = t.csv();
    let id = t.id;
    let rows = if t.rows.is_empty() {
        view! { <p class="empty">{empty}</p> }.into_any()
    } else {
        view! {
            <table id=dom_id>
                <tr>{t.header.iter().map(|h| view! { <th>{h.clone()}</th> }).collect_view()}</tr>
                {t.rows.iter().map(|row| view! { <tr>{row.iter().map(|c| view! { <td>{c.clone()}</td> }).collect_view()}</tr> }).collect_view()}
            </table>
        }
        .into_any()
    };
    view! {
        <div class="report-table" data-table=id>
            <div class="row">
                <h3>{title}</h3>
                <button class="csv no-print" data-csv=id on:click=move |_| download(&file, &csv)>"Download CSV"</button>
            </div>
            {rows}
        </div>
    }
}

/// Saves `text` as a CSV file through a Blob: nothing is asked of the server.
pub fn download(file: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/csv;charset=utf-8");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    let document = web_sys::window().and_then(|w| w.document());
    if let Some(a) = document.and_then(|d| d.create_element("a").ok()) {
        let _ = a.set_attribute("href", &url);
        let _ = a.set_attribute("download", file);
        if let Ok(a) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(a) {
            a.click();
        }
    }
    // Revoked a little later: the browser reads the Blob after the click returns.
    set_timeout(move || drop(web_sys::Url::revoke_object_url(&url)), std::time::Duration::from_secs(30));
}
