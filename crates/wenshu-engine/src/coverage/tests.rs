use jiff::civil::date;
use serde_json::{Map, Value, json};
use wenshu_contract::Catalog;

use super::*;

fn catalog() -> Catalog {
    let tools = json!({"tools": [
        {
            "name": "shop_stats",
            "title": "门店经营",
            "description": "门店的利润与客流",
            "inputSchema": {"type": "object", "properties": {
                "city": {"type": "string", "description": "城市筛选：杭州、宁波", "enum": ["杭州", "宁波"]},
                "mode": {"type": "string", "description": "方式：total(汇总)、top(排行)、daily(趋势)、rows(明细)",
                         "enum": ["total", "top", "daily", "rows"], "default": "total"},
                "n": {"type": "integer", "default": 10}
            }},
            "x-answers": {"by": "mode", "answers": {
                "total": {"shape": "totals", "measures": ["利润", "客流"], "counts": ["订单", "单"]},
                "top": {"shape": "ranked", "dimension": ["店员", "员工"], "orderBy": ["利润"], "measures": ["利润", "客流"], "limit": "n"},
                "daily": {"shape": "series", "grain": "day"},
                "rows": {"shape": "rows", "limit": "n"}
            }}
        },
        {
            "name": "ticket_stats",
            "title": "工单统计",
            "description": "统计工单数量，可按渠道分组",
            "inputSchema": {"type": "object", "properties": {
                "groupBy": {"type": "string", "description": "分组：channel(按渠道)、day(按天)", "enum": ["channel", "day"]},
                "minAge": {"type": "integer", "description": "最少天数"}
            }}
        }
    ]});
    Catalog::from_json_str(&tools.to_string()).unwrap()
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn cover(tool: &str, arguments: Value, question: &str) -> Coverage {
    let catalog = catalog();
    let tool = catalog.get(tool).unwrap();
    check(
        tool,
        &args(arguments),
        question,
        date(2026, 11, 29),
        &EntityCatalogs::new(),
    )
}

#[test]
fn a_total_does_not_answer_a_grouping() {
    let c = cover("shop_stats", json!({"mode": "total", "n": 10}), "上个月各城市的利润");
    assert!(!c.is_met());
    assert_eq!(c.reason(), "不能按城市分组");
    assert_eq!(c.instead, vec!["门店经营：汇总、按店员排名、按日的趋势、明细"]);
    assert!(
        cover(
            "shop_stats",
            json!({"city": "杭州", "mode": "total", "n": 10}),
            "杭州上个月的利润"
        )
        .is_met()
    );
}

#[test]
fn a_second_value_is_unmet_never_dropped() {
    let c = cover(
        "shop_stats",
        json!({"city": "杭州", "mode": "total", "n": 10}),
        "杭州和宁波的利润",
    );
    assert_eq!(c.reason(), "一次只能查一个城市：杭州、宁波");
    let c = cover("shop_stats", json!({"mode": "total", "n": 10}), "宁波的利润");
    assert_eq!(c.reason(), "没有用上「宁波」（城市）");
}

#[test]
fn a_ranking_is_met_by_its_dimension_measure_and_places() {
    assert!(cover("shop_stats", json!({"mode": "top", "n": 3}), "利润前三的店员").is_met());
    let c = cover("shop_stats", json!({"mode": "top", "n": 3}), "客流前三的店员");
    assert_eq!(c.reason(), "不能按客流排名（只能按利润排名）");
    let c = cover("shop_stats", json!({"mode": "top", "n": 10}), "利润最高的城市");
    assert_eq!(c.reason(), "不能按城市排名");
    let c = cover("shop_stats", json!({"mode": "top", "n": 10}), "利润最低的店员");
    assert_eq!(c.reason(), "不能从低到高排名");
    let c = cover("shop_stats", json!({"mode": "top", "n": 10}), "利润前三的店员");
    assert_eq!(c.reason(), "没有取前 3 名（取了 10 个）");
}

#[test]
fn comparisons_and_aggregates_need_a_declared_computation() {
    let c = cover("shop_stats", json!({"mode": "total", "n": 10}), "本月利润环比怎么样");
    assert_eq!(c.reason(), "不支持环比");
    let c = cover(
        "shop_stats",
        json!({"city": "杭州", "mode": "total", "n": 10}),
        "杭州的利润占比",
    );
    assert_eq!(c.reason(), "不支持算占比");
    let c = cover("shop_stats", json!({"mode": "total", "n": 10}), "本月每天的利润");
    assert_eq!(c.reason(), "不能按天分组");
    assert!(cover("shop_stats", json!({"mode": "daily", "n": 10}), "本月每天的利润").is_met());
}

#[test]
fn the_mode_that_fits_is_found() {
    let catalog = catalog();
    let tool = catalog.get("shop_stats").unwrap();
    let facts = QuestionFacts::new("利润最高的店员", date(2026, 11, 29));
    let demands = question_demands(&facts);
    let modes = fitting_modes(tool, &args(json!({"mode": "total", "n": 10})), &demands);
    assert_eq!(modes, vec![("mode".to_string(), "top".to_string())]);
    let facts = QuestionFacts::new("各城市的利润", date(2026, 11, 29));
    let demands = question_demands(&facts);
    assert!(fitting_modes(tool, &args(json!({"mode": "total"})), &demands).is_empty());
}

#[test]
fn undeclared_tools_answer_through_their_spellings() {
    assert!(cover("ticket_stats", json!({"groupBy": "channel"}), "各渠道的工单数量").is_met());
    assert!(cover("ticket_stats", json!({"groupBy": "day"}), "每天的工单").is_met());
    let c = cover("ticket_stats", json!({}), "各坐席的工单");
    assert_eq!(c.reason(), "不能按坐席分组");
    assert!(cover("ticket_stats", json!({"minAge": 3}), "超过3天的工单有几个").is_met());
    // The tool neither averages nor has a handling time: both are said.
    let c = cover("ticket_stats", json!({}), "工单的平均处理时长");
    assert!(c.reason().starts_with("不支持求平均；「处理时长」"), "{}", c.reason());
}

#[test]
fn a_value_left_out_is_never_a_filter_on_it() {
    for q in [
        "除了杭州以外的利润",
        "除杭州外的利润",
        "不含杭州的利润",
        "不包括杭州的利润",
        "非杭州门店的利润",
        "杭州之外的利润",
        "排除杭州的利润",
    ] {
        let c = cover("shop_stats", json!({"city": "杭州", "mode": "total", "n": 10}), q);
        assert_eq!(c.reason(), "不支持排除某个值：杭州", "{q}");
    }
    assert!(exclusion::is_excluded("sales excluding Hangzhou", "hangzhou"));
    assert!(!exclusion::is_excluded("包括杭州的利润", "杭州"));
    let c = cover(
        "shop_stats",
        json!({"city": "杭州", "mode": "total", "n": 10}),
        "宁波以外的利润",
    );
    assert!(c.reason().contains("不支持排除某个值：宁波"), "{}", c.reason());
    assert!(
        cover(
            "shop_stats",
            json!({"city": "杭州", "mode": "total", "n": 10}),
            "杭州的利润"
        )
        .is_met()
    );
}

#[test]
fn one_place_of_a_ranking_is_unmet() {
    for q in ["利润第二高的店员", "利润排第三的店员是谁", "这个店员的利润排第几"] {
        let c = cover("shop_stats", json!({"mode": "top", "n": 10}), q);
        assert!(c.reason().starts_with("不支持取排名中的某一位"), "{q}: {}", c.reason());
    }
}

#[test]
fn a_total_over_a_range_is_not_a_series() {
    let c = cover("shop_stats", json!({"mode": "daily", "n": 10}), "上个月一共多少利润");
    assert_eq!(c.reason(), "不能合计成一个总数");
    let c = cover("shop_stats", json!({"mode": "daily", "n": 10}), "上个月的总利润");
    assert_eq!(c.reason(), "不能合计成一个总数");
    assert!(
        cover(
            "shop_stats",
            json!({"mode": "daily", "n": 10}),
            "上个月每天一共多少利润"
        )
        .is_met()
    );
    assert!(cover("shop_stats", json!({"mode": "total", "n": 10}), "上个月一共多少利润").is_met());
}

#[test]
fn a_ranking_by_a_measure_the_call_does_not_order_by_is_unmet() {
    let c = cover("shop_stats", json!({"mode": "top", "n": 10}), "哪个店员的客单价最高");
    assert_eq!(c.reason(), "不能按客单价排名（只能按利润排名）");
    assert!(cover("shop_stats", json!({"mode": "top", "n": 10}), "哪个店员的利润最高").is_met());
}

#[test]
fn a_date_the_scan_left_out_is_unmet() {
    let c = cover("shop_stats", json!({"mode": "total", "n": 10}), "春节之后的利润");
    assert!(c.reason().starts_with("不能确定时间范围：春节之后"), "{}", c.reason());
    let c = cover("shop_stats", json!({"mode": "total", "n": 10}), "上个月第二天的客流");
    assert!(c.reason().starts_with("不能确定时间范围：上个月第二"), "{}", c.reason());
    assert!(cover("shop_stats", json!({"mode": "top", "n": 5}), "上个月利润前五的店员").is_met());
    assert!(cover("shop_stats", json!({"mode": "total", "n": 10}), "上个月的利润").is_met());
}

#[test]
fn a_base_period_later_than_the_current_one_is_unmet() {
    let later = args(json!({"timeRange": {"start": "2026-11-16", "end": "2026-11-22"},
        "compare": {"kind": "previous_period", "range": {"start": "2026-11-23", "end": "2026-11-29"}}}));
    let u = time_words::later_baseline(&later).unwrap();
    assert!(u.reason.contains("晚于当前时段"), "{}", u.reason);
    let earlier = args(json!({"timeRange": {"start": "2026-11-23", "end": "2026-11-29"},
        "compare": {"kind": "previous_period", "range": {"start": "2026-11-16", "end": "2026-11-22"}}}));
    assert!(time_words::later_baseline(&earlier).is_none());
    assert!(time_words::later_baseline(&args(json!({"timeRange": {"start": "2026-11-23"}}))).is_none());
}

/// A catalog of one undeclared tool named `stats` whose `mode` enum has one value with these synonyms.
fn one_mode_tool(synonyms: &[&str]) -> Catalog {
    let tools = json!({"tools": [{
        "name": "stats",
        "description": "门店统计",
        "inputSchema": {"type": "object", "properties": {
            "mode": {"type": "string", "description": "方式", "enum": ["m1"]}
        }},
        "x-enum-synonyms": {"mode": {"m1": synonyms}}
    }]});
    Catalog::from_json_str(&tools.to_string()).unwrap()
}

#[test]
fn a_tool_s_words_are_read_from_the_tool_itself_not_an_earlier_one_of_the_same_name() {
    let bound = args(json!({"mode": "m1"}));
    for _ in 0..2 {
        let ranking = one_mode_tool(&["排名"]);
        let offer = offer_of(ranking.get("stats").unwrap(), &bound);
        assert_eq!(offer.shape, Some(wenshu_contract::answers::Shape::Ranked));
        let detail = one_mode_tool(&["明细"]);
        let offer = offer_of(detail.get("stats").unwrap(), &bound);
        assert_eq!(offer.shape, Some(wenshu_contract::answers::Shape::Rows));
    }
}

#[test]
fn a_ranking_compares_only_what_the_question_groups() {
    let c = cover("shop_stats", json!({"mode": "top", "n": 10}), "上个月的利润和之前比较");
    assert_eq!(c.reason(), "不支持对比", "{c:?}");
    assert!(cover("shop_stats", json!({"mode": "top", "n": 10}), "各店员的利润对比").is_met());
}

#[test]
fn a_count_of_people_is_not_a_count_of_the_rows() {
    for q in ["杭州上个月有几位顾客", "杭州上个月有多少人"] {
        let c = cover("shop_stats", json!({"city": "杭州", "mode": "total", "n": 10}), q);
        assert!(c.reason().contains("不能数有多少"), "{q}: {}", c.reason());
    }
    let c = cover(
        "shop_stats",
        json!({"city": "杭州", "mode": "total", "n": 10}),
        "杭州上个月有多少个店员有订单",
    );
    assert!(c.reason().contains("不能数有多少店员"), "{}", c.reason());
    for q in ["杭州上个月有多少单", "杭州上个月有多少个订单"] {
        let c = cover("shop_stats", json!({"city": "杭州", "mode": "total", "n": 10}), q);
        assert!(c.is_met(), "{q}: {}", c.reason());
    }
}
