//! Property tests: random JSON and random requests never panic, and every failure has an error body.

use proptest::prelude::*;
use serde_json::{Map, Value};
use wenshu_contract::http::{BodyLimits, RawRequest, bind_request};
use wenshu_contract::{Catalog, bind, demo_catalog};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
        prop_oneof![Just("华东区"), Just("5"), Just("2026-11-29"), Just("pro"), Just("true")]
            .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn param_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("region"),
        Just("period"),
        Just("product"),
        Just("salesPerson"),
        Just("queryType"),
        Just("limit"),
        Just("movieId"),
        Just("startDate"),
        Just("endDate"),
        Just("orderId"),
        Just("status"),
        Just("address"),
        Just("question"),
        Just("other"),
    ]
    .prop_map(str::to_string)
}

fn catalog() -> Catalog {
    demo_catalog().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn binding_random_maps_never_panics(map in prop::collection::btree_map(param_name(), json_value(), 0..6)) {
        let catalog = catalog();
        let raw: Map<String, Value> = map.into_iter().collect();
        for tool in catalog.tools() {
            match bind(tool, &raw) {
                Ok(call) => prop_assert!(tool.validator().is_valid(&Value::Object(call.arguments))),
                Err(e) => {
                    let body = e.to_body();
                    prop_assert!(!body.error.message.is_empty());
                    prop_assert!((400..500).contains(&e.http_status()));
                }
            }
        }
    }

    #[test]
    fn binding_random_requests_never_panics(
        method in prop_oneof![Just("POST".to_string()), Just("GET".to_string()), "[A-Za-z]{0,6}"],
        path in prop_oneof!["/orders/[a-z0-9%_]{0,10}", "\\PC{0,20}", "/orders/\\PC{1,8}/x"],
        query in "[a-z=&%0-9\\PC]{0,30}",
        body in prop::option::of(prop::collection::vec(any::<u8>(), 0..200)),
        json_body in prop::option::of(json_value()),
    ) {
        let catalog = catalog();
        let tool = catalog.get("query_order").unwrap();
        let body = json_body.map(|v| serde_json::to_vec(&v).unwrap()).or(body);
        let line = format!("{method} {path}?{query}");
        if let Ok(raw) = RawRequest::parse_line(&line, body)
            && let Err(e) = bind_request(tool, &raw, BodyLimits { max_bytes: 150, max_depth: 3 })
        {
            prop_assert!(!e.to_body().error.message.is_empty());
        }
    }

    #[test]
    fn loading_random_catalogs_never_panics(tools in prop::collection::vec(json_value(), 0..3)) {
        let _ = Catalog::from_value(&Value::Array(tools));
    }
}
