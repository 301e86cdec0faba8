//! The entities shipped with the demo are the evaluation's.

use serde_json::Value;
use wenshu_demo::{ENTITIES_JSON, demo_entities};

#[test]
fn shipped_entities_equal_the_evaluation_entities() {
    let eval = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/entities.json"));
    assert_eq!(ENTITIES_JSON, eval);
    let shipped: Value = serde_json::from_str(ENTITIES_JSON).unwrap();
    assert_eq!(shipped["movie"].as_array().map(Vec::len), Some(22));
    let entities = demo_entities().unwrap();
    assert_eq!(entities.sales_person.len(), 8);
    assert_eq!(entities.movie[1].name, "流浪地球2");
}
