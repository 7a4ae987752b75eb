//! SQLite backups with `VACUUM INTO`: SQLite copies the database inside one read
//! transaction, so the file is consistent while the server keeps writing (WAL lets its
//! writer go on beside the reader). The C backup API would do the same page by page,
//! but sqlx does not expose it; reaching it would take raw `sqlite3*` FFI through
//! `libsqlite3-sys`. `VACUUM INTO` needs nothing but SQL and also compacts the copy.

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection, Row};

use super::{Summary, check_schema, partial, publish};

/// Copies the live database `db` to `to` (which must not exist).
pub async fn backup(db: &Path, to: &Path) -> Result<Summary, String> {
    if !db.is_file() {
        return Err(format!("{}: no database here (is --data-dir or --database-url right?)", db.display()));
    }
    let tmp = partial(to);
    let mut conn = SqliteConnectOptions::new()
        .filename(db)
        .busy_timeout(Duration::from_secs(30))
        .connect()
        .await
        .map_err(|e| format!("{}: {e}", db.display()))?;
    let copied =
        sqlx::query("VACUUM INTO ?").bind(tmp.to_string_lossy().into_owned()).execute(&mut conn).await;
    conn.close().await.ok();
    if let Err(e) = copied {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("copying {} to {}: {e}", db.display(), to.display()));
    }
    // The copy holds password hashes and tokens' digests: the admin's eyes only.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600));
    }
    let summary = match summarize(&tmp).await {
        Ok(s) => s,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    publish(&tmp, to)?;
    Ok(summary)
}

/// Opens `file` without writing to it (`immutable`: no journal, no lock, no change).
async fn read_only(file: &Path) -> Result<SqliteConnection, String> {
    SqliteConnectOptions::new()
        .filename(file)
        .read_only(true)
        .immutable(true)
        .connect()
        .await
        .map_err(|e| format!("{}: {e}", file.display()))
}

/// What the backup `file` holds; a file that is no Tidepool database is refused here.
pub async fn summarize(file: &Path) -> Result<Summary, String> {
    let not_ours = |e: sqlx::Error| format!("{}: not a Tidepool SQLite backup ({e})", file.display());
    let mut conn = read_only(file).await?;
    let schema: i64 = sqlx::query("SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations WHERE success")
        .fetch_one(&mut conn)
        .await
        .map_err(not_ours)?
        .get(0);
    let tables: i64 = sqlx::query(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_sqlx%'",
    )
    .fetch_one(&mut conn)
    .await
    .map_err(not_ours)?
    .get(0);
    let count =
        |table: &'static str| sqlx::query(sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}")));
    let jobs: i64 = count("jobs").fetch_one(&mut conn).await.map_err(not_ours)?.get(0);
    let policy_versions: i64 = count("policy_versions").fetch_one(&mut conn).await.map_err(not_ours)?.get(0);
    conn.close().await.ok();
    let bytes = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?.len();
    Ok(Summary { bytes, tables, jobs, policy_versions, schema })
}

/// How many tables the database `db` has (0 when there is no file yet).
async fn tables_in(db: &Path) -> Result<i64, String> {
    if std::fs::metadata(db).map(|m| m.len()).unwrap_or(0) == 0 {
        return Ok(0);
    }
    let mut conn = SqliteConnectOptions::new()
        .filename(db)
        .read_only(true)
        .connect()
        .await
        .map_err(|e| format!("{}: {e}", db.display()))?;
    let n = sqlx::query("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'")
        .fetch_one(&mut conn)
        .await
        .map_err(|e| format!("{}: {e}", db.display()))?
        .get(0);
    conn.close().await.ok();
    Ok(n)
}

/// Puts the backup `from` in place of the database `db`: only an empty one unless
/// `force`. Checked before anything is written, so a bad backup changes nothing.
pub async fn restore(from: &Path, db: &Path, force: bool) -> Result<Summary, String> {
    let summary = summarize(from).await?;
    check_schema(from, summary.schema)?;
    match tables_in(db).await {
        Ok(0) => {}
        Ok(n) if !force => {
            return Err(format!(
                "{}: holds {n} tables already; restore into an empty data folder, or --force to replace it (stop its server first)",
                db.display()
            ));
        }
        Err(e) if !force => return Err(format!("{e}; --force replaces it")),
        _ => {}
    }
    let dir = db.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let tmp = partial(db);
    std::fs::copy(from, &tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    // The old database's write-ahead log would be replayed onto the new file.
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    std::fs::rename(&tmp, db).map_err(|e| format!("{}: {e}", db.display()))?;
    Ok(summary)
}
