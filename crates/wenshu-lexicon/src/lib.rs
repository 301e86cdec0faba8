//! Language knowledge for wenshu: the deterministic rules that turn what people type into canonical values.
//!
//! No IO happens in this crate; every function is pure and takes "today" and a time zone where it needs them.

pub mod canonical;
