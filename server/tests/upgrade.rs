//! Upgrades from the previous release's database (issue 14, backups and upgrades; A1
//! durable records, D3 receipts, A3 policy history), both engines. `tests/upgrade/` holds
//! a small database the previous release's binary made with a scripted scenario
//! (`make-fixture.sh`: every role, quotas, a template, jobs in every state with receipts
//! and waits, a loan, a policy version, usage samples), as SQL text. It is loaded as that
//! release left it; the current server starts on it (and applies its newer migrations);
//! every record is read back over real HTTP and checked against the rows the old
//! database held; the applied migrations are exactly the shipped ones.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::api::{engines, fresh_postgres};
use common::live::{call, free_port, http, login, serve};
use serde_json::Value;
use sqlx::{AnyPool, Row};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// What the old database holds, read with SQL before any new server touches it.
#[derive(Debug)]
struct Old {
    migrations: Vec<i64>,
    jobs: BTreeMap<i64, String>,
    events_per_job: BTreeMap<i64, i64>,
    waits_per_job: BTreeMap<i64, i64>,
    users: BTreeMap<String, String>,
    usage_samples: i64,
    policy: String,
}

async fn pool(url: &str) -> AnyPool {
    sqlx::any::install_default_drivers();
    AnyPool::connect(url).await.expect("connects")
}

async fn pairs(pool: &AnyPool, sql: &'static str) -> BTreeMap<i64, i64> {
    let rows = sqlx::query(sql).fetch_all(pool).await.expect(sql);
    rows.iter().map(|r| (r.get::<i64, _>(0), r.get::<i64, _>(1))).collect()
}

/// Loads the fixture into `url` (an empty database) and reads what it holds.
async fn load(url: &str, engine: &str) -> Old {
    let sql =
        std::fs::read_to_string(repo().join(format!("tests/upgrade/{engine}.sql"))).expect("the fixture");
    let pool = pool(url).await;
    // Our own file, from the repository: the whole dump runs as one script.
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(&pool).await.expect("the fixture loads");
    // A PostgreSQL dump empties the session's search_path: read on fresh connections.
    pool.close().await;
    let pool = self::pool(url).await;
    let versions =
        sqlx::query("SELECT version FROM _sqlx_migrations ORDER BY version").fetch_all(&pool).await;
    let migrations = versions.unwrap().iter().map(|r| r.get::<i64, _>(0)).collect();
    let jobs = sqlx::query("SELECT id, state FROM jobs ORDER BY id").fetch_all(&pool).await.unwrap();
    let users = sqlx::query("SELECT username, role FROM users").fetch_all(&pool).await.unwrap();
    let samples = sqlx::query("SELECT COUNT(*) FROM usage_samples").fetch_one(&pool).await.unwrap();
    let policy = sqlx::query("SELECT sha256 FROM policy_versions").fetch_one(&pool).await.unwrap();
    let old = Old {
        migrations,
        jobs: jobs.iter().map(|r| (r.get(0), r.get(1))).collect(),
        events_per_job: pairs(
            &pool,
            "SELECT job_id, COUNT(*) FROM events WHERE job_id IS NOT NULL GROUP BY job_id",
        )
        .await,
        waits_per_job: pairs(&pool, "SELECT job_id, COUNT(*) FROM job_waits GROUP BY job_id").await,
        users: users.iter().map(|r| (r.get(0), r.get(1))).collect(),
        usage_samples: samples.get(0),
        policy: policy.get(0),
    };
    pool.close().await;
    old
}

/// A migration as compared: its version and its checksum's first bytes, in hex.
type Migration = (i64, String);

fn migration(version: i64, checksum: &[u8]) -> Migration {
    (version, checksum.iter().take(6).map(|b| format!("{b:02x}")).collect())
}

/// The migrations this binary ships, and those applied to `url`.
async fn migrations(url: &str, engine: &str) -> (Vec<Migration>, Vec<Migration>) {
    let shipped =
        sqlx::migrate::Migrator::new(repo().join("migrations").join(engine)).await.expect("migrations");
    let shipped = shipped.iter().map(|m| migration(m.version, &m.checksum)).collect();
    let pool = pool(url).await;
    let rows = sqlx::query("SELECT version, checksum FROM _sqlx_migrations WHERE success ORDER BY version")
        .fetch_all(&pool)
        .await
        .expect("applied migrations");
    let applied = rows.iter().map(|r| migration(r.get(0), &r.get::<Vec<u8>, _>(1))).collect();
    pool.close().await;
    (shipped, applied)
}

fn names(list: &Value, key: &str) -> BTreeSet<String> {
    list.as_array().unwrap().iter().map(|v| v[key].as_str().unwrap().to_string()).collect()
}

/// Reads every record over HTTP and checks it against what the old database held.
fn check_records(engine: &str, addr: &str, old: &Old) {
    // Every account signs in with the password the old release set (U1), in its role.
    let passwords = [
        ("admin", "admin-pw"),
        ("grace", "grace-pw"),
        ("vision-lead", "vision-lead-pw"),
        ("speech-lead", "speech-lead-pw"),
        ("ada", "ada-pw"),
    ];
    for (user, password) in passwords {
        let token = login(addr, user, password);
        let me = call(addr, "GET", "/api/me", &token, None);
        assert_eq!(me["role"].as_str(), old.users.get(user).map(String::as_str), "{engine}: {user}: {me}");
    }
    let admin = login(addr, "admin", "admin-pw");
    let get = |path: &str| call(addr, "GET", path, &admin, None);
    let users = get("/api/users");
    assert_eq!(names(&users["users"], "username"), old.users.keys().cloned().collect(), "{engine}: {users}");
    assert_eq!(names(&get("/api/groups")["groups"], "name"), ["speech", "vision"].map(String::from).into());

    // Quotas (Q1-Q3) and the two reviewed changes that set them (B2).
    let quotas = get("/api/quotas")["quotas"].clone();
    let quota =
        |group: &str| quotas.as_array().unwrap().iter().find(|q| q["group"] == group).cloned().unwrap();
    assert_eq!(
        (quota("vision")["guaranteed"].as_i64(), quota("vision")["budget_gpu_h"].as_f64()),
        (Some(4), Some(100000.0))
    );
    assert_eq!(
        (quota("speech")["guaranteed"].as_i64(), quota("speech")["lend_limit"].as_i64()),
        (Some(4), Some(4))
    );
    let changes = get("/api/changes")["changes"].clone();
    assert_eq!(changes.as_array().unwrap().len(), 2, "{engine}: {changes}");
    assert!(changes.as_array().unwrap().iter().all(|c| c["state"] == "applied"), "{engine}: {changes}");

    assert_eq!(names(&get("/api/templates")["templates"], "name"), ["eval-1gpu".to_string()].into());

    // Every job, same id and state; every state a job can be in is among them.
    let page = get("/api/jobs?limit=500");
    let jobs: BTreeMap<i64, String> = page["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["id"].as_i64().unwrap(), j["state"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(jobs, old.jobs, "{engine}: every job, same ids and states");
    let states: BTreeSet<&str> = jobs.values().map(String::as_str).collect();
    let every = ["cancelled", "failed", "pending", "running", "succeeded", "timed-out"];
    assert_eq!(states, every.into(), "{engine}: the fixture lacks a state");

    // Each receipt: its events (D3) and its wait history (D2), as many as the old rows.
    for (id, state) in &jobs {
        let receipt = get(&format!("/api/jobs/{id}"));
        let events = receipt["events"].as_array().unwrap();
        assert_eq!(events.len() as i64, old.events_per_job[id], "{engine}: job {id}: {receipt}");
        let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds.contains(&"placed"), state != "pending", "{engine}: job {id}: {kinds:?}");
        let waits = receipt["waits"].as_array().unwrap().len() as i64;
        assert!(waits >= old.waits_per_job.get(id).copied().unwrap_or(0), "{engine}: job {id}: {receipt}");
        if state == "pending" {
            let reason = receipt["reason"].as_str().unwrap_or_default();
            assert!(reason.starts_with("over quota"), "{engine}: job {id}: {reason}");
        }
    }

    // The loan the lender's manager approved (B1).
    let loans = get("/api/loans")["loans"].clone();
    let loan = &loans[0];
    assert_eq!(loans.as_array().unwrap().len(), 1, "{engine}: {loans}");
    // A loan is seen as expired once its end passed (loans last a year at most; the
    // fixture may be older than that when releases are far apart).
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let seen = if loan["ends_at"].as_i64().unwrap() > now { "active" } else { "expired" };
    assert_eq!(
        (loan["lender"].as_str(), loan["borrower"].as_str(), loan["gpus"].as_i64(), loan["state"].as_str()),
        (Some("vision"), Some("speech"), Some(2), Some(seen)),
        "{engine}: {loan}"
    );
    assert_eq!(loan["decided_by"], "vision-lead", "{engine}: {loan}");

    // The policy version, in shadow, with its history (A3).
    let priority = get("/api/policies")["kinds"]["priority"].clone();
    let version =
        priority["versions"].as_array().unwrap().iter().find(|v| v["sha256"] == old.policy.as_str());
    let version = version.unwrap_or_else(|| panic!("{engine}: {priority}"));
    assert_eq!(version["state"]["state"], "shadow", "{engine}: {version}");
    assert_eq!(version["history"].as_array().unwrap().len(), 2, "{engine}: {version}");
    assert!(old.usage_samples > 0, "{engine}: the fixture has no usage samples");
}

/// The fixture's node stopped syncing when it was made: it must not count as lost (its
/// running job would be requeued) however long ago that was.
const YEARS: &str = "315360000";

#[test]
fn the_previous_releases_database_upgrades_and_every_record_reads_back() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for engine in engines() {
        let dir = common::fresh_dir("upgrade");
        let data = dir.join("data");
        std::fs::create_dir_all(&data).unwrap();
        let (url, database) = match engine {
            "postgres" => {
                let url = fresh_postgres("upgrade").expect("postgres");
                (url.clone(), Some(url))
            }
            _ => (format!("sqlite:{}?mode=rwc", data.join("tidepool.db").display()), None),
        };
        let old = runtime.block_on(load(&url, engine));
        let (shipped, before) = runtime.block_on(migrations(&url, engine));
        // The fixture is an older schema: a strict prefix of what ships, or the same.
        assert!(
            shipped.starts_with(&before),
            "{engine}: the fixture's migrations are not this binary's history"
        );
        assert_eq!(old.migrations, before.iter().map(|m| m.0).collect::<Vec<_>>(), "{engine}");
        eprintln!(
            "{engine}: fixture at migration {:?}, shipping {}",
            before.last().map(|m| m.0),
            shipped.len()
        );

        let addr = format!("127.0.0.1:{}", free_port());
        let dir = data.to_str().unwrap();
        // The fixture's clock stopped when it was made: nothing may be decided on time passed
        // since (its node is not lost, its running checkpointable job does not take turns).
        let frozen = ["--no-demo", "--node-lost-after-s", YEARS, "--time-sharing", "off"];
        let server = serve(dir, &addr, database.as_deref(), &frozen);
        let (_, after) = runtime.block_on(migrations(&url, engine));
        assert_eq!(after, shipped, "{engine}: the applied migrations are exactly the shipped ones");
        let (status, ready) = http(&addr, "GET", "/readyz", None, None).expect("readyz");
        let expected = format!("{} applied, as shipped", shipped.len());
        assert!(status == 200 && ready.contains(&expected), "{engine}: {status} {ready}");

        check_records(engine, &addr, &old);
        drop(server);
    }
}
