//! Writing a submitted job and its event, atomically and in as few round trips as the
//! engine allows (submissions are the API's hot path).

use sqlx::Row;

use crate::store::{Engine, Store, StoreError};

/// A validated submission.
pub struct NewJob<'a> {
    pub group_id: i64,
    pub submitted_by: i64,
    pub actor: &'a str,
    pub name: &'a str,
    pub category: &'a str,
    pub class: &'a str,
    pub gpus: i64,
    pub model: &'a str,
    pub topology: &'a str,
    pub time_limit_s: Option<i64>,
    pub checkpointable: bool,
    pub command: &'a str,
    /// The project whose priority grant it runs under (P2).
    pub project_id: Option<i64>,
    /// The template that launched it (T1, T3 usage).
    pub template_id: Option<i64>,
    /// Archive tags (A2).
    pub tags: &'a [String],
    /// The container image it runs in (its spec's or template's); none: the node's sandbox.
    pub image: Option<&'a str>,
    /// Its spec's environment, a JSON object; none: only what the agent and template set.
    pub env: Option<&'a str>,
}

const COLUMNS: &str = "group_id, submitted_by, name, category, class, gpus, model, topology, time_limit_s, \
     checkpointable, command, state, submitted_at, queued_at, attained_gpu_s, project_id, template_id, image, env";
const VALUES: &str =
    "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending', $12, $12, 0, $13, $14, $15, $16";

impl Store {
    /// Records the job and its "submitted" event; both or neither. Returns the job's id.
    pub async fn submit_job(&self, j: &NewJob<'_>, now: i64) -> Result<i64, StoreError> {
        let message = format!("{} submitted a job ({} GPUs)", j.actor, j.gpus);
        match self.engine {
            // One statement, one round trip: the event is written by the same statement.
            Engine::Postgres if j.tags.is_empty() => {
                let sql = format!(
                    "WITH job AS (INSERT INTO jobs ({COLUMNS}) VALUES ({VALUES}) RETURNING id) \
                     INSERT INTO events (at, kind, job_id, actor, policy, message, detail) \
                     SELECT $12, 'submitted', id, $17, NULL, $18, '{{}}' FROM job RETURNING job_id"
                );
                let row = bind(sqlx::query(sqlx::AssertSqlSafe(sql)), j, now)
                    .bind(j.actor)
                    .bind(message)
                    .fetch_one(&self.pool)
                    .await?;
                Ok(row.try_get(0)?)
            }
            // SQLite has no data-modifying WITH, and tags are rows of their own: a transaction.
            _ => {
                let mut tx = self.begin().await?;
                let sql = format!("INSERT INTO jobs ({COLUMNS}) VALUES ({VALUES}) RETURNING id");
                let row = bind(sqlx::query(sqlx::AssertSqlSafe(sql)), j, now).fetch_one(&mut *tx).await?;
                let id: i64 = row.try_get(0)?;
                sqlx::query(
                    "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) \
                     VALUES ($1, 'submitted', $2, $3, NULL, $4, '{}')",
                )
                .bind(now)
                .bind(id)
                .bind(j.actor)
                .bind(message)
                .execute(&mut *tx)
                .await?;
                for tag in j.tags {
                    sqlx::query("INSERT INTO job_tags (job_id, tag) VALUES ($1, $2)")
                        .bind(id)
                        .bind(tag)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(id)
            }
        }
    }
}

fn bind<'q>(
    q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    j: &NewJob<'q>,
    now: i64,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    q.bind(j.group_id)
        .bind(j.submitted_by)
        .bind(j.name)
        .bind(j.category)
        .bind(j.class)
        .bind(j.gpus)
        .bind(j.model)
        .bind(j.topology)
        .bind(j.time_limit_s)
        .bind(j.checkpointable)
        .bind(j.command)
        .bind(now)
        .bind(j.project_id)
        .bind(j.template_id)
        .bind(j.image)
        .bind(j.env)
}
