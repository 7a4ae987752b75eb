//! The web app's pure parts: arithmetic and text with no browser in them (ISO weeks, chart
//! scales and the charts' SVG, the reports' tables and their CSV, a job's wait timeline), so they run and are
//! tested on the host (`cargo test --manifest-path frontend/Cargo.toml --lib`) as well as
//! in the page. The page itself (components, requests) is the binary, `main.rs`.

pub mod charts;
pub mod csv;
pub mod replay_table;
pub mod review_tables;
pub mod scale;
pub mod tables;
pub mod timeline;
pub mod week;

#[cfg(test)]
mod sample;
