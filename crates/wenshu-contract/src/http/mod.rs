//! HTTP tools (seed 001): path templates, query strings, bodies under size and depth limits, one merged call,
//! and the reverse — building the request from a bound call.

pub mod body;
pub mod build;
pub mod request;
pub mod route;

pub use body::BodyLimits;
pub use build::{HttpRequest, build_request};
pub use request::{RawRequest, RequestDump, bind_request};
pub use route::{HttpRoute, PathTemplate};
