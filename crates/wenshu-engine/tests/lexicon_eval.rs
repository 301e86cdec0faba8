//! The lexicon engine through the planner (route → check → resolve → fill → extract → bind) on every plan case of
//! `eval/cases.jsonl`, and on extra cases of the same kinds in other words.

use std::collections::BTreeSet;
use std::sync::Arc;

use jiff::civil::Date;
use serde_json::{Value, json};
use wenshu_contract::Catalog;
use wenshu_engine::lexicon::{LexiconExtractor, LexiconRouter};
use wenshu_engine::pipeline::{AskRequest, Planned, Planner};
use wenshu_engine::plan::Plan;
use wenshu_engine::resolve::EntityCatalogs;
use wenshu_engine::route::Turn;

const CASES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/cases.jsonl"));
const CATALOG: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/catalog.json"));
const ENTITIES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/entities.json"));

fn planner() -> Planner {
    let catalog = Arc::new(Catalog::from_json_str(CATALOG).expect("eval catalog"));
    let entities = Arc::new(EntityCatalogs::from_json_str(ENTITIES).expect("eval entities"));
    Planner::new(
        catalog,
        entities.clone(),
        Arc::new(LexiconRouter::new(entities.clone())),
        Arc::new(LexiconExtractor::new(entities)),
    )
}

/// Plans one case; `Err` says how the plan differs from `expect`.
async fn check_case(planner: &Planner, case: &Value) -> Result<(), String> {
    let question = case["question"].as_str().unwrap_or_default().to_string();
    let today: Date = case["today"]
        .as_str()
        .unwrap_or_default()
        .parse()
        .map_err(|e| format!("today: {e}"))?;
    let history: Vec<Turn> = serde_json::from_value(case["history"].clone()).unwrap_or_default();
    let request = AskRequest {
        question,
        history,
        today,
        subject_id: None,
        step_sink: None,
        viewer: wenshu_engine::scope::Viewer::operator(),
    };
    let Planned {
        plan,
        rewritten_question,
        ..
    } = planner.plan(&request).await;
    let expect = &case["expect"];
    let describe = || format!("got {} (rewritten: {rewritten_question})", json!(plan));
    let status = expect["status"].as_str().unwrap_or_default();
    if plan.status() != status {
        return Err(format!("expected status {status}, {}", describe()));
    }
    if plan.tool() != expect["tool"].as_str() {
        return Err(format!("expected tool {}, {}", expect["tool"], describe()));
    }
    let ok = match &plan {
        Plan::Ok { params, .. } => Value::Object(params.clone()) == expect["params"],
        Plan::Ambiguous { candidates, .. } => {
            let got: BTreeSet<String> = candidates.iter().map(|c| c.entity.id.to_string()).collect();
            let want: BTreeSet<String> = expect["candidates"]
                .as_array()
                .map(|ids| ids.iter().map(Value::to_string).collect())
                .unwrap_or_default();
            got == want
        }
        Plan::Missing { params, .. } => {
            let got: BTreeSet<&str> = params.iter().map(String::as_str).collect();
            let want: BTreeSet<&str> = expect["params"]
                .as_array()
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            got == want
        }
        Plan::Unsupported { param, .. } => Some(param.as_str()) == expect["param"].as_str(),
        Plan::NotFound { .. } | Plan::Fallback { .. } => true,
        Plan::Rejected { .. } | Plan::Stopped { .. } => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expect}, {}", describe()))
    }
}

async fn run_all(cases: &[Value]) -> Vec<String> {
    let planner = planner();
    let mut failures = Vec::new();
    for case in cases {
        if let Err(why) = check_case(&planner, case).await {
            failures.push(format!(
                "{} 「{}」: {why}",
                case["id"],
                case["question"].as_str().unwrap_or_default()
            ));
        }
    }
    failures
}

#[tokio::test]
async fn every_eval_plan_case_passes() {
    let cases: Vec<Value> = CASES
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a case"))
        .collect();
    assert_eq!(cases.len(), 27);
    let failures = run_all(&cases).await;
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn case(id: &str, question: &str, history: Value, expect: Value) -> Value {
    json!({"id": id, "today": "2026-11-29", "question": question, "history": history, "expect": expect})
}

fn sales(params: Value) -> Value {
    json!({"tool": "sales_query", "status": "ok", "params": params})
}

fn extra_cases() -> Vec<Value> {
    let none = json!([]);
    let long_jin_hu =
        json!([{"question": "长津湖上个月的票房", "answer": "已查询《长津湖》2026-10-01 至 2026-10-31 的每日票房"}]);
    vec![
        case(
            "x-01",
            "华北地区上个季度的销售额",
            none.clone(),
            sales(json!({"region": "华北", "period": "上季度", "queryType": "summary", "limit": 10})),
        ),
        case(
            "x-02",
            "本年度基础版的销售趋势",
            none.clone(),
            sales(json!({"product": "基础版", "period": "本年", "queryType": "trend", "limit": 10})),
        ),
        case(
            "x-03",
            "这个季度华东区企业版卖得最多的前三名",
            none.clone(),
            sales(
                json!({"region": "华东", "product": "企业版", "period": "本季度", "queryType": "ranking", "limit": 3}),
            ),
        ),
        case(
            "x-04",
            "上月专业版销售排行 top 3",
            none.clone(),
            sales(json!({"product": "专业版", "period": "上月", "queryType": "ranking", "limit": 3})),
        ),
        case(
            "x-05",
            "李娜本月的销售明细，前10条",
            none.clone(),
            sales(json!({"salesPerson": "李娜", "period": "本月", "queryType": "detail", "limit": 10})),
        ),
        case(
            "x-06",
            "今年西北地区的销售额",
            none.clone(),
            sales(json!({"region": "西北", "period": "本年", "queryType": "summary", "limit": 10})),
        ),
        case(
            "x-07",
            "Show me basic edition sales trend in South China this quarter",
            none.clone(),
            sales(
                json!({"region": "华南", "product": "基础版", "period": "本季度", "queryType": "trend", "limit": 10}),
            ),
        ),
        case(
            "x-08",
            "華東區上個月的銷售額",
            none.clone(),
            sales(json!({"region": "华东", "period": "上月", "queryType": "summary", "limit": 10})),
        ),
        case(
            "x-09",
            "前年西南区的销售额",
            none.clone(),
            json!({"tool": "sales_query", "status": "unsupported", "param": "period"}),
        ),
        case(
            "x-10",
            "最近7天华南的销售额",
            none.clone(),
            json!({"tool": "sales_query", "status": "unsupported", "param": "period"}),
        ),
        case(
            "x-11",
            "飞驰人生2上周的票房",
            none.clone(),
            json!({"tool": "movie_box_office", "status": "ok", "params": {"movieId": 17, "startDate": "2026-11-16", "endDate": "2026-11-22"}}),
        ),
        case(
            "x-12",
            "孤注一掷口碑怎么样，多少分",
            none.clone(),
            json!({"tool": "movie_rating", "status": "ok", "params": {"movieId": 14}}),
        ),
        case(
            "x-13",
            "那它的票房呢",
            json!([{"question": "满江红的评分是多少", "answer": "《满江红》评分 7.8"}]),
            json!({"tool": "movie_box_office", "status": "ok", "params": {"movieId": 3, "startDate": "2026-11-23", "endDate": "2026-11-29"}}),
        ),
        case(
            "x-14",
            "那满江红呢",
            long_jin_hu.clone(),
            json!({"tool": "movie_box_office", "status": "ok", "params": {"movieId": 3, "startDate": "2026-10-01", "endDate": "2026-10-31"}}),
        ),
        case(
            "x-15",
            "这部电影的评分呢",
            long_jin_hu.clone(),
            json!({"tool": "movie_rating", "status": "ok", "params": {"movieId": 4}}),
        ),
        case(
            "x-16",
            "那部的评分怎么样",
            json!([
                {"question": "流浪地球2的评分", "answer": "《流浪地球2》评分 8.3"},
                {"question": "华东区本月的销售额", "answer": "华东区本月销售额 120 万"},
            ]),
            json!({"tool": "movie_rating", "status": "ok", "params": {"movieId": 2}}),
        ),
        case(
            "x-17",
            "哪部电影的评分最高",
            none.clone(),
            json!({"tool": "rating_metrics", "status": "ok", "params": {"measures": [{"name": "评分"}], "groupBy": ["影片"],
                   "order": {"measure": "评分", "direction": "desc"}, "limit": 1}}),
        ),
        case(
            "x-18",
            "今天天气怎么样",
            none.clone(),
            json!({"tool": "text_to_sql", "status": "fallback"}),
        ),
        case(
            "x-19",
            "《消失的她》十月份的每日票房",
            none.clone(),
            json!({"tool": "movie_box_office", "status": "ok", "params": {"movieId": 15, "startDate": "2026-10-01", "endDate": "2026-10-31"}}),
        ),
        case(
            "x-20",
            "误杀的评分",
            none.clone(),
            json!({"tool": "movie_rating", "status": "ok", "params": {"movieId": 18}}),
        ),
        case(
            "x-21",
            "英雄的评分是多少",
            none.clone(),
            json!({"tool": "movie_rating", "status": "ambiguous", "candidates": [21, 22]}),
        ),
        case(
            "x-22",
            "看看订单 ORD-2024-77 的物流，已签收的，送到浙江杭州",
            none.clone(),
            json!({"tool": "query_order", "status": "ok", "params": {"orderId": "ORD-2024-77", "status": "completed", "address": {"province": "浙江", "city": "杭州"}}}),
        ),
        case(
            "x-23",
            "订单 B12 发往江苏南京",
            none.clone(),
            json!({"tool": "query_order", "status": "ok", "params": {"orderId": "B12", "status": "pending", "address": {"province": "江苏", "city": "南京"}}}),
        ),
        case(
            "x-24",
            "那华南呢",
            json!([{"question": "华东区上月的销售额", "answer": "华东区上月销售额 98 万"}]),
            sales(json!({"region": "华南", "period": "上月", "queryType": "summary", "limit": 10})),
        ),
        case(
            "x-25",
            "那它的评分呢",
            json!([
                {"question": "长津湖的票房", "answer": "《长津湖》最近7天票房"},
                {"question": "华东区本月的销售额", "answer": "120 万"},
                {"question": "华南区本月的销售额", "answer": "80 万"},
                {"question": "西北区本月的销售额", "answer": "30 万"},
            ]),
            // The movie is out of the last three rounds: the question names none, so the tool asks for it.
            json!({"tool": "movie_rating", "status": "missing", "params": ["movieId"]}),
        ),
        case(
            "x-26",
            "流浪地球3的票房",
            none.clone(),
            json!({"tool": "movie_box_office", "status": "not_found"}),
        ),
        case(
            "x-27",
            "张伟这个月卖了多少",
            none.clone(),
            sales(json!({"salesPerson": "张伟", "period": "本月", "queryType": "summary", "limit": 10})),
        ),
        case(
            "x-28",
            "专业版本季度的销售明细",
            none.clone(),
            sales(json!({"product": "专业版", "period": "本季度", "queryType": "detail", "limit": 10})),
        ),
        case(
            "x-29",
            "第二十条的评分",
            none.clone(),
            json!({"tool": "movie_rating", "status": "ok", "params": {"movieId": 11}}),
        ),
        case(
            "x-30",
            "那上个月呢",
            json!([{"question": "长津湖最近7天的票房", "answer": "已查询《长津湖》最近7天的每日票房"}]),
            json!({"tool": "movie_box_office", "status": "ok", "params": {"movieId": 4, "startDate": "2026-10-01", "endDate": "2026-10-31"}}),
        ),
        case(
            "x-31",
            "订单 ord_9 运输中，收货地址北京",
            none.clone(),
            json!({"tool": "query_order", "status": "ok", "params": {"orderId": "ord_9", "status": "shipped", "address": {"province": "北京", "city": "北京"}}}),
        ),
        case(
            "x-32",
            "唐探3上周的票房",
            none.clone(),
            json!({"tool": "movie_box_office", "status": "ok", "params": {"movieId": 9, "startDate": "2026-11-16", "endDate": "2026-11-22"}}),
        ),
    ]
}

#[tokio::test]
async fn extra_plan_cases_in_other_words_pass() {
    let cases = extra_cases();
    let failures = run_all(&cases).await;
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
