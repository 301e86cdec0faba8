//! Extraction: the parameters a question states directly, checked against the tool and grounded in the question.

pub mod decoding_schema;
pub mod grounding;
pub mod metric_grounding;
pub mod mode;
pub mod model;
mod outcome;
pub mod said;
pub mod unmatched;

use jiff::civil::Date;
use serde_json::{Map, Value};
use wenshu_contract::Tool;

pub use model::{ModelExtractor, extract_messages};
pub use said::Said;

use crate::route::BoxFuture;

/// Extracts the parameters a question states for one tool.
pub trait Extractor: Send + Sync {
    /// `model` or `lexicon`.
    fn engine(&self) -> &'static str;
    /// Runs one extraction.
    fn extract<'a>(&'a self, request: &'a ExtractRequest<'a>) -> BoxFuture<'a, Extraction>;
    /// Runs one extraction of a request whose question may be a router's rewrite, `said` being what the user
    /// actually said: what the extracted values are checked against. By default the request's question is read.
    fn extract_said<'a>(&'a self, request: &'a ExtractRequest<'a>, said: Said<'a>) -> BoxFuture<'a, Extraction> {
        let _ = said;
        self.extract(request)
    }
}

impl Extractor for ModelExtractor {
    fn engine(&self) -> &'static str {
        "model"
    }

    fn extract<'a>(&'a self, request: &'a ExtractRequest<'a>) -> BoxFuture<'a, Extraction> {
        Box::pin(ModelExtractor::extract(self, request))
    }

    fn extract_said<'a>(&'a self, request: &'a ExtractRequest<'a>, said: Said<'a>) -> BoxFuture<'a, Extraction> {
        Box::pin(ModelExtractor::extract_said(self, request, said))
    }
}
pub use outcome::{ExtractOutcome, ExtractTrace, Extraction};

/// What to extract from: the tool, the question, when and where it is asked, and what code already filled.
#[derive(Debug, Clone)]
pub struct ExtractRequest<'a> {
    /// The tool to fill.
    pub tool: &'a Tool,
    /// The user's own words.
    pub question: &'a str,
    /// The day the question is asked.
    pub today: Date,
    /// The IANA time zone the day is reckoned in (stated in the prompt).
    pub timezone: &'a str,
    /// Parameters code fills (subject ID, routed dates): hidden from the model, merged before binding.
    pub fixed: Map<String, Value>,
}

impl ExtractRequest<'_> {
    /// The parameters the model never sees or fills: those code fixed, the subject ID (`x-subject`) and the
    /// principal's (`x-principal`).
    pub fn hidden(&self) -> Vec<&str> {
        let subject = self.tool.extensions().subject.as_ref().map(|s| s.param.as_str());
        let mut hidden: Vec<&str> = self.fixed.keys().map(String::as_str).chain(subject).collect();
        for name in crate::scope::principal_names(self.tool) {
            if !hidden.contains(&name) {
                hidden.push(name);
            }
        }
        hidden
    }
}
