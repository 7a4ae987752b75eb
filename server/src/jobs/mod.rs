//! Jobs as the domain sees them, apart from any door they come in by: what a job is
//! ([`spec::Spec`]) and the rules its shape keeps, and what it runs in ([`sandbox`]).
//! The HTTP handlers and the dry run both call these; nothing here knows of HTTP.

pub mod sandbox;
pub mod spec;

pub use spec::{CATEGORIES, CLASSES, Spec, TOPOLOGIES, validate};
