//! The trace: every step of one question — input, output, duration, tokens, the decision and why. Serializable.

use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

/// One step of the pipeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceStep {
    /// `route`, `check`, `resolve`, `fill`, `extract`, `execute`, `fallback`, …
    pub step: &'static str,
    /// What was decided, and why, in one line.
    pub decision: String,
    /// What the step read.
    pub input: Value,
    /// What the step produced.
    pub output: Value,
    /// Wall time of the step, in milliseconds.
    pub duration_ms: f64,
    /// Model tokens the step used, when it called a model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

/// Where steps are sent as they finish (the server streams them while a question runs).
pub type StepSink = tokio::sync::mpsc::UnboundedSender<TraceStep>;

/// Every step of one question, in order.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Trace {
    /// The engine that routed and extracted (`model` or `lexicon`).
    pub engine: String,
    /// The steps, in order.
    pub steps: Vec<TraceStep>,
    /// Receives each step as it finishes, when someone listens.
    #[serde(skip)]
    pub sink: Option<StepSink>,
}

impl PartialEq for Trace {
    fn eq(&self, other: &Self) -> bool {
        self.engine == other.engine && self.steps == other.steps
    }
}

impl Trace {
    /// An empty trace for `engine`, sending steps to `sink` when given.
    pub fn new(engine: &str, sink: Option<StepSink>) -> Self {
        Self {
            engine: engine.to_string(),
            steps: Vec::new(),
            sink,
        }
    }

    /// Records a step that began at `started`.
    pub fn record(
        &mut self,
        step: &'static str,
        started: Instant,
        decision: impl Into<String>,
        input: Value,
        output: Value,
    ) {
        self.record_with_tokens(step, started, decision, input, output, None);
    }

    /// Records a step that used `tokens` model tokens, and sends it to the sink.
    pub fn record_with_tokens(
        &mut self,
        step: &'static str,
        started: Instant,
        decision: impl Into<String>,
        input: Value,
        output: Value,
        tokens: Option<u64>,
    ) {
        let step = TraceStep {
            step,
            decision: decision.into(),
            input,
            output,
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            tokens,
        };
        if let Some(sink) = &self.sink {
            let _ = sink.send(step.clone());
        }
        self.steps.push(step);
    }

    /// The step of that name, if it ran.
    pub fn step(&self, name: &str) -> Option<&TraceStep> {
        self.steps.iter().find(|s| s.step == name)
    }

    /// Total model tokens over all steps.
    pub fn total_tokens(&self) -> u64 {
        self.steps.iter().filter_map(|s| s.tokens).sum()
    }
}
