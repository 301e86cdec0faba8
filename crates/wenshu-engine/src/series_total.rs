//! The total under a series: a series tool answering a question about a period — 最近7天长津湖的票房, not
//! 每日 / 逐月 / 按周, which ask for the buckets themselves — gets one more row, 合计, summing each measure column
//! that is additive. A column is additive when the catalog says so: one of its metric tools declares a measure of
//! that name or label as a plain `SUM` or `COUNT` (a rating, a rate or an average never is). Nothing else is summed.

use serde_json::{Number, Value};
use wenshu_contract::answers::Shape;
use wenshu_contract::metric::MetricExpr;
use wenshu_contract::{Catalog, Tool};

/// The label of the total row, in its first text column.
pub const TOTAL_LABEL: &str = "合计";

/// The 合计 row for `rows` of `tool`'s series, when the question asks about the period as a whole and at least one
/// column is an additive measure; `None` otherwise (and always for one row, an empty or a truncated result).
pub fn total_row(
    tool: &Tool,
    params: &serde_json::Map<String, Value>,
    catalog: &Catalog,
    question: &str,
    today: jiff::civil::Date,
    columns: &[String],
    rows: &[Vec<Value>],
) -> Option<Vec<Value>> {
    if rows.len() < 2 || !is_series(tool, params) || asks_for_buckets(question, today) {
        return None;
    }
    let labels = wenshu_contract::columns::read_columns(tool.definition().get("x-columns")).unwrap_or_default();
    let additive: Vec<bool> = columns
        .iter()
        .map(|column| {
            let label = labels.get(column).map(|l| l.label.as_str());
            is_additive(catalog, column) || label.is_some_and(|label| is_additive(catalog, label))
        })
        .collect();
    let label_at = (0..columns.len()).find(|&i| !additive[i] && rows.iter().all(|row| !row[i].is_number()))?;
    let mut total = vec![Value::Null; columns.len()];
    total[label_at] = Value::String(TOTAL_LABEL.into());
    let mut summed = false;
    for (i, _) in additive.iter().enumerate().filter(|(_, additive)| **additive) {
        let cells: Option<Vec<&Number>> = rows
            .iter()
            .map(|row| match row.get(i) {
                Some(Value::Number(n)) => Some(n),
                _ => None,
            })
            .collect();
        if let Some(sum) = cells.and_then(|cells| sum_of(&cells)) {
            total[i] = Value::Number(sum);
            summed = true;
        }
    }
    summed.then_some(total)
}

/// Whether the tool's answer to this call is a series.
fn is_series(tool: &Tool, params: &serde_json::Map<String, Value>) -> bool {
    let Some(answers) = &tool.extensions().answers else {
        return false;
    };
    answers
        .for_call(params)
        .is_some_and(|answer| answer.shape == Shape::Series)
}

/// Whether the question asks for the buckets of a time grain (每日, 逐月, by week).
fn asks_for_buckets(question: &str, today: jiff::civil::Date) -> bool {
    wenshu_lexicon::demand::demands_of(question, today)
        .iter()
        .any(|demand| demand.grain().is_some())
}

/// Whether some metric tool of `catalog` declares `name` as a plain SUM or COUNT measure.
fn is_additive(catalog: &Catalog, name: &str) -> bool {
    catalog.tools().iter().any(|tool| {
        let Some(model) = &tool.extensions().metrics else {
            return false;
        };
        model.measure_index(name).is_some_and(|i| {
            matches!(&model.measures[i].expr, MetricExpr::Call { name, distinct: false, .. }
                if name == "sum" || name == "count")
        })
    })
}

/// The sum of the cells: an integer when every cell is one, else a fraction rounded to the most decimals shown.
fn sum_of(cells: &[&Number]) -> Option<Number> {
    if let Some(ints) = cells.iter().map(|n| n.as_i64()).collect::<Option<Vec<i64>>>() {
        return ints
            .iter()
            .try_fold(0i64, |sum, n| sum.checked_add(*n))
            .map(Number::from);
    }
    let places = cells
        .iter()
        .map(|n| n.to_string().split_once('.').map_or(0, |(_, f)| f.len()))
        .max()
        .unwrap_or(0)
        .min(6) as i32;
    let sum: f64 = cells.iter().filter_map(|n| n.as_f64()).sum();
    let scale = 10f64.powi(places);
    Number::from_f64((sum * scale).round() / scale)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn number(v: Value) -> Number {
        match v {
            Value::Number(n) => n,
            _ => unreachable!("a number"),
        }
    }

    #[test]
    fn sums_keep_integers_and_the_decimals_shown() {
        let ints = [number(json!(3)), number(json!(4))];
        assert_eq!(sum_of(&ints.iter().collect::<Vec<_>>()), Some(Number::from(7)));
        let fractions = [number(json!(702.23)), number(json!(695.33)), number(json!(0.1))];
        let sum = sum_of(&fractions.iter().collect::<Vec<_>>()).and_then(|n| n.as_f64());
        assert_eq!(sum, Some(1397.66));
    }

    /// A series tool of daily `amount` (销量) and `score` (评分), and a metric tool where 销量 is a SUM and 评分
    /// an AVG.
    fn catalog() -> Catalog {
        let series = json!({"name": "daily", "description": "每日销量和评分",
            "inputSchema": {"type": "object", "properties": {}},
            "x-answers": {"shape": "series", "grain": "day", "measures": ["销量", "评分"]},
            "x-columns": {"day": "日期", "amount": "销量", "score": "评分"},
            "x-sql": {"query": "SELECT day, amount, score FROM t"}});
        let metrics = json!({"name": "metrics", "description": "指标",
            "x-metrics": {"from": [{"table": "t", "columns": ["day", "shop", "amount", "score"]}],
                "time": {"column": "day", "type": "text", "grains": ["day"]},
                "measures": [{"name": "amount", "label": "销量", "expr": "SUM(amount)"},
                             {"name": "score", "label": "评分", "expr": "AVG(score)"}],
                "dimensions": [{"name": "shop", "label": "门店", "column": "shop", "values": "data"}]}});
        Catalog::from_value(&json!({"tools": [series, metrics]})).expect("catalog")
    }

    #[test]
    fn only_an_additive_measure_is_summed_and_only_for_a_period() {
        let catalog = catalog();
        let tool = catalog.get("daily").expect("daily");
        let today = jiff::civil::date(2026, 11, 29);
        let columns: Vec<String> = ["day", "amount", "score"].map(String::from).into();
        let rows = vec![
            vec![json!("2026-11-28"), json!(3), json!(4.5)],
            vec![json!("2026-11-29"), json!(4), json!(3.5)],
        ];
        let params = serde_json::Map::new();
        let total = total_row(tool, &params, &catalog, "最近两天的销量", today, &columns, &rows);
        assert_eq!(total, Some(vec![json!(TOTAL_LABEL), json!(7), Value::Null]));
        assert_eq!(
            total_row(tool, &params, &catalog, "最近两天每天的销量", today, &columns, &rows),
            None
        );
        assert_eq!(
            total_row(tool, &params, &catalog, "最近两天的销量", today, &columns, &rows[..1]),
            None
        );
        let scores_only: Vec<String> = ["day", "score"].map(String::from).into();
        let score_rows: Vec<Vec<Value>> = rows.iter().map(|r| vec![r[0].clone(), r[2].clone()]).collect();
        assert_eq!(
            total_row(
                tool,
                &params,
                &catalog,
                "最近两天的评分",
                today,
                &scores_only,
                &score_rows
            ),
            None
        );
    }

    #[test]
    fn a_grain_in_the_question_asks_for_the_buckets() {
        let today = jiff::civil::date(2026, 11, 29);
        assert!(asks_for_buckets("最近7天的每日票房", today));
        assert!(asks_for_buckets("上个月每周的销量", today));
        assert!(!asks_for_buckets("最近7天的票房", today));
    }
}
