//! Recording a submission once it is checked and resolved: the job, its tags and its
//! "submitted" event, together.

use crate::jobs::Spec;
use crate::store::Store;
use crate::store::StoreError;
use crate::store::jobs::NewJob;
use crate::store::users::User;

/// A submission checked and resolved: its group, shape, project, template and tags.
pub struct Prepared {
    pub group_id: i64,
    pub spec: Spec,
    pub project_id: Option<i64>,
    pub template_id: Option<i64>,
    pub tags: Vec<String>,
}

/// Records `p` as submitted by `user` at `now`; returns the job's id. The caller wakes
/// the dispatcher.
pub async fn submit(store: &Store, user: &User, p: &Prepared, now: i64) -> Result<i64, StoreError> {
    let spec = &p.spec;
    // A map of strings always serialises; an empty one is stored as none.
    let env = (!spec.env.is_empty()).then(|| serde_json::to_string(&spec.env).ok()).flatten();
    let job = NewJob {
        group_id: p.group_id,
        submitted_by: user.id,
        actor: &user.username,
        name: spec.name.trim(),
        category: &spec.category,
        class: &spec.class,
        gpus: spec.gpus,
        model: &spec.model,
        topology: &spec.topology,
        time_limit_s: spec.time_limit_s,
        checkpointable: spec.checkpointable,
        command: &spec.command,
        project_id: p.project_id,
        template_id: p.template_id,
        tags: &p.tags,
        image: spec.image.as_deref(),
        env: env.as_deref(),
    };
    store.submit_job(&job, now).await
}
