//! Prometheus metrics: questions and outcomes, fallbacks, model calls, tokens, and latency per step.

use std::sync::OnceLock;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use serde_json::Value;
use wenshu_engine::{Answer, TraceStep};

const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// The process's metrics recorder, installed on first use.
pub fn handle() -> &'static PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets(&BUCKETS)
            .map(PrometheusBuilder::build_recorder)
            .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder());
        let handle = recorder.handle();
        let _ = metrics::set_global_recorder(recorder);
        handle
    })
}

/// Records one answered question.
pub fn record(answer: &Answer, seconds: f64) {
    handle();
    metrics::counter!("wenshu_questions_total", "kind" => answer.outcome.kind()).increment(1);
    metrics::histogram!("wenshu_ask_duration_seconds").record(seconds);
    for step in &answer.trace.steps {
        metrics::histogram!("wenshu_step_duration_seconds", "step" => step.step).record(step.duration_ms / 1000.0);
        if let Some(tokens) = step.tokens {
            metrics::counter!("wenshu_model_calls_total", "step" => step.step).increment(model_calls(step));
            metrics::counter!("wenshu_tokens_total", "step" => step.step).increment(tokens);
        }
        if step.step == "fallback" {
            metrics::counter!("wenshu_fallbacks_total").increment(1);
        }
    }
}

/// How many model calls a step that used tokens made: one per SQL attempt of the fallback (`attempts`), one per
/// recorded call of an extraction (`calls`, also under `trace`), else one.
pub fn model_calls(step: &TraceStep) -> u64 {
    let output = step.output_value();
    let count = |value: Option<&Value>| value.and_then(Value::as_array).map(|items| items.len() as u64);
    count(output.get("attempts"))
        .or_else(|| count(output.get("calls")))
        .or_else(|| count(output.pointer("/trace/calls")))
        .filter(|n| *n > 0)
        .unwrap_or(1)
}

/// `GET /metrics`: the Prometheus text format.
pub async fn render() -> String {
    handle().render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(output: Value) -> TraceStep {
        TraceStep {
            duration_ms: 1.0,
            tokens: Some(8),
            ..TraceStep::new("fallback", String::new(), Value::Null, output)
        }
    }

    #[test]
    fn model_calls_counts_calls_not_steps() {
        assert_eq!(model_calls(&step(json!({"attempts": [{"sql": "a"}, {"sql": "b"}]}))), 2);
        assert_eq!(model_calls(&step(json!({"trace": {"calls": [{}, {}, {}]}}))), 3);
        assert_eq!(model_calls(&step(json!({"rows": []}))), 1);
    }
}
