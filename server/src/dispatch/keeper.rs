//! The lease keeper (O3): on its own short period, apart from the cycles, the leader
//! renews the lease and standbys try to take it, so a takeover waits for the lease's TTL
//! (seconds), not for a cycle. A standby that wins wakes its dispatcher at once. The
//! keeper also carries news between the servers on one database through the lease row:
//! the leader runs a cycle when a standby nudged it (a submission there), and a standby
//! wakes its agents' waiting syncs when the leader decided something.

use std::sync::Arc;
use std::time::Duration;

use crate::dispatch::lease::{Marks, marks};
use crate::dispatch::{DispatchError, Lease};
use crate::fleet::Fleet;
use crate::store::Store;

pub struct Keeper {
    pub store: Store,
    pub lease: Lease,
    /// How often the lease is renewed or tried.
    pub every: Duration,
    /// Wakes this server's dispatcher.
    pub wake: Arc<crate::dispatch::wake::Wake>,
    pub fleet: Arc<Fleet>,
}

impl Keeper {
    /// Runs for the life of the server.
    pub async fn run(self) {
        let mut leading = false;
        let mut seen: Option<Marks> = None;
        loop {
            match self.lease.acquire(&self.store, crate::unix_now()).await {
                Ok(epoch) => {
                    if !leading {
                        tracing::info!(epoch, "holding the dispatch lease");
                        // The first cycle runs now, not at the interval.
                        self.wake.changed();
                    }
                    leading = true;
                }
                Err(DispatchError::NotLeader(who)) => {
                    if leading {
                        tracing::warn!(%who, "lost the dispatch lease: standing by");
                    }
                    leading = false;
                }
                Err(e) => tracing::error!(error = %e, "renewing the dispatch lease"),
            }
            match marks(&self.store).await {
                Ok(Some(now)) => {
                    if let Some(before) = &seen {
                        if leading && now.nudged_ms != before.nudged_ms {
                            self.wake.changed();
                        }
                        if !leading && now.decided_ms != before.decided_ms {
                            self.fleet.bump();
                        }
                    }
                    seen = Some(now);
                }
                Ok(None) => {}
                Err(e) => tracing::error!(error = %e, "reading the dispatch lease"),
            }
            tokio::time::sleep(self.every).await;
        }
    }
}
