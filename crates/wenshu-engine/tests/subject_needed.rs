//! A tool that needs a subject and a question that names none: `missing` naming the subject parameter (the user
//! is asked which one), on both engines — not `not_found` on leftover words, not the fallback. A question about
//! many subjects (哪个, 各, 排名) still goes to the fallback. The catalog is one of its own, not the demo's.

mod model_support;

use std::sync::Arc;

use jiff::civil::date;
use model_support::model_planner;
use serde_json::json;
use wenshu_contract::Catalog;
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::pipeline::{AskRequest, Planner};
use wenshu_engine::plan::Plan;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_testkit::{Reply, ScriptedChatServer};

fn catalog() -> Arc<Catalog> {
    let date = |d: &str| json!({"type": "string", "format": "date", "description": d});
    Arc::new(
        Catalog::from_value(&json!({"fallback": "text_to_sql", "tools": [
            {"name": "stock_level", "title": "库存查询", "description": "查询某个商品在各仓的当前库存数量",
             "inputSchema": {"type": "object", "properties": {"skuId": {"type": "integer", "description": "商品 ID"}},
                             "required": ["skuId"]},
             "x-subject": {"type": "sku", "param": "skuId"},
             "x-examples": ["无线鼠标还有多少库存", "机械键盘的库存够不够"]},
            {"name": "leave_log", "title": "请假记录", "description": "查询某位员工在日期范围内的请假记录",
             "inputSchema": {"type": "object", "properties": {"staffId": {"type": "integer", "description": "员工 ID"},
                             "startDate": date("开始日期"), "endDate": date("结束日期")},
                             "required": ["staffId", "startDate", "endDate"]},
             "x-subject": {"type": "staff", "param": "staffId"},
             "x-date-range": {"start": "startDate", "end": "endDate", "default": "本月"},
             "x-examples": ["李娜上个月的请假记录"]},
            {"name": "headcount", "title": "部门人数", "description": "统计各部门的在职人数，可按部门分组",
             "inputSchema": {"type": "object", "properties": {"dept": {"type": "string", "description": "部门名称"}}}},
            {"name": "order_stats", "title": "订单统计", "description": "统计订单数量和金额，可按渠道筛选",
             "inputSchema": {"type": "object", "properties": {"channel": {"type": "string", "enum": ["线上", "门店"]}}}},
            {"name": "text_to_sql", "title": "兜底：按问题生成 SQL", "description": "当固定工具无法回答时，根据问题生成只读 SQL",
             "inputSchema": {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}}
        ]}))
        .expect("catalog"),
    )
}

fn entities() -> Arc<EntityCatalogs> {
    Arc::new(
        EntityCatalogs::from_json_str(
            r#"{"sku": [{"id": 101, "name": "无线鼠标"}, {"id": 102, "name": "机械键盘"}],
                "staff": [{"id": 7, "name": "李娜"}, {"id": 8, "name": "王强"}]}"#,
        )
        .expect("entities"),
    )
}

fn lexicon() -> Planner {
    let entities = entities();
    Planner::new(
        catalog(),
        entities.clone(),
        Arc::new(LexiconRouter::new(entities.clone())),
        Arc::new(LexiconExtractor::new(entities)),
    )
}

async fn plan(planner: &Planner, question: &str) -> Plan {
    planner.plan(&AskRequest::new(question, date(2026, 11, 29))).await.plan
}

fn missing(tool: &str, param: &str) -> Plan {
    Plan::Missing {
        tool: tool.into(),
        params: vec![param.into()],
    }
}

#[tokio::test]
async fn the_lexicon_engine_asks_for_the_subject_a_question_leaves_out() {
    let planner = lexicon();
    for (question, tool, param) in [
        ("查下库存", "stock_level", "skuId"),
        ("帮我查一下库存", "stock_level", "skuId"),
        ("请假记录查一下", "leave_log", "staffId"),
        ("上个月的请假记录", "leave_log", "staffId"),
    ] {
        assert_eq!(plan(&planner, question).await, missing(tool, param), "{question}");
    }
    let named = plan(&planner, "无线鼠标的库存").await;
    assert!(
        matches!(&named, Plan::Ok { params, .. } if params["skuId"] == 101),
        "{named:?}"
    );
    let named = plan(&planner, "李娜上个月的请假记录").await;
    assert!(
        matches!(&named, Plan::Ok { params, .. } if params["staffId"] == 7 && params["startDate"] == "2026-10-01"),
        "{named:?}"
    );
}

#[tokio::test]
async fn a_question_about_many_subjects_still_takes_the_fallback() {
    let planned = plan(&lexicon(), "哪个商品的库存最多").await;
    assert!(matches!(&planned, Plan::Fallback { .. }), "{planned:?}");
}

#[tokio::test]
async fn the_model_engine_asks_for_the_subject_too() {
    let route = json!({"toolCode": "stock_level", "subjectType": null, "subjectName": null, "startDate": null,
                       "endDate": null, "rewrittenQuestion": "查下库存"});
    let server = ScriptedChatServer::start(vec![Reply::content(route.to_string())]).await;
    let planner = model_planner(&server, catalog(), entities());
    assert_eq!(plan(&planner, "查下库存").await, missing("stock_level", "skuId"));
    assert_eq!(
        server.request_count(),
        1,
        "nothing is extracted before the subject is known"
    );
}
