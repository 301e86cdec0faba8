//! 理解为 for a metric call: the metric query stated in words, Chinese and English, from the model's labels.

use serde_json::{Map, Value};
use wenshu_contract::Tool;
use wenshu_contract::metric::{ChangeBy, CompareKind, DayKind, DayPart, MetricQuery, OrderDir, ResolvedQuery};

use super::present::measure_label;

/// What 理解为 says of a metric call over no period until the data's own span is read.
pub const NO_PERIOD_ZH: &str = "全部日期（问题未限定时间）";
/// [`NO_PERIOD_ZH`] in English.
pub const NO_PERIOD_EN: &str = "every day of the data (no period asked)";
/// The name of the data's own span, when a call over no period read it (`全部数据：2024-11-30～2026-11-29`).
pub const ALL_DATA_ZH: &str = "全部数据";
/// [`ALL_DATA_ZH`] in English.
pub const ALL_DATA_EN: &str = "all the data";

/// The metric query of a call in words (`销售指标分析 · 销售额 · 产品：企业版 · 2026-10-01～2026-10-31 · 按地区 ·
/// 销售额从高到低前 3`); none when the tool has no metric model or the arguments are no query of it.
pub fn describe(tool: &Tool, arguments: &Map<String, Value>) -> Option<(String, String)> {
    let model = tool.extensions().metrics.as_deref()?;
    let query: MetricQuery = serde_json::from_value(Value::Object(arguments.clone())).ok()?;
    let q: ResolvedQuery = query.resolve(model).ok()?;
    let mut zh = vec![tool.title().unwrap_or(tool.name()).to_string()];
    let mut en = vec![tool.name().to_string()];
    let measures: Vec<String> = (0..q.measures.len()).map(|p| measure_label(model, &q, p)).collect();
    zh.push(measures.join("、"));
    en.push(measures.join(", "));
    for (dim, values) in &q.filters {
        let label = &model.dimensions[*dim].label;
        zh.push(format!("{label}：{}", values.join("、")));
        en.push(format!("{label}: {}", values.join(", ")));
    }
    match &q.range {
        Some((start, end)) => {
            zh.push(format!("{start}～{end}"));
            en.push(format!("{start}..{end}"));
        }
        // The period used is always said: a question that names none is answered over every day of the data.
        None if model.time.is_some() => {
            zh.push(NO_PERIOD_ZH.into());
            en.push(NO_PERIOD_EN.into());
        }
        None => {}
    }
    if let Some((measure, op, value)) = q.each {
        let label = &model.measures[measure].label;
        zh.push(format!("单条记录的{label} {} {value}", op.sql()));
        en.push(format!("records with {label} {} {value}", op.sql()));
    }
    match q.days {
        Some(DayKind::Weekend) => {
            zh.push("只算周末（周六、周日）".into());
            en.push("weekends only (Saturday, Sunday)".into());
        }
        Some(DayKind::Workday) => {
            zh.push("只算工作日（周一至周五）".into());
            en.push("working days only (Monday to Friday)".into());
        }
        None => {}
    }
    match q.by_day {
        Some(DayPart::Weekday) => {
            zh.push("按星期几".into());
            en.push("by day of the week".into());
        }
        Some(DayPart::Weekend) => {
            zh.push("分工作日（周一至周五）和周末".into());
            en.push("working days (Monday to Friday) and weekends".into());
        }
        None => {}
    }
    if let Some((m, bounds)) = &q.bands {
        let label = &model.measures[*m].label;
        let bounds: Vec<String> = bounds.iter().map(|b| wenshu_sql::metric::numeral(*b)).collect();
        zh.push(format!("按每条记录的{label}分区间（分界：{}）", bounds.join("、")));
        en.push(format!(
            "by bands of each record's {label} (bounds {})",
            bounds.join(", ")
        ));
    }
    if !q.group_by.is_empty() {
        let labels: Vec<&str> = q.group_by.iter().map(|d| model.dimensions[*d].label.as_str()).collect();
        zh.push(format!("按{}", labels.join("、")));
        en.push(format!("by {}", labels.join(", ")));
    }
    if let Some(grain) = q.grain {
        zh.push(format!("每{}", grain.label()));
        en.push(format!("per {}", grain.name()));
    }
    if q.cumulative {
        zh.push("逐期累计".into());
        en.push("running total".into());
    }
    if let Some((position, dir)) = q.sort {
        let label = &model.dimensions[q.group_by[position]].label;
        let (z, e) = match dir {
            OrderDir::Asc => ("升序", "ascending"),
            OrderDir::Desc => ("降序", "descending"),
        };
        zh.push(format!("按{label}{z}"));
        en.push(format!("sorted by {label}, {e}"));
        if let Some(n) = q.limit {
            zh.push(format!("前 {n} 行"));
            en.push(format!("first {n} rows"));
        }
    }
    if let Some((position, dir)) = q.order {
        let label = &measures[position];
        let (z, e) = match dir {
            OrderDir::Desc => ("从高到低", "highest first"),
            OrderDir::Asc => ("从低到高", "lowest first"),
        };
        let groups = q.within.map(|(groups, keep)| {
            let name = match groups {
                Some(d) => model.dimensions[d].label.clone(),
                None => q.grain.map_or_else(String::new, |g| g.label().to_string()),
            };
            (name, keep)
        });
        if let Some((name, keep)) = &groups {
            zh.push(format!("每个{name}内{label}{z}前 {keep}"));
            en.push(format!("{label} {e}, top {keep} in each {name}"));
        }
        match q.limit {
            Some(n) if groups.is_some() => {
                zh.push(format!("共最多 {n} 行"));
                en.push(format!("at most {n} rows"));
            }
            None if groups.is_some() => {}
            Some(n) => {
                zh.push(format!("{label}{z}前 {n}"));
                en.push(format!("{label} {e}, top {n}"));
            }
            None => {
                zh.push(format!("{label}{z}"));
                en.push(format!("{label} {e}"));
            }
        }
    }
    if let Some((position, op, value)) = q.having {
        if q.having_share {
            let percent = value * 100.0;
            zh.push(format!("{}占比 {} {percent}%", measures[position], op.sql()));
            en.push(format!("share of {} {} {percent}%", measures[position], op.sql()));
        } else {
            zh.push(format!("{} {} {value}", measures[position], op.sql()));
            en.push(format!("{} {} {value}", measures[position], op.sql()));
        }
        let (and_zh, and_en) = if q.having_any { ("或", "or") } else { ("且", "and") };
        for &(position, op, value) in &q.having_also {
            zh.push(format!("{and_zh} {} {} {value}", measures[position], op.sql()));
            en.push(format!("{and_en} {} {} {value}", measures[position], op.sql()));
        }
    }
    if let Some((position, op, parent)) = q.relative {
        let (z, e) = match op.sql() {
            ">" | ">=" => ("高于", "above"),
            _ => ("低于", "below"),
        };
        let label = &measures[position];
        let (of_zh, of_en) = if q.relative_median {
            ("中位数", "median")
        } else {
            ("平均", "mean")
        };
        match parent {
            Some(d) => {
                let parent = &model.dimensions[d].label;
                zh.push(format!("{label}{z}所在{parent}的{of_zh}"));
                en.push(format!("{label} {e} the {of_en} of its {parent}"));
            }
            None => {
                zh.push(format!("{label}{z}{of_zh}"));
                en.push(format!("{label} {e} the {of_en}"));
            }
        }
    }
    if let Some((kind, other)) = &q.compare {
        let (z, e) = match (kind, other) {
            (_, Some((start, end))) => (format!("对比 {start}～{end}"), format!("vs {start}..{end}")),
            (CompareKind::PreviousPeriod, None) => ("环比（与上一期对比）".into(), "vs the previous period".into()),
            (CompareKind::YearOverYear, None) => ("同比（与去年同期对比）".into(), "vs a year earlier".into()),
        };
        zh.push(z);
        en.push(e);
    }
    if let Some((by, dir, limit)) = q.change_rank {
        let label = &measures[0];
        let (what_zh, what_en) = match by {
            ChangeBy::Change => ("变化", "change"),
            ChangeBy::Rate => ("变化率", "rate of change"),
        };
        let (z, e) = match dir {
            OrderDir::Desc => ("从高到低", "highest first"),
            OrderDir::Asc => ("从低到高", "lowest first"),
        };
        let n = limit.map(|n| format!("前 {n}")).unwrap_or_default();
        zh.push(format!("按{label}{what_zh}{z}{n}"));
        en.push(format!(
            "by the {what_en} of {label}, {e}{}",
            limit.map(|n| format!(", top {n}")).unwrap_or_default()
        ));
    }
    if q.share.is_some() {
        zh.push("占比".into());
        en.push("share of the total".into());
    }
    Some((zh.join(" · "), en.join(" · ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ranked_filtered_query_reads_in_words() {
        let catalog = wenshu_contract::demo_catalog().unwrap();
        let tool = catalog.get("sales_metrics").unwrap();
        let args = serde_json::json!({"measures": [{"name": "销量"}], "filters": [{"dimension": "产品", "values": ["企业版"]}],
            "timeRange": {"start": "2026-10-01", "end": "2026-10-31"}, "groupBy": ["销售"],
            "order": {"measure": "销量", "direction": "desc"}, "limit": 3});
        let (zh, en) = describe(tool, args.as_object().unwrap()).unwrap();
        assert_eq!(
            zh,
            "销售指标分析 · 销量 · 产品：企业版 · 2026-10-01～2026-10-31 · 按销售 · 销量从高到低前 3"
        );
        assert!(en.contains("top 3"), "{en}");
    }
}
