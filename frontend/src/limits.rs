//! Time limits by class (P1): each priority class's default (what a job that names no limit
//! gets) and maximum, in hours. Everyone reads them beside the submit form; admins change
//! them here (`PUT /api/settings/limits`, each change an event), the server checks them.

use leptos::prelude::*;
use tidepool_api::limits::{ClassLimit, ClassLimits};

use crate::api;
use crate::ui::{load, show};

/// Seconds as hours, without a trailing `.0`.
fn hours(s: u64) -> String {
    let h = s as f64 / 3600.0;
    if h.fract() == 0.0 { format!("{h:.0}") } else { format!("{h}") }
}

/// A limit in words, in its largest whole unit: `7 d`, `4 h`, `90 min`, `2 s`.
pub fn words(s: i64) -> String {
    match s.max(0) {
        s if s >= 86_400 && s % 86_400 == 0 => format!("{} d", s / 86_400),
        s if s >= 3600 && s % 3600 == 0 => format!("{} h", s / 3600),
        s if s >= 60 && s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// Hours typed by a person as whole seconds (at least one), or why not.
fn seconds(text: &str, what: &str) -> Result<u64, String> {
    match text.trim().parse::<f64>() {
        Ok(h) if h.is_finite() && h > 0.0 => Ok(((h * 3600.0).round() as u64).max(1)),
        _ => Err(format!("{what} is not a number of hours above 0")),
    }
}

/// The limits table; `editable` (admins) adds inputs and a Save button.
#[component]
pub fn TimeLimits(editable: bool) -> impl IntoView {
    let refresh = RwSignal::new(0);
    let limits = load::<ClassLimits>(|| "/api/settings/limits".into(), refresh, None);
    // What the last save said: kept here, as a save reloads the limits and so redraws the
    // editor (a signal of the editor's own would lose "Saved." at once).
    let said = RwSignal::new(None::<Result<String, String>>);
    view! {
        <section id="time-limits">
            <h2>"Time limits by class"</h2>
            <p class="muted">"A job without a time limit gets its class's default; none may ask for more than the maximum."</p>
            {show(limits, move |l| {
                if editable {
                    view! { <Editor limits=l.clone() refresh=refresh said=said/> }.into_any()
                } else {
                    view! {
                        <table id="time-limits-table">
                            <tr><th>"class"</th><th>"default (h)"</th><th>"maximum (h)"</th></tr>
                            {l.classes.iter().map(|c| view! {
                                <tr data-class=c.class.clone()><td>{c.class.clone()}</td><td>{hours(c.default_s)}</td><td>{hours(c.max_s)}</td></tr>
                            }).collect_view()}
                        </table>
                    }.into_any()
                }
            })}
        </section>
    }
}

#[component]
fn Editor(
    limits: ClassLimits,
    refresh: RwSignal<u32>,
    said: RwSignal<Option<Result<String, String>>>,
) -> impl IntoView {
    // Per class: (class, default hours, maximum hours) as typed.
    let rows = RwSignal::new(
        limits.classes.into_iter().map(|c| (c.class, hours(c.default_s), hours(c.max_s))).collect::<Vec<_>>(),
    );
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut classes = Vec::new();
        for (class, default, max) in rows.get() {
            let parsed = seconds(&default, &format!("{class}'s default"))
                .and_then(|d| Ok((d, seconds(&max, &format!("{class}'s maximum"))?)));
            match parsed {
                Ok((default_s, max_s)) => classes.push(ClassLimit { class, default_s, max_s }),
                Err(e) => return said.set(Some(Err(e))),
            }
        }
        leptos::task::spawn_local(async move {
            let answer =
                api::put::<_, ClassLimits>("/api/settings/limits".into(), ClassLimits { classes }).await;
            if answer.is_ok() {
                refresh.update(|n| *n += 1);
            }
            said.set(Some(answer.map(|_| "Saved.".to_string())));
        });
    };
    let row = move |i: usize, class: String, default: String, max: String| {
        let set = move |which: usize| {
            move |ev: leptos::ev::Event| {
                let v = event_target_value(&ev);
                rows.update(|r| if which == 0 { r[i].1 = v } else { r[i].2 = v });
            }
        };
        let name = class.clone();
        view! {
            <tr data-class=class>
                <td>{name}</td>
                <td><input class="default" size="6" value=default on:change=set(0)/></td>
                <td><input class="max" size="6" value=max on:change=set(1)/></td>
            </tr>
        }
    };
    view! {
        <form id="time-limits-form" on:submit=save>
            <table id="time-limits-table">
                <tr><th>"class"</th><th>"default (h)"</th><th>"maximum (h)"</th></tr>
                {rows.get_untracked().into_iter().enumerate().map(|(i, (c, d, m))| row(i, c, d, m)).collect_view()}
            </table>
            <button class="primary" type="submit">"Save time limits"</button>
            {move || said.get().map(|r| match r {
                Ok(m) => view! { <p class="muted" id="time-limits-saved">{m}</p> }.into_any(),
                Err(e) => view! { <p class="error">{e}</p> }.into_any(),
            })}
        </form>
    }
}
