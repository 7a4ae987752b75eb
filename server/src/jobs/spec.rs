//! What a job will be, from a spec or a template, and the checks every job passes
//! whichever way it came: the dispatcher's dry run plans exactly this shape.

use std::collections::BTreeMap;

use crate::input::{Invalid, command, one_of, text};
use crate::jobs::sandbox;

pub const CATEGORIES: &[&str] = &["training", "inference", "pretraining"];
pub const CLASSES: &[&str] = &["batch", "experiment", "normal", "critical"];
pub const TOPOLOGIES: &[&str] = &["any", "same-node", "same-nvlink"];
/// The GPU model a job, template, loan or quota names when it names none.
pub const DEFAULT_MODEL: &str = "A100-80G";

/// The most tags a job carries (A2).
pub const MAX_TAGS: usize = 16;

/// What a job will be, from a spec or a template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub name: String,
    pub command: String,
    pub gpus: i64,
    pub model: String,
    pub category: String,
    pub class: String,
    pub topology: String,
    pub time_limit_s: Option<i64>,
    pub checkpointable: bool,
    /// The container image: the spec's, or the template's.
    pub image: Option<String>,
    /// The spec's environment (a template's stays with the template).
    pub env: BTreeMap<String, String>,
}

/// The checks every job passes, from a spec or a template.
pub fn validate(spec: &Spec) -> Result<(), Invalid> {
    text(&spec.name, "name", 200)?;
    command(&spec.command, "command", 10_000)?;
    if !(1..=4096).contains(&spec.gpus) {
        return Err(Invalid("gpus must be between 1 and 4096".into()));
    }
    text(&spec.model, "model", 64)?;
    if spec.time_limit_s.is_some_and(|t| t <= 0 || t > 365 * 86_400) {
        return Err(Invalid("time_limit_s must be between 1 s and a year".into()));
    }
    one_of(&spec.category, CATEGORIES, "category")?;
    one_of(&spec.class, CLASSES, "class")?;
    one_of(&spec.topology, TOPOLOGIES, "topology")?;
    if let Some(image) = &spec.image {
        sandbox::image(image)?;
    }
    sandbox::env(&spec.env)
}

/// Archive tags (A2): at most [`MAX_TAGS`], each clean text, lower-cased, each once.
pub fn tags(tags: &[String]) -> Result<Vec<String>, Invalid> {
    if tags.len() > MAX_TAGS {
        return Err(Invalid(format!("at most {MAX_TAGS} tags")));
    }
    let mut out: Vec<String> = Vec::with_capacity(tags.len());
    for t in tags {
        let t = text(t, "a tag", 64)?.to_lowercase();
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

/// Where a class ranks: a grant of a class covers the classes below it (P2).
pub fn rank(class: &str) -> usize {
    CLASSES.iter().position(|c| *c == class).unwrap_or(0)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn spec() -> Spec {
        Spec {
            name: "train".into(),
            command: "python train.py".into(),
            gpus: 4,
            model: "A100-80G".into(),
            category: "training".into(),
            class: "normal".into(),
            topology: "any".into(),
            time_limit_s: None,
            checkpointable: false,
            image: None,
            env: BTreeMap::new(),
        }
    }

    #[test]
    fn a_job_keeps_to_its_shape() {
        assert_eq!(validate(&spec()), Ok(()));
        assert!(validate(&Spec { gpus: 0, ..spec() }).is_err());
        assert!(validate(&Spec { class: "urgent".into(), ..spec() }).is_err());
        assert!(validate(&Spec { time_limit_s: Some(0), ..spec() }).is_err());
        assert!(validate(&Spec { image: Some("--privileged".into()), ..spec() }).is_err());
    }

    #[test]
    fn tags_are_lowercased_once_each() {
        assert_eq!(tags(&["A".into(), "a".into(), "b".into()]), Ok(vec!["a".to_string(), "b".to_string()]));
        assert!(tags(&vec!["x".to_string(); MAX_TAGS + 1]).is_err());
        assert_eq!(rank("critical"), 3);
    }
}
