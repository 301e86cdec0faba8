//! How a metric answer reads: columns labelled by measure and dimension labels, a headline for one number, and a
//! chart hint chosen by the shape (bars for groups and rankings, lines for time grains, one axis per measure).

use serde::Serialize;
use serde_json::Value;
use wenshu_contract::metric::{Combine, DayPart, Measured, MetricModel, ResolvedQuery};

use wenshu_sql::metric::OutputColumn;

/// What one column of a metric answer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnKind {
    /// A dimension's values.
    Dimension,
    /// Time buckets.
    Time,
    /// A measure's values.
    Measure,
    /// A share of the total (a fraction).
    Share,
    /// The difference of two periods.
    Change,
    /// The change over the earlier value (a fraction).
    Rate,
}

/// One labelled column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnInfo {
    /// The label shown (`销售额`, `地区`, `销售额（2026-07-01～2026-09-30）`).
    pub label: String,
    /// What it holds.
    pub kind: ColumnKind,
    /// The unit of its numbers, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// Decimals shown, if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decimals: Option<u8>,
}

/// The kind of chart that fits the answer's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChartKind {
    /// One number: no chart, the headline.
    Number,
    /// Bars: groups, rankings, comparisons.
    Bar,
    /// Lines: values over time buckets.
    Line,
}

/// One series of a chart: a column and the axis it is drawn on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Series {
    /// The column index.
    pub column: usize,
    /// The value axis (one per measure).
    pub axis: usize,
}

/// The chart hint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChartHint {
    /// The kind of chart.
    pub kind: ChartKind,
    /// The column on the category or time axis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<usize>,
    /// The value series.
    pub series: Vec<Series>,
    /// The column whose values split the bars into groups (the first rows of each group), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<usize>,
}

/// How a metric answer is shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Presentation {
    /// One sentence for a single number (value, unit, period), or for a single comparison.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headline: Option<String>,
    /// [`Presentation::headline`] in English (the catalog's labels as they are).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headline_en: Option<String>,
    /// The columns, labelled.
    pub columns: Vec<ColumnInfo>,
    /// The chart that fits.
    pub chart: ChartHint,
}

/// The columns of a plain (non-comparison) answer.
pub fn plain_columns(model: &MetricModel, query: &ResolvedQuery, columns: &[OutputColumn]) -> Vec<ColumnInfo> {
    columns
        .iter()
        .map(|c| match *c {
            OutputColumn::Dimension(d) => info(model.dimensions[d].label.clone(), ColumnKind::Dimension, None, None),
            OutputColumn::Bucket(g) => info(g.label().to_string(), ColumnKind::Time, None, None),
            OutputColumn::Measure(p) => measure_info(model, query, p, None),
            OutputColumn::Share(p) => info(
                format!("{}占比", measure_label(model, query, p)),
                ColumnKind::Share,
                None,
                Some(4),
            ),
            OutputColumn::Day(DayPart::Weekday) => info("星期".into(), ColumnKind::Dimension, None, None),
            OutputColumn::Day(DayPart::Weekend) => info("工作日/周末".into(), ColumnKind::Dimension, None, None),
            OutputColumn::Band => {
                let label = query
                    .bands
                    .as_ref()
                    .map_or("", |(m, _)| model.measures[*m].label.as_str());
                info(format!("{label}区间"), ColumnKind::Dimension, None, None)
            }
        })
        .collect()
}

/// The names of the bands a statement numbers (0 → `<10000`, 1 → `10000–50000`, 2 → `≥50000`), in place.
pub fn name_bands(query: &ResolvedQuery, columns: &[OutputColumn], rows: &mut [Vec<Value>]) {
    let Some((_, bounds)) = &query.bands else {
        return;
    };
    let Some(i) = columns.iter().position(|c| *c == OutputColumn::Band) else {
        return;
    };
    let number = |n: f64| wenshu_sql::metric::numeral(n);
    for row in rows.iter_mut() {
        let Some(cell) = row.get_mut(i) else { continue };
        let Some(band) = cell
            .as_u64()
            .or_else(|| {
                cell.as_str()
                    .and_then(|t| t.trim().parse::<f64>().ok())
                    .map(|f| f as u64)
            })
            .or_else(|| cell.as_f64().map(|f| f as u64))
        else {
            continue;
        };
        let band = band as usize;
        let name = match (band.checked_sub(1).and_then(|b| bounds.get(b)), bounds.get(band)) {
            (None, Some(hi)) => format!("<{}", number(*hi)),
            (Some(lo), Some(hi)) => format!("{}–{}", number(*lo), number(*hi)),
            (Some(lo), None) => format!("≥{}", number(*lo)),
            (None, None) => continue,
        };
        *cell = Value::String(name);
    }
}

/// The names of the days a statement numbers (1 → 周一 … 7 → 周日; 0 → 工作日, 1 → 周末), in place.
pub fn name_days(columns: &[OutputColumn], rows: &mut [Vec<Value>]) {
    const WEEKDAYS: [&str; 7] = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"];
    for (i, column) in columns.iter().enumerate() {
        let OutputColumn::Day(part) = column else { continue };
        for row in rows.iter_mut() {
            let Some(cell) = row.get_mut(i) else { continue };
            // PostgreSQL and MariaDB may send the number as text or a decimal.
            let n = cell.as_i64().or_else(|| {
                cell.as_str()
                    .and_then(|t| t.trim().parse::<f64>().ok())
                    .map(|f| f as i64)
            });
            let name = match (part, n) {
                (DayPart::Weekday, Some(d @ 1..=7)) => WEEKDAYS[(d - 1) as usize],
                (DayPart::Weekend, Some(0)) => "工作日",
                (DayPart::Weekend, Some(1)) => "周末",
                _ => continue,
            };
            *cell = Value::String(name.into());
        }
    }
}

/// A measure's column, its label marked with a period when given.
pub fn measure_info(model: &MetricModel, query: &ResolvedQuery, position: usize, period: Option<&str>) -> ColumnInfo {
    let label = match period {
        Some(p) => format!("{}（{p}）", measure_label(model, query, position)),
        None => measure_label(model, query, position),
    };
    let Measured::Measure(m) = query.measures[position].of else {
        return info(label, ColumnKind::Measure, None, Some(0));
    };
    let spec = &model.measures[m];
    let sel = &query.measures[position];
    let unit = match (sel.aggregate, sel.combined) {
        (Some(wenshu_contract::metric::Reaggregate::Count), _) => None,
        // 元 per 单: the numerator's unit over the denominator's.
        (_, Some((Combine::Ratio, other))) => match (&spec.unit, &model.measures[other].unit) {
            (Some(top), Some(bottom)) => Some(format!("{top}/{bottom}")),
            _ => None,
        },
        _ => spec.unit.clone(),
    };
    let decimals = match sel.combined {
        Some((Combine::Ratio, _)) => Some(spec.decimals.unwrap_or(0).max(2)),
        _ => spec.decimals,
    };
    info(label, ColumnKind::Measure, unit, decimals)
}

/// A selected measure's label: `销售额`, `平均销售额`, `月均销售额`; a distinct count's `销售个数`.
pub fn measure_label(model: &MetricModel, query: &ResolvedQuery, position: usize) -> String {
    let sel = &query.measures[position];
    let label = match sel.of {
        Measured::Measure(m) => &model.measures[m].label,
        Measured::Distinct(d) => return format!("{}个数", model.dimensions[d].label),
    };
    if let Some((how, other)) = sel.combined {
        let with = &model.measures[other];
        return match (how, with.unit.as_deref()) {
            (Combine::Ratio, Some(unit)) => format!("每{unit}{label}"),
            (Combine::Ratio, None) => format!("{label} / {}", with.label),
            (Combine::Difference, _) => format!("{label} − {}", with.label),
        };
    }
    match (sel.aggregate, sel.per, sel.over) {
        (Some(a), _, _) => format!("{}{label}", a.label()),
        (None, Some(g), _) => format!("{}均{label}", g.label()),
        (None, None, Some(d)) => format!("{label}（每{}）", model.dimensions[d].label),
        (None, None, None) => label.clone(),
    }
}

/// A labelled column.
pub fn info(label: String, kind: ColumnKind, unit: Option<String>, decimals: Option<u8>) -> ColumnInfo {
    ColumnInfo {
        label,
        kind,
        unit,
        decimals,
    }
}

/// The chart that fits the columns: lines over time, bars over categories, a number when there is one row of
/// values; one axis per measure.
pub fn chart(columns: &[ColumnInfo], rows: usize) -> ChartHint {
    let x = columns
        .iter()
        .position(|c| c.kind == ColumnKind::Time)
        .or_else(|| columns.iter().position(|c| c.kind == ColumnKind::Dimension));
    let mut axes: Vec<String> = Vec::new();
    let series = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c.kind, ColumnKind::Measure | ColumnKind::Share))
        .map(|(column, c)| {
            let key = c.label.split('（').next().unwrap_or_default().to_string();
            let axis = axes.iter().position(|a| *a == key).unwrap_or_else(|| {
                axes.push(key);
                axes.len() - 1
            });
            Series { column, axis }
        })
        .collect();
    let kind = match x {
        Some(i) if columns[i].kind == ColumnKind::Time => ChartKind::Line,
        Some(_) => ChartKind::Bar,
        None if rows <= 1 && !columns.iter().any(|c| c.kind == ColumnKind::Change) => ChartKind::Number,
        None => ChartKind::Bar,
    };
    ChartHint {
        kind,
        x,
        series,
        group: None,
    }
}

/// The headline of a one-row answer without categories: each value with its unit, and the period.
pub fn headline(columns: &[ColumnInfo], rows: &[Vec<Value>], period: Option<&str>) -> Option<String> {
    headlines(columns, rows, period, None).map(|(zh, _)| zh)
}

/// The two periods a comparison compares, and what is said of them (`截至 2026-12-05，与同期对比`, in both languages).
pub struct Compared<'a> {
    /// This period.
    pub this: &'a str,
    /// The period it is compared with.
    pub other: &'a str,
    /// A note on both, Chinese and English.
    pub note: Option<(String, String)>,
}

/// The headline in Chinese and English. A single comparison (this period, the other, the change, its rate) is said
/// short, the periods once: `销售额 594,541元，上期 544,071元，变化 +50,470元（+9.28%）；2026-12-01～2026-12-05
/// 对比 2026-11-01～2026-11-05`.
pub fn headlines(
    columns: &[ColumnInfo],
    rows: &[Vec<Value>],
    period: Option<&str>,
    compared: Option<&Compared<'_>>,
) -> Option<(String, String)> {
    let [row] = rows else { return None };
    if columns
        .iter()
        .any(|c| matches!(c.kind, ColumnKind::Dimension | ColumnKind::Time))
    {
        return None;
    }
    if let (Some(Compared { this, other, note }), [now, _, change, rate]) = (compared, columns) {
        let measure = change.label.strip_suffix("变化").unwrap_or(&change.label);
        if now.kind == ColumnKind::Measure && rate.kind == ColumnKind::Rate {
            let value = |i: usize| format_value(&columns[i], &row[i]);
            let signed = |i: usize| match row[i].as_f64() {
                Some(n) if n > 0.0 => format!("+{}", value(i)),
                _ => value(i),
            };
            let (note_zh, note_en) = note.as_ref().map_or((String::new(), String::new()), |(zh, en)| {
                (format!("（{zh}）"), format!(" ({en})"))
            });
            return Some((
                format!(
                    "{measure} {}，上期 {}，变化 {}（{}）；{this} 对比 {other}{note_zh}",
                    value(0),
                    value(1),
                    signed(2),
                    signed(3)
                ),
                format!(
                    "{measure} {}, previous {}, change {} ({}); {this} vs {other}{note_en}",
                    value(0),
                    value(1),
                    signed(2),
                    signed(3)
                ),
            ));
        }
    }
    // No value at all (a period the data does not reach): said in words, never 销售额：—.
    if row.iter().all(Value::is_null) {
        let labels: Vec<&str> = columns.iter().map(|c| c.label.as_str()).collect();
        let (zh, en) = (
            format!("没有{}数据", labels.join("、")),
            format!("no data for {}", labels.join(", ")),
        );
        return Some(match period {
            Some(p) => (format!("{p}：{zh}"), format!("{p}: {en}")),
            None => (zh, en),
        });
    }
    let zh: Vec<String> = columns
        .iter()
        .zip(row)
        .map(|(c, v)| format!("{}：{}", c.label, format_value(c, v)))
        .collect();
    let en: Vec<String> = columns
        .iter()
        .zip(row)
        .map(|(c, v)| format!("{}: {}", c.label, format_value(c, v)))
        .collect();
    Some(match period {
        Some(p) => (format!("{p}，{}", zh.join("，")), format!("{p}: {}", en.join(", "))),
        None => (zh.join("，"), en.join(", ")),
    })
}

/// A value as shown: grouped digits, the column's decimals and unit (a whole number without decimals, as the
/// fixed tools show it: 2,406,672元, never 2,406,672.00元); fractions as percentages.
pub fn format_value(column: &ColumnInfo, value: &Value) -> String {
    let Some(n) = value.as_f64() else {
        return match value {
            Value::Null => "—".into(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    };
    match column.kind {
        ColumnKind::Share | ColumnKind::Rate => format!("{:.2}%", n * 100.0),
        _ => {
            let decimals = if n.fract() == 0.0 {
                0
            } else {
                column.decimals.unwrap_or(2)
            };
            let unit = column.unit.as_deref().unwrap_or("");
            format!("{}{unit}", group_digits(n, decimals))
        }
    }
}

fn group_digits(n: f64, decimals: u8) -> String {
    let text = format!("{:.*}", usize::from(decimals), n.abs());
    let (whole, frac) = text
        .split_once('.')
        .map_or((text.as_str(), None), |(w, f)| (w, Some(f)));
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if n < 0.0 && text.chars().any(|c| c != '0' && c != '.') {
        "-"
    } else {
        ""
    };
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_grouped_with_unit_and_decimals() {
        let c = info("销售额".into(), ColumnKind::Measure, Some("元".into()), Some(2));
        assert_eq!(format_value(&c, &json!(15650305.834)), "15,650,305.83元");
        assert_eq!(format_value(&c, &json!(-1200.5)), "-1,200.50元");
        assert_eq!(
            format_value(&c, &json!(2406672)),
            "2,406,672元",
            "a whole amount shows no .00"
        );
        assert_eq!(format_value(&c, &json!(2406672.0)), "2,406,672元");
        let r = info("变化率".into(), ColumnKind::Rate, None, None);
        assert_eq!(format_value(&r, &json!(0.1234)), "12.34%");
    }

    #[test]
    fn the_chart_follows_the_shape() {
        let time = info("月".into(), ColumnKind::Time, None, None);
        let dim = info("地区".into(), ColumnKind::Dimension, None, None);
        let m = info("销售额".into(), ColumnKind::Measure, None, None);
        let q = info("销量".into(), ColumnKind::Measure, None, None);
        assert_eq!(chart(&[time, m.clone()], 12).kind, ChartKind::Line);
        let bars = chart(&[dim, m.clone(), q], 5);
        assert_eq!(bars.kind, ChartKind::Bar);
        assert_eq!(bars.series.iter().map(|s| s.axis).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(chart(std::slice::from_ref(&m), 1).kind, ChartKind::Number);
        let line = headline(&[m], &[vec![json!(3)]], Some("2026-11-01～2026-11-30"));
        assert_eq!(line.as_deref(), Some("2026-11-01～2026-11-30，销售额：3"));
    }

    #[test]
    fn a_period_without_data_is_said_in_words() {
        let m = info("销售额".into(), ColumnKind::Measure, Some("元".into()), Some(2));
        let (zh, en) = headlines(&[m], &[vec![Value::Null]], Some("2024-01-01～2024-01-31"), None).unwrap();
        assert_eq!(zh, "2024-01-01～2024-01-31：没有销售额数据");
        assert_eq!(en, "2024-01-01～2024-01-31: no data for 销售额");
    }

    #[test]
    fn a_comparison_is_said_short_with_its_periods_once_in_both_languages() {
        let now = info("销售额（11月）".into(), ColumnKind::Measure, Some("元".into()), Some(0));
        let before = info("销售额（10月）".into(), ColumnKind::Measure, Some("元".into()), Some(0));
        let change = info("销售额变化".into(), ColumnKind::Change, Some("元".into()), Some(0));
        let rate = info("销售额变化率".into(), ColumnKind::Rate, None, Some(4));
        let compared = Compared {
            this: "2026-11-01～2026-11-29",
            other: "2026-10-01～2026-10-29",
            note: Some(("截至 2026-11-29，与同期对比".into(), "through 2026-11-29".into())),
        };
        let (zh, en) = headlines(
            &[now, before, change, rate],
            &[vec![json!(1200), json!(1000), json!(200), json!(0.2)]],
            Some("ignored when compared"),
            Some(&compared),
        )
        .unwrap();
        assert_eq!(
            zh,
            "销售额 1,200元，上期 1,000元，变化 +200元（+20.00%）；2026-11-01～2026-11-29 对比 2026-10-01～2026-10-29（截至 2026-11-29，与同期对比）"
        );
        assert_eq!(zh.matches("2026-11-01").count(), 1, "the period once");
        assert!(
            en.starts_with("销售额 1,200元, previous 1,000元, change +200元 (+20.00%); "),
            "{en}"
        );
    }
}
