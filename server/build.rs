//! The migrations are embedded in the binary (`sqlx::migrate!`); a new or changed file in
//! `migrations/` must rebuild it, or a stale binary would serve an older schema.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
