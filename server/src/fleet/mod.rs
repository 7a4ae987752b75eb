//! The server's side of the node agents: their credentials, registration, the sync that
//! turns reports into records and records into orders, finding lost nodes, and idle
//! reclaim (R1–R3, D4, V1); and the nodes as admins keep them and everyone sees them
//! (`nodes`, `occupancy`). The agent's own side is `crate::agent`.

pub mod finish;
pub mod logs;
pub mod nodes;
pub mod occupancy;
pub mod protocol;
pub mod register;
pub mod sweep;
pub mod sync;
pub mod tokens;

use tokio::sync::watch;

/// How the server treats agents.
#[derive(Clone, Debug)]
pub struct FleetConfig {
    /// Seconds between SIGTERM and SIGKILL when stopping a job (time to checkpoint).
    pub grace_s: u64,
    /// A node whose agent has not synced for this long is lost: its jobs are requeued.
    pub lost_after_s: i64,
    /// A GPU below this utilisation (percent) is idle (R2).
    pub idle_threshold_pct: i64,
    /// An allocation idle this long gets a notice…
    pub idle_after_s: i64,
    /// …and is reclaimed this long after the notice if still idle.
    pub idle_notice_s: i64,
    /// The longest a sync waits for news.
    pub wait_max_s: u64,
    /// The most bytes of a job's log kept; later output is dropped, with a marker.
    pub log_cap_bytes: u64,
}

impl Default for FleetConfig {
    fn default() -> Self {
        FleetConfig {
            grace_s: 30,
            lost_after_s: 30,
            idle_threshold_pct: 5,
            idle_after_s: 3600,
            idle_notice_s: 600,
            wait_max_s: 10,
            log_cap_bytes: logs::DEFAULT_CAP_BYTES,
        }
    }
}

/// Shared by the API and the dispatcher: the configuration, and a counter bumped
/// whenever agents may have new orders, which waiting syncs watch.
pub struct Fleet {
    pub config: FleetConfig,
    changed: watch::Sender<u64>,
    /// Per node, the assignments it runs that the records do not give it, already
    /// recorded: each difference is an event once, not once per sync until it stops.
    strays: std::sync::Mutex<std::collections::HashMap<String, std::collections::HashSet<i64>>>,
    /// Bumped when a sync adds log output, which followed log reads watch.
    logged: watch::Sender<u64>,
}

impl Fleet {
    pub fn new(config: FleetConfig) -> Fleet {
        Fleet {
            config,
            changed: watch::Sender::new(0),
            strays: Default::default(),
            logged: watch::Sender::new(0),
        }
    }

    /// Something agents should hear about happened (a placement, a stop).
    pub fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Some job's log grew.
    pub fn logged(&self) {
        self.logged.send_modify(|n| *n = n.wrapping_add(1));
    }

    pub fn watch_logs(&self) -> watch::Receiver<u64> {
        self.logged.subscribe()
    }

    /// Of the stray assignments `node` reports now, those not reported before; forgets the
    /// ones it no longer runs.
    pub fn new_strays(&self, node: &str, now: &[i64]) -> Vec<i64> {
        let mut strays = self.strays.lock().unwrap_or_else(|p| p.into_inner());
        let known = strays.entry(node.to_string()).or_default();
        let fresh: Vec<i64> = now.iter().copied().filter(|a| !known.contains(a)).collect();
        *known = now.iter().copied().collect();
        fresh
    }
}

/// GPU indices set in `mask`.
pub fn indices(mask: u64) -> Vec<u8> {
    (0..64u8).filter(|i| mask & (1 << i) != 0).collect()
}
