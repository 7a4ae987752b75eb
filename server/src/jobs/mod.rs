//! Jobs as the domain sees them, apart from any door they come in by: what a job is
//! ([`spec::Spec`]) and the rules its shape keeps, what it runs in ([`sandbox`]), and
//! recording and cancelling one ([`submit`], [`cancel`]), each with its SQL. The HTTP
//! handlers and the dry run both call these; nothing here knows of HTTP.

pub mod cancel;
pub mod sandbox;
pub mod spec;
pub mod submit;

pub use spec::{CATEGORIES, CLASSES, Spec, TOPOLOGIES, validate};
pub use submit::Prepared;
