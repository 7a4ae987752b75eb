//! PostgreSQL backups with the documented recipe: `pg_dump --format=custom` and
//! `pg_restore`, found next to the server named by `TIDEPOOL_PGBIN`, else on PATH.
//! The dump runs on a snapshot this command exports, so the counts it prints are those
//! of the very records in the file while the servers keep writing.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sqlx::postgres::PgConnection;
use sqlx::{Connection, Row};

use super::{Summary, check_schema, partial, publish};

/// PostgreSQL's tool `name`: in `TIDEPOOL_PGBIN`, else on PATH, else a clear error.
fn tool(name: &str) -> Result<PathBuf, String> {
    let path_dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    let dirs = std::env::var_os("TIDEPOOL_PGBIN").map(PathBuf::from).into_iter().chain(path_dirs);
    for dir in dirs {
        let path = dir.join(name);
        if path.is_file() {
            return Ok(path);
        }
    }
    Err(format!(
        "{name} not found on PATH nor in TIDEPOOL_PGBIN: install PostgreSQL's client tools (the same major version as the server, or newer)"
    ))
}

fn run<S: AsRef<OsStr>>(name: &str, args: &[S]) -> Result<Output, String> {
    let path = tool(name)?;
    Command::new(&path).args(args).output().map_err(|e| format!("{}: {e}", path.display()))
}

fn failed(name: &str, out: &Output) -> String {
    format!("{name} failed: {}", String::from_utf8_lossy(&out.stderr).trim())
}

async fn connect(url: &str) -> Result<PgConnection, String> {
    PgConnection::connect(url).await.map_err(|e| format!("connecting to the database: {e}"))
}

/// Counts of the records `conn` sees.
async fn counts(conn: &mut PgConnection) -> Result<(i64, i64, i64, i64), sqlx::Error> {
    let one = |sql: &'static str| sqlx::query(sql);
    let tables: i64 = one(
        "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> '_sqlx_migrations'",
    )
    .fetch_one(&mut *conn)
    .await?
    .get(0);
    let jobs: i64 = one("SELECT COUNT(*) FROM jobs").fetch_one(&mut *conn).await?.get(0);
    let versions: i64 = one("SELECT COUNT(*) FROM policy_versions").fetch_one(&mut *conn).await?.get(0);
    let schema: i64 = one("SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations WHERE success")
        .fetch_one(&mut *conn)
        .await?
        .get(0);
    Ok((tables, jobs, versions, schema))
}

/// Dumps the database `url` to `to` in custom format.
pub async fn backup(url: &str, to: &Path) -> Result<Summary, String> {
    tool("pg_dump")?;
    let mut conn = connect(url).await?;
    let mut tx = conn.begin().await.map_err(|e| e.to_string())?;
    // One snapshot for the counts and for pg_dump (which joins it with --snapshot).
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await
        .map_err(|e| e.to_string())?;
    let snapshot: String = sqlx::query("SELECT pg_export_snapshot()")
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| e.to_string())?
        .get(0);
    let (tables, jobs, policy_versions, schema) =
        counts(&mut tx).await.map_err(|e| format!("not a Tidepool database: {e}"))?;
    let tmp = partial(to);
    let out = run(
        "pg_dump",
        &[
            OsStr::new("--format=custom"),
            OsStr::new(&format!("--snapshot={snapshot}")),
            OsStr::new("--file"),
            tmp.as_os_str(),
            OsStr::new("--dbname"),
            OsStr::new(url),
        ],
    );
    tx.commit().await.ok();
    let out = out?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(failed("pg_dump", &out));
    }
    let bytes = std::fs::metadata(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?.len();
    publish(&tmp, to)?;
    Ok(Summary { bytes, tables, jobs, policy_versions, schema })
}

/// The schema version recorded in the dump `from`, read without touching a database.
fn schema_in(from: &Path) -> Result<i64, String> {
    let not_ours = |why: String| format!("{}: not a Tidepool pg_dump backup ({why})", from.display());
    let list = run("pg_restore", &[OsStr::new("--list"), from.as_os_str()])?;
    if !list.status.success() {
        return Err(not_ours(String::from_utf8_lossy(&list.stderr).trim().to_string()));
    }
    let out = run(
        "pg_restore",
        &[
            OsStr::new("--data-only"),
            OsStr::new("--table=_sqlx_migrations"),
            OsStr::new("--file=-"),
            from.as_os_str(),
        ],
    )?;
    let text = String::from_utf8_lossy(&out.stdout);
    // The COPY block's rows: version first, tab-separated, up to `\.`.
    let rows = text.lines().skip_while(|l| !l.starts_with("COPY ")).skip(1).take_while(|l| *l != "\\.");
    let versions: Vec<i64> = rows.filter_map(|l| l.split('\t').next()?.parse().ok()).collect();
    versions.into_iter().max().ok_or_else(|| not_ours("it has no migration record".into()))
}

/// Restores the dump `from` into the database `url`: an empty one unless `force`. In
/// one transaction, so a failed restore leaves the database as it was.
pub async fn restore(from: &Path, url: &str, force: bool) -> Result<Summary, String> {
    let schema = schema_in(from)?;
    check_schema(from, schema)?;
    let mut conn = connect(url).await?;
    let present: i64 =
        sqlx::query("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'")
            .fetch_one(&mut conn)
            .await
            .map_err(|e| e.to_string())?
            .get(0);
    if present > 0 && !force {
        return Err(format!(
            "the database holds {present} tables already; restore into an empty database, or --force to replace them (stop its servers first)"
        ));
    }
    let mut args: Vec<&OsStr> =
        vec![OsStr::new("--no-owner"), OsStr::new("--exit-on-error"), OsStr::new("--single-transaction")];
    if present > 0 {
        args.extend([OsStr::new("--clean"), OsStr::new("--if-exists")]);
    }
    args.extend([OsStr::new("--dbname"), OsStr::new(url), from.as_os_str()]);
    let out = run("pg_restore", &args)?;
    if !out.status.success() {
        return Err(failed("pg_restore", &out));
    }
    let (tables, jobs, policy_versions, schema) = counts(&mut conn).await.map_err(|e| e.to_string())?;
    conn.close().await.ok();
    let bytes = std::fs::metadata(from).map_err(|e| format!("{}: {e}", from.display()))?.len();
    Ok(Summary { bytes, tables, jobs, policy_versions, schema })
}
