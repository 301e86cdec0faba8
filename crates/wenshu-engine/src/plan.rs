//! The plan: what the pipeline decided before anything runs (route, check, resolve, extract, bind).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::message::Message;
use crate::resolve::Candidate;
use crate::resolve::chosen::SubjectIdError;

/// Who a stop is addressed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// The person asking: another wording may help.
    User,
    /// The administrator: only a configuration change helps (a model down, the fallback disabled).
    Admin,
}

/// Where the pipeline stands before execution.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Plan {
    /// The tool would be called with exactly these parameters.
    Ok {
        /// The tool.
        tool: String,
        /// Its bound parameters, defaults filled.
        params: Map<String, Value>,
    },
    /// The subject name matches several entities: the user picks one.
    Ambiguous {
        /// The tool.
        tool: String,
        /// The name as given.
        name: String,
        /// The ranked candidates, with distinguishing fields.
        candidates: Vec<Candidate>,
    },
    /// The subject name matches no entity.
    NotFound {
        /// The tool.
        tool: String,
        /// The name as given.
        name: String,
    },
    /// Required parameters the question does not give and that have no default.
    Missing {
        /// The tool.
        tool: String,
        /// Their names.
        params: Vec<String>,
    },
    /// The question names a value the tool cannot take.
    Unsupported {
        /// The tool.
        tool: String,
        /// The parameter.
        param: String,
        /// The value the question names.
        value: String,
    },
    /// No fixed tool fits: the fallback tool takes the question.
    Fallback {
        /// The fallback tool, when the catalog has one.
        tool: Option<String>,
        /// Why no fixed tool fits (the engine's words, for the trace).
        reason: String,
        /// Why no fixed tool fits, coded and in both languages (what a stop says when the fallback cannot run).
        message: Box<Message>,
        /// The question the fallback gets (the rewritten one).
        question: String,
        /// What the routed call could not answer, when coverage sent the question here.
        #[serde(skip_serializing_if = "Option::is_none")]
        unmet: Option<Box<crate::coverage::Coverage>>,
    },
    /// The request's own subject ID cannot be used for the routed tool: the caller must send another.
    Rejected {
        /// The tool.
        tool: String,
        /// Why, naming the field, the value and what is allowed.
        error: Box<SubjectIdError>,
    },
    /// The pipeline cannot go on.
    Stopped {
        /// The step it stopped at.
        step: String,
        /// Why, coded and in both languages.
        message: Box<Message>,
        /// Who can act on it.
        audience: Audience,
    },
}

impl Plan {
    /// The status word (`ok`, `ambiguous`, `not_found`, `missing`, `unsupported`, `fallback`, `rejected`, `stopped`).
    pub fn status(&self) -> &'static str {
        match self {
            Self::Ok { .. } => "ok",
            Self::Ambiguous { .. } => "ambiguous",
            Self::NotFound { .. } => "not_found",
            Self::Missing { .. } => "missing",
            Self::Unsupported { .. } => "unsupported",
            Self::Fallback { .. } => "fallback",
            Self::Rejected { .. } => "rejected",
            Self::Stopped { .. } => "stopped",
        }
    }

    /// The status in Chinese, for the trace.
    pub fn status_zh(&self) -> &'static str {
        match self {
            Self::Ok { .. } => "完成",
            Self::Ambiguous { .. } => "有多个候选",
            Self::NotFound { .. } => "未找到",
            Self::Missing { .. } => "缺少参数",
            Self::Unsupported { .. } => "工具不支持",
            Self::Fallback { .. } => "转兜底",
            Self::Rejected { .. } => "被拒绝",
            Self::Stopped { .. } => "已停止",
        }
    }

    /// The tool the plan is about, when there is one.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Self::Ok { tool, .. }
            | Self::Ambiguous { tool, .. }
            | Self::NotFound { tool, .. }
            | Self::Missing { tool, .. }
            | Self::Unsupported { tool, .. }
            | Self::Rejected { tool, .. } => Some(tool),
            Self::Fallback { tool, .. } => tool.as_deref(),
            Self::Stopped { .. } => None,
        }
    }
}
