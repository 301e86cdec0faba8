//! The required/default matrix and the safe coercions, on a tool made for the purpose.

use serde_json::{Map, Value, json};
use wenshu_contract::{BindError, Catalog, bind};

fn catalog() -> Catalog {
    Catalog::from_value(&json!([{
        "name": "matrix",
        "description": "the four cells",
        "inputSchema": {
            "type": "object",
            "properties": {
                "reqDefault": {"type": "string", "default": "d1"},
                "reqNoDefault": {"type": "integer"},
                "optDefault": {"type": "boolean", "default": false},
                "optNoDefault": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "integer"}},
                "mode": {"type": "string", "enum": ["Fast", "Slow"]}
            },
            "required": ["reqDefault", "reqNoDefault"]
        }
    }]))
    .expect("loads")
}

fn run(params: Value) -> Result<Map<String, Value>, BindError> {
    let catalog = catalog();
    bind(catalog.get("matrix").unwrap(), params.as_object().unwrap()).map(|c| c.arguments)
}

#[test]
fn required_with_default_takes_the_default() {
    assert_eq!(run(json!({"reqNoDefault": 1})).unwrap()["reqDefault"], "d1");
}

#[test]
fn required_without_default_is_reported_missing() {
    match run(json!({})) {
        Err(BindError::Missing { names, .. }) => assert_eq!(names, ["reqNoDefault"]),
        other => panic!("expected missing, got {other:?}"),
    }
}

#[test]
fn optional_with_default_takes_the_default() {
    assert_eq!(run(json!({"reqNoDefault": 1})).unwrap()["optDefault"], false);
}

#[test]
fn optional_without_default_is_left_out() {
    let args = run(json!({"reqNoDefault": 1})).unwrap();
    assert!(!args.contains_key("optNoDefault"));
    assert_eq!(
        args.keys().collect::<Vec<_>>(),
        ["reqDefault", "reqNoDefault", "optDefault"]
    );
}

#[test]
fn booleans_and_numbers_come_from_strings() {
    let args = run(json!({"reqNoDefault": " 42 ", "optDefault": "TRUE", "optNoDefault": "2.5"})).unwrap();
    assert_eq!(
        (&args["reqNoDefault"], &args["optDefault"], &args["optNoDefault"]),
        (&json!(42), &json!(true), &json!(2.5))
    );
    assert!(matches!(
        run(json!({"reqNoDefault": 1, "optDefault": "yes please"})),
        Err(BindError::Invalid(_))
    ));
    assert!(matches!(
        run(json!({"reqNoDefault": 1, "optNoDefault": "NaN"})),
        Err(BindError::Invalid(_))
    ));
}

#[test]
fn arrays_coerce_items_and_wrap_a_single_value() {
    assert_eq!(
        run(json!({"reqNoDefault": 1, "tags": ["1", 2.0]})).unwrap()["tags"],
        json!([1, 2])
    );
    assert_eq!(
        run(json!({"reqNoDefault": 1, "tags": "3"})).unwrap()["tags"],
        json!([3])
    );
    match run(json!({"reqNoDefault": 1, "tags": [1, "x"]})) {
        Err(BindError::Invalid(invalid)) => assert_eq!(invalid.param, "tags[1]"),
        other => panic!("expected invalid, got {other:?}"),
    }
}

#[test]
fn enums_match_exactly_then_case_and_width_insensitively() {
    assert_eq!(run(json!({"reqNoDefault": 1, "mode": "Fast"})).unwrap()["mode"], "Fast");
    assert_eq!(run(json!({"reqNoDefault": 1, "mode": "slow"})).unwrap()["mode"], "Slow");
    assert_eq!(
        run(json!({"reqNoDefault": 1, "mode": "ＦＡＳＴ"})).unwrap()["mode"],
        "Fast"
    );
    assert!(run(json!({"reqNoDefault": 1, "mode": "quick"})).is_err());
}

#[test]
fn huge_and_fractional_numbers_are_not_forced_into_integers() {
    assert!(run(json!({"reqNoDefault": 1e300})).is_err());
    assert!(run(json!({"reqNoDefault": "1.5"})).is_err());
    assert_eq!(
        run(json!({"reqNoDefault": "9007199254740992"})).unwrap()["reqNoDefault"],
        json!(9007199254740992_i64)
    );
}

#[test]
fn coerce_values_coerces_without_filling_defaults_or_requiring() {
    let catalog = catalog();
    let tool = catalog.get("matrix").unwrap();
    let (values, coercions) = wenshu_contract::bind::coerce_values(
        tool,
        json!({"optNoDefault": "2", "mode": "fast", "tags": null})
            .as_object()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(Value::Object(values), json!({"optNoDefault": 2, "mode": "Fast"}));
    assert_eq!(coercions.len(), 2);
    let e = wenshu_contract::bind::coerce_values(tool, json!({"nope": 1}).as_object().unwrap()).unwrap_err();
    assert_eq!(e.code(), "unknown_field");
}
