//! The global view (V1–V3): pools → nodes → GPUs, each GPU coloured by the group holding
//! it, with who, what, since and until; each pool's capacity, surplus or tight. And the
//! quotas (Q1–Q3): use against guarantee and monthly budget, per group and category.

use std::time::Duration;

use leptos::prelude::*;
use serde_json::Value;

use crate::ui::{colour, load, rows, show, text, when};

#[component]
pub fn ClusterPage() -> impl IntoView {
    let refresh = RwSignal::new(0);
    let pools = load(|| "/api/pools".into(), refresh, Some(Duration::from_secs(3)));
    let nodes = load(|| "/api/nodes".into(), refresh, Some(Duration::from_secs(3)));
    view! {
        <section>
            <h2>"Capacity by pool"</h2>
            {show(pools, |v| {
                let pools = rows(v, "pools");
                if pools.is_empty() {
                    return view! { <p class="empty">"No pools yet: add nodes or start agents."</p> }.into_any();
                }
                view! {
                    <table id="pools">
                        <tr><th>"pool"</th><th>"GPUs"</th><th>"held"</th><th>"free"</th><th>"waiting"</th><th>"state"</th></tr>
                        {pools.into_iter().map(|p| view! {
                            <tr>
                                <td>{text(&p["pool"])}</td><td>{text(&p["gpus"])}</td><td>{text(&p["held"])}</td>
                                <td>{text(&p["free"])}</td><td>{text(&p["pending_gpus"])}</td>
                                <td class=text(&p["status"])>{text(&p["status"])}</td>
                            </tr>
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
        </section>
        <section id="global-view">
            <h2>"Every GPU"</h2>
            {show(nodes, |v| {
                let nodes = rows(v, "nodes");
                if nodes.is_empty() {
                    return view! { <p class="empty">"No nodes."</p> }.into_any();
                }
                let mut pools: Vec<(String, Vec<Value>)> = Vec::new();
                for n in nodes {
                    let pool = text(&n["pool"]);
                    match pools.iter_mut().find(|(p, _)| *p == pool) {
                        Some((_, list)) => list.push(n),
                        None => pools.push((pool, vec![n])),
                    }
                }
                pools.into_iter().map(|(pool, nodes)| view! {
                    <div class="pool">
                        <h3>{pool}</h3>
                        <div class="nodes">{nodes.into_iter().map(node).collect_view()}</div>
                    </div>
                }).collect_view().into_any()
            })}
        </section>
    }
}

fn node(n: Value) -> impl IntoView {
    let healthy = n["healthy"].as_bool().unwrap_or(false);
    let gpus = rows(&n, "gpus");
    view! {
        <div class="node" class:down=!healthy data-node=text(&n["name"])>
            <strong>{text(&n["name"])}</strong>
            <span class="muted">{format!(" {} · {} free{}", text(&n["model"]), text(&n["free"]), if healthy { "" } else { " · out of service" })}</span>
            <div class="gpus">
                {gpus.into_iter().enumerate().map(|(i, g)| {
                    if g.is_null() {
                        view! { <div class="gpu" title=format!("GPU {i}: free")></div> }.into_any()
                    } else {
                        let group = text(&g["group"]);
                        let title = format!(
                            "GPU {i}: job {} ({}) of {group}, since {}, until {}",
                            text(&g["job"]), text(&g["name"]), when(&g["since"]), when(&g["until"])
                        );
                        let style = format!("background: {}", colour(&group));
                        view! {
                            <div class="gpu held" style=style title=title data-job=text(&g["job"])>
                                {group.chars().next().map(|c| c.to_string()).unwrap_or_default()}
                            </div>
                        }.into_any()
                    }
                }).collect_view()}
            </div>
        </div>
    }
}

#[component]
pub fn QuotasPage() -> impl IntoView {
    let refresh = RwSignal::new(0);
    let quotas = load(|| "/api/quotas".into(), refresh, Some(Duration::from_secs(10)));
    view! {
        <section>
            <h2>"Quotas: use against guarantee and monthly budget"</h2>
            {show(quotas, |v| {
                let quotas = rows(v, "quotas");
                if quotas.is_empty() {
                    return view! { <p class="empty">"No quotas yet."</p> }.into_any();
                }
                view! {
                    <table id="quotas">
                        <tr><th>"group"</th><th>"model"</th><th>"category"</th><th>"running / guaranteed"</th><th>"spent / budget (GPU-h)"</th></tr>
                        {quotas.into_iter().map(|q| {
                            let used = q["running_gpus"].as_f64().unwrap_or(0.0);
                            let guaranteed = q["guaranteed"].as_f64().unwrap_or(0.0);
                            let spent = q["spent_gpu_h"].as_f64().unwrap_or(0.0);
                            let budget = q["budget_gpu_h"].as_f64();
                            view! {
                                <tr>
                                    <td>{text(&q["group"])}</td><td>{text(&q["model"])}</td><td>{text(&q["category"])}</td>
                                    <td>{bar(used, guaranteed)}" "{format!("{used} / {guaranteed}")}</td>
                                    <td>{bar(spent, budget.unwrap_or(0.0))}" "{format!("{spent:.1} / {}", budget.map_or("no budget".into(), |b| format!("{b:.0}")))}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
        </section>
    }
}

/// A small SVG bar: `value` of `limit`, red past the limit.
fn bar(value: f64, limit: f64) -> impl IntoView {
    let share = if limit > 0.0 {
        (value / limit).min(1.5)
    } else if value > 0.0 {
        1.5
    } else {
        0.0
    };
    let fill = if share > 1.0 { "#b3261e" } else { "#0b6e99" };
    view! {
        <svg width="120" height="10" role="img">
            <rect x="0" y="0" width="120" height="10" fill="#e8edf2"></rect>
            <rect x="0" y="0" width=format!("{:.0}", 80.0 * share) height="10" fill=fill></rect>
            <line x1="80" y1="0" x2="80" y2="10" stroke="#1d2733"></line>
        </svg>
    }
}
