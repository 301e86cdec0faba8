//! The lexicon extractor: the parameters a question states, found by the language knowledge (no model), merged
//! with what code fixed, and bound against the tool's schema.

use std::sync::Arc;

use serde_json::{Map, Value};
use wenshu_contract::bind::{BindError, bind};

use super::params::stated_params;
use crate::extract::grounding::{GroundingCheck, Verdict};
use crate::extract::{ExtractOutcome, ExtractRequest, ExtractTrace, Extraction, Extractor};
use crate::resolve::EntityCatalogs;
use crate::route::BoxFuture;

/// Extracts parameters with the catalog's words, the language knowledge and the entity catalogs.
#[derive(Clone)]
pub struct LexiconExtractor {
    entities: Arc<EntityCatalogs>,
    metric_values: crate::metric::SharedValues,
}

impl std::fmt::Debug for LexiconExtractor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LexiconExtractor").finish_non_exhaustive()
    }
}

impl LexiconExtractor {
    /// An extractor over these entity catalogs (for `x-entity` parameters).
    pub fn new(entities: Arc<EntityCatalogs>) -> Self {
        Self {
            entities,
            metric_values: crate::metric::SharedValues::new(),
        }
    }

    /// Reads the dimension values of metric tools from `values` (set once the database is open).
    pub fn with_metric_values(mut self, values: crate::metric::SharedValues) -> Self {
        self.metric_values = values;
        self
    }

    /// Runs one extraction (synchronously; [`Extractor::extract`] wraps this).
    pub fn extract_now(&self, request: &ExtractRequest<'_>) -> Extraction {
        if let Some(extraction) = crate::metric::extract::extract(request, &self.metric_values.get()) {
            return extraction;
        }
        let mut trace = ExtractTrace {
            engine: "lexicon",
            fixed: request.fixed.clone(),
            ..ExtractTrace::default()
        };
        let hidden = request.hidden();
        let stated = stated_params(request.tool, request.question, request.today, &hidden, &self.entities);
        trace.grounding = stated
            .values
            .iter()
            .map(|s| GroundingCheck {
                param: s.param.clone(),
                value: s.value.clone(),
                verdict: Verdict::Supported {
                    evidence: s.evidence.clone(),
                },
            })
            .collect();
        if let Some((param, value)) = stated.unsupported {
            return Extraction {
                outcome: ExtractOutcome::Unsupported { param, value },
                trace,
            };
        }
        let mut merged: Map<String, Value> = stated.values.into_iter().map(|s| (s.param, s.value)).collect();
        merged.extend(request.fixed.clone());
        trace.bound_from = Some(merged.clone());
        let outcome = match bind(request.tool, &merged) {
            Ok(call) => {
                trace.coercions = call.coercions;
                ExtractOutcome::Ok { params: call.arguments }
            }
            Err(BindError::Missing { names, .. }) => ExtractOutcome::Missing { params: names },
            // A number the user stated beyond the parameter's range (前200条 of a tool that lists at most 100) is
            // the user's to change, not a failure for the administrator.
            Err(BindError::Invalid(invalid)) if invalid.code == "out_of_range" => ExtractOutcome::Unsupported {
                param: invalid.param.clone(),
                value: match &invalid.value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                },
            },
            Err(error) => ExtractOutcome::Failed {
                reason: error.to_string(),
            },
        };
        Extraction { outcome, trace }
    }
}

impl Extractor for LexiconExtractor {
    fn engine(&self) -> &'static str {
        "lexicon"
    }

    fn extract<'a>(&'a self, request: &'a ExtractRequest<'a>) -> BoxFuture<'a, Extraction> {
        Box::pin(async move { self.extract_now(request) })
    }
}
