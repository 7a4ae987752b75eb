//! `tidepool admin backup` and `restore` (issue 14): a consistent copy of the records
//! taken while the server runs, and its return into an empty data folder or database.
//! SQLite copies itself with `VACUUM INTO`; PostgreSQL goes through pg_dump/pg_restore
//! in custom format. A restore checks the backup's schema against this binary's
//! migrations first: older ones are migrated up after restoring, newer ones refused.

mod postgres;
mod sqlite;

use std::path::{Path, PathBuf};

use crate::store::Store;

/// What a backup holds, printed after a backup or a restore.
pub struct Summary {
    pub bytes: u64,
    pub tables: i64,
    pub jobs: i64,
    pub policy_versions: i64,
    /// The newest migration applied to it.
    pub schema: i64,
}

impl Summary {
    fn describe(&self, what: &str, path: &Path) -> String {
        format!(
            "{what} {} ({} bytes): {} tables, {} jobs, {} policy versions, schema version {}",
            path.display(),
            self.bytes,
            self.tables,
            self.jobs,
            self.policy_versions,
            self.schema
        )
    }
}

/// The migrations this binary knows, newest last (both engines move in step).
fn known_schema() -> i64 {
    sqlx::migrate!("../migrations/sqlite").iter().map(|m| m.version).max().unwrap_or(0)
}

/// A backup made by a newer Tidepool would lose what this one does not know: refused.
fn check_schema(backup: &Path, schema: i64) -> Result<(), String> {
    let known = known_schema();
    if schema > known {
        return Err(format!(
            "{}: its schema version {schema} is newer than this tidepool's ({known}); restore it with a newer tidepool",
            backup.display()
        ));
    }
    Ok(())
}

/// Writes `tmp` (complete) to `to` unless something is there already: a hard link
/// cannot overwrite, so a file made meanwhile is never replaced.
fn publish(tmp: &Path, to: &Path) -> Result<(), String> {
    let linked = std::fs::hard_link(tmp, to);
    let _ = std::fs::remove_file(tmp);
    match linked {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(refuse_existing(to)),
        Err(e) => Err(format!("{}: {e}", to.display())),
    }
}

fn refuse_existing(to: &Path) -> String {
    format!("{}: already exists; a backup never overwrites a file (name a new one)", to.display())
}

/// A sibling of `to` for the copy in progress, so a failed backup leaves no half file
/// under the admin's name.
fn partial(to: &Path) -> PathBuf {
    let name = to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    to.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// `tidepool admin backup PATH` on the database `url`.
pub async fn backup(url: &str, to: &Path) -> Result<String, String> {
    if to.exists() {
        return Err(refuse_existing(to));
    }
    let summary = match engine(url)? {
        Some(db) => sqlite::backup(&db, to).await?,
        None => postgres::backup(url, to).await?,
    };
    Ok(summary.describe("wrote", to))
}

/// `tidepool admin restore PATH [--force]` into the database `url`.
pub async fn restore(url: &str, from: &Path, force: bool) -> Result<String, String> {
    if !from.is_file() {
        return Err(format!("{}: no such backup file", from.display()));
    }
    let summary = match engine(url)? {
        Some(db) => sqlite::restore(from, &db, force).await?,
        None => postgres::restore(from, url, force).await?,
    };
    // Older backups are brought to this binary's schema, as `serve` would.
    Store::open(url).await.map_err(|e| format!("migrating the restored records: {e}"))?;
    let known = known_schema();
    let migrated = if summary.schema < known {
        format!("; migrated from schema version {} to {known}", summary.schema)
    } else {
        String::new()
    };
    Ok(format!("{}{migrated}", summary.describe("restored", from)))
}

/// The file a `sqlite:` URL names; `None` for PostgreSQL; an error for anything else.
fn engine(url: &str) -> Result<Option<PathBuf>, String> {
    if let Some(rest) = url.strip_prefix("sqlite:") {
        let rest = rest.strip_prefix("//").unwrap_or(rest);
        return Ok(Some(PathBuf::from(rest.split('?').next().unwrap_or(rest))));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(None);
    }
    Err(format!("database URL `{url}` is neither sqlite:… nor postgres://…"))
}
