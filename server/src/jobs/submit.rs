//! Submitting a job: a submission ([`Submit`]) is checked and resolved — the group it is
//! for (Q6), its shape from a spec or a template (T1), its model, its project's grant
//! (P2), its time limit (P1: its class's default, or refused above the class's maximum),
//! the submitter's pending cap — and recorded with its tags and its "submitted"
//! event, together. The dry run (`jobs::dry_run`) checks the same way and writes nothing.

use tidepool_api::jobs::{JobState, Submit, Submitted};

use crate::access::{AccessError, acting_group};
use crate::input::Invalid;
use crate::jobs::{Spec, spec, validate};
use crate::limits::{Bounds, Limited, known_model, pending_cap};
use crate::projects::GrantError;
use crate::store::jobs::NewJob;
use crate::store::users::User;
use crate::store::{Store, StoreError};
use crate::templates::{self, LaunchError};
use crate::time_limits;

/// Why a submission (or a dry run) is refused.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error(transparent)]
    Grant(#[from] GrantError),
    /// An unknown model, or the submitter's pending cap.
    #[error(transparent)]
    Limited(#[from] Limited),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A submission checked and resolved: its group, shape, project, template and tags.
pub struct Prepared {
    pub group_id: i64,
    pub spec: Spec,
    pub project_id: Option<i64>,
    pub template_id: Option<i64>,
    pub tags: Vec<String>,
}

/// Whether a submission gives any of a job's shape (a template fixes all of it).
fn has_shape(s: &Submit) -> bool {
    s.command.is_some()
        || s.gpus.is_some()
        || s.model.is_some()
        || s.category.is_some()
        || s.class.is_some()
        || s.topology.is_some()
        || s.time_limit_s.is_some()
        || s.checkpointable.is_some()
        || s.image.is_some()
        || s.env.is_some()
}

/// The spec a submission without a template gives, with the defaults the API documents.
fn spec_of(s: Submit) -> Result<Spec, Invalid> {
    let (Some(name), Some(command), Some(gpus)) = (s.name, s.command, s.gpus) else {
        return Err(Invalid("a job needs a name, a command and gpus, or a template".into()));
    };
    Ok(Spec {
        name,
        command,
        gpus: i64::from(gpus),
        model: s.model.unwrap_or_else(|| "A100-80G".into()),
        category: s.category.unwrap_or_else(|| "training".into()),
        class: s.class.unwrap_or_else(|| "normal".into()),
        topology: s.topology.unwrap_or_else(|| "any".into()),
        time_limit_s: s.time_limit_s.map(|t| t.min(i64::MAX as u64) as i64),
        checkpointable: s.checkpointable.unwrap_or(false),
        image: s.image,
        env: s.env.unwrap_or_default(),
    })
}

/// Everything a submission by `user` is checked against, short of writing it.
pub async fn prepare(store: &Store, user: &User, body: Submit, now: i64) -> Result<Prepared, SubmitError> {
    let group_id = acting_group(store, user, body.group.as_deref()).await?;
    let tags = spec::tags(&body.tags)?;
    let project = body.project.clone();
    let template_id = body.template;
    let spec = match body.template {
        Some(_) if has_shape(&body) => {
            return Err(Invalid(
                "a template fixes the job's shape: give only a name, project and tags with it".into(),
            )
            .into());
        }
        Some(id) => templates::launch_spec(store, id, group_id, body.name.as_deref()).await?,
        None => spec_of(body)?,
    };
    let mut spec = spec;
    validate(&spec)?;
    // Every job carries a limit: its own within its class's maximum, else the default (P1).
    let limits = time_limits::of_class(store, &spec.class).await?;
    time_limits::give(&mut spec, limits)?;
    known_model(store, &spec.model).await?;
    let project_id = crate::projects::admit(store, group_id, project.as_deref(), &spec, now).await?;
    Ok(Prepared { group_id, spec, project_id, template_id, tags })
}

/// Checks `body` and records it as submitted by `user` at `now`, within the submitter's
/// pending cap. The caller wakes the dispatcher.
pub async fn submit(
    store: &Store,
    bounds: &Bounds,
    user: &User,
    body: Submit,
    now: i64,
) -> Result<Submitted, SubmitError> {
    let prepared = prepare(store, user, body, now).await?;
    pending_cap(store, bounds, user.id).await?;
    let id = record(store, user, &prepared, now).await?;
    Ok(Submitted { id, state: JobState::Pending })
}

/// Records `p` as submitted by `user` at `now`; returns the job's id.
pub async fn record(store: &Store, user: &User, p: &Prepared, now: i64) -> Result<i64, StoreError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_takes_the_documented_defaults() {
        let body = Submit {
            name: Some("a".into()),
            command: Some("true".into()),
            gpus: Some(2),
            ..Submit::default()
        };
        let s = spec_of(body).unwrap();
        assert_eq!(
            (s.model.as_str(), s.category.as_str(), s.class.as_str(), s.topology.as_str()),
            ("A100-80G", "training", "normal", "any")
        );
        assert!(!s.checkpointable && s.image.is_none() && s.env.is_empty());
    }

    #[test]
    fn a_spec_needs_a_name_a_command_and_gpus() {
        assert!(spec_of(Submit { name: Some("a".into()), gpus: Some(1), ..Submit::default() }).is_err());
    }

    #[test]
    fn only_a_name_project_and_tags_go_with_a_template() {
        let named =
            Submit { template: Some(1), name: Some("a".into()), tags: vec!["x".into()], ..Submit::default() };
        assert!(!has_shape(&named));
        assert!(has_shape(&Submit { template: Some(1), gpus: Some(1), ..Submit::default() }));
        assert!(has_shape(&Submit { template: Some(1), env: Some(Default::default()), ..Submit::default() }));
    }
}
