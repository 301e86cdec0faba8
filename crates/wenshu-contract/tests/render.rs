//! The readable definition of each tool, in Chinese and English, as snapshots.

use serde_json::json;
use wenshu_contract::render::{Lang, render_tool};
use wenshu_contract::{Catalog, demo_catalog};

#[test]
fn demo_tools_render_in_chinese() {
    let catalog = demo_catalog().unwrap();
    for tool in catalog.tools() {
        insta::assert_snapshot!(format!("zh_{}", tool.name()), render_tool(tool, Lang::Zh));
    }
}

#[test]
fn demo_tools_render_in_english() {
    let catalog = demo_catalog().unwrap();
    for tool in catalog.tools() {
        insta::assert_snapshot!(format!("en_{}", tool.name()), render_tool(tool, Lang::En));
    }
}

#[test]
fn the_sales_query_line_matches_seed_000() {
    let catalog = demo_catalog().unwrap();
    let text = render_tool(catalog.get("sales_query").unwrap(), Lang::Zh);
    assert!(text.starts_with("工具ID: sales_query\n"));
    assert!(text.contains(
        "  - period (类型: string, 可选): 时间段：本月、上月、本季度、上季度、本年，默认本月 [默认值: 本月] [可选值: 本月, 上月, 本季度, 上季度, 本年]\n"
    ));
}

#[test]
fn what_ragent_drops_is_rendered() {
    let catalog = Catalog::from_value(&json!([{
        "name": "shipments",
        "description": "查询发货单",
        "inputSchema": {
            "type": "object",
            "properties": {
                "since": {"type": "string", "format": "date", "description": "起始日期"},
                "weight": {"type": "number", "minimum": 0.5, "maximum": 30},
                "code": {"type": "string", "pattern": "^[A-Z]-[0-9]+$"},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["fragile", "cold"]}},
                "parcels": {"type": "array", "items": {"type": "object", "properties": {
                    "sku": {"type": "string"}, "count": {"type": "integer", "minimum": 1}
                }, "required": ["sku"]}},
                "receiver": {"type": "object", "description": "收件人", "properties": {
                    "name": {"type": "string"},
                    "address": {"type": "object", "properties": {"city": {"type": "string"}}}
                }, "required": ["name"]}
            },
            "required": ["since"]
        }
    }]))
    .unwrap();
    let tool = catalog.get("shipments").unwrap();
    insta::assert_snapshot!("zh_nested", render_tool(tool, Lang::Zh));
    insta::assert_snapshot!("en_nested", render_tool(tool, Lang::En));
    let first = render_tool(tool, Lang::Zh);
    assert_eq!(first, render_tool(tool, Lang::Zh), "rendering is deterministic");
}
