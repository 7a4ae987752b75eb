//! The demo organisation's working life, so a newcomer's first look shows something real:
//! templates (one shared across groups), a priority grant, a loan waiting for the
//! lender's approval, and finished jobs with their receipts and archive tags.

use sqlx::Row;

use crate::store::{Store, StoreError};

const DAY: i64 = 86_400;

async fn id_of(store: &Store, sql: &str, name: &str) -> Result<i64, StoreError> {
    let row = sqlx::query(sqlx::AssertSqlSafe(sql.to_string())).bind(name).fetch_one(&store.pool).await?;
    Ok(row.try_get(0)?)
}

async fn event(
    tx: &mut sqlx::AnyConnection,
    at: i64,
    kind: &str,
    job: i64,
    actor: &str,
    message: String,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) VALUES ($1, $2, $3, $4, $5, $6, '{}')",
    )
    .bind(at)
    .bind(kind)
    .bind(job)
    .bind(actor)
    .bind((kind != "submitted").then_some("native/default"))
    .bind(message)
    .execute(tx)
    .await?;
    Ok(())
}

/// Runs after the groups, users and nodes exist.
pub async fn organise(store: &Store, now: i64) -> Result<(), StoreError> {
    let group = |name: &'static str| id_of(store, "SELECT id FROM groups WHERE name = $1", name);
    let (vision, speech, robotics) =
        (group("vision").await?, group("speech").await?, group("robotics").await?);
    let user = |name: &'static str| id_of(store, "SELECT id FROM users WHERE username = $1", name);
    let vision_dev = user("vision-dev").await?;
    let node = id_of(store, "SELECT id FROM nodes WHERE name = $1", "gpu-east-0").await?;

    let mut tx = store.begin().await?;
    // The demo's commands are small shell loops that behave like training: they print
    // progress, keep a checkpoint, resume from it, and finish (with `--demo-agents`).
    let training = |epochs: u32, pause_s: u32| {
        format!(
            "n=0; if [ \"$TIDEPOOL_RESUME\" = 1 ]; then n=$(cat step 2>/dev/null || echo 0); fi; \
             while [ $n -lt {epochs} ]; do n=$((n+1)); echo $n > step; echo \"epoch $n of {epochs}\"; sleep {pause_s}; done"
        )
    };
    let templates = [
        (vision, "resnet50-imagenet", 8, "same-node", training(60, 5), "vision-lead"),
        (speech, "whisper-finetune", 4, "same-nvlink", training(30, 5), "speech-lead"),
    ];
    for (g, name, gpus, topology, command, by) in templates {
        sqlx::query(
            "INSERT INTO templates (group_id, name, category, class, gpus, model, topology, time_limit_s, \
             checkpointable, image, command, env, created_by, created_at) VALUES \
             ($1, $2, 'training', 'normal', $3, 'A100-80G', $4, 86400, TRUE, '', $5, \
             '{\"NCCL_DEBUG\":\"WARN\"}', $6, $7)",
        )
        .bind(g)
        .bind(name)
        .bind(gpus)
        .bind(topology)
        .bind(&command)
        .bind(by)
        .bind(now - 60 * DAY)
        .execute(&mut *tx)
        .await?;
    }
    // speech lets robotics use its fine-tuning template (T2).
    sqlx::query(
        "INSERT INTO template_grants (template_id, group_id, granted_by, granted_at) \
         SELECT id, $1, 'speech-lead', $2 FROM templates WHERE name = 'whisper-finetune'",
    )
    .bind(robotics)
    .bind(now - 30 * DAY)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO projects (group_id, name, class, gpu_cap, expires_at, reminded_at, granted_by, created_at) \
         VALUES ($1, 'cvpr-deadline', 'critical', 16, $2, NULL, 'vision-lead', $3)",
    )
    .bind(vision)
    .bind(now + 30 * DAY)
    .bind(now - 10 * DAY)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO loans (lender_id, borrower_id, model, gpus, ends_at, state, why, requested_by, requested_at) \
         VALUES ($1, $2, 'A100-80G', 4, $3, 'requested', 'grasping benchmark before the review', 'robotics-dev', $4)",
    )
    .bind(speech)
    .bind(robotics)
    .bind(now + 3 * DAY)
    .bind(now - 3600)
    .execute(&mut *tx)
    .await?;
    // Finished work from the past weeks, with receipts and tags (D3, A2).
    for k in 0..6_i64 {
        let (submitted, started) = (now - (20 - 3 * k) * DAY, now - (20 - 3 * k) * DAY + 120);
        let finished = started + (2 + k) * 3600;
        let row = sqlx::query(
            "INSERT INTO jobs (group_id, submitted_by, name, category, class, gpus, model, topology, time_limit_s, \
             checkpointable, command, state, submitted_at, queued_at, attained_gpu_s, template_id, finished_at) \
             SELECT $1, $2, $3, 'training', 'normal', 8, 'A100-80G', 'same-node', 86400, TRUE, command, \
             'succeeded', $4, $4, $5, id, $6 FROM templates WHERE name = 'resnet50-imagenet' RETURNING id",
        )
        .bind(vision)
        .bind(vision_dev)
        .bind(format!("resnet50 sweep {k}"))
        .bind(submitted)
        .bind(8 * (finished - started))
        .bind(finished)
        .fetch_one(&mut *tx)
        .await?;
        let job: i64 = row.try_get(0)?;
        sqlx::query(
            "INSERT INTO allocations (job_id, node_id, gpu_mask, borrowed, epoch, started_at, ended_at) \
             VALUES ($1, $2, 255, '[]', 1, $3, $4)",
        )
        .bind(job)
        .bind(node)
        .bind(started)
        .bind(finished)
        .execute(&mut *tx)
        .await?;
        for tag in if k < 3 { ["baseline", "resnet50"] } else { ["ablation", "resnet50"] } {
            sqlx::query("INSERT INTO job_tags (job_id, tag) VALUES ($1, $2)")
                .bind(job)
                .bind(tag)
                .execute(&mut *tx)
                .await?;
        }
        event(
            &mut tx,
            submitted,
            "submitted",
            job,
            "vision-dev",
            "vision-dev submitted a job (8 GPUs)".into(),
        )
        .await?;
        let placed = format!("job {job} placed on gpu-east-0 GPUs 0xff: within vision's guarantee");
        event(&mut tx, started, "placed", job, "dispatcher", placed).await?;
        let done = format!("job {job} succeeded after {} h on 8 GPUs", (finished - started) / 3600);
        event(&mut tx, finished, "finished", job, "dispatcher", done).await?;
    }
    tx.commit().await?;
    Ok(())
}
