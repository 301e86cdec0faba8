//! Extraction: the parameters a question states directly, checked against the tool and grounded in the question.

pub mod decoding_schema;
pub mod grounding;
