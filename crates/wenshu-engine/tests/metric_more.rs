//! The metric builder's readings that came from held-out analyst questions, on a model of another domain (a
//! clinic's visits): a superlative over a time bucket, the model's identifiers as English words, a tool's subject
//! word asking every measure, and a reference word refused.

use jiff::civil::Date;
use serde_json::{Map, Value, json};
use wenshu_contract::metric::{Grain, MetricQuery, OrderDir};
use wenshu_contract::{Catalog, Tool};
use wenshu_engine::coverage::{meets::meets, offer_of};
use wenshu_engine::metric::build::build_query;
use wenshu_engine::metric::execute::query_params;
use wenshu_engine::metric::{MetricBuild, MetricValues};
use wenshu_lexicon::demand::demands_of;

fn catalog() -> Catalog {
    Catalog::from_value(&json!({"tools": [{
        "name": "clinic_metrics",
        "description": "门诊指标",
        "x-metrics": {
            "from": [{"table": "visits", "columns": ["id", "day", "ward", "doctor_name", "fee"]}],
            "time": {"column": "day", "grains": ["day", "week", "month"]},
            "measures": [
                {"name": "fee", "label": "诊费", "expr": "SUM(fee)", "unit": "元"},
                {"name": "visits", "label": "门诊量", "synonyms": ["就诊人次"], "expr": "COUNT(*)", "unit": "人次"}
            ],
            "dimensions": [
                {"name": "ward", "label": "科室", "column": "ward", "values": "data"},
                {"name": "doctor_name", "label": "医生", "column": "doctor_name", "values": "data"}
            ]
        }
    }]}))
    .expect("clinic catalog")
}

fn today() -> Date {
    "2026-11-29".parse().unwrap()
}

fn values(tool: &Tool) -> MetricValues {
    let mut values = MetricValues::new();
    values.insert(tool, 0, vec![json!("内科"), json!("外科")]);
    values.insert(tool, 1, vec![json!("周明"), json!("吴芳")]);
    values
}

fn build(question: &str) -> Result<MetricQuery, Vec<String>> {
    let catalog = catalog();
    let tool = catalog.get("clinic_metrics").unwrap();
    match build_query(tool, &values(tool), question, today()) {
        MetricBuild::Query { query } => Ok(query),
        MetricBuild::Unmet { reasons } => Err(reasons),
    }
}

/// Whether every demand of `question` is met by the call of its metric query.
fn covered(question: &str, query: &MetricQuery) -> Result<(), String> {
    let catalog = catalog();
    let tool = catalog.get("clinic_metrics").unwrap();
    let arguments: Map<String, Value> = query_params(query);
    let offer = offer_of(tool, &arguments);
    let demands = demands_of(question, today());
    for d in &demands {
        meets(d, &offer, tool, &arguments, &demands).map_err(|u| u.reason)?;
    }
    Ok(())
}

#[test]
fn a_superlative_over_a_time_bucket_ranks_the_buckets_and_is_covered() {
    for (question, grain, dir) in [
        ("上个月哪天的门诊量最多", Grain::Day, OrderDir::Desc),
        ("今年哪个月的诊费最低", Grain::Month, OrderDir::Asc),
    ] {
        let query = build(question).unwrap_or_else(|r| panic!("{question}: {r:?}"));
        assert_eq!(query.grain, Some(grain), "{question}");
        assert_eq!(query.order.as_ref().map(|o| o.direction), Some(dir), "{question}");
        assert_eq!(query.limit, Some(1), "{question}");
        covered(question, &query).unwrap_or_else(|r| panic!("{question}: {r}"));
    }
}

#[test]
fn the_models_identifiers_read_as_english_words() {
    let query = build("fee by ward last month").unwrap();
    assert_eq!(query.group_by, vec!["科室".to_string()]);
    assert_eq!(query.measures.len(), 1);
    covered("fee by ward last month", &query).unwrap();
    let top = build("top 2 doctors by visits this year").unwrap();
    assert_eq!(top.group_by, vec!["医生".to_string()]);
    assert_eq!(top.order.as_ref().map(|o| o.measure.as_str()), Some("门诊量"));
    assert_eq!(top.limit, Some(2));
    covered("top 2 doctors by visits this year", &top).unwrap();
}

#[test]
fn a_tool_subject_word_without_a_measure_asks_every_measure() {
    let query = build("clinic by ward this month").unwrap();
    assert_eq!(query.measures.len(), 2, "{query:?}");
    assert_eq!(query.group_by, vec!["科室".to_string()]);
    // A word of the tool's kind (metrics) names no subject.
    assert!(build("metrics by ward this month").is_err());
}

#[test]
fn a_reference_word_is_refused_naming_it() {
    let reasons = build("它的门诊量呢").unwrap_err();
    assert!(reasons.iter().any(|r| r.contains("它")), "{reasons:?}");
    let reasons = build("what is its fee").unwrap_err();
    assert!(reasons.iter().any(|r| r.contains("its")), "{reasons:?}");
    // A time expression is no reference (这个月).
    assert!(build("这个月的门诊量").is_ok());
}

#[test]
fn things_listed_by_a_dimension_are_a_grouping_with_its_threshold() {
    let question = "上个月诊费超过5000的医生有哪些";
    let query = build(question).unwrap_or_else(|r| panic!("{r:?}"));
    assert_eq!(query.group_by, vec!["医生".to_string()]);
    assert_eq!(query.having.as_ref().map(|h| h.value), Some(5000.0));
    covered(question, &query).unwrap();
    // Records are no dimension: a metric gives no rows.
    let reasons = build("上个月诊费超过5000的就诊记录有哪些").unwrap_err();
    assert!(reasons.iter().any(|r| r.contains("明细")), "{reasons:?}");
}

#[test]
fn a_threshold_on_single_records_filters_the_records_before_aggregating() {
    // Called single (单笔…), or records counted by another measure (…的门诊量).
    for question in ["上个月单笔诊费超过500的门诊量", "上个月诊费低于100的就诊人次有多少"] {
        let query = build(question).unwrap_or_else(|r| panic!("{question}: {r:?}"));
        let each = query.each.as_ref().unwrap_or_else(|| panic!("{question}: {query:?}"));
        assert_eq!(each.measure, "诊费", "{question}");
        assert!(query.having.is_none() && query.group_by.is_empty(), "{question}");
        covered(question, &query).unwrap_or_else(|r| panic!("{question}: {r}"));
    }
    // A threshold on an ungrouped total with no record in sight stays refused.
    assert!(build("上个月诊费超过500").is_err());
    // Grouped and single: each record filtered, then grouped.
    let query = build("上个月各科室单笔诊费超过500的门诊量").unwrap();
    assert!(query.each.is_some() && query.having.is_none(), "{query:?}");
    assert_eq!(query.group_by, vec!["科室".to_string()]);
}

#[test]
fn a_record_threshold_needs_a_measure_of_one_column() {
    let catalog = catalog();
    let model = catalog
        .get("clinic_metrics")
        .unwrap()
        .extensions()
        .metrics
        .as_deref()
        .unwrap();
    let mut query = build("上个月单笔诊费超过500的门诊量").unwrap();
    query.each.as_mut().unwrap().measure = "门诊量".into();
    let error = query.resolve(model).unwrap_err();
    assert_eq!(error.field, "each.measure", "{error}");
}

#[test]
fn kinds_of_day_and_periods_read_apart_are_unmet() {
    use wenshu_engine::coverage::time_words::{day_kinds, two_periods};
    use wenshu_engine::facts::QuestionFacts;
    use wenshu_engine::offer::Offer;
    let facts = |q: &str| QuestionFacts::new(q, today());
    assert_eq!(day_kinds(&facts("上个月工作日的门诊量"), &[]).len(), 1);
    assert_eq!(day_kinds(&facts("visits on weekdays last month"), &[]).len(), 1);
    assert!(day_kinds(&facts("上个月的门诊量"), &[]).is_empty());
    // A period holding the word is read as a period.
    assert!(day_kinds(&facts("上周末的门诊量"), &[]).is_empty());
    let one = Offer::unknown("x-answers");
    let mut compared = Offer::unknown("x-metrics");
    compared.periods = vec![wenshu_lexicon::demand::Baseline::Named];
    assert!(two_periods(&facts("今年周一的门诊量"), &compared).is_some());
    // A bare 周末 is no period: over one it is a kind of day.
    assert_eq!(day_kinds(&facts("今年周末的门诊量"), &[]).len(), 1);
    assert_eq!(day_kinds(&facts("周末的门诊量"), &[]).len(), 1);
    // A call that keeps weekends reads 周末, and only 周末.
    use wenshu_lexicon::words::days::KindOfDay;
    assert!(day_kinds(&facts("今年周末的门诊量"), &[KindOfDay::Weekend]).is_empty());
    assert_eq!(day_kinds(&facts("今年工作日的门诊量"), &[KindOfDay::Weekend]).len(), 1);
    // Periods compared or joined are meant together, by a call that compares periods.
    assert!(two_periods(&facts("上个月和本月的门诊量"), &compared).is_none());
    assert!(two_periods(&facts("上个月和本月的门诊量"), &one).is_some());
    assert!(two_periods(&facts("本月门诊量环比上月"), &compared).is_none());
    assert!(two_periods(&facts("上个月的门诊量"), &one).is_none());
}

#[test]
fn the_largest_total_of_a_time_bucket_is_the_top_bucket() {
    let question = "上个月日门诊量的最大值";
    let query = build(question).unwrap_or_else(|r| panic!("{r:?}"));
    assert_eq!(query.grain, Some(Grain::Day));
    assert_eq!(query.order.as_ref().map(|o| o.direction), Some(OrderDir::Desc));
    assert_eq!(query.limit, Some(1));
    assert!(query.measures.iter().all(|m| m.aggregate.is_none()), "{query:?}");
    covered(question, &query).unwrap();
    // The month of 上个月 is the time expression's, not a bucket of the measure.
    let plain = build("上个月诊费的最小值");
    assert!(plain.as_ref().map_or(true, |q| q.grain.is_none()), "{plain:?}");
}

#[test]
fn a_reference_nothing_resolved_is_unmet_for_a_tool_without_a_subject() {
    use wenshu_engine::coverage::reference::unresolved_reference;
    use wenshu_engine::facts::QuestionFacts;
    let catalog = catalog();
    let tool = catalog.get("clinic_metrics").unwrap();
    let facts = |q: &str| QuestionFacts::new(q, today());
    assert!(unresolved_reference(tool, &facts("它上个月的门诊量")).is_some());
    assert!(unresolved_reference(tool, &facts("这个科室上个月的门诊量")).is_some());
    // 这个月 is a time expression, not a reference.
    assert!(unresolved_reference(tool, &facts("这个月的门诊量")).is_none());
}

#[test]
fn an_english_superlatives_noun_is_its_measure_beside_a_grouping() {
    let question = "which ward had the highest fee last month";
    let query = build(question).unwrap_or_else(|r| panic!("{r:?}"));
    assert_eq!(query.group_by, vec!["科室".to_string()]);
    assert_eq!(query.limit, Some(1));
    covered(question, &query).unwrap();
}

#[test]
fn what_the_query_would_leave_out_is_refused() {
    // A dimension named beside the one grouped by.
    let reasons = build("上个月诊费前三的科室和医生").unwrap_err();
    assert!(reasons.iter().any(|r| r.contains("医生")), "{reasons:?}");
    // A mean per each value of a dimension is the total over their number (平均每个医生: per doctor), never a mean
    // over records; per each of something the model does not know is refused.
    let query = build("上个月平均每个医生的诊费").unwrap();
    assert_eq!(query.measures[0].over.as_deref(), Some("医生"), "{query:?}");
    assert!(query.group_by.is_empty(), "{query:?}");
    assert!(build("上个月平均每个病房的诊费").is_err());
    // 去年同期 alone names no period of its own.
    assert!(build("去年同期的诊费").is_err());
    // A dimension naming the population is no grouping left out.
    assert!(build("上个月各科室医生的门诊量").is_ok());
}

#[test]
fn a_threshold_before_a_dimension_groups_by_it() {
    let question = "上个月门诊量超过300人次的医生";
    let query = build(question).unwrap_or_else(|r| panic!("{r:?}"));
    assert_eq!(query.group_by, vec!["医生".to_string()]);
    assert_eq!(query.having.as_ref().map(|h| h.value), Some(300.0));
    covered(question, &query).unwrap();
}

#[test]
fn a_top_within_each_group_ranks_inside_it_and_a_count_of_groups_is_refused() {
    // Issue 26: the first rows of each group, never one ranked list.
    let query = build("上个月每个科室门诊量最多的医生").unwrap_or_else(|r| panic!("{r:?}"));
    let within = query.within.as_ref().expect("a top within each group");
    assert_eq!(
        (within.dimension.as_deref(), within.limit, query.limit),
        (Some("科室"), 1, None)
    );
    let reasons = build("上个月门诊量超过300人次的医生有几位").unwrap_err();
    assert!(reasons.iter().any(|r| r.contains("医生")), "{reasons:?}");
    // The same dimension grouped and ranked is one ranking.
    assert!(build("上个月各科室门诊量排名").is_ok());
}

#[test]
fn a_daily_mean_is_per_day_and_a_mean_per_person_is_refused() {
    let query = build("上个月的日均门诊量").unwrap_or_else(|r| panic!("{r:?}"));
    assert!(query.measures.iter().all(|m| m.per == Some(Grain::Day)), "{query:?}");
    covered("上个月的日均门诊量", &query).unwrap();
    let reasons = build("上个月人均诊费").unwrap_err();
    assert!(reasons.iter().any(|r| r.contains("人均")), "{reasons:?}");
}

#[test]
fn a_mean_over_a_running_period_is_over_its_days_so_far() {
    let query = build("本月的日均门诊量").unwrap_or_else(|r| panic!("{r:?}"));
    let range = query.time_range.unwrap();
    assert_eq!((range.start.as_str(), range.end.as_str()), ("2026-11-01", "2026-11-29"));
    let past = build("上个月的日均门诊量").unwrap().time_range.unwrap();
    assert_eq!(past.end, "2026-10-31");
}

#[test]
fn which_of_two_named_values_is_higher_shows_both() {
    let question = "上个月内科和外科哪个门诊量高";
    let query = build(question).unwrap_or_else(|r| panic!("{r:?}"));
    assert_eq!(query.group_by, vec!["科室".to_string()]);
    assert_eq!(query.filters[0].values.len(), 2);
    covered(question, &query).unwrap();
}

#[test]
fn english_time_adjectives_and_determiners_after_by() {
    let daily = build("daily fee this month").unwrap_or_else(|r| panic!("{r:?}"));
    assert_eq!(daily.grain, Some(Grain::Day));
    covered("daily fee this month", &daily).unwrap();
    let each = build("fee by each ward last month").unwrap_or_else(|r| panic!("{r:?}"));
    assert_eq!(each.group_by, vec!["科室".to_string()]);
    covered("fee by each ward last month", &each).unwrap();
}

#[test]
fn how_much_money_is_the_one_total_in_a_currency() {
    // 诊费 is the model's one sum in 元; 门诊量 counts visits.
    let query = build("内科上个月一共收了多少钱").expect("built");
    let names: Vec<String> = query.measures.iter().map(|m| m.name.clone()).collect();
    assert_eq!(names, ["诊费"], "{query:?}");
    // Without a word of money, nothing is chosen for it.
    assert!(build("内科上个月一共收了多少").is_err());
}
