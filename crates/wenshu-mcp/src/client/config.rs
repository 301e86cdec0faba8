//! How to reach one MCP server: its name, its transport, its limits, and whether it is used at all.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::error::McpError;

/// The longest server name accepted (it prefixes every tool name of the server).
pub const MAX_SERVER_NAME_LEN: usize = 64;

/// How the client reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking MCP over its stdin and stdout.
    Stdio {
        /// The program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables (the rest of the environment is inherited).
        env: BTreeMap<String, String>,
    },
    /// A streamable-HTTP endpoint, e.g. `http://127.0.0.1:3001/mcp`.
    Http {
        /// The endpoint's URL.
        url: String,
    },
}

/// Reconnection after the transport died: a few attempts, with doubling waits between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconnectPolicy {
    /// Connection attempts per reconnection (at least 1).
    pub max_attempts: u32,
    /// The wait before the second attempt; it doubles after each failure.
    pub initial_backoff: Duration,
    /// The longest wait between attempts, and how long a server that failed every attempt is left alone.
    pub max_backoff: Duration,
}

impl Default for ReconnectPolicy {
    /// 3 attempts, 200 ms then 400 ms apart, at most 2 s.
    fn default() -> Self {
        Self {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(2),
        }
    }
}

impl ReconnectPolicy {
    /// The wait after failed attempt `attempt` (0-based): doubling from the initial backoff, capped.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.min(16));
        self.initial_backoff.saturating_mul(factor).min(self.max_backoff)
    }
}

/// One MCP server wenshu calls tools of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// The server's name: ASCII letters, digits, `_` and `-`. Its tools become `name.tool`.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// The longest one `tools/call` may take (a tighter limit of the execution context wins).
    pub call_timeout: Duration,
    /// The longest connecting (start, `initialize`, first `tools/list`) may take.
    pub connect_timeout: Duration,
    /// Reconnection after the transport died.
    pub reconnect: ReconnectPolicy,
    /// Whether the server is used; a disabled server is never started and its tools are unavailable.
    pub enabled: bool,
}

impl McpServerConfig {
    /// The default time limit of a call (30 s).
    pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default time limit of connecting (20 s: a child process may need to start an interpreter).
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

    /// A server started as a child process `command args…`, enabled, with the default limits.
    pub fn stdio(name: impl Into<String>, command: impl Into<String>, args: impl IntoIterator<Item = String>) -> Self {
        Self::new(
            name,
            McpTransport::Stdio {
                command: command.into(),
                args: args.into_iter().collect(),
                env: BTreeMap::new(),
            },
        )
    }

    /// A server at a streamable-HTTP URL, enabled, with the default limits.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::new(name, McpTransport::Http { url: url.into() })
    }

    fn new(name: impl Into<String>, transport: McpTransport) -> Self {
        Self {
            name: name.into(),
            transport,
            call_timeout: Self::DEFAULT_CALL_TIMEOUT,
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            reconnect: ReconnectPolicy::default(),
            enabled: true,
        }
    }

    /// The same server with another call time limit.
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// The same server with another connect time limit.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The same server with another reconnection policy.
    pub fn with_reconnect(mut self, reconnect: ReconnectPolicy) -> Self {
        self.reconnect = reconnect;
        self
    }

    /// The same server, enabled or not.
    pub fn with_enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// The same stdio server with one more environment variable (no effect on an HTTP server).
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::Stdio { env, .. } = &mut self.transport {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Checks the name, the transport and the limits.
    pub fn validate(&self) -> Result<(), McpError> {
        let invalid = |reason: String| McpError::Config {
            server: self.name.clone(),
            reason,
        };
        if self.name.is_empty() || self.name.len() > MAX_SERVER_NAME_LEN {
            return Err(invalid(format!(
                "the name must have 1 to {MAX_SERVER_NAME_LEN} characters"
            )));
        }
        if let Some(bad) = self
            .name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
        {
            return Err(invalid(format!(
                "the name contains `{bad}`; allowed are ASCII letters, digits, `_` and `-`"
            )));
        }
        match &self.transport {
            McpTransport::Stdio { command, .. } if command.trim().is_empty() => {
                return Err(invalid("the stdio command is empty".into()));
            }
            McpTransport::Http { url } if !(url.starts_with("http://") || url.starts_with("https://")) => {
                return Err(invalid(format!("`{url}` is not an http:// or https:// URL")));
            }
            _ => {}
        }
        if self.call_timeout.is_zero() || self.connect_timeout.is_zero() {
            return Err(invalid("time limits must be above zero".into()));
        }
        if self.reconnect.max_attempts == 0 {
            return Err(invalid("reconnect.max_attempts must be at least 1".into()));
        }
        Ok(())
    }
}
