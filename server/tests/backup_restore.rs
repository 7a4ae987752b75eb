//! `tidepool admin backup` / `restore` (issue 14; A1 durable records, D3 receipts, A3
//! policy history), both engines: a live server whose dispatcher ran jobs on a real agent
//! is backed up while it runs; the backup restored into a fresh data folder / database
//! and served by a fresh server answers every job (same ids and states), every receipt's
//! events, the templates and the policy versions over real HTTP. Bad input is refused
//! with a clear error and changes nothing.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::api::{engines, fresh_postgres};
use common::live::{Proc, call, counter, free_port, lab_agent, login, serve, wait_for};
use serde_json::{Value, json};

/// `tidepool admin <on> <args>`: (succeeded, stdout + stderr).
fn admin(on: &[&str], args: &[&str]) -> (bool, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_tidepool")).arg("admin").args(on).args(args).output().expect("runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// Every job's id and state, all pages.
fn jobs(addr: &str, token: &str) -> BTreeMap<i64, Value> {
    let mut all = BTreeMap::new();
    let mut path = "/api/jobs?limit=500".to_string();
    loop {
        let page = call(addr, "GET", &path, token, None);
        for j in page["jobs"].as_array().unwrap() {
            all.insert(j["id"].as_i64().unwrap(), j["state"].clone());
        }
        match page["next"].as_i64() {
            Some(next) => path = format!("/api/jobs?limit=500&before={next}"),
            None => return all,
        }
    }
}

fn events(addr: &str, token: &str, id: i64) -> Value {
    call(addr, "GET", &format!("/api/jobs/{id}"), token, None)["events"].clone()
}

/// What must survive: jobs, each receipt's events, templates, policy versions.
struct Records {
    jobs: BTreeMap<i64, Value>,
    events: BTreeMap<i64, Value>,
    templates: Value,
    policies: Value,
}

fn records(addr: &str) -> Records {
    let admin = login(addr, "admin", "admin-pw");
    let lead = login(addr, "vision-lead", "demo-password");
    let jobs = jobs(addr, &admin);
    let events = jobs.keys().map(|id| (*id, events(addr, &admin, *id))).collect();
    Records {
        jobs,
        events,
        templates: call(addr, "GET", "/api/templates", &lead, None)["templates"].clone(),
        policies: call(addr, "GET", "/api/policies", &admin, None)["kinds"].clone(),
    }
}

/// The live server: a finished job, a cancelled one and one running during the backup,
/// all run by the dispatcher on a real agent; default policy modules; a template.
fn busy_server(dir: &str, addr: &str, database: Option<&str>) -> (Proc, Proc, [i64; 3]) {
    let server = serve(dir, addr, database, &["--policies", "wasm"]);
    let admin = login(addr, "admin", "admin-pw");
    let quota = json!({ "group": "vision", "model": "T4", "category": "training", "guaranteed": 4,
        "why": "the lab's T4s" });
    let agent = lab_agent(addr, dir, &admin, quota);
    let dev = login(addr, "vision-dev", "demo-password");
    let lead = login(addr, "vision-lead", "demo-password");
    let template = json!({ "name": "nightly", "gpus": 1, "image": "", "command": "echo nightly" });
    call(addr, "POST", "/api/templates", &lead, Some(template));
    let submit = |name: &str, command: String, gpus: i64| {
        let spec =
            json!({ "name": name, "command": command, "gpus": gpus, "model": "T4", "time_limit_s": 3600 });
        call(addr, "POST", "/api/jobs", &dev, Some(spec))["id"].as_i64().unwrap()
    };
    let state = |id: i64| call(addr, "GET", &format!("/api/jobs/{id}"), &dev, None)["state"].clone();
    let done = submit("quick", "echo done".into(), 1);
    wait_for(60, "the quick job to finish", || (state(done) == "succeeded").then_some(()));
    let cancelled = submit("cancelled", counter(1000), 2);
    wait_for(60, "the second job to run", || (state(cancelled) == "running").then_some(()));
    call(addr, "POST", &format!("/api/jobs/{cancelled}/cancel"), &dev, None);
    // Cancelled, then stopped by its agent: both recorded before the backup.
    wait_for(60, "the cancelled job stopped on its node", || {
        events(addr, &dev, cancelled).as_array()?.iter().any(|e| e["kind"] == "stopped").then_some(())
    });
    let running = submit("running", counter(1000), 4);
    wait_for(60, "the third job to run", || (state(running) == "running").then_some(()));
    (server, agent, [done, cancelled, running])
}

#[test]
fn a_backup_taken_while_serving_restores_every_job_receipt_and_policy_version() {
    for engine in engines() {
        let database = (engine == "postgres").then(|| fresh_postgres("backup_live").expect("postgres"));
        let dir = common::fresh_dir("backup");
        let dir = dir.to_str().unwrap().to_string();
        let addr = format!("127.0.0.1:{}", free_port());
        let (server, agent, ours) = busy_server(&dir, &addr, database.as_deref());
        let on: Vec<&str> = match &database {
            Some(url) => vec!["--database-url", url],
            None => vec!["--data-dir", &dir],
        };

        let before = records(&addr);
        let file = format!("{dir}/backup.{}", if engine == "postgres" { "dump" } else { "db" });
        let (ok, said) = admin(&on, &["backup", &file]);
        assert!(ok, "{engine}: {said}");
        eprintln!("{engine}: {}", said.trim());
        let after = records(&addr);
        // Nothing could move meanwhile (the lab's GPUs are all taken), so the backup holds this.
        assert_eq!(before.jobs, after.jobs, "{engine}: the jobs changed during the backup");
        assert_eq!(before.jobs[&ours[2]], "running", "{engine}");
        assert!(
            said.contains(&format!("{} jobs", before.jobs.len())) && said.contains("3 policy versions"),
            "{engine}: {said}"
        );

        // Bad input: the file exists already; it is left as it was.
        let bytes = std::fs::read(&file).unwrap();
        let (ok, said) = admin(&on, &["backup", &file]);
        assert!(!ok && said.contains("already exists"), "{engine}: {said}");
        assert_eq!(std::fs::read(&file).unwrap(), bytes, "{engine}: the existing file was changed");
        drop(agent);
        drop(server);

        // Restored into a fresh place and served by a fresh server: the same records.
        let fresh = common::fresh_dir("restored");
        let fresh = fresh.to_str().unwrap().to_string();
        let restored_db =
            (engine == "postgres").then(|| fresh_postgres("backup_restored").expect("postgres"));
        let into: Vec<&str> = match &restored_db {
            Some(url) => vec!["--database-url", url],
            None => vec!["--data-dir", &fresh],
        };
        let (ok, said) = admin(&into, &["restore", &file]);
        assert!(ok && said.contains("restored"), "{engine}: {said}");
        let addr = format!("127.0.0.1:{}", free_port());
        let server = serve(&fresh, &addr, restored_db.as_deref(), &["--node-lost-after-s", "600"]);
        let again = records(&addr);
        assert_eq!(again.jobs, before.jobs, "{engine}: every job, same ids and states");
        assert_eq!(again.events, before.events, "{engine}: every receipt's events");
        assert_eq!(again.templates, before.templates, "{engine}: the templates");
        assert_eq!(again.policies, before.policies, "{engine}: the policy versions and their history");
        // The dispatcher's own records came along: each job's placement, then its end.
        let kinds = |id: &i64| -> Vec<String> {
            again.events[id]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["kind"].as_str().unwrap().to_string())
                .collect()
        };
        for (id, last) in ours.iter().zip(["finished", "stopped", "placed"]) {
            let kinds = kinds(id);
            assert!(kinds.contains(&"placed".to_string()), "{engine}: job {id}: {kinds:?}");
            assert_eq!(kinds.last().map(String::as_str), Some(last), "{engine}: job {id}: {kinds:?}");
        }
        drop(server);

        // Restoring over records that are there is refused without --force.
        let (ok, said) = admin(&into, &["restore", &file]);
        assert!(!ok && said.contains("--force"), "{engine}: {said}");

        // A garbage file is refused before anything is written.
        let garbage = format!("{dir}/garbage");
        std::fs::write(&garbage, "not a backup at all\n".repeat(100)).unwrap();
        let empty = common::fresh_dir("restore-garbage").join("data");
        let empty_db = (engine == "postgres").then(|| fresh_postgres("backup_garbage").expect("postgres"));
        let target: Vec<&str> = match &empty_db {
            Some(url) => vec!["--database-url", url],
            None => vec!["--data-dir", empty.to_str().unwrap()],
        };
        let (ok, said) = admin(&target, &["restore", &garbage]);
        assert!(!ok && said.contains("not a Tidepool"), "{engine}: {said}");
        match &empty_db {
            Some(url) => assert_eq!(tables(url), 0, "{engine}: the database was changed"),
            None => assert!(!empty.exists(), "{engine}: the data folder was created"),
        }
    }
}

/// Tables in the PostgreSQL database `url`.
fn tables(url: &str) -> i64 {
    use sqlx::Row;
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(url).await.expect("connects");
        sqlx::query("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'")
            .fetch_one(&pool)
            .await
            .expect("counts")
            .get::<i64, _>(0)
    })
}

/// A backup from a newer Tidepool (a migration this binary does not know) is refused;
/// one from an older schema is migrated up after restoring (SQLite: the file is ours to edit).
#[test]
fn restore_checks_the_backup_schema_against_this_binary() {
    let dir = common::fresh_dir("backup-schema");
    let (ok, said) = admin(&["--data-dir", dir.join("live").to_str().unwrap()], &["add-group", "physics"]);
    assert!(ok, "{said}");
    let file = dir.join("b.db");
    let (ok, said) =
        admin(&["--data-dir", dir.join("live").to_str().unwrap()], &["backup", file.to_str().unwrap()]);
    assert!(ok, "{said}");

    let newer = dir.join("newer.db");
    std::fs::copy(&file, &newer).unwrap();
    edit(
        &newer,
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99990101, 'future', 1, x'00', 0)",
    );
    let target = dir.join("target");
    let (ok, said) = admin(&["--data-dir", target.to_str().unwrap()], &["restore", newer.to_str().unwrap()]);
    assert!(!ok && said.contains("newer than this tidepool"), "{said}");
    assert!(!target.exists(), "nothing was written");

    // Older: the last migration's record removed, so the restore applies it again.
    let older = dir.join("older.db");
    std::fs::copy(&file, &older).unwrap();
    let last = edit(&older, "SELECT MAX(version) FROM _sqlx_migrations");
    edit(&older, &format!("DELETE FROM _sqlx_migrations WHERE version = {last}"));
    undo_last_migration(&older, last);
    let (ok, said) = admin(&["--data-dir", target.to_str().unwrap()], &["restore", older.to_str().unwrap()]);
    assert!(ok && said.contains(&format!("to {last}")), "{said}");
    let (ok, said) = admin(&["--data-dir", target.to_str().unwrap()], &["add-group", "physics"]);
    assert!(!ok && said.contains("already exists"), "the restored group is there: {said}");
}

/// Runs `sql` on the SQLite file; the first column of its first row, if any.
fn edit(file: &Path, sql: &str) -> i64 {
    use sqlx::{Connection, Row};
    let sql = sql.to_string();
    let file = file.to_path_buf();
    tokio::runtime::Runtime::new().unwrap().block_on(async move {
        let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(&file);
        let mut conn = sqlx::sqlite::SqliteConnection::connect_with(&opts).await.expect("opens");
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_all(&mut conn).await.expect("runs");
        rows.first().and_then(|r| r.try_get::<i64, _>(0).ok()).unwrap_or(0)
    })
}

/// Drops what migration `version` created (its indexes, added columns and tables), so the
/// file reads as a database of the release before it.
fn undo_last_migration(file: &Path, version: i64) {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations/sqlite");
    let sql = std::fs::read_dir(&folder)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with(&format!("{version:04}_")))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("the migration file");
    let named = |keyword: &str| -> Vec<Vec<String>> {
        sql.split(keyword)
            .skip(1)
            .map(|s| s.split_whitespace().take(4).map(str::to_string).collect())
            .collect()
    };
    for words in named("CREATE INDEX ") {
        edit(file, &format!("DROP INDEX {}", words[0]));
    }
    // `ALTER TABLE t ADD COLUMN c …`
    for words in named("ALTER TABLE ") {
        assert_eq!(words[1..3], ["ADD", "COLUMN"], "this test undoes added columns only");
        edit(file, &format!("ALTER TABLE {} DROP COLUMN {}", words[0], words[3]));
    }
    for words in named("CREATE TABLE ") {
        edit(file, &format!("DROP TABLE {}", words[0]));
    }
}

/// The backup is one consistent moment even while jobs pour in (A1): a submitter keeps
/// writing before, during and after it; the restored records hold exactly the jobs up to
/// some point (ids are given in order by one submitter), each with its `submitted` event.
#[test]
fn a_backup_amid_a_burst_of_submissions_is_one_consistent_moment() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    for engine in engines() {
        let database = (engine == "postgres").then(|| fresh_postgres("backup_burst").expect("postgres"));
        let dir = common::fresh_dir("backup-burst");
        let dir = dir.to_str().unwrap().to_string();
        let addr = format!("127.0.0.1:{}", free_port());
        let server = serve(&dir, &addr, database.as_deref(), &[]);
        let dev = login(&addr, "vision-dev", "demo-password");
        let (stop, sent) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicUsize::new(0)));
        let burst = {
            let (addr, stop, sent) = (addr.clone(), stop.clone(), sent.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let spec = json!({ "name": "burst", "command": "true", "gpus": 1, "model": "A100-80G" });
                    call(&addr, "POST", "/api/jobs", &dev, Some(spec));
                    sent.fetch_add(1, Ordering::SeqCst);
                }
            })
        };
        wait_for(60, "a first burst", || (sent.load(Ordering::SeqCst) >= 20).then_some(()));
        let on: Vec<&str> = match &database {
            Some(url) => vec!["--database-url", url],
            None => vec!["--data-dir", &dir],
        };
        let file = format!("{dir}/burst.backup");
        let (ok, said) = admin(&on, &["backup", &file]);
        assert!(ok, "{engine}: {said}");
        let at_backup = sent.load(Ordering::SeqCst);
        wait_for(60, "submissions after the backup", || {
            (sent.load(Ordering::SeqCst) >= at_backup + 10).then_some(())
        });
        stop.store(true, Ordering::SeqCst);
        burst.join().unwrap();
        let admin_token = login(&addr, "admin", "admin-pw");
        let all = jobs(&addr, &admin_token);
        drop(server);

        let fresh = common::fresh_dir("burst-restored");
        let fresh = fresh.to_str().unwrap().to_string();
        let restored_db = (engine == "postgres").then(|| fresh_postgres("burst_restored").expect("postgres"));
        let into: Vec<&str> = match &restored_db {
            Some(url) => vec!["--database-url", url],
            None => vec!["--data-dir", &fresh],
        };
        let (ok, said) = admin(&into, &["restore", &file]);
        assert!(ok, "{engine}: {said}");
        let addr = format!("127.0.0.1:{}", free_port());
        let _server = serve(&fresh, &addr, restored_db.as_deref(), &[]);
        let token = login(&addr, "admin", "admin-pw");
        let restored = jobs(&addr, &token);
        let last = *restored.keys().max().unwrap();
        let prefix: BTreeMap<i64, Value> =
            all.iter().filter(|(id, _)| **id <= last).map(|(id, s)| (*id, s.clone())).collect();
        assert_eq!(
            restored.keys().collect::<Vec<_>>(),
            prefix.keys().collect::<Vec<_>>(),
            "{engine}: a prefix"
        );
        assert!(restored.len() < all.len(), "{engine}: later submissions are not in the backup");
        assert!(said.contains(&format!(" {} jobs", restored.len())), "{engine}: {said}");
        // The newest ten are the burst's (at least 20 were in before the backup began).
        for id in restored.keys().rev().take(10) {
            let kinds = events(&addr, &token, *id);
            assert!(kinds.to_string().contains("submitted"), "{engine}: job {id}'s receipt: {kinds}");
        }
        eprintln!("{engine}: {} of {} jobs in the backup taken amid the burst", restored.len(), all.len());
    }
}
