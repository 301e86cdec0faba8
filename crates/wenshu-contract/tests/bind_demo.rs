//! Binding every parameter of every tool in the demo catalog: the right call, or the right error.

use serde_json::{Map, Value, json};
use wenshu_contract::{BindError, BoundCall, Catalog, bind, demo_catalog};

fn catalog() -> Catalog {
    demo_catalog().expect("the demo catalog loads")
}

fn bind_json(tool: &str, params: Value) -> Result<BoundCall, BindError> {
    let catalog = catalog();
    let tool = catalog.get(tool).expect("tool exists");
    let raw: Map<String, Value> = params.as_object().expect("an object").clone();
    bind(tool, &raw)
}

fn args(tool: &str, params: Value) -> Value {
    match bind_json(tool, params.clone()) {
        Ok(call) => Value::Object(call.arguments),
        Err(e) => panic!("{tool} {params} should bind, got {e}"),
    }
}

fn error(tool: &str, params: Value) -> Value {
    match bind_json(tool, params.clone()) {
        Ok(call) => panic!("{tool} {params} should fail, got {:?}", call.arguments),
        Err(e) => serde_json::to_value(e.to_body()).expect("serializes")["error"].clone(),
    }
}

#[test]
fn sales_query_fills_defaults_for_what_is_not_said() {
    let call = bind_json("sales_query", json!({"region": "华东"})).unwrap();
    assert_eq!(
        Value::Object(call.arguments),
        json!({"region": "华东", "period": "本月", "queryType": "summary", "limit": 10})
    );
    assert_eq!(call.defaulted, ["period", "queryType", "limit"]);
    assert!(call.coercions.is_empty());
}

#[test]
fn region_accepts_values_synonyms_and_width_case_variants() {
    assert_eq!(args("sales_query", json!({"region": "华南"}))["region"], "华南");
    assert_eq!(args("sales_query", json!({"region": "华东区"}))["region"], "华东");
    assert_eq!(args("sales_query", json!({"region": "EAST CHINA"}))["region"], "华东");
    assert_eq!(args("sales_query", json!({"region": " 西北地区 "}))["region"], "西北");
}

#[test]
fn region_out_of_range_names_the_value_and_the_allowed_ones() {
    let e = error("sales_query", json!({"region": "华中"}));
    assert_eq!(e["code"], "enum_out_of_range");
    assert_eq!(e["param"], "region");
    assert_eq!(e["value"], "华中");
    assert_eq!(e["allowed"], json!(["华东", "华南", "华北", "西南", "西北"]));
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("region") && message.contains("华中") && message.contains("华北"),
        "{message}"
    );
}

#[test]
fn period_binds_values_and_refuses_periods_it_cannot_take() {
    assert_eq!(args("sales_query", json!({"period": "上季度"}))["period"], "上季度");
    assert_eq!(args("sales_query", json!({"period": null}))["period"], "本月");
    let e = error("sales_query", json!({"period": "去年"}));
    assert_eq!(
        (e["code"].as_str(), e["param"].as_str()),
        (Some("enum_out_of_range"), Some("period"))
    );
}

#[test]
fn product_binds_english_synonyms() {
    assert_eq!(args("sales_query", json!({"product": "pro"}))["product"], "专业版");
    assert_eq!(
        args("sales_query", json!({"product": "Enterprise Edition"}))["product"],
        "企业版"
    );
    assert_eq!(
        error("sales_query", json!({"product": "旗舰版"}))["code"],
        "enum_out_of_range"
    );
}

#[test]
fn sales_person_is_a_free_string() {
    assert_eq!(
        args("sales_query", json!({"salesPerson": "张伟"}))["salesPerson"],
        "张伟"
    );
    let e = error("sales_query", json!({"salesPerson": {"name": "张伟"}}));
    assert_eq!(
        (e["code"].as_str(), e["param"].as_str()),
        (Some("invalid_type"), Some("salesPerson"))
    );
}

#[test]
fn query_type_maps_labels_and_synonyms() {
    assert_eq!(
        args("sales_query", json!({"queryType": "排名"}))["queryType"],
        "ranking"
    );
    assert_eq!(args("sales_query", json!({"queryType": "Trend"}))["queryType"], "trend");
    assert_eq!(
        error("sales_query", json!({"queryType": "pie"}))["allowed"],
        json!(["summary", "ranking", "detail", "trend"])
    );
}

#[test]
fn limit_coerces_numeric_strings_and_whole_floats_and_checks_bounds() {
    assert_eq!(args("sales_query", json!({"limit": "5"}))["limit"], 5);
    assert_eq!(args("sales_query", json!({"limit": 5.0}))["limit"], 5);
    assert_eq!(args("sales_query", json!({"limit": 100}))["limit"], 100);
    assert_eq!(error("sales_query", json!({"limit": 5.5}))["code"], "invalid_type");
    assert_eq!(error("sales_query", json!({"limit": "五"}))["code"], "invalid_type");
    let e = error("sales_query", json!({"limit": 0}));
    assert_eq!(
        (e["code"].as_str(), e["param"].as_str()),
        (Some("out_of_range"), Some("limit"))
    );
    assert_eq!(e["allowed"], json!(["1..=100"]));
    assert_eq!(error("sales_query", json!({"limit": 101}))["code"], "out_of_range");
}

#[test]
fn an_invalid_optional_value_is_an_error_not_dropped() {
    let e = error("sales_query", json!({"region": "华东", "product": "旗舰版"}));
    assert_eq!(e["param"], "product");
}

#[test]
fn unknown_fields_are_reported_never_dropped() {
    let e = error("sales_query", json!({"region": "华东", "city": "上海", "year": 2025}));
    assert_eq!(e["code"], "unknown_field");
    assert_eq!(e["params"], json!(["city", "year"]));
    assert!(e["allowed"].as_array().unwrap().contains(&json!("salesPerson")));
}

#[test]
fn box_office_requires_its_subject_and_dates() {
    let e = error("movie_box_office", json!({}));
    assert_eq!(e["code"], "missing_required");
    assert_eq!(e["params"], json!(["movieId", "startDate", "endDate"]));
    let call = args(
        "movie_box_office",
        json!({"movieId": "2", "startDate": "2026-11-23", "endDate": "2026-11-29"}),
    );
    assert_eq!(
        call,
        json!({"movieId": 2, "startDate": "2026-11-23", "endDate": "2026-11-29"})
    );
}

#[test]
fn box_office_dates_must_be_iso_dates() {
    let e = error(
        "movie_box_office",
        json!({"movieId": 2, "startDate": "2026-13-01", "endDate": "2026-11-29"}),
    );
    assert_eq!(
        (e["code"].as_str(), e["param"].as_str()),
        (Some("invalid_format"), Some("startDate"))
    );
    let e = error(
        "movie_box_office",
        json!({"movieId": 2, "startDate": "2026-11-01", "endDate": "昨天"}),
    );
    assert_eq!(
        (e["code"].as_str(), e["param"].as_str()),
        (Some("invalid_format"), Some("endDate"))
    );
}

#[test]
fn rating_takes_an_integer_movie_id() {
    assert_eq!(args("movie_rating", json!({"movieId": 3})), json!({"movieId": 3}));
    assert_eq!(error("movie_rating", json!({"movieId": true}))["code"], "invalid_type");
    assert_eq!(
        error("movie_rating", json!({"movieId": null}))["params"],
        json!(["movieId"])
    );
}

#[test]
fn order_binds_path_query_and_body_params_from_a_map() {
    let call = args(
        "query_order",
        json!({"orderId": "ord_123", "address": {"province": "广东", "city": "深圳"}}),
    );
    assert_eq!(call["status"], "pending");
    assert_eq!(
        args(
            "query_order",
            json!({"orderId": "o", "status": "运输中", "address": {}})
        )["status"],
        "shipped"
    );
    let e = error("query_order", json!({"orderId": "o", "status": "lost", "address": {}}));
    assert_eq!(
        (e["code"].as_str(), e["location"].as_str()),
        (Some("enum_out_of_range"), Some("query"))
    );
    let e = error("query_order", json!({"status": "shipped"}));
    assert_eq!(e["params"], json!(["orderId", "address"]));
    assert_eq!(e["location"], "path");
}

#[test]
fn order_address_must_be_an_object_and_its_fields_typed() {
    let e = error("query_order", json!({"orderId": "o", "address": "广东深圳"}));
    assert_eq!(
        (e["code"].as_str(), e["param"].as_str(), e["location"].as_str()),
        (Some("invalid_type"), Some("address"), Some("body"))
    );
    let e = error(
        "query_order",
        json!({"orderId": "o", "address": {"province": ["广东"]}}),
    );
    assert_eq!(e["param"], "address.province");
    let call = args("query_order", json!({"orderId": 123, "address": "{\"city\":\"深圳\"}"}));
    assert_eq!(call["orderId"], "123");
    assert_eq!(call["address"], json!({"city": "深圳"}));
}

#[test]
fn fallback_takes_one_question() {
    assert_eq!(
        args("text_to_sql", json!({"question": "今年票房最高的十部电影"}))["question"],
        "今年票房最高的十部电影"
    );
    assert_eq!(error("text_to_sql", json!({}))["params"], json!(["question"]));
    assert_eq!(error("text_to_sql", json!({"question": false}))["code"], "invalid_type");
}

#[test]
fn coercions_are_recorded_with_their_rule() {
    let call = bind_json(
        "sales_query",
        json!({"region": "东部", "limit": "7", "queryType": "汇总"}),
    )
    .unwrap();
    let rules: Vec<(&str, &str)> = call.coercions.iter().map(|c| (c.param.as_str(), c.rule)).collect();
    assert_eq!(
        rules,
        [
            ("region", "enum_synonym"),
            ("queryType", "enum_synonym"),
            ("limit", "numeric_string")
        ]
    );
}
