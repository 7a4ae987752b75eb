//! Borrowing (B1): ask another group for GPUs; the lender's manager approves or rejects
//! with a reason; active loans with their end; the borrower returns, the lender reclaims.

use leptos::prelude::*;
use serde_json::{Value, json};

use crate::api;
use crate::ui::{act, load, rows, show, status_line, text, when};

#[component]
pub fn LoansPage() -> impl IntoView {
    let session = api::session();
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let loans = load(|| "/api/loans".into(), refresh, None);
    let groups = load(|| "/api/groups?limit=500".into(), refresh, None);
    let (lender, gpus, hours, why, model) = (
        RwSignal::new(String::new()),
        RwSignal::new("4".to_string()),
        RwSignal::new("24".to_string()),
        RwSignal::new(String::new()),
        RwSignal::new("A100-80G".to_string()),
    );
    let note = RwSignal::new(String::new());
    let ask = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let now = (js_sys::Date::now() / 1000.0) as i64;
        let ends = now + hours.get().trim().parse::<i64>().unwrap_or(0) * 3600;
        let body = json!({ "lender": lender.get(), "gpus": gpus.get().trim().parse::<u32>().unwrap_or(0),
            "model": model.get(), "ends_at": ends, "why": why.get() });
        act("POST", "/api/loans".into(), body, status, refresh);
    };
    // My group's name, to know which loans I lend or borrow.
    let my_group = move || {
        let id = session.me.get().and_then(|m| m.group_id)?;
        match groups.get() {
            crate::ui::Load::Ready(v) => {
                rows(&v, "groups").into_iter().find(|g| g["id"] == id).map(|g| text(&g["name"]))
            }
            _ => None,
        }
    };
    let decide = move |l: &Value| {
        let id = l["id"].as_i64().unwrap_or(0);
        let role = session.role();
        let lender_manager =
            role == "admin" || (role == "manager" && my_group().as_deref() == l["lender"].as_str());
        let borrower = role == "admin" || my_group().as_deref() == l["borrower"].as_str();
        let state = text(&l["state"]);
        let reason = move || {
            if note.get().trim().is_empty() {
                "decided on the borrowing page".to_string()
            } else {
                note.get()
            }
        };
        view! {
            {(lender_manager && state == "requested").then(|| view! {
                <button class="primary approve" on:click=move |_| act("POST", format!("/api/loans/{id}/approve"), json!({ "note": reason() }), status, refresh)>"Approve"</button>
                <button class="reject" on:click=move |_| act("POST", format!("/api/loans/{id}/reject"), json!({ "note": reason() }), status, refresh)>"Reject"</button>
            })}
            {(lender_manager && state == "active").then(|| view! {
                <button on:click=move |_| act("POST", format!("/api/loans/{id}/reclaim"), json!({ "note": reason() }), status, refresh)>"Reclaim"</button>
            })}
            {(borrower && state == "active").then(|| view! {
                <button on:click=move |_| act("POST", format!("/api/loans/{id}/return"), json!({}), status, refresh)>"Return"</button>
            })}
        }
    };
    view! {
        <section>
            <h2>"Ask another group for GPUs"</h2>
            <form class="row" on:submit=ask id="ask-loan">
                {show(groups, move |v| view! {
                    <select name="lender" on:change=move |ev| lender.set(event_target_value(&ev))>
                        <option value="">"lender"</option>
                        {rows(v, "groups").into_iter().map(|g| view! { <option value=text(&g["name"])>{text(&g["name"])}</option> }).collect_view()}
                    </select>
                })}
                <input placeholder="GPUs" size="4" bind:value=gpus/>
                <input placeholder="model" bind:value=model/>
                <input placeholder="hours" size="4" bind:value=hours/>
                <input placeholder="why" bind:value=why/>
                <button class="primary" type="submit">"Ask"</button>
            </form>
            {status_line(status)}
        </section>
        <section>
            <h2>"Loans"</h2>
            <div class="row"><input placeholder="reason for a decision" bind:value=note/></div>
            {show(loans, move |v| {
                let list = rows(v, "loans");
                if list.is_empty() {
                    return view! { <p class="empty">"No loans."</p> }.into_any();
                }
                view! {
                    <table id="loans">
                        <tr><th>"loan"</th><th>"lender → borrower"</th><th>"GPUs"</th><th>"ends"</th><th>"state"</th><th>"why / decision"</th><th></th></tr>
                        {list.into_iter().map(|l| view! {
                            <tr data-loan=text(&l["id"]) data-state=text(&l["state"])>
                                <td>{text(&l["id"])}</td>
                                <td>{format!("{} → {}", text(&l["lender"]), l["borrower"].as_str().unwrap_or("anyone"))}</td>
                                <td>{format!("{} × {}", text(&l["gpus"]), text(&l["model"]))}</td>
                                <td>{when(&l["ends_at"])}</td><td class="state">{text(&l["state"])}</td>
                                <td>{text(&l["why"])}{l["decision"].as_str().map(|d| format!(" — {d}"))}</td>
                                <td>{decide(&l)}</td>
                            </tr>
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
        </section>
    }
}
