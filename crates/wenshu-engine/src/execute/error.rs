//! Why a tool call could not be executed.

use wenshu_sql::db::{ByteCap, DbError};

use crate::message::RefusalMessage;

/// A failed execution: no executor, a template or call that does not fit, or the database/endpoint failing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// No executor is registered for the tool (or its executor does not know it).
    #[error("tool `{tool}` has no executor configured (no `x-sql` template, no HTTP endpoint)")]
    NotConfigured {
        /// The tool.
        tool: String,
    },
    /// The tool's executor definition or the call does not fit: a template naming a parameter the tool lacks,
    /// a `by` parameter without a value, a call of another tool.
    #[error("tool `{tool}`: {reason}")]
    Invalid {
        /// The tool.
        tool: String,
        /// What is wrong, in words.
        reason: String,
    },
    /// The database refused or failed the query.
    #[error("{0}")]
    Database(DbError),
    /// The HTTP endpoint failed or answered with an error.
    #[error("HTTP call failed{}: {message}", status.map(|s| format!(" with status {s}")).unwrap_or_default())]
    Http {
        /// The response status, when a response came.
        status: Option<u16>,
        /// What went wrong: the start of the response body, or the transport error.
        message: String,
    },
    /// The call ran past its time limit.
    #[error("timed out after {after_ms} ms")]
    Timeout {
        /// The limit, in milliseconds.
        after_ms: u64,
    },
    /// The result was larger than a byte cap allows; it was not read further.
    #[error("the result was too large: {} (the cap is {limit} bytes, `{}`)", cap.what(), cap.key())]
    TooLarge {
        /// Which cap was passed.
        cap: ByteCap,
        /// The cap, in bytes.
        limit: usize,
    },
    /// The viewer's row scope refuses the call (a denied table, a value outside the scope): the question stops,
    /// it never degrades to another path.
    #[error("{0}")]
    Scope(crate::scope::ScopeRefusal),
}

impl ExecError {
    /// A stable code for the error (`not_configured`, `invalid`, `database`, `read_only`, `http`, `timeout`,
    /// `too_large`, `scope.denied`, `scope.outside`).
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotConfigured { .. } => "not_configured",
            Self::Invalid { .. } => "invalid",
            Self::Database(DbError::ReadOnly { .. }) => "read_only",
            Self::Database(_) => "database",
            Self::Http { .. } => "http",
            Self::Timeout { .. } => "timeout",
            Self::TooLarge { .. } => "too_large",
            Self::Scope(refusal) => refusal.code,
        }
    }

    /// The error in Chinese, for the stop the user reads (a driver's or an endpoint's own words stay as they came).
    pub fn zh(&self) -> String {
        match self {
            Self::NotConfigured { tool } => {
                format!("工具「{tool}」没有配置执行方式（没有 `x-sql` 模板，也没有 HTTP 接口）")
            }
            Self::Invalid { tool, reason } => format!("工具「{tool}」的调用不成立：{reason}"),
            Self::Database(DbError::ReadOnly { message }) => format!("数据库拒绝了写入（只读连接）：{message}"),
            Self::Database(error) => format!("数据库查询失败：{error}"),
            Self::Http {
                status: Some(status),
                message,
            } => format!("HTTP 调用失败（状态 {status}）：{message}"),
            Self::Http { status: None, message } => format!("HTTP 调用失败：{message}"),
            Self::Timeout { after_ms } => format!("超过 {after_ms} 毫秒未完成"),
            Self::TooLarge { cap, limit } => {
                let what = match cap {
                    ByteCap::Cell => "某个值超过了单值上限",
                    ByteCap::Result => "结果的值合计超过了结果上限",
                };
                format!("结果过大：{what}（上限 {limit} 字节，`{}`）", cap.key())
            }
            Self::Scope(refusal) => refusal.message().zh,
        }
    }
}

impl From<DbError> for ExecError {
    /// A database timeout becomes [`ExecError::Timeout`], a result over a byte cap [`ExecError::TooLarge`];
    /// everything else stays a database error.
    fn from(error: DbError) -> Self {
        match error {
            DbError::Timeout { after_ms } => Self::Timeout { after_ms },
            DbError::TooLarge { cap, limit } => Self::TooLarge { cap, limit },
            other => Self::Database(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_said_in_chinese_too() {
        let none = ExecError::NotConfigured {
            tool: "query_order".into(),
        };
        assert!(
            none.zh().starts_with("工具「query_order」没有配置执行方式"),
            "{}",
            none.zh()
        );
        assert_eq!(ExecError::Timeout { after_ms: 50 }.zh(), "超过 50 毫秒未完成");
        let http = ExecError::Http {
            status: Some(502),
            message: "bad gateway".into(),
        };
        assert_eq!(http.zh(), "HTTP 调用失败（状态 502）：bad gateway");
    }
}
