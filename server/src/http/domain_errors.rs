//! How each domain error answers over HTTP. The domain says what went wrong in its own
//! types; this file alone chooses the status code. A store failure keeps the mapping
//! of [`StoreError`] (a 500 logs its cause and shows nothing).

use crate::access::AccessError;
use crate::fleet::nodes::NodeError;
use crate::fleet::register::RegisterError;
use crate::fleet::sync::SyncError;
use crate::fleet::tokens::TokenError;
use crate::http::ApiError;
use crate::input::Invalid;
use crate::jobs::cancel::CancelError;
use crate::jobs::dry_run::DryRunError;
use crate::jobs::logs::LogError;
use crate::jobs::receipt::ReceiptError;
use crate::jobs::submit::SubmitError;
use crate::limits::Limited;
use crate::policy::manage::PolicyError;
use crate::policy::registry::RegistryError;
use crate::projects::GrantError;
use crate::templates::{LaunchError, TemplateError};

/// Input a rule refuses: the caller's to fix.
impl From<Invalid> for ApiError {
    fn from(e: Invalid) -> Self {
        ApiError::Unprocessable(e.0)
    }
}

impl From<AccessError> for ApiError {
    fn from(e: AccessError) -> Self {
        match e {
            AccessError::NoSuchGroup(_) | AccessError::GroupNeeded => ApiError::Unprocessable(e.to_string()),
            AccessError::Denied(_) => ApiError::Forbidden(e.to_string()),
            AccessError::Invalid(e) => e.into(),
            AccessError::Store(e) => e.into(),
        }
    }
}

impl From<GrantError> for ApiError {
    fn from(e: GrantError) -> Self {
        match e {
            GrantError::Unnamed(_) | GrantError::ClassAbove { .. } | GrantError::Expired { .. } => {
                ApiError::Forbidden(e.to_string())
            }
            GrantError::NoSuchProject(_) | GrantError::OverCap { .. } => {
                ApiError::Unprocessable(e.to_string())
            }
            GrantError::Invalid(e) => e.into(),
            GrantError::Store(e) => e.into(),
        }
    }
}

impl From<LaunchError> for ApiError {
    fn from(e: LaunchError) -> Self {
        match e {
            // The template is named in the body, not the path: 422, not 404.
            LaunchError::NoSuchTemplate(_) => ApiError::Unprocessable(e.to_string()),
            LaunchError::Retired(_) => ApiError::Conflict(e.to_string()),
            LaunchError::NotGranted(_) => ApiError::Forbidden(e.to_string()),
            LaunchError::Store(e) => e.into(),
        }
    }
}

impl From<SyncError> for ApiError {
    fn from(e: SyncError) -> Self {
        match e {
            SyncError::TooLarge => ApiError::Unprocessable(e.to_string()),
            SyncError::NotRegistered(_) => ApiError::Conflict(e.to_string()),
            SyncError::Store(e) => e.into(),
        }
    }
}

impl From<RegistryError> for ApiError {
    fn from(e: RegistryError) -> Self {
        match e {
            RegistryError::Unknown(_) => ApiError::NotFound(e.to_string()),
            RegistryError::SamePerson(_) | RegistryError::Author(_) => ApiError::Forbidden(e.to_string()),
            RegistryError::NotRunnable { .. }
            | RegistryError::NotRequested(_)
            | RegistryError::Ambiguous(_)
            | RegistryError::NothingToRollBack(_) => ApiError::Conflict(e.to_string()),
        }
    }
}

impl From<CancelError> for ApiError {
    fn from(e: CancelError) -> Self {
        match e {
            CancelError::NoSuchJob(_) => ApiError::NotFound(e.to_string()),
            CancelError::NotYours => ApiError::Forbidden(e.to_string()),
            CancelError::Over { .. } => ApiError::Conflict(e.to_string()),
            CancelError::Store(e) => e.into(),
        }
    }
}

impl From<TemplateError> for ApiError {
    fn from(e: TemplateError) -> Self {
        match e {
            TemplateError::NoSuchTemplate(_) => ApiError::NotFound(e.to_string()),
            TemplateError::Retired(_) | TemplateError::RetiredAlready(_) => ApiError::Conflict(e.to_string()),
            TemplateError::NoSuchGroup(_) | TemplateError::OwnGroup => ApiError::Unprocessable(e.to_string()),
            TemplateError::Access(e) => e.into(),
            TemplateError::Limited(e) => e.into(),
            TemplateError::Invalid(e) => e.into(),
            TemplateError::Store(e) => e.into(),
        }
    }
}

impl From<Limited> for ApiError {
    fn from(e: Limited) -> Self {
        match e {
            Limited::Over(_) => ApiError::Unprocessable(e.to_string()),
            Limited::Store(e) => e.into(),
        }
    }
}

impl From<crate::loans::LoanError> for ApiError {
    fn from(e: crate::loans::LoanError) -> Self {
        use crate::loans::LoanError;
        match e {
            LoanError::NoSuchLoan(_) => ApiError::NotFound(e.to_string()),
            LoanError::MovedOn { .. } => ApiError::Conflict(e.to_string()),
            LoanError::NotBorrower => ApiError::Forbidden(e.to_string()),
            LoanError::OwnGroup => ApiError::Unprocessable(e.to_string()),
            LoanError::Access(e) => e.into(),
            LoanError::Invalid(e) => e.into(),
            LoanError::Store(e) => e.into(),
        }
    }
}

impl From<SubmitError> for ApiError {
    fn from(e: SubmitError) -> Self {
        match e {
            SubmitError::Access(e) => e.into(),
            SubmitError::Invalid(e) => e.into(),
            SubmitError::Launch(e) => e.into(),
            SubmitError::Grant(e) => e.into(),
            SubmitError::Limited(e) => e.into(),
            SubmitError::Store(e) => e.into(),
        }
    }
}

impl From<crate::changes::ChangeError> for ApiError {
    fn from(e: crate::changes::ChangeError) -> Self {
        use crate::changes::ChangeError;
        match e {
            ChangeError::NoSuchChange(_) => ApiError::NotFound(e.to_string()),
            ChangeError::SecondAdmin { .. } => ApiError::Forbidden(e.to_string()),
            ChangeError::Reviewed { .. } => ApiError::Conflict(e.to_string()),
            // The records are at fault: logged, never shown.
            ChangeError::Unreadable { .. } => ApiError::Internal(e.to_string()),
            ChangeError::Access(e) => e.into(),
            ChangeError::Invalid(e) => e.into(),
            ChangeError::Store(e) => e.into(),
        }
    }
}

impl From<DryRunError> for ApiError {
    fn from(e: DryRunError) -> Self {
        match e {
            DryRunError::TooMany { wait_s, .. } => {
                ApiError::TooMany { retry_after_s: wait_s, message: e.to_string() }
            }
            DryRunError::Refused(e) => e.into(),
            DryRunError::Plan(e) => ApiError::Internal(e.to_string()),
        }
    }
}

impl From<crate::accounts::AccountError> for ApiError {
    fn from(e: crate::accounts::AccountError) -> Self {
        use crate::accounts::AccountError;
        match e {
            AccountError::Access(e) => e.into(),
            AccountError::Invalid(e) => e.into(),
            AccountError::Store(e) => e.into(),
        }
    }
}

impl From<ReceiptError> for ApiError {
    fn from(e: ReceiptError) -> Self {
        match e {
            ReceiptError::NoSuchJob(_) => ApiError::NotFound(e.to_string()),
            ReceiptError::Store(e) => e.into(),
        }
    }
}

impl From<crate::projects::ProjectError> for ApiError {
    fn from(e: crate::projects::ProjectError) -> Self {
        use crate::projects::ProjectError;
        match e {
            ProjectError::NoSuchProject(_) => ApiError::NotFound(e.to_string()),
            ProjectError::Access(e) => e.into(),
            ProjectError::Invalid(e) => e.into(),
            ProjectError::Store(e) => e.into(),
        }
    }
}

impl From<LogError> for ApiError {
    fn from(e: LogError) -> Self {
        match e {
            LogError::NoSuchJob(_) => ApiError::NotFound(e.to_string()),
            LogError::NotYours => ApiError::Forbidden(e.to_string()),
            LogError::Invalid(e) => e.into(),
            LogError::Store(e) => e.into(),
        }
    }
}

impl From<NodeError> for ApiError {
    fn from(e: NodeError) -> Self {
        match e {
            NodeError::Access(e) => e.into(),
            NodeError::Invalid(e) => e.into(),
            NodeError::NoSuchNode(_) => ApiError::NotFound(e.to_string()),
            NodeError::Store(e) => e.into(),
        }
    }
}

impl From<TokenError> for ApiError {
    fn from(e: TokenError) -> Self {
        match e {
            TokenError::Access(e) => e.into(),
            TokenError::Invalid(e) => e.into(),
            TokenError::NoSuchToken(_) => ApiError::NotFound(e.to_string()),
            TokenError::NotValid | TokenError::Revoked | TokenError::Expired => {
                ApiError::Unauthorized(e.to_string())
            }
            TokenError::Store(e) => e.into(),
        }
    }
}

impl From<RegisterError> for ApiError {
    fn from(e: RegisterError) -> Self {
        match e {
            RegisterError::Invalid(e) => e.into(),
            RegisterError::PoolFixed { .. } => ApiError::Forbidden(e.to_string()),
            RegisterError::Store(e) => e.into(),
        }
    }
}

impl From<PolicyError> for ApiError {
    fn from(e: PolicyError) -> Self {
        match e {
            PolicyError::Access(e) => e.into(),
            PolicyError::Invalid(e) => e.into(),
            PolicyError::Registry(e) => e.into(),
            PolicyError::Rejected { .. } => ApiError::Unprocessable(e.to_string()),
            PolicyError::Compile(_) => ApiError::Internal(e.to_string()),
            PolicyError::Store(e) => e.into(),
        }
    }
}

impl From<crate::replay::ReplayError> for ApiError {
    fn from(e: crate::replay::ReplayError) -> Self {
        use crate::replay::ReplayError;
        match e {
            ReplayError::Access(e) => e.into(),
            ReplayError::Invalid(e) => e.into(),
            ReplayError::Registry(e) => e.into(),
            ReplayError::Period(_) | ReplayError::NoJobs { .. } => ApiError::Unprocessable(e.to_string()),
            ReplayError::Records(_) | ReplayError::Task(_) => ApiError::Internal(e.to_string()),
            ReplayError::Store(e) => e.into(),
        }
    }
}

impl From<crate::usage::UsageError> for ApiError {
    fn from(e: crate::usage::UsageError) -> Self {
        use crate::usage::UsageError;
        match e {
            UsageError::Invalid(e) => e.into(),
            UsageError::Access(e) => e.into(),
            UsageError::Store(e) => e.into(),
        }
    }
}

impl From<crate::settings::SettingsError> for ApiError {
    fn from(e: crate::settings::SettingsError) -> Self {
        use crate::settings::SettingsError;
        match e {
            SettingsError::NoSuchUser(_) => ApiError::NotFound(e.to_string()),
            SettingsError::Access(e) => e.into(),
            SettingsError::Invalid(e) => e.into(),
            SettingsError::Store(e) => e.into(),
        }
    }
}

impl From<crate::alerts::AlertError> for ApiError {
    fn from(e: crate::alerts::AlertError) -> Self {
        use crate::alerts::AlertError;
        match e {
            AlertError::NotFound(_) => ApiError::NotFound(e.to_string()),
            AlertError::Access(e) => e.into(),
            AlertError::Invalid(e) => e.into(),
            AlertError::Store(e) => e.into(),
        }
    }
}

impl From<crate::reports::ReportError> for ApiError {
    fn from(e: crate::reports::ReportError) -> Self {
        use crate::reports::ReportError;
        match e {
            ReportError::NotBegun(_) => ApiError::Unprocessable(e.to_string()),
            ReportError::Access(e) => e.into(),
            ReportError::Invalid(e) => e.into(),
            ReportError::Store(e) => e.into(),
        }
    }
}

impl From<crate::reviews::ReviewError> for ApiError {
    fn from(e: crate::reviews::ReviewError) -> Self {
        use crate::reviews::ReviewError;
        match e {
            ReviewError::Access(e) => e.into(),
            ReviewError::Invalid(e) => e.into(),
            ReviewError::Change(e) => e.into(),
            ReviewError::Store(e) => e.into(),
        }
    }
}

impl From<crate::drill::record::DrillError> for ApiError {
    fn from(e: crate::drill::record::DrillError) -> Self {
        use crate::drill::record::DrillError;
        match e {
            DrillError::Denied => ApiError::Forbidden(e.to_string()),
            DrillError::Corrupt(_) => ApiError::Internal(e.to_string()),
            DrillError::Store(e) => e.into(),
        }
    }
}
