//! Borrowing (B1): ask another group for GPUs; the lender's manager approves or rejects
//! with a reason; active loans with their end; the borrower returns, the lender reclaims.
//! An admin asks for a named group, and their request waits for the lender's manager or
//! another admin: no one approves their own.

use leptos::prelude::*;
use tidepool_api::{Decision, GroupPage, Loan, LoanChanged, LoanPage, NewLoan, Role};

use crate::api;
use crate::ui::{act, at, group_name, load, show, status_line};

#[component]
pub fn LoansPage() -> impl IntoView {
    let session = api::session();
    let refresh = RwSignal::new(0);
    let status = RwSignal::new(None::<String>);
    let loans = load::<LoanPage>(|| "/api/loans".into(), refresh, None);
    let groups = load::<GroupPage>(|| "/api/groups?limit=500".into(), refresh, None);
    let borrower = RwSignal::new(String::new());
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
        let body = NewLoan {
            lender: lender.get(),
            // Admins belong to no group: they name the one the GPUs are for.
            borrower: Some(borrower.get()).filter(|b| !b.is_empty()),
            model: Some(model.get()),
            gpus: gpus.get().trim().parse().unwrap_or(0),
            ends_at: now + hours.get().trim().parse::<i64>().unwrap_or(0) * 3600,
            why: why.get(),
        };
        act(api::post::<_, LoanChanged>("/api/loans".into(), body), status, refresh);
    };
    // My group's name, to know which loans I lend or borrow.
    let my_group = move || group_name(groups, session.me.get().and_then(|m| m.group_id));
    let decide = move |l: &Loan| {
        let id = l.id;
        let role = session.role();
        let admin = role == Some(Role::Admin);
        let lender_manager =
            admin || (role == Some(Role::Manager) && my_group().as_deref() == Some(&l.lender));
        // Whoever asked does not approve: the lender (or a second admin) does.
        let asked = session.me.get().is_some_and(|m| m.username == l.requested_by);
        let borrower = admin || (my_group().is_some() && my_group() == l.borrower);
        let state = l.state.as_str();
        let reason = move || Decision {
            note: if note.get().trim().is_empty() {
                "decided on the borrowing page".to_string()
            } else {
                note.get()
            },
        };
        let decision = move |verb: &str| {
            act(api::post::<_, LoanChanged>(format!("/api/loans/{id}/{verb}"), reason()), status, refresh)
        };
        view! {
            {(lender_manager && !asked && state == "requested").then(|| view! {
                <button class="primary approve" on:click=move |_| decision("approve")>"Approve"</button>
            })}
            {(lender_manager && state == "requested").then(|| view! {
                <button class="reject" on:click=move |_| decision("reject")>{if asked { "Withdraw" } else { "Reject" }}</button>
            })}
            {(asked && state == "requested").then(|| view! {
                <span class="muted waiting">"waiting for the lender"</span>
            })}
            {(lender_manager && state == "active").then(|| view! {
                <button on:click=move |_| decision("reclaim")>"Reclaim"</button>
            })}
            {(borrower && state == "active").then(|| view! {
                <button on:click=move |_| act(api::post_empty::<LoanChanged>(format!("/api/loans/{id}/return")), status, refresh)>"Return"</button>
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
                        {v.groups.iter().map(|g| view! { <option value=g.name.clone()>{g.name.clone()}</option> }).collect_view()}
                    </select>
                })}
                {move || (session.role() == Some(Role::Admin)).then(|| show(groups, move |v| view! {
                    <select name="borrower" on:change=move |ev| borrower.set(event_target_value(&ev))>
                        <option value="">"for group"</option>
                        {v.groups.iter().map(|g| view! { <option value=g.name.clone()>{g.name.clone()}</option> }).collect_view()}
                    </select>
                }))}
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
                if v.loans.is_empty() {
                    return view! { <p class="empty">"No loans."</p> }.into_any();
                }
                view! {
                    <table id="loans">
                        <tr><th>"loan"</th><th>"lender → borrower"</th><th>"GPUs"</th><th>"ends"</th><th>"state"</th><th>"why / decision"</th><th></th></tr>
                        {v.loans.iter().map(|l| view! {
                            <tr data-loan=l.id.to_string() data-state=l.state.clone()>
                                <td>{l.id}</td>
                                <td>{format!("{} → {}", l.lender, l.borrower.as_deref().unwrap_or("anyone"))}</td>
                                <td>{format!("{} × {}", l.gpus, l.model)}</td>
                                <td>{at(l.ends_at)}</td><td class="state">{l.state.clone()}</td>
                                <td>{l.why.clone()}{l.decision.as_ref().map(|d| format!(" — {d}"))}</td>
                                <td>{decide(l)}</td>
                            </tr>
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
        </section>
    }
}
