//! A broken catalog fails at load with the tool, the field and why.

use serde_json::{Value, json};
use wenshu_contract::{Catalog, CatalogError, demo_catalog};

#[test]
fn the_demo_catalog_loads_with_its_fallback_and_extensions() {
    let catalog = demo_catalog().unwrap();
    assert_eq!(
        catalog.names(),
        [
            "sales_query",
            "movie_box_office",
            "movie_rating",
            "query_order",
            "sales_metrics",
            "box_office_metrics",
            "rating_metrics",
            "text_to_sql"
        ]
    );
    assert_eq!(catalog.fallback().map(|t| t.name()), Some("text_to_sql"));
    let office = catalog.get("movie_box_office").unwrap();
    assert_eq!(office.extensions().subject.as_ref().unwrap().param, "movieId");
    assert_eq!(
        office.extensions().date_range.as_ref().unwrap().default.as_deref(),
        Some("最近7天")
    );
    let sales = catalog.get("sales_query").unwrap();
    assert_eq!(
        sales.param("salesPerson").unwrap().entity.as_deref(),
        Some("salesPerson")
    );
    assert_eq!(sales.extensions().synonyms_of("region").len(), 5);
    assert_eq!(sales.extensions().examples.len(), 3);
    assert_eq!(
        catalog.get("query_order").unwrap().route().unwrap().template.as_str(),
        "/orders/{orderId}"
    );
}

#[test]
fn the_shipped_demo_catalog_is_the_evaluation_catalog_plus_sql_templates() {
    let mut shipped: Value = serde_json::from_str(wenshu_contract::catalog::DEMO_CATALOG_JSON).unwrap();
    for tool in shipped["tools"].as_array_mut().unwrap() {
        tool.as_object_mut().unwrap().remove("x-sql");
    }
    let eval: Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../eval/catalog.json"
    )))
    .unwrap();
    assert_eq!(shipped, eval);
}

/// A one-tool catalog built from the demo `query_order` tool with one edit applied.
fn broken(edit: impl FnOnce(&mut Value)) -> CatalogError {
    let mut document: Value = serde_json::from_str(wenshu_contract::catalog::DEMO_CATALOG_JSON).unwrap();
    edit(&mut document);
    Catalog::from_value(&document).expect_err("the edited catalog must be refused")
}

fn tool_error(error: CatalogError) -> (String, String, String) {
    match error {
        CatalogError::Tool { tool, field, reason } => (tool, field, reason),
        other => panic!("expected a tool error, got {other}"),
    }
}

fn assert_tool_error(edit: impl FnOnce(&mut Value), tool: &str, field: &str, reason_part: &str) {
    let (t, f, r) = tool_error(broken(edit));
    assert_eq!((t.as_str(), f.as_str()), (tool, field), "reason: {r}");
    assert!(r.contains(reason_part), "`{r}` should mention `{reason_part}`");
}

#[test]
fn a_default_outside_the_enum_is_refused() {
    assert_tool_error(
        |d| d["tools"][0]["inputSchema"]["properties"]["period"]["default"] = json!("上周"),
        "sales_query",
        "inputSchema.properties.period.default",
        "enum",
    );
}

#[test]
fn a_default_of_the_wrong_type_is_refused() {
    assert_tool_error(
        |d| d["tools"][0]["inputSchema"]["properties"]["limit"]["default"] = json!("ten"),
        "sales_query",
        "inputSchema.properties.limit.default",
        "integer",
    );
}

#[test]
fn an_unknown_type_is_refused() {
    assert_tool_error(
        |d| d["tools"][2]["inputSchema"]["properties"]["movieId"]["type"] = json!("int"),
        "movie_rating",
        "inputSchema.properties.movieId.type",
        "`int`",
    );
}

#[test]
fn required_names_must_be_properties() {
    assert_tool_error(
        |d| d["tools"][2]["inputSchema"]["required"] = json!(["movieId", "movieName"]),
        "movie_rating",
        "inputSchema.required",
        "movieName",
    );
}

#[test]
fn synonyms_must_name_enum_values_and_not_collide() {
    assert_tool_error(
        |d| d["tools"][0]["x-enum-synonyms"]["region"]["华中"] = json!(["中部"]),
        "sales_query",
        "x-enum-synonyms.region.华中",
        "not one of the enum values",
    );
    assert_tool_error(
        |d| d["tools"][0]["x-enum-synonyms"]["region"]["华南"] = json!(["华东区"]),
        "sales_query",
        "x-enum-synonyms.region.华南",
        "also denotes `华东`",
    );
    assert_tool_error(
        |d| d["tools"][0]["x-enum-synonyms"]["salesPerson"] = json!({"张伟": ["小张"]}),
        "sales_query",
        "x-enum-synonyms.salesPerson",
        "no enum",
    );
}

#[test]
fn subject_and_date_range_must_name_parameters() {
    assert_tool_error(
        |d| d["tools"][1]["x-subject"]["param"] = json!("filmId"),
        "movie_box_office",
        "x-subject.param",
        "filmId",
    );
    assert_tool_error(
        |d| d["tools"][1]["x-date-range"]["end"] = json!("movieId"),
        "movie_box_office",
        "x-date-range.end",
        "integer",
    );
    assert_tool_error(
        |d| d["tools"][1]["x-date-range"] = json!("最近7天"),
        "movie_box_office",
        "x-date-range",
        "object",
    );
}

#[test]
fn http_routes_are_checked_against_their_parameters() {
    assert_tool_error(
        |d| d["tools"][3]["x-http"]["path"] = json!("/orders/{id}"),
        "query_order",
        "x-http.path",
        "{id}",
    );
    assert_tool_error(
        |d| d["tools"][3]["x-http"]["path"] = json!("/orders"),
        "query_order",
        "inputSchema.properties.orderId.in",
        "no `{orderId}`",
    );
    assert_tool_error(
        |d| d["tools"][3]["x-http"]["method"] = json!("FETCH"),
        "query_order",
        "x-http.method",
        "FETCH",
    );
    assert_tool_error(
        |d| d["tools"][3]["x-http"]["method"] = json!("GET"),
        "query_order",
        "inputSchema.properties.address.in",
        "GET",
    );
    assert_tool_error(
        |d| d["tools"][3]["inputSchema"]["properties"]["status"]["in"] = json!("header"),
        "query_order",
        "inputSchema.properties.status.in",
        "header",
    );
    assert_tool_error(
        |d| d["tools"][3]["inputSchema"]["required"] = json!(["address"]),
        "query_order",
        "inputSchema.properties.orderId",
        "path parameter must be required",
    );
}

#[test]
fn locations_need_an_http_tool() {
    assert_tool_error(
        |d| d["tools"][2]["inputSchema"]["properties"]["movieId"]["in"] = json!("query"),
        "movie_rating",
        "inputSchema.properties.movieId.in",
        "no `x-http`",
    );
}

#[test]
fn names_must_be_present_unique_and_plain() {
    let (tool, field, _) = tool_error(broken(|d| {
        d["tools"][1]["name"] = json!("sales_query");
    }));
    assert_eq!((tool.as_str(), field.as_str()), ("sales_query", "name"));
    let (tool, field, reason) = tool_error(broken(|d| {
        d["tools"][1].as_object_mut().unwrap().remove("name");
    }));
    assert_eq!(
        (tool.as_str(), field.as_str(), reason.as_str()),
        ("#1", "name", "is required")
    );
    assert_tool_error(|d| d["tools"][1]["name"] = json!("票房"), "票房", "name", "ASCII");
}

#[test]
fn invalid_json_schemas_are_refused_at_load() {
    assert_tool_error(
        |d| d["tools"][0]["inputSchema"]["properties"]["salesPerson"]["pattern"] = json!("(unclosed"),
        "sales_query",
        "inputSchema",
        "not a valid JSON Schema",
    );
    assert_tool_error(
        |d| d["tools"][0]["inputSchema"]["properties"]["region"]["enum"] = json!([]),
        "sales_query",
        "inputSchema.properties.region.enum",
        "empty",
    );
}

#[test]
fn the_catalog_document_itself_is_checked() {
    assert!(matches!(
        Catalog::from_json_str("{\"tools\": [}"),
        Err(CatalogError::Json { line: 1, .. })
    ));
    assert!(matches!(Catalog::from_json_str("{}"), Err(CatalogError::Shape { field, .. }) if field == "tools"));
    let e = broken(|d| d["fallback"] = json!("nl2sql"));
    assert!(e.to_string().contains("nl2sql"), "{e}");
    let bare = Catalog::from_json_str(r#"[{"name": "ping"}]"#).unwrap();
    assert!(bare.get("ping").unwrap().params().is_empty());
}

#[test]
fn errors_read_as_a_sentence_naming_tool_field_and_reason() {
    let e = broken(|d| d["tools"][0]["inputSchema"]["properties"]["period"]["default"] = json!("上周"));
    assert_eq!(
        e.to_string(),
        "catalog tool `sales_query`, field `inputSchema.properties.period.default`: \"上周\" is not one of the enum values"
    );
}
