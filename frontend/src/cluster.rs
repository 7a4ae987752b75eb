//! The global view (V1–V3): pools → nodes → GPUs, each GPU coloured by the group holding
//! it, with who, what, since and until; each pool's capacity, surplus or tight. And the
//! quotas (Q1–Q3): use against guarantee and monthly budget, per group and category.

use std::time::Duration;

use leptos::prelude::*;
use tidepool_api::{Node, NodesView, PoolsView, QuotasView};

use crate::ui::{at, at_or_dash, colour, load, show};

#[component]
pub fn ClusterPage() -> impl IntoView {
    let refresh = RwSignal::new(0);
    let pools = load::<PoolsView>(|| "/api/pools".into(), refresh, Some(Duration::from_secs(3)));
    let nodes = load::<NodesView>(|| "/api/nodes".into(), refresh, Some(Duration::from_secs(3)));
    view! {
        <section>
            <h2>"Capacity by pool"</h2>
            {show(pools, |v| {
                if v.pools.is_empty() {
                    return view! { <p class="empty">"No pools yet: add nodes or start agents."</p> }.into_any();
                }
                view! {
                    <table id="pools">
                        <tr><th>"pool"</th><th>"GPUs"</th><th>"held"</th><th>"free"</th><th>"waiting"</th><th>"state"</th></tr>
                        {v.pools.iter().map(|p| view! {
                            <tr>
                                <td>{p.pool.clone()}</td><td>{p.gpus}</td><td>{p.held}</td>
                                <td>{p.free}</td><td>{p.pending_gpus}</td>
                                <td class=p.status.clone()>{p.status.clone()}</td>
                            </tr>
                        }).collect_view()}
                    </table>
                }.into_any()
            })}
        </section>
        <section id="global-view">
            <h2>"Every GPU"</h2>
            {show(nodes, |v| {
                if v.nodes.is_empty() {
                    return view! { <p class="empty">"No nodes."</p> }.into_any();
                }
                let mut pools: Vec<(String, Vec<Node>)> = Vec::new();
                for n in v.nodes.iter().cloned() {
                    match pools.iter_mut().find(|(p, _)| *p == n.pool) {
                        Some((_, list)) => list.push(n),
                        None => pools.push((n.pool.clone(), vec![n])),
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

fn node(n: Node) -> impl IntoView {
    let healthy = n.healthy;
    view! {
        <div class="node" class:down=!healthy data-node=n.name.clone()>
            <strong>{n.name.clone()}</strong>
            <span class="muted">{format!(" {} · {} free{}", n.model, n.free, if healthy { "" } else { " · out of service" })}</span>
            <div class="gpus">
                {n.gpus.into_iter().enumerate().map(|(i, g)| match g {
                    None => view! { <div class="gpu" title=format!("GPU {i}: free")></div> }.into_any(),
                    Some(g) => {
                        let title = format!(
                            "GPU {i}: job {} ({}) of {}, since {}, until {}",
                            g.job, g.name, g.group, at(g.since), at_or_dash(g.until)
                        );
                        let style = format!("background: {}", colour(&g.group));
                        view! {
                            <div class="gpu held" style=style title=title data-job=g.job.to_string()>
                                {g.group.chars().next().map(|c| c.to_string()).unwrap_or_default()}
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
    let quotas = load::<QuotasView>(|| "/api/quotas".into(), refresh, Some(Duration::from_secs(10)));
    view! {
        <section>
            <h2>"Quotas: use against guarantee and monthly budget"</h2>
            {show(quotas, |v| {
                if v.quotas.is_empty() {
                    return view! { <p class="empty">"No quotas yet."</p> }.into_any();
                }
                view! {
                    <table id="quotas">
                        <tr><th>"group"</th><th>"model"</th><th>"category"</th><th>"running / guaranteed"</th><th>"spent / budget (GPU-h)"</th></tr>
                        {v.quotas.iter().map(|q| {
                            let (used, guaranteed) = (q.running_gpus, q.guaranteed);
                            let (spent, budget) = (q.spent_gpu_h, q.budget_gpu_h);
                            view! {
                                <tr>
                                    <td>{q.group.clone()}</td><td>{q.model.clone()}</td><td>{q.category.clone()}</td>
                                    <td>{bar(used as f64, guaranteed as f64)}" "{format!("{used} / {guaranteed}")}</td>
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
