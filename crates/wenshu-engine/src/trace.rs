//! The trace: every step of one question — input, output, duration, tokens, the decision and why. Serializable.
//! A step's input and output are kept as the JSON text they serialize to, written once when the step is recorded:
//! building a `serde_json::Value` tree per step (and dropping it) cost a fifth of a lexicon plan.

use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::executed::Executed;

/// One step of the pipeline.
#[derive(Debug, Clone, Serialize)]
pub struct TraceStep {
    /// `route`, `check`, `resolve`, `fill`, `extract`, `execute`, `fallback`, …
    pub step: &'static str,
    /// What was decided, and why, in one line.
    pub decision: String,
    /// The same decision in Chinese, where the engine words it in both languages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_zh: Option<String>,
    /// What the step read, as JSON.
    pub input: Box<RawValue>,
    /// What the step produced, as JSON.
    pub output: Box<RawValue>,
    /// Wall time of the step, in milliseconds.
    pub duration_ms: f64,
    /// Model tokens the step used, when it called a model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// What the step ran, typed (the execute and fallback steps): for the audit, never serialized.
    #[serde(skip)]
    pub ran: Option<Arc<Executed>>,
}

impl TraceStep {
    /// A step of `step` with its input and output serialized now.
    pub fn new(step: &'static str, decision: String, input: impl Serialize, output: impl Serialize) -> Self {
        Self {
            step,
            decision,
            decision_zh: None,
            input: raw(&input),
            output: raw(&output),
            duration_ms: 0.0,
            tokens: None,
            ran: None,
        }
    }

    /// A step that began at `started` and ends now, its decision in one or both languages.
    pub fn timed(
        step: &'static str,
        started: Instant,
        decision: impl Into<Decision>,
        input: impl Serialize,
        output: impl Serialize,
    ) -> Self {
        let Decision { en, zh } = decision.into();
        Self {
            duration_ms: started.elapsed().as_secs_f64() * 1000.0,
            decision_zh: zh,
            ..TraceStep::new(step, en, input, output)
        }
    }

    /// The step with what it ran attached (the execute and fallback steps), for the audit.
    pub fn with_ran(self, ran: Executed) -> Self {
        Self {
            ran: Some(Arc::new(ran)),
            ..self
        }
    }

    /// The input as a JSON value (parsed again: for readers of the trace, not the hot path).
    pub fn input_value(&self) -> Value {
        serde_json::from_str(self.input.get()).unwrap_or(Value::Null)
    }

    /// The output as a JSON value (parsed again: for readers of the trace, not the hot path).
    pub fn output_value(&self) -> Value {
        serde_json::from_str(self.output.get()).unwrap_or(Value::Null)
    }
}

impl PartialEq for TraceStep {
    fn eq(&self, other: &Self) -> bool {
        self.step == other.step
            && self.decision == other.decision
            && self.input.get() == other.input.get()
            && self.output.get() == other.output.get()
            && self.duration_ms == other.duration_ms
            && self.tokens == other.tokens
    }
}

/// `value` as JSON text; `null` for what JSON cannot hold (a map with keys that are not strings).
fn raw(value: &impl Serialize) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned())
}

/// Where steps are sent as they finish (the server streams them while a question runs).
pub type StepSink = tokio::sync::mpsc::UnboundedSender<TraceStep>;

/// A step's decision: in English, and in Chinese where the engine words it in both languages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Decision {
    /// In English.
    pub en: String,
    /// In Chinese, when given.
    pub zh: Option<String>,
}

impl Decision {
    /// A decision in both languages.
    pub fn both(en: impl Into<String>, zh: impl Into<String>) -> Self {
        Self {
            en: en.into(),
            zh: Some(zh.into()),
        }
    }
}

impl From<String> for Decision {
    fn from(en: String) -> Self {
        Self { en, zh: None }
    }
}

impl From<&str> for Decision {
    fn from(en: &str) -> Self {
        en.to_string().into()
    }
}

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
        decision: impl Into<Decision>,
        input: impl Serialize,
        output: impl Serialize,
    ) {
        self.record_with_tokens(step, started, decision, input, output, None);
    }

    /// Records a step that used `tokens` model tokens, and sends it to the sink.
    pub fn record_with_tokens(
        &mut self,
        step: &'static str,
        started: Instant,
        decision: impl Into<Decision>,
        input: impl Serialize,
        output: impl Serialize,
        tokens: Option<u64>,
    ) {
        self.push(TraceStep {
            tokens,
            ..TraceStep::timed(step, started, decision, input, output)
        });
    }

    /// Records `step` as it is (made with [`TraceStep::timed`], what it ran attached), and sends it to the sink.
    pub fn push(&mut self, step: TraceStep) {
        if let Some(sink) = &self.sink {
            let _ = sink.send(step.clone());
        }
        self.steps.push(step);
    }

    /// What the step of that name ran, typed, if it ran one.
    pub fn ran(&self, name: &str) -> Option<&Executed> {
        self.step(name).and_then(|s| s.ran.as_deref())
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
