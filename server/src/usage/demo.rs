//! The demo's history (issue 12): a few weeks of finished jobs shaped like the Philly
//! trace, rolled up, so a newcomer's Reports page is full on the first run.
