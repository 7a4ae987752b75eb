//! The organisation's settings, for admins (A5): the time zone weeks and days are cut in,
//! the currency, each model's price per GPU-hour, and the webhook finished weeks are
//! posted to. Saved whole with `PUT /api/settings`; the server checks every field.

use leptos::prelude::*;
use tidepool_api::settings::{GpuPrice, OrgSettings};

use crate::api;
use crate::ui::{load, show};

#[component]
pub fn SettingsForm() -> impl IntoView {
    let refresh = RwSignal::new(0);
    let settings = load::<OrgSettings>(|| "/api/settings".into(), refresh, None);
    view! {
        <section id="settings" class="no-print">
            <h2>"Organisation settings"</h2>
            {show(settings, move |s| view! { <Editor settings=s.clone()/> })}
        </section>
    }
}

#[component]
fn Editor(settings: OrgSettings) -> impl IntoView {
    let zone = RwSignal::new(settings.time_zone);
    let currency = RwSignal::new(settings.currency);
    let webhook = RwSignal::new(settings.report_webhook.unwrap_or_default());
    // Prices as typed: (model, price) text, checked when saved.
    let prices = RwSignal::new(
        settings.prices.into_iter().map(|p| (p.model, p.per_gpu_hour.to_string())).collect::<Vec<_>>(),
    );
    let said = RwSignal::new(None::<Result<String, String>>);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut list = Vec::new();
        for (model, price) in prices.get() {
            if model.trim().is_empty() {
                continue;
            }
            match price.trim().parse::<f64>() {
                Ok(p) if p >= 0.0 && p.is_finite() => {
                    list.push(GpuPrice { model: model.trim().into(), per_gpu_hour: p })
                }
                _ => {
                    return said.set(Some(Err(format!(
                        "the price of {} is not a number of at least 0",
                        model.trim()
                    ))));
                }
            }
        }
        let hook = webhook.get().trim().to_string();
        let body = OrgSettings {
            time_zone: zone.get().trim().into(),
            currency: currency.get().trim().into(),
            prices: list,
            report_webhook: (!hook.is_empty()).then_some(hook),
        };
        leptos::task::spawn_local(async move {
            // The answer is the stored settings, or nothing (204): either is a success.
            let answer = api::put::<_, Option<OrgSettings>>("/api/settings".into(), body).await;
            said.set(Some(answer.map(|_| "Saved.".to_string())));
        });
    };
    let price_row = move |i: usize, model: String, price: String| {
        let set = move |which: usize| {
            move |ev: leptos::ev::Event| {
                let v = event_target_value(&ev);
                prices.update(|p| if which == 0 { p[i].0 = v } else { p[i].1 = v });
            }
        };
        view! {
            <div class="row price">
                <input placeholder="model" value=model on:change=set(0)/>
                <input placeholder="per GPU-hour" size="8" value=price on:change=set(1)/>
            </div>
        }
    };
    view! {
        <form id="settings-form" on:submit=save>
            <div class="row">
                <label>"Time zone " <input name="time_zone" placeholder="Europe/Berlin" bind:value=zone/></label>
                <label>"Currency " <input name="currency" size="5" bind:value=currency/></label>
                <label>"Report webhook " <input name="webhook" placeholder="https://…" size="40" bind:value=webhook/></label>
            </div>
            <p class="muted">"Prices per GPU-hour, by model:"</p>
            {move || prices.get().into_iter().enumerate().map(|(i, (m, p))| price_row(i, m, p)).collect_view()}
            <div class="row">
                <button type="button" on:click=move |_| prices.update(|p| p.push((String::new(), String::new())))>"Add a model"</button>
                <button class="primary" type="submit">"Save settings"</button>
            </div>
            {move || said.get().map(|r| match r {
                Ok(m) => view! { <p class="muted" id="settings-saved">{m}</p> }.into_any(),
                Err(e) => view! { <p class="error">{e}</p> }.into_any(),
            })}
        </form>
    }
}
