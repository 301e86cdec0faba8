//! One scripted answer of the chat server.

use std::time::Duration;

/// One scripted answer: what the server sends back for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A normal completion whose message content is this text, with a usage block.
    Content {
        /// The assistant message content.
        text: String,
        /// A `reasoning_content` field to add beside the content, as reasoning models send.
        reasoning: Option<String>,
    },
    /// A completion whose message holds one tool call with these `arguments` (a string, as the API sends it).
    ToolCall {
        /// The raw `arguments` string of the tool call.
        arguments: String,
    },
    /// A bare HTTP status with this body (e.g. 500, or 429 with a `Retry-After` header).
    Status {
        /// The HTTP status code.
        code: u16,
        /// The response body, sent as is.
        body: String,
        /// A `Retry-After` header value in seconds, when set.
        retry_after: Option<u64>,
    },
    /// Sleep this long before answering with a normal completion (to trip a client timeout).
    Hang {
        /// How long to wait before answering.
        duration: Duration,
    },
    /// A normal completion with this content, sent after a delay (a slow but healthy model).
    Delayed {
        /// How long to wait before answering.
        duration: Duration,
        /// The message content.
        text: String,
    },
    /// A 200 answer whose body is this raw text (e.g. not JSON at all).
    Raw {
        /// The body, sent as is.
        body: String,
    },
}

impl Reply {
    /// A normal completion with this message content.
    pub fn content(text: impl Into<String>) -> Self {
        Reply::Content {
            text: text.into(),
            reasoning: None,
        }
    }

    /// A normal completion with this content and a `reasoning_content` field.
    pub fn content_with_reasoning(text: impl Into<String>, reasoning: impl Into<String>) -> Self {
        Reply::Content {
            text: text.into(),
            reasoning: Some(reasoning.into()),
        }
    }

    /// A completion holding one tool call with these `arguments`.
    pub fn tool_call(arguments: impl Into<String>) -> Self {
        Reply::ToolCall {
            arguments: arguments.into(),
        }
    }

    /// A bare HTTP status with this body.
    pub fn status(code: u16, body: impl Into<String>) -> Self {
        Reply::Status {
            code,
            body: body.into(),
            retry_after: None,
        }
    }

    /// A bare HTTP status with this body and a `Retry-After: seconds` header.
    pub fn status_retry_after(code: u16, body: impl Into<String>, seconds: u64) -> Self {
        Reply::Status {
            code,
            body: body.into(),
            retry_after: Some(seconds),
        }
    }

    /// Sleep this long, then answer with a normal completion `{}`.
    pub fn hang(duration: Duration) -> Self {
        Reply::Hang { duration }
    }

    /// A completion with `text`, answered after `duration`.
    pub fn delayed(duration: Duration, text: impl Into<String>) -> Self {
        Reply::Delayed {
            duration,
            text: text.into(),
        }
    }

    /// A 200 answer with this raw body.
    pub fn raw(body: impl Into<String>) -> Self {
        Reply::Raw { body: body.into() }
    }
}
