//! The `tidepool` binary's library: everything around the pure core that touches the
//! outside world (files, the command line, and later the network and the database).

/// `tidepool bench`: timing the dispatch cycle.
pub mod bench;
/// Command-line flags of every subcommand.
pub mod cli;
/// The trace simulator: event loop, cluster set-up, inputs and report.
pub mod sim;
/// `tidepool simulate`: flags to a simulation report.
pub mod simulate;
