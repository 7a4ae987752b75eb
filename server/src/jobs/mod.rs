//! Jobs as the domain sees them, apart from any door they come in by: what a job is
//! ([`spec::Spec`]) and the rules its shape keeps, what it runs in ([`sandbox`]),
//! submitting, dry-running, listing and cancelling one, its receipt and its log, each
//! with its SQL. The HTTP handlers call these; nothing here knows of HTTP.

pub mod cancel;
pub mod dry_run;
pub mod list;
pub mod logs;
pub mod receipt;
pub mod sandbox;
pub mod spec;
pub mod submit;
pub mod waits;

pub use spec::{CATEGORIES, CLASSES, Spec, TOPOLOGIES, validate};

/// A waiting job `j`'s place in the queue (0 = next), counted from the ranks the last
/// cycle gave (`dispatch::rank`); NULL before its first cycle and once it left the queue.
pub const PLACE_OF_JOB: &str = "CASE WHEN j.state = 'pending' AND j.queue_rank IS NOT NULL THEN \
     (SELECT COUNT(*) FROM jobs q WHERE q.state = 'pending' AND q.queue_rank < j.queue_rank) END";
pub use submit::Prepared;
