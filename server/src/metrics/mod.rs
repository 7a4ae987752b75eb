//! Metrics for the monitoring the organisation already runs (O2): what Prometheus scrapes
//! from `GET /metrics`. The figures of the records (the queue and its waits, GPUs held,
//! idle and free, budgets spent) are computed from the database at each scrape, so they
//! are never stale and survive a restart; the timings of the server's own work (dispatch
//! cycles, policy calls, agent syncs, API requests) and the policy faults are kept in
//! memory here. Labels name groups, pools, models, categories, classes, policy kinds and
//! route templates — never a person, a job or a raw path.

mod gauges;
pub mod instruments;
pub mod text;

pub use instruments::{Counter, Histogram, Timer};
pub use text::CONTENT_TYPE;

use crate::policy::PolicyEvent;
use crate::store::{Store, StoreError};

const KINDS: instruments::Seeds = &[&["priority", "quota", "reclaim"]];
const FAULTS: instruments::Seeds = &[
    &["priority", "quota", "reclaim"],
    &["trap", "timeout", "memory", "guest-error", "malformed", "wrong-kind"],
];

/// One dispatch cycle on the leader: snapshot, plan, write.
pub static DISPATCH_CYCLE: Histogram = Histogram::new(
    "tidepool_dispatch_cycle_seconds",
    "Duration of a dispatch cycle on the leader: read the snapshot, plan, write the decisions.",
    &[],
    &[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0],
    &[],
);

/// One call of the dispatcher into a policy (the module, its fallbacks and shadow).
pub static POLICY_CALL: Histogram = Histogram::new(
    "tidepool_policy_call_seconds",
    "Duration of one batched policy call by kind, fallbacks and shadow runs included.",
    &["kind"],
    &[0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5],
    KINDS,
);

/// Answers of policy modules that were not used.
pub static POLICY_FAULTS: Counter = Counter::new(
    "tidepool_policy_faults_total",
    "Policy module answers not used (trap, timeout, memory, guest-error, malformed, wrong-kind), by kind.",
    &["kind", "fault"],
    FAULTS,
);

/// Versions taken out of service after repeated faults.
pub static POLICY_CIRCUIT_OPENS: Counter = Counter::new(
    "tidepool_policy_circuit_opens_total",
    "Active policy versions taken out of service after repeated faults, by kind.",
    &["kind"],
    KINDS,
);

/// An agent's report turned into records and orders (the long-poll wait excluded).
pub static AGENT_SYNC: Histogram = Histogram::new(
    "tidepool_agent_sync_seconds",
    "Time to handle an agent's sync: its report recorded and its orders read (the long-poll wait excluded).",
    &[],
    &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0],
    &[],
);

/// Every API request, by its route template (never the raw path) and status class.
pub static API_REQUEST: Histogram = Histogram::new(
    "tidepool_http_request_duration_seconds",
    "API request latency to the answer's head, by method, route template and status class (long polls included).",
    &["method", "route", "status"],
    &[0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0],
    &[],
);

/// Counts what the policy host records: faults, and circuits that opened.
pub fn policy_event(event: &PolicyEvent) {
    match event {
        PolicyEvent::Fault { kind, label, .. } => POLICY_FAULTS.inc(&[kind.name(), label]),
        PolicyEvent::CircuitOpen { kind, .. } => POLICY_CIRCUIT_OPENS.inc(&[kind.name()]),
        PolicyEvent::Fallback { .. } | PolicyEvent::Shadow { .. } => {}
    }
}

/// What a scrape reads at `now`: the records' gauges, then the in-memory instruments.
/// `idle_below_pct` is the fleet's idle threshold (R2): a held GPU its agent last
/// reported below it counts as idle.
pub async fn scrape(store: &Store, now: i64, idle_below_pct: i64) -> Result<String, StoreError> {
    let mut out = text::Exposition::default();
    gauges::queue(store, now, &mut out).await?;
    gauges::gpus(store, idle_below_pct, &mut out).await?;
    gauges::budgets(store, now, &mut out).await?;
    DISPATCH_CYCLE.write(&mut out);
    POLICY_CALL.write(&mut out);
    POLICY_FAULTS.write(&mut out);
    POLICY_CIRCUIT_OPENS.write(&mut out);
    AGENT_SYNC.write(&mut out);
    API_REQUEST.write(&mut out);
    Ok(out.finish())
}
