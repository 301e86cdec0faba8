//! HTTP binding (seed 001): path, query and body into one call, every bad input as an error body, and back.

use serde_json::{Value, json};
use wenshu_contract::http::{BodyLimits, RawRequest, bind_request, build_request};
use wenshu_contract::{BindError, Catalog, demo_catalog};

fn catalog() -> Catalog {
    demo_catalog().unwrap()
}

fn request(line: &str, body: Option<&[u8]>) -> Result<Value, BindError> {
    request_with(line, body, BodyLimits::default())
}

fn request_with(line: &str, body: Option<&[u8]>, limits: BodyLimits) -> Result<Value, BindError> {
    let catalog = catalog();
    let tool = catalog.get("query_order").unwrap();
    let raw = RawRequest::parse_line(line, body.map(<[u8]>::to_vec))?;
    bind_request(tool, &raw, limits).map(|(call, _)| Value::Object(call.arguments))
}

fn error_of(result: Result<Value, BindError>) -> (u16, Value) {
    let e = result.expect_err("must fail");
    (
        e.http_status(),
        serde_json::to_value(e.to_body()).unwrap()["error"].clone(),
    )
}

const ADDRESS: &[u8] = r#"{"address": {"province": "广东", "city": "深圳"}}"#.as_bytes();

#[test]
fn the_seed_request_binds_to_one_merged_call() {
    let args = request("POST /orders/ord_123?status=shipped", Some(ADDRESS)).unwrap();
    assert_eq!(
        args,
        json!({"orderId": "ord_123", "status": "shipped", "address": {"province": "广东", "city": "深圳"}})
    );
}

#[test]
fn query_defaults_synonyms_and_percent_encoding() {
    let args = request("POST /orders/ord%20%E4%B8%80", Some(ADDRESS)).unwrap();
    assert_eq!(
        (&args["orderId"], &args["status"]),
        (&json!("ord 一"), &json!("pending"))
    );
    let args = request("POST /orders/o?status=%E5%B7%B2%E5%8F%91%E8%B4%A7", Some(ADDRESS)).unwrap();
    assert_eq!(args["status"], "shipped");
}

#[test]
fn the_dump_keeps_raw_values_before_the_merge() {
    let catalog = catalog();
    let tool = catalog.get("query_order").unwrap();
    let raw = RawRequest::parse_line("POST /orders/o?status=已完成", Some(ADDRESS.to_vec())).unwrap();
    let (call, dump) = bind_request(tool, &raw, BodyLimits::default()).unwrap();
    assert_eq!(dump.query["status"], "已完成");
    assert_eq!(call.arguments["status"], "completed");
    assert_eq!(dump.path["orderId"], "o");
    assert_eq!(dump.body.unwrap()["address"]["city"], "深圳");
}

#[test]
fn missing_required_stops_at_the_first_one() {
    let (status, e) = error_of(request("POST /orders/o", None));
    assert_eq!(status, 422);
    assert_eq!(
        (e["code"].as_str(), e["param"].as_str(), e["location"].as_str()),
        (Some("missing_required"), Some("address"), Some("body"))
    );
    assert_eq!(e["params"], json!(["address"]));
}

#[test]
fn wrong_type_and_enum_out_of_range_are_422_with_location() {
    let (status, e) = error_of(request("POST /orders/o", Some(r#"{"address": "深圳"}"#.as_bytes())));
    assert_eq!(
        (status, e["code"].as_str(), e["location"].as_str()),
        (422, Some("invalid_type"), Some("body"))
    );
    let (status, e) = error_of(request("POST /orders/o?status=lost", Some(ADDRESS)));
    assert_eq!(
        (status, e["code"].as_str(), e["param"].as_str()),
        (422, Some("enum_out_of_range"), Some("status"))
    );
    assert_eq!(e["allowed"], json!(["pending", "shipped", "completed"]));
    assert_eq!(e["location"], "query");
}

#[test]
fn unknown_and_misplaced_fields_are_reported() {
    let (status, e) = error_of(request("POST /orders/o?color=red", Some(ADDRESS)));
    assert_eq!(
        (status, e["code"].as_str(), e["param"].as_str(), e["location"].as_str()),
        (422, Some("unknown_field"), Some("color"), Some("query"))
    );
    let (_, e) = error_of(request(
        "POST /orders/o",
        Some(br#"{"address": {}, "status": "shipped"}"#),
    ));
    assert_eq!(
        (e["code"].as_str(), e["location"].as_str(), &e["allowed"]),
        (Some("wrong_location"), Some("body"), &json!(["query"]))
    );
    let (_, e) = error_of(request("POST /orders/o?orderId=x", Some(ADDRESS)));
    assert_eq!(e["code"], "wrong_location");
}

#[test]
fn bodies_too_big_or_too_deep_are_refused_before_parsing() {
    let limits = BodyLimits {
        max_bytes: 64,
        max_depth: 20,
    };
    let big = format!(r#"{{"address": {{"city": "{}"}}}}"#, "x".repeat(100));
    let (status, e) = error_of(request_with("POST /orders/o", Some(big.as_bytes()), limits));
    assert_eq!((status, e["code"].as_str()), (413, Some("body_too_large")));
    let deep = format!(
        r#"{{"address": {{"city": "x", "n": {}1{}}}}}"#,
        "[".repeat(25),
        "]".repeat(25)
    );
    let (status, e) = error_of(request("POST /orders/o", Some(deep.as_bytes())));
    assert_eq!((status, e["code"].as_str()), (400, Some("body_too_deep")));
    assert!(e["message"].as_str().unwrap().contains("at most 20"));
    let brackets_in_strings = format!(r#"{{"address": {{"city": "{}"}}}}"#, "[".repeat(50));
    assert!(request("POST /orders/o", Some(brackets_in_strings.as_bytes())).is_ok());
}

#[test]
fn broken_json_and_invalid_utf8_are_400() {
    let (status, e) = error_of(request("POST /orders/o", Some(br#"{"address": "#)));
    assert_eq!(
        (status, e["code"].as_str(), e["location"].as_str()),
        (400, Some("malformed_json"), Some("body"))
    );
    let (status, e) = error_of(request("POST /orders/o", Some(b"{\"address\": \"\xff\xfe\"}")));
    assert_eq!((status, e["code"].as_str()), (400, Some("invalid_utf8")));
    let (status, e) = error_of(request("POST /orders/%FF", Some(ADDRESS)));
    assert_eq!(
        (status, e["code"].as_str(), e["location"].as_str()),
        (400, Some("invalid_utf8"), Some("path"))
    );
    let (status, e) = error_of(request("POST /orders/o", Some(b"[1, 2]")));
    assert_eq!((status, e["code"].as_str()), (400, Some("body_not_object")));
}

#[test]
fn routes_must_match_method_and_path() {
    let (status, e) = error_of(request("GET /orders/o", Some(ADDRESS)));
    assert_eq!(
        (status, e["code"].as_str(), &e["allowed"]),
        (405, Some("method_not_allowed"), &json!(["POST"]))
    );
    let (status, e) = error_of(request("POST /order/o", Some(ADDRESS)));
    assert_eq!((status, e["code"].as_str()), (404, Some("path_not_found")));
    let (status, e) = error_of(request("POST /orders/", Some(ADDRESS)));
    assert_eq!((status, e["code"].as_str()), (404, Some("path_not_found")));
    let (status, e) = error_of(request("POST", None));
    assert_eq!((status, e["code"].as_str()), (400, Some("bad_request_line")));
}

#[test]
fn a_body_is_only_parsed_when_a_body_parameter_exists() {
    let catalog = Catalog::from_value(&json!([{
        "name": "get_user",
        "x-http": {"method": "GET", "path": "/users/{id}"},
        "inputSchema": {"type": "object", "properties": {
            "id": {"type": "integer"},
            "verbose": {"type": "boolean", "default": false},
            "fields": {"type": "array", "items": {"type": "string"}}
        }, "required": ["id"]}
    }]))
    .unwrap();
    let tool = catalog.get("get_user").unwrap();
    let raw = RawRequest::parse_line(
        "get /users/42?verbose=true&fields=a&fields=b",
        Some(b"not json at all".to_vec()),
    )
    .unwrap();
    let (call, dump) = bind_request(tool, &raw, BodyLimits::default()).unwrap();
    assert_eq!(
        Value::Object(call.arguments),
        json!({"id": 42, "verbose": true, "fields": ["a", "b"]})
    );
    assert!(dump.body.is_none());
    let raw = RawRequest::parse_line("GET /users/abc", None).unwrap();
    let e = bind_request(tool, &raw, BodyLimits::default()).unwrap_err();
    assert_eq!((e.code(), e.http_status()), ("invalid_type", 422));
    assert!(e.to_string().contains("(in the path)"), "{e}");
}

#[test]
fn a_bound_call_builds_its_request_and_binds_back_to_the_same_call() {
    let catalog = catalog();
    let tool = catalog.get("query_order").unwrap();
    let raw = RawRequest::parse_line("POST /orders/a%2Fb%20c?status=shipped", Some(ADDRESS.to_vec())).unwrap();
    let (call, _) = bind_request(tool, &raw, BodyLimits::default()).unwrap();
    assert_eq!(call.arguments["orderId"], "a/b c");
    let built = build_request(tool, &call, "http://127.0.0.1:9/api/").unwrap();
    assert_eq!(built.method, "POST");
    assert_eq!(built.url, "http://127.0.0.1:9/api/orders/a%2Fb%20c?status=shipped");
    assert_eq!(
        built.body,
        Some(json!({"address": {"province": "广东", "city": "深圳"}}))
    );
    let target = built.url.trim_start_matches("http://127.0.0.1:9/api");
    let body = serde_json::to_vec(&built.body).unwrap();
    let again = RawRequest::parse_line(&format!("POST {target}"), Some(body)).unwrap();
    assert_eq!(bind_request(tool, &again, BodyLimits::default()).unwrap().0, call);
}

#[test]
fn building_a_request_for_a_non_http_tool_is_an_error() {
    let catalog = catalog();
    let tool = catalog.get("movie_rating").unwrap();
    let call = wenshu_contract::bind(tool, json!({"movieId": 1}).as_object().unwrap()).unwrap();
    assert_eq!(build_request(tool, &call, "").unwrap_err().code(), "not_http_tool");
}

#[test]
fn an_array_marked_x_explode_false_is_one_comma_separated_query_value() {
    let tool = |explode: Value, ty: &str| {
        Catalog::from_value(&json!({"tools": [{
            "name": "forecast",
            "x-http": {"method": "GET", "path": "/forecast"},
            "inputSchema": {"type": "object", "properties": {
                "daily": {"type": ty, "in": "query", "x-explode": explode, "items": {"type": "string"}},
                "hourly": {"type": "array", "in": "query", "items": {"type": "string"}}
            }},
        }]}))
    };
    let catalog = tool(json!(false), "array").unwrap();
    let forecast = catalog.get("forecast").unwrap();
    let args = json!({"daily": ["rain sum", "wind,max"], "hourly": ["a", "b"]});
    let call = wenshu_contract::bind::bind(forecast, args.as_object().unwrap()).unwrap();
    let request = build_request(forecast, &call, "http://x").unwrap();
    assert_eq!(
        request.url, "http://x/forecast?hourly=a&hourly=b&daily=rain+sum,wind%2Cmax",
        "each item encoded, the commas between them literal"
    );
    let refused = tool(json!(false), "string").map(|_| ()).unwrap_err().to_string();
    assert!(refused.contains("x-explode"), "{refused}");
    assert!(tool(json!("no"), "array").is_err(), "a boolean or nothing");
}
