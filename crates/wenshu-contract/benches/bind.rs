//! `bind`: binding and validating a `sales_query` call with the schema compiled once at load, against
//! compiling the schema on every call (what a per-request compile costs).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use wenshu_contract::tool::compile_validator;
use wenshu_contract::{Tool, bind, demo_catalog};

/// A call as a person or a loose model writes it: synonyms, a numeric string (four coercions).
fn spoken_params() -> Map<String, Value> {
    object(json!({"region": "华东区", "period": "上季度", "product": "enterprise", "queryType": "排名", "limit": "5"}))
}

/// A call already in canonical values, as a model given the readable definition writes it.
fn canonical_params() -> Map<String, Value> {
    object(json!({"region": "华东", "period": "上季度", "product": "企业版", "queryType": "ranking", "limit": 5}))
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn bench_bind(c: &mut Criterion) {
    let catalog = demo_catalog().expect("demo catalog");
    let tool = catalog.get("sales_query").expect("sales_query");
    let definition: Value = serde_json::from_str::<Value>(wenshu_contract::catalog::DEMO_CATALOG_JSON)
        .expect("demo catalog JSON")["tools"][0]
        .clone();
    let mut group = c.benchmark_group("bind");
    for (input, raw) in [("canonical", canonical_params()), ("spoken", spoken_params())] {
        group.bench_function(format!("{input}/compiled_once"), |b| {
            b.iter(|| bind(black_box(tool), black_box(&raw)).is_ok())
        });
        group.bench_function(format!("{input}/schema_compiled_per_call"), |b| {
            b.iter(|| {
                let validator = compile_validator(black_box(tool.input_schema())).expect("compiles");
                let call = bind(black_box(tool), black_box(&raw)).expect("binds");
                validator.is_valid(&Value::Object(call.arguments))
            })
        });
        group.bench_function(format!("{input}/tool_compiled_per_call"), |b| {
            b.iter(|| {
                let tool = Tool::compile(black_box(&definition), 0).expect("compiles");
                bind(&tool, black_box(&raw)).is_ok()
            })
        });
    }
    let bound = Value::Object(bind(tool, &canonical_params()).expect("binds").arguments);
    group.bench_function("validate_only", |b| {
        b.iter(|| tool.validator().is_valid(black_box(&bound)))
    });
    group.finish();
}

criterion_group!(benches, bench_bind);
criterion_main!(benches);
