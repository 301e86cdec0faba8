//! Test support for wenshu.
//!
//! [`ScriptedChatServer`] is a real HTTP server on `127.0.0.1` that speaks the OpenAI chat completions API
//! (`POST /v1/chat/completions`) and answers from a script, one [`Reply`] per request, in order. It records every
//! request it receives so tests can assert on what a client sent. Tests never reach beyond loopback.

#![warn(missing_docs)]

mod reply;
mod server;

pub use reply::Reply;
pub use server::{RecordedRequest, Responder, ScriptedChatServer};
