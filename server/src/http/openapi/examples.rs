//! An example of every JSON request body in the OpenAPI document, written as the
//! `tidepool-api` types so an example cannot name a field the server refuses (the
//! document's test sends each one through the real router's parsers).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use tidepool_api as api;

use crate::fleet::protocol as agent;

fn ex<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).expect("an example serialises")
}

/// One hour after 2026-01-01T00:00Z, for every field that takes a moment in the future.
const LATER: i64 = 1_767_229_200;

pub fn login() -> Value {
    ex(api::Login { username: "vision-dev".into(), password: "demo-password".into() })
}

pub fn refresh() -> Value {
    ex(api::Refresh { refresh_token: "the refresh token a sign-in answered".into() })
}

pub fn logout() -> Value {
    ex(api::Logout { refresh_token: Some("the refresh token a sign-in answered".into()) })
}

pub fn new_password() -> Value {
    ex(api::NewPassword {
        current_password: "demo-password".into(),
        new_password: "a longer passphrase".into(),
    })
}

pub fn new_user() -> Value {
    ex(api::NewUser {
        username: "ada".into(),
        password: "a long passphrase".into(),
        role: api::Role::Member,
        group: Some("vision".into()),
    })
}

pub fn new_group() -> Value {
    ex(api::NewGroup { name: "robotics".into() })
}

pub fn submit() -> Value {
    ex(api::Submit {
        name: Some("resnet-sweep".into()),
        command: Some("python train.py --lr 0.1".into()),
        gpus: Some(4),
        model: Some("A100-80G".into()),
        class: Some("normal".into()),
        time_limit_s: Some(7200),
        env: Some(BTreeMap::from([("SEED".to_string(), "7".to_string())])),
        tags: vec!["sweep".into()],
        ..api::Submit::default()
    })
}

pub fn new_project() -> Value {
    ex(api::NewProject {
        name: "cvpr-deadline".into(),
        group: None,
        class: "critical".into(),
        gpu_cap: Some(16),
        expires_at: LATER,
    })
}

pub fn renew() -> Value {
    ex(api::Renew { expires_at: LATER })
}

pub fn new_template() -> Value {
    ex(api::NewTemplate {
        name: "bert-finetune".into(),
        gpus: 2,
        class: Some("experiment".into()),
        time_limit_s: Some(3600),
        command: "python finetune.py".into(),
        env: BTreeMap::from([("HF_HOME".to_string(), "/scratch/hf".to_string())]),
        ..api::NewTemplate::default()
    })
}

pub fn template_grant() -> Value {
    ex(api::TemplateGrant { group: "speech".into() })
}

pub fn template_retire() -> Value {
    ex(api::TemplateRetire { reason: "replaced by bert-finetune-v2".into() })
}

pub fn new_loan() -> Value {
    ex(api::NewLoan {
        lender: "speech".into(),
        borrower: None,
        model: Some("A100-80G".into()),
        gpus: 4,
        ends_at: LATER,
        why: "a paper deadline on Friday".into(),
    })
}

pub fn decision() -> Value {
    ex(api::Decision { note: "fine until Friday".into() })
}

pub fn quota_change() -> Value {
    ex(api::QuotaChange {
        group: "vision".into(),
        model: Some("A100-80G".into()),
        category: "training".into(),
        guaranteed: 16,
        borrow_limit: Some(8),
        lend_limit: None,
        budget_gpu_h: Some(5000.0),
        why: "the new grant from the faculty".into(),
    })
}

pub fn review() -> Value {
    ex(api::Review { note: "matches the grant letter".into() })
}

pub fn new_node() -> Value {
    ex(api::NewNode {
        name: "gpu-17".into(),
        pool: "main".into(),
        model: "A100-80G".into(),
        gpus: 8,
        nvlink_group: Some(4),
    })
}

pub fn node_edit() -> Value {
    ex(api::NodeEdit { pool: None, healthy: Some(false) })
}

pub fn new_node_token() -> Value {
    ex(api::NewNodeToken {
        node: "gpu-17".into(),
        pool: Some("main".into()),
        expires_in_s: Some(86_400 * 90),
    })
}

pub fn register() -> Value {
    let gpu = |index| agent::GpuInfo {
        index,
        uuid: format!("GPU-{index:08x}"),
        model: "A100-80G".into(),
        memory_total_mb: 81_920,
    };
    ex(agent::Register { pool: None, gpus: vec![gpu(0), gpu(1)] })
}

pub fn report() -> Value {
    let fence = agent::Fence { allocation: 42, epoch: 3 };
    ex(agent::Report {
        gpus: vec![agent::GpuSample { index: 0, util_pct: 97, memory_used_mb: 40_000 }],
        running: vec![fence],
        finished: vec![],
        logs: vec![agent::LogChunk { fence, offset: 0, text: "epoch 1: loss 0.41\n".into() }],
        wait_s: 20,
    })
}

pub fn canary() -> Value {
    ex(api::CanaryRequest { groups: vec!["vision".into()] })
}

pub fn policy_approval() -> Value {
    ex(api::PolicyApproval {
        note: "shadow differences reviewed".into(),
        action: Some(api::Approval::Canary),
    })
}

pub fn replay() -> Value {
    ex(api::ReplayRequest { since: "30d".into(), until: None, with: Vec::new() })
}

pub fn rollback() -> Value {
    ex(api::Rollback { kind: api::PolicyKind::Priority, note: "starves small jobs".into() })
}

pub fn settings() -> Value {
    ex(api::settings::OrgSettings {
        time_zone: "Europe/Berlin".into(),
        currency: "EUR".into(),
        prices: vec![api::settings::GpuPrice { model: "A100-80G".into(), per_gpu_hour: 2.5 }],
        report_webhook: Some("https://reports.example.org/tidepool".into()),
    })
}

pub fn limits() -> Value {
    let class = |c: &str, default_s, max_s| api::limits::ClassLimit { class: c.into(), default_s, max_s };
    ex(api::limits::ClassLimits { classes: vec![class("experiment", 2 * 3600, 12 * 3600)] })
}

pub fn alert_settings() -> Value {
    ex(api::alerts::AlertSettings {
        webhook: Some("https://chat.example.org/hooks/tidepool".into()),
        shape: api::alerts::WebhookShape::Chat,
    })
}

pub fn propose_suggestions() -> Value {
    ex(api::reviews::ProposeSuggestions { month: "2026-11".into() })
}
