//! The metric query: what to compute from a metric model, by names only (never SQL, never IDs), and its check
//! name by name against the model.

use serde::{Deserialize, Serialize};

use super::{Grain, MetricModel, Reaggregate};

/// The most rows a metric query may ask for.
pub const MAX_LIMIT: u32 = 1000;

/// One measure asked for, optionally re-aggregated or averaged per time bucket; or, with `distinct`, the number of
/// distinct values of a dimension (多少个销售, 几位客户: `COUNT(DISTINCT key)`, never the row count).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MeasureSel {
    /// The measure's code, label or synonym; with `distinct`, the dimension's.
    pub name: String,
    /// A re-aggregation the measure allows (`avg` of `SUM(amount)` is `AVG(amount)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Reaggregate>,
    /// The mean of the measure per bucket of this grain over the time range (平均每个月).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<Grain>,
    /// `name` is a dimension: count its distinct values (by its key when it has one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub distinct: bool,
    /// The measure per distinct value of this dimension (人均销售额: the sales over the number of salespeople);
    /// only a sum or a count is divided so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over: Option<String>,
    /// The measure divided by this other measure (每单销量 = 销量 / 订单数, 平均每套的金额 = 销售额 / 销量): a
    /// ratio of the two totals, never a mean of ratios; both a sum or a count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divided_by: Option<String>,
    /// The measure less this other measure of the same unit (销售额减去成本); both a sum or a count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minus: Option<String>,
}

impl MeasureSel {
    /// The measure itself, by name.
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            aggregate: None,
            per: None,
            distinct: false,
            over: None,
            divided_by: None,
            minus: None,
        }
    }

    /// The number of distinct values of a dimension, by name.
    pub fn distinct(dimension: impl Into<String>) -> Self {
        Self {
            distinct: true,
            ..Self::named(dimension)
        }
    }
}

/// `dimension IN (values)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Filter {
    /// The dimension's code, label or synonym.
    pub dimension: String,
    /// One value or several.
    pub values: Vec<String>,
}

/// A closed range of ISO days.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeRange {
    /// The first day, `YYYY-MM-DD`.
    pub start: String,
    /// The last day, `YYYY-MM-DD`.
    pub end: String,
}

/// Ascending or descending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OrderDir {
    /// Smallest first.
    Asc,
    /// Largest first.
    Desc,
}

/// Order the rows by a measure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Order {
    /// The measure's code, label or synonym.
    pub measure: String,
    /// The direction.
    pub direction: OrderDir,
}

/// The comparison of a threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ThresholdOp {
    /// Greater than.
    #[serde(rename = ">")]
    Gt,
    /// At least.
    #[serde(rename = ">=")]
    Ge,
    /// Less than.
    #[serde(rename = "<")]
    Lt,
    /// At most.
    #[serde(rename = "<=")]
    Le,
}

impl ThresholdOp {
    /// The SQL operator.
    pub fn sql(self) -> &'static str {
        match self {
            Self::Gt => ">",
            Self::Ge => ">=",
            Self::Lt => "<",
            Self::Le => "<=",
        }
    }
}

/// Keep only groups whose measure passes a threshold (HAVING).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    /// The measure's code, label or synonym (for `having`, a counted dimension's too).
    pub measure: String,
    /// The comparison.
    pub op: ThresholdOp,
    /// The bound (bound by the driver, never written into the SQL); a fraction (0.1 for 10%) for `share`.
    pub value: f64,
    /// `having` only: the selection compared is the measure re-aggregated so (平均X超过…: its mean); without it,
    /// the measure itself when shown (总X超过…: the total).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregate: Option<Reaggregate>,
    /// `having` only: compare each group's share of the total (占比超过10%), which needs `share`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub share: bool,
}

impl Threshold {
    /// A threshold on the measure `measure` itself.
    pub fn new(measure: impl Into<String>, op: ThresholdOp, value: f64) -> Self {
        Self {
            measure: measure.into(),
            op,
            value,
            aggregate: None,
            share: false,
        }
    }
}

/// Which period a comparison sets beside the query's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompareKind {
    /// 环比: the previous period of the same length (the previous month, quarter or year for a whole one).
    PreviousPeriod,
    /// 同比: the same days one year earlier.
    YearOverYear,
}

/// A period-over-period comparison: both values, the change and the rate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compare {
    /// Which period.
    pub kind: CompareKind,
    /// The other period, when the question names it (otherwise derived from `kind`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<TimeRange>,
    /// The rows ranked by the first measure's change or rate (哪个产品环比增长最快).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<ChangeRank>,
}

/// What a ranking of compared rows is by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeBy {
    /// The difference (增长最多: this period's value less the other's).
    Change,
    /// The rate (增长最快, 涨幅最大: the difference over the other period's value).
    Rate,
}

/// The compared rows ranked by the first measure's change or rate; rows without one (no value in a period) last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangeRank {
    /// The change or the rate.
    pub by: ChangeBy,
    /// Largest first (`desc`) or smallest first.
    pub direction: OrderDir,
    /// How many rows to keep, when asked (前三).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// Each row's share of the total taken across these dimensions (their filters dropped from the total).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Share {
    /// The dimensions the share is taken across.
    pub across: Vec<String>,
}

/// The first rows of each group (每个地区销售额最高的产品): the rows ranked by the query's `order` inside each value
/// of a dimension, or inside each time bucket of the grain, and the first `limit` of each kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Within {
    /// The dimension whose values are the groups (its code, label or synonym); none for each time bucket of the
    /// query's `grain`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimension: Option<String>,
    /// How many rows each group keeps.
    pub limit: u32,
}

/// Keep the rows whose measure compares so with the mean of that measure over all the rows (高于平均水平的销售), or
/// over the rows sharing a dimension's value (超过所在地区平均的产品).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relative {
    /// The measure's code, label or synonym (a sum or a count).
    pub measure: String,
    /// The comparison.
    pub op: ThresholdOp,
    /// The dimension whose values split the rows the mean is taken over (grouped by, beside another grouping);
    /// none for all the rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
    /// Compare with the median (高于中位数) rather than the mean.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub median: bool,
}

/// Rows by the kind of each day of the range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DayPart {
    /// One row per day of the week, Monday first (按星期几).
    Weekday,
    /// Two rows: working days (Monday to Friday), then weekends (周末和工作日对比).
    Weekend,
}

/// The days of the range kept by their kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DayKind {
    /// Saturdays and Sundays (周末).
    Weekend,
    /// Monday to Friday (工作日; public holidays and swapped working days are not known).
    Workday,
}

/// Order the rows by a dimension's values (按地区排序, sorted by region): a dimension grouped by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SortBy {
    /// The dimension's code, label or synonym; it must be in `groupBy`.
    pub dimension: String,
    /// The direction.
    pub direction: OrderDir,
}

/// What to compute from a metric model, by names only.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MetricQuery {
    /// The measures.
    pub measures: Vec<MeasureSel>,
    /// Filters on dimensions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<Filter>,
    /// The days, when limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_range: Option<TimeRange>,
    /// One row per time bucket of this grain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grain: Option<Grain>,
    /// One row per value of these dimensions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub group_by: Vec<String>,
    /// The order of the rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Order>,
    /// The most rows (top-N).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// A threshold on a measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub having: Option<Threshold>,
    /// More thresholds on the groups beside `having` (销售额超过100万且订单数超过300): each on a measure itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_having: Vec<Threshold>,
    /// Keep a group when any of `having` and `alsoHaving` holds (或), not only when all do.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub having_any: bool,
    /// A threshold on each record's value of a measure (单笔金额超过10万): the records kept before aggregating;
    /// only for a measure that aggregates one column (`SUM(amount)` → `amount`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub each: Option<Threshold>,
    /// More thresholds on each record, beside `each` (单笔金额超过1万且销量超过5的订单).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_each: Vec<Threshold>,
    /// Whether a record is kept when any of `each` and `alsoEach` holds (else all must).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub each_any: bool,
    /// A period-over-period comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Compare>,
    /// Each row's share of the total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<Share>,
    /// The first rows of each group, ranked by `order`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<Within>,
    /// The rows ordered by a dimension's values instead of a measure (never with `order`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort: Option<SortBy>,
    /// One row per day of the week, or per kind of day (working days and weekends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_day: Option<DayPart>,
    /// Only the days of this kind (周末的销售额, 工作日的订单数).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<DayKind>,
    /// Keep the rows above (or below) the mean of a measure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative: Option<Relative>,
    /// Each time bucket's value summed with those before it (累计; per value of the other dimensions grouped by):
    /// needs `grain`, and only additive measures (a sum or a count).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cumulative: bool,
    /// Rows per band of each record's value of a measure (按金额区间: 1万以下, 1万到5万, 5万以上).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bands: Option<Bands>,
}

/// The bands of each record's value of a measure: below the first bound, between each two, and from the last up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bands {
    /// The measure whose value per record is banded (a single aggregate of one column: `SUM(amount)` → `amount`).
    pub measure: String,
    /// The bounds, increasing: a record equal to a bound is in the band above it.
    pub bounds: Vec<f64>,
}

/// The most bounds a query may give.
pub const MAX_BOUNDS: usize = 20;

/// Why a metric query does not fit its model: the field, the value and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("metric query field `{field}`: {reason}")]
pub struct QueryError {
    /// The field at fault (`measures[0].name`).
    pub field: String,
    /// Why, naming the value and what is allowed.
    pub reason: String,
}

impl QueryError {
    fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// What a selected measure computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measured {
    /// A measure of the model (its index).
    Measure(usize),
    /// The number of distinct values of a dimension (its index), by its key when it has one.
    Distinct(usize),
}

/// One selected measure, resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvedMeasure {
    /// What it computes.
    pub of: Measured,
    /// The re-aggregation, if any.
    pub aggregate: Option<Reaggregate>,
    /// The per-bucket mean, if any.
    pub per: Option<Grain>,
    /// The dimension (index) whose distinct values divide the measure (人均), if any.
    pub over: Option<usize>,
    /// Another measure (index) the measure is divided by or less, if any.
    pub combined: Option<(Combine, usize)>,
}

/// How a measure is combined with another at query time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// The ratio of the two totals.
    Ratio,
    /// The difference of the two totals.
    Difference,
}

/// A metric query checked against its model: every name an index, every range an ordered pair of ISO days.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedQuery {
    /// The measures shown, in order.
    pub measures: Vec<ResolvedMeasure>,
    /// `(dimension index, values)`.
    pub filters: Vec<(usize, Vec<String>)>,
    /// `(start, end)`, ISO days.
    pub range: Option<(String, String)>,
    /// The grain.
    pub grain: Option<Grain>,
    /// Dimension indexes grouped by.
    pub group_by: Vec<usize>,
    /// `(position in measures, direction)`.
    pub order: Option<(usize, OrderDir)>,
    /// The most rows.
    pub limit: Option<u32>,
    /// `(position in measures, op, value)`.
    pub having: Option<(usize, ThresholdOp, f64)>,
    /// Whether `having` compares the measure's share of the total (its value a fraction).
    pub having_share: bool,
    /// `(position in measures, op, value)`: more thresholds on the groups.
    pub having_also: Vec<(usize, ThresholdOp, f64)>,
    /// Whether a group is kept when any threshold holds (else all must).
    pub having_any: bool,
    /// `(measure index in the model, op, value)`: a threshold on each record's value of the measure.
    pub each: Option<(usize, ThresholdOp, f64)>,
    /// More thresholds on each record.
    pub each_also: Vec<(usize, ThresholdOp, f64)>,
    /// Whether a record is kept when any threshold on it holds (else all must).
    pub each_any: bool,
    /// The comparison kind and the other range, when given.
    pub compare: Option<(CompareKind, Option<(String, String)>)>,
    /// Dimension indexes the share is taken across.
    pub share: Option<Vec<usize>>,
    /// The first rows of each group: `(the grouping dimension's index, none for each time bucket, rows kept)`.
    pub within: Option<(Option<usize>, u32)>,
    /// `(position in group_by, direction)`: the rows ordered by a dimension's values.
    pub sort: Option<(usize, OrderDir)>,
    /// Whether each bucket's values are running totals.
    pub cumulative: bool,
    /// `(measure index in the model, bounds)`: rows per band of each record's value.
    pub bands: Option<(usize, Vec<f64>)>,
    /// `(position in measures, op, the dimension the mean is split by)`: rows compared with a mean.
    pub relative: Option<(usize, ThresholdOp, Option<usize>)>,
    /// Whether `relative` compares with the median rather than the mean.
    pub relative_median: bool,
    /// Compared rows ranked by the first measure's change or rate: `(by, direction, rows kept)`.
    pub change_rank: Option<(ChangeBy, OrderDir, Option<u32>)>,
    /// Rows per day of the week or per kind of day.
    pub by_day: Option<DayPart>,
    /// Only the days of this kind.
    pub days: Option<DayKind>,
}

impl ResolvedMeasure {
    /// The model's measure, when it is one (none for a distinct count).
    pub fn measure(&self) -> Option<usize> {
        match self.of {
            Measured::Measure(m) => Some(m),
            Measured::Distinct(_) => None,
        }
    }

    /// Whether it is a model's measure taken as it is (neither re-aggregated, per bucket nor per person) that adds
    /// up over rows ([`super::MetricExpr::adds_up`]).
    pub fn adds_up(&self, model: &MetricModel) -> bool {
        match self.of {
            Measured::Measure(m) => {
                self.aggregate.is_none()
                    && self.per.is_none()
                    && self.over.is_none()
                    && self.combined.is_none()
                    && model.measures[m].expr.adds_up()
            }
            Measured::Distinct(_) => false,
        }
    }
}

impl MetricQuery {
    /// Checks every name against `model`; the first problem is reported with its field, value and what is allowed.
    pub fn resolve(&self, model: &MetricModel) -> Result<ResolvedQuery, QueryError> {
        if self.measures.is_empty() {
            return Err(QueryError::new(
                "measures",
                format!("name at least one measure: {}", measure_names(model)),
            ));
        }
        let mut measures = Vec::new();
        for (i, sel) in self.measures.iter().enumerate() {
            measures.push(resolve_measure(model, sel, &format!("measures[{i}]"))?);
        }
        let mut filters: Vec<(usize, Vec<String>)> = Vec::new();
        for (i, filter) in self.filters.iter().enumerate() {
            let field = format!("filters[{i}]");
            let dim = dimension_index(model, &filter.dimension, &format!("{field}.dimension"))?;
            if filter.values.is_empty() || filter.values.iter().any(|v| v.trim().is_empty()) {
                return Err(QueryError::new(
                    format!("{field}.values"),
                    "give one or more non-empty values",
                ));
            }
            if filters.iter().any(|(d, _)| *d == dim) {
                return Err(QueryError::new(
                    format!("{field}.dimension"),
                    format!(
                        "`{}` is filtered twice; give all its values in one filter",
                        filter.dimension
                    ),
                ));
            }
            filters.push((dim, filter.values.clone()));
        }
        let range = self
            .time_range
            .as_ref()
            .map(|r| check_range(model, r, "timeRange"))
            .transpose()?;
        if let Some(grain) = self.grain {
            check_grain(model, grain, "grain")?;
        }
        let mut group_by = Vec::new();
        if let Some(Within {
            dimension: Some(name), ..
        }) = &self.within
            && !self
                .group_by
                .iter()
                .any(|g| model.dimension_index(g) == model.dimension_index(name))
        {
            group_by.push(dimension_index(model, name, "within.dimension")?);
        }
        for (i, name) in self.group_by.iter().enumerate() {
            let dim = dimension_index(model, name, &format!("groupBy[{i}]"))?;
            if group_by.contains(&dim) {
                return Err(QueryError::new(
                    format!("groupBy[{i}]"),
                    format!("`{name}` is grouped twice"),
                ));
            }
            group_by.push(dim);
        }
        let order = match &self.order {
            None => None,
            Some(order) => Some((
                position_of(model, &mut measures, &order.measure, "order.measure")?,
                order.direction,
            )),
        };
        if let Some(limit) = self.limit
            && !(1..=MAX_LIMIT).contains(&limit)
        {
            return Err(QueryError::new(
                "limit",
                format!("{limit} is out of range; allowed are 1 to {MAX_LIMIT}"),
            ));
        }
        let having = match &self.having {
            None => None,
            Some(t) if !t.value.is_finite() => {
                return Err(QueryError::new(
                    "having.value",
                    format!("{} is not a finite number", t.value),
                ));
            }
            Some(t) if t.share && self.share.is_none() => {
                return Err(QueryError::new(
                    "having.share",
                    "a threshold on the share needs `share` (the dimensions it is taken across)",
                ));
            }
            Some(t) => {
                let position = match t.aggregate {
                    None => position_of(model, &mut measures, &t.measure, "having.measure")?,
                    Some(aggregate) => {
                        let sel = MeasureSel {
                            aggregate: Some(aggregate),
                            ..MeasureSel::named(t.measure.clone())
                        };
                        let wanted = resolve_measure(model, &sel, "having")?;
                        match measures.iter().position(|m| *m == wanted) {
                            Some(p) => p,
                            None => {
                                measures.push(wanted);
                                measures.len() - 1
                            }
                        }
                    }
                };
                Some((position, t.op, t.value))
            }
        };
        if !self.also_having.is_empty() && having.is_none() {
            return Err(QueryError::new(
                "alsoHaving",
                "more thresholds need `having`, the first",
            ));
        }
        let mut having_also = Vec::new();
        for (i, t) in self.also_having.iter().enumerate() {
            let field = format!("alsoHaving[{i}]");
            check_plain(t, &field, "a further threshold")?;
            let position = position_of(model, &mut measures, &t.measure, &format!("{field}.measure"))?;
            having_also.push((position, t.op, t.value));
        }
        let each = match &self.each {
            None => None,
            Some(t) => Some(check_each(model, t, "each")?),
        };
        if !self.also_each.is_empty() && each.is_none() {
            return Err(QueryError::new(
                "alsoEach",
                "more thresholds on each record need `each`, the first",
            ));
        }
        let mut each_also = Vec::with_capacity(self.also_each.len());
        for (i, t) in self.also_each.iter().enumerate() {
            each_also.push(check_each(model, t, &format!("alsoEach[{i}]"))?);
        }
        let compare = match &self.compare {
            None => None,
            Some(c) => {
                if range.is_none() {
                    return Err(QueryError::new("compare", "a comparison needs a timeRange to compare"));
                }
                if self.grain.is_some() || self.share.is_some() || self.having.is_some() {
                    return Err(QueryError::new(
                        "compare",
                        "a comparison cannot be combined with grain, share or having",
                    ));
                }
                let other = c
                    .range
                    .as_ref()
                    .map(|r| check_range(model, r, "compare.range"))
                    .transpose()?;
                Some((c.kind, other))
            }
        };
        let share = match &self.share {
            None => None,
            Some(s) => {
                let mut across = Vec::new();
                for (i, name) in s.across.iter().enumerate() {
                    across.push(dimension_index(model, name, &format!("share.across[{i}]"))?);
                }
                // A share is of a total: a mean per person, a ratio or a difference has none.
                if let Some(i) = measures.iter().position(|m| m.over.is_some() || m.combined.is_some()) {
                    return Err(QueryError::new(
                        format!("measures[{i}]"),
                        "a share is taken of a total; a measure per person, divided or less another has none",
                    ));
                }
                Some(across)
            }
        };
        let within = self
            .within
            .as_ref()
            .map(|w| check_within(model, self, w, &group_by))
            .transpose()?;
        let sort = self
            .sort
            .as_ref()
            .map(|s| check_sort(model, self, s, &group_by))
            .transpose()?;
        if self.cumulative {
            check_cumulative(model, self, &measures)?;
        }
        let change_rank = self
            .compare
            .as_ref()
            .and_then(|c| c.rank.as_ref())
            .map(|rank| check_change_rank(self, rank, &group_by))
            .transpose()?;
        if (self.by_day.is_some() || self.days.is_some()) && model.time.is_none() {
            return Err(QueryError::new(
                if self.by_day.is_some() { "byDay" } else { "days" },
                "kinds of day need the model's time column",
            ));
        }
        if self.by_day.is_some()
            && (self.grain.is_some() || self.compare.is_some() || self.within.is_some() || self.cumulative)
        {
            return Err(QueryError::new(
                "byDay",
                "rows per kind of day cannot be combined with grain, compare, within or cumulative",
            ));
        }
        let bands = self.bands.as_ref().map(|b| check_bands(model, self, b)).transpose()?;
        let relative = match &self.relative {
            None => None,
            Some(r) => Some(check_relative(model, self, r, &mut measures, &group_by)?),
        };
        Ok(ResolvedQuery {
            measures,
            filters,
            range,
            grain: self.grain,
            group_by,
            order,
            limit: self.limit,
            having_share: self.having.as_ref().is_some_and(|t| t.share),
            having_also,
            having_any: self.having_any,
            each_also,
            each_any: self.each_any,
            having,
            each,
            compare,
            share,
            within,
            sort,
            cumulative: self.cumulative,
            relative_median: self.relative.as_ref().is_some_and(|r| r.median),
            bands,
            relative,
            change_rank,
            by_day: self.by_day,
            days: self.days,
        })
    }
}

/// Checks a ranking of compared rows: there are rows to rank (a grouping), and no other order or limit.
fn check_change_rank(
    query: &MetricQuery,
    rank: &ChangeRank,
    group_by: &[usize],
) -> Result<(ChangeBy, OrderDir, Option<u32>), QueryError> {
    if group_by.is_empty() {
        return Err(QueryError::new(
            "compare.rank",
            "ranking by the change needs rows to rank: group by a dimension",
        ));
    }
    if query.order.is_some() || query.limit.is_some() || query.sort.is_some() {
        return Err(QueryError::new(
            "compare.rank",
            "a ranking by the change takes its own limit; give neither order, sort nor limit beside it",
        ));
    }
    if let Some(limit) = rank.limit
        && !(1..=MAX_LIMIT).contains(&limit)
    {
        return Err(QueryError::new(
            "compare.rank.limit",
            format!("{limit} is out of range; allowed are 1 to {MAX_LIMIT}"),
        ));
    }
    Ok((rank.by, rank.direction, rank.limit))
}

/// Checks a comparison with a mean: of a sum or a count, over rows grouped by something besides the dimension the
/// mean is split by, and nothing else that keeps or reorders rows inside groups (having, within, compare,
/// cumulative).
fn check_relative(
    model: &MetricModel,
    query: &MetricQuery,
    relative: &Relative,
    measures: &mut Vec<ResolvedMeasure>,
    group_by: &[usize],
) -> Result<(usize, ThresholdOp, Option<usize>), QueryError> {
    let position = position_of(model, measures, &relative.measure, "relative.measure")?;
    // A distinct count per group adds up over the groups' values as well.
    let adds_up = measures[position].adds_up(model) || matches!(measures[position].of, Measured::Distinct(_));
    if !adds_up {
        return Err(QueryError::new(
            "relative.measure",
            format!(
                "`{}` is no sum or count; its mean over the rows is not its own value over them",
                relative.measure
            ),
        ));
    }
    if query.having.is_some() || query.within.is_some() || query.compare.is_some() || query.cumulative {
        return Err(QueryError::new(
            "relative",
            "a comparison with the mean cannot be combined with having, within, compare or cumulative",
        ));
    }
    let within = relative
        .within
        .as_ref()
        .map(|name| dimension_index(model, name, "relative.within"))
        .transpose()?;
    if let Some(dim) = within
        && !group_by.contains(&dim)
    {
        return Err(QueryError::new(
            "relative.within",
            format!("`{}` is not grouped by", relative.within.as_deref().unwrap_or_default()),
        ));
    }
    let rows_inside = group_by.iter().filter(|d| Some(**d) != within).count() + usize::from(query.grain.is_some());
    if rows_inside == 0 {
        return Err(QueryError::new(
            "groupBy",
            "a comparison with the mean needs rows to compare: group by a dimension (or a grain) besides `within`",
        ));
    }
    Ok((position, relative.op, within))
}

/// Checks an order by a dimension: the dimension is grouped by, and no measure orders the rows too.
fn check_sort(
    model: &MetricModel,
    query: &MetricQuery,
    sort: &SortBy,
    group_by: &[usize],
) -> Result<(usize, OrderDir), QueryError> {
    let dim = dimension_index(model, &sort.dimension, "sort.dimension")?;
    let Some(position) = group_by.iter().position(|d| *d == dim) else {
        return Err(QueryError::new(
            "sort.dimension",
            format!(
                "`{}` is not grouped by; rows are ordered only by a dimension in groupBy",
                sort.dimension
            ),
        ));
    };
    if query.order.is_some() || query.within.is_some() {
        return Err(QueryError::new(
            "sort",
            "rows are ordered by a dimension or by a measure (`order`, `within`), not both",
        ));
    }
    Ok((position, sort.direction))
}

/// Checks that a threshold (`what`, at `field`) compares the measure itself with a finite bound: neither
/// `aggregate` nor `share`.
fn check_plain(t: &Threshold, field: &str, what: &str) -> Result<(), QueryError> {
    if !t.value.is_finite() {
        return Err(QueryError::new(
            format!("{field}.value"),
            format!("{} is not a finite number", t.value),
        ));
    }
    if t.aggregate.is_some() || t.share {
        return Err(QueryError::new(
            field,
            format!("{what} takes neither `aggregate` nor `share`"),
        ));
    }
    Ok(())
}

/// Checks a threshold on each record (`field` names it): a finite bound, on a measure that aggregates one column,
/// with neither `aggregate` nor `share`.
fn check_each(model: &MetricModel, t: &Threshold, field: &str) -> Result<(usize, ThresholdOp, f64), QueryError> {
    check_plain(t, field, "a threshold on each record")?;
    let index = measure_index(model, &t.measure, &format!("{field}.measure"))?;
    if model.measures[index].expr.single_aggregate().is_none() {
        return Err(QueryError::new(
            format!("{field}.measure"),
            format!(
                "`{}` has no value per record (only a measure aggregating one column, like SUM(x), has)",
                t.measure
            ),
        ));
    }
    Ok((index, t.op, t.value))
}

/// Checks bands: a measure that aggregates one column, bounds increasing and finite, with nothing that reads rows
/// otherwise (grain, kinds of day, comparisons, within, shares, running totals, means).
fn check_bands(model: &MetricModel, query: &MetricQuery, bands: &Bands) -> Result<(usize, Vec<f64>), QueryError> {
    let measure = measure_index(model, &bands.measure, "bands.measure")?;
    if model.measures[measure].expr.single_aggregate().is_none() {
        return Err(QueryError::new(
            "bands.measure",
            format!(
                "`{}` has no value per record (not one aggregate of a column)",
                bands.measure
            ),
        ));
    }
    if bands.bounds.is_empty() || bands.bounds.len() > MAX_BOUNDS {
        return Err(QueryError::new(
            "bands.bounds",
            format!("give 1 to {MAX_BOUNDS} bounds, not {}", bands.bounds.len()),
        ));
    }
    let increasing = bands.bounds.windows(2).all(|w| w[0] < w[1]);
    if !increasing || bands.bounds.iter().any(|b| !b.is_finite()) {
        return Err(QueryError::new(
            "bands.bounds",
            format!(
                "{:?}: bounds must be finite numbers, each above the one before",
                bands.bounds
            ),
        ));
    }
    let other = query.grain.is_some()
        || query.by_day.is_some()
        || query.compare.is_some()
        || query.within.is_some()
        || query.share.is_some()
        || query.cumulative
        || query.relative.is_some();
    if other {
        return Err(QueryError::new(
            "bands",
            "bands cannot be combined with grain, byDay, compare, within, share, cumulative or relative",
        ));
    }
    Ok((measure, bands.bounds.clone()))
}

/// Checks running totals: over a grain's buckets, of measures that add up (a sum or a count), with nothing that
/// reads the totals otherwise (compare, share, having, within).
fn check_cumulative(model: &MetricModel, query: &MetricQuery, measures: &[ResolvedMeasure]) -> Result<(), QueryError> {
    if query.grain.is_none() {
        return Err(QueryError::new(
            "cumulative",
            "running totals need `grain`: the time buckets they run over",
        ));
    }
    if query.compare.is_some() || query.share.is_some() || query.having.is_some() || query.within.is_some() {
        return Err(QueryError::new(
            "cumulative",
            "running totals cannot be combined with compare, share, having or within",
        ));
    }
    for (i, m) in measures.iter().enumerate() {
        if !m.adds_up(model) {
            return Err(QueryError::new(
                format!("measures[{i}]"),
                format!(
                    "`{}` does not add up over time; running totals take only a sum or a count",
                    query.measures.get(i).map_or("", |s| s.name.as_str())
                ),
            ));
        }
    }
    Ok(())
}

/// Checks a top within groups: it ranks by `order`, its groups are a dimension grouped by or the grain's buckets,
/// and something else is grouped inside them.
fn check_within(
    model: &MetricModel,
    query: &MetricQuery,
    within: &Within,
    group_by: &[usize],
) -> Result<(Option<usize>, u32), QueryError> {
    if !(1..=MAX_LIMIT).contains(&within.limit) {
        return Err(QueryError::new(
            "within.limit",
            format!("{} is out of range; allowed are 1 to {MAX_LIMIT}", within.limit),
        ));
    }
    if query.order.is_none() {
        return Err(QueryError::new(
            "within",
            "the first rows of each group need `order`: the measure they are ranked by",
        ));
    }
    if query.compare.is_some() {
        return Err(QueryError::new(
            "within",
            "the first rows of each group cannot be combined with compare",
        ));
    }
    let dimension = match &within.dimension {
        Some(name) => Some(dimension_index(model, name, "within.dimension")?),
        None if query.grain.is_none() => {
            return Err(QueryError::new(
                "within.dimension",
                "name the dimension whose values are the groups (without one, the groups are the grain's buckets, \
                 which needs `grain`)",
            ));
        }
        None => None,
    };
    let inside = group_by.iter().filter(|d| Some(**d) != dimension).count()
        + usize::from(dimension.is_some() && query.grain.is_some());
    if inside == 0 {
        return Err(QueryError::new(
            "groupBy",
            "the first rows of each group need another dimension (or the grain) to rank inside each group",
        ));
    }
    Ok((dimension, within.limit))
}

fn resolve_measure(model: &MetricModel, sel: &MeasureSel, field: &str) -> Result<ResolvedMeasure, QueryError> {
    if sel.distinct {
        let dim = dimension_index(model, &sel.name, &format!("{field}.name"))?;
        if sel.aggregate.is_some() || sel.per.is_some() {
            return Err(QueryError::new(
                field,
                "a distinct count takes neither `aggregate` nor `per`",
            ));
        }
        if sel.over.is_some() || sel.divided_by.is_some() || sel.minus.is_some() {
            return Err(QueryError::new(
                field,
                "a distinct count is neither divided by nor less another (`over`, `dividedBy`, `minus`)",
            ));
        }
        return Ok(ResolvedMeasure {
            of: Measured::Distinct(dim),
            aggregate: None,
            per: None,
            over: None,
            combined: None,
        });
    }
    let measure = measure_index(model, &sel.name, &format!("{field}.name"))?;
    let spec = &model.measures[measure];
    if let Some(aggregate) = sel.aggregate
        && !spec.reaggregations.contains(&aggregate)
    {
        let allowed: Vec<&str> = spec.reaggregations.iter().map(|r| r.name()).collect();
        return Err(QueryError::new(
            format!("{field}.aggregate"),
            format!(
                "`{}` does not allow `{}`; allowed: {}",
                spec.label,
                aggregate.name(),
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                }
            ),
        ));
    }
    if let Some(per) = sel.per {
        if sel.aggregate.is_some() {
            return Err(QueryError::new(
                format!("{field}.per"),
                "give `aggregate` or `per`, not both",
            ));
        }
        check_grain(model, per, &format!("{field}.per"))?;
    }
    let over = match &sel.over {
        None => None,
        Some(name) => {
            let dim = dimension_index(model, name, &format!("{field}.over"))?;
            if sel.aggregate.is_some() || sel.per.is_some() || !spec.expr.adds_up() {
                return Err(QueryError::new(
                    format!("{field}.over"),
                    format!(
                        "`{}` per {name} needs the measure itself, a sum or a count (neither aggregate nor per)",
                        spec.label
                    ),
                ));
            }
            Some(dim)
        }
    };
    let combined = combined_with(model, sel, measure, over.is_some(), field)?;
    Ok(ResolvedMeasure {
        of: Measured::Measure(measure),
        aggregate: sel.aggregate,
        per: sel.per,
        over,
        combined,
    })
}

/// The other measure a selected one is divided by or less (`dividedBy`, `minus`): both the measures themselves,
/// sums or counts, and for a difference in the same unit.
fn combined_with(
    model: &MetricModel,
    sel: &MeasureSel,
    measure: usize,
    per_person: bool,
    field: &str,
) -> Result<Option<(Combine, usize)>, QueryError> {
    let (how, name, part) = match (&sel.divided_by, &sel.minus) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(QueryError::new(field, "give `dividedBy` or `minus`, not both"));
        }
        (Some(name), None) => (Combine::Ratio, name, "dividedBy"),
        (None, Some(name)) => (Combine::Difference, name, "minus"),
    };
    let field = format!("{field}.{part}");
    let other = measure_index(model, name, &field)?;
    let (spec, with) = (&model.measures[measure], &model.measures[other]);
    if sel.aggregate.is_some() || sel.per.is_some() || per_person {
        return Err(QueryError::new(
            field,
            "takes the measure itself (neither `aggregate`, `per` nor `over`)",
        ));
    }
    if other == measure {
        return Err(QueryError::new(field, format!("`{name}` is the measure itself")));
    }
    for m in [spec, with] {
        if !m.expr.adds_up() {
            return Err(QueryError::new(
                &field,
                format!("`{}` is no sum or count; only totals are combined", m.label),
            ));
        }
    }
    if how == Combine::Difference && spec.unit != with.unit {
        return Err(QueryError::new(
            field,
            format!(
                "`{}` ({}) and `{}` ({}) are in different units",
                spec.label,
                spec.unit.as_deref().unwrap_or("no unit"),
                with.label,
                with.unit.as_deref().unwrap_or("no unit")
            ),
        ));
    }
    Ok(Some((how, other)))
}

/// The position of a measure (or of a dimension's distinct count) among the selected ones, appending it when it
/// is not shown yet.
fn position_of(
    model: &MetricModel,
    measures: &mut Vec<ResolvedMeasure>,
    name: &str,
    field: &str,
) -> Result<usize, QueryError> {
    let of = match model.measure_index(name) {
        Some(measure) => Measured::Measure(measure),
        None => match model.dimension_index(name) {
            Some(dim) => Measured::Distinct(dim),
            None => return Err(not_a_measure(model, name, field)),
        },
    };
    if let Some(p) = measures.iter().position(|m| {
        m.of == of && m.aggregate.is_none() && m.per.is_none() && m.over.is_none() && m.combined.is_none()
    }) {
        return Ok(p);
    }
    if let Some(p) = measures.iter().position(|m| m.of == of) {
        return Ok(p);
    }
    measures.push(ResolvedMeasure {
        of,
        aggregate: None,
        per: None,
        over: None,
        combined: None,
    });
    Ok(measures.len() - 1)
}

fn measure_index(model: &MetricModel, name: &str, field: &str) -> Result<usize, QueryError> {
    model
        .measure_index(name)
        .ok_or_else(|| not_a_measure(model, name, field))
}

fn not_a_measure(model: &MetricModel, name: &str, field: &str) -> QueryError {
    QueryError::new(
        field,
        format!(
            "`{name}` is not a measure of this model; allowed: {}",
            measure_names(model)
        ),
    )
}

fn dimension_index(model: &MetricModel, name: &str, field: &str) -> Result<usize, QueryError> {
    model.dimension_index(name).ok_or_else(|| {
        let names: Vec<&str> = model.dimensions.iter().map(|d| d.label.as_str()).collect();
        QueryError::new(
            field,
            format!(
                "`{name}` is not a dimension of this model; allowed: {}",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        )
    })
}

fn measure_names(model: &MetricModel) -> String {
    model
        .measures
        .iter()
        .map(|m| m.label.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_grain(model: &MetricModel, grain: Grain, field: &str) -> Result<(), QueryError> {
    let Some(time) = &model.time else {
        return Err(QueryError::new(field, "this model has no time column"));
    };
    if time.grains.contains(&grain) {
        return Ok(());
    }
    let allowed: Vec<&str> = time.grains.iter().map(|g| g.name()).collect();
    Err(QueryError::new(
        field,
        format!(
            "grain `{}` is not offered; allowed: {}",
            grain.name(),
            allowed.join(", ")
        ),
    ))
}

fn check_range(model: &MetricModel, range: &TimeRange, field: &str) -> Result<(String, String), QueryError> {
    if model.time.is_none() {
        return Err(QueryError::new(field, "this model has no time column"));
    }
    for (key, day) in [("start", &range.start), ("end", &range.end)] {
        if !is_iso_day(day) {
            return Err(QueryError::new(
                format!("{field}.{key}"),
                format!("`{day}` is not a day written YYYY-MM-DD"),
            ));
        }
    }
    if range.start > range.end {
        return Err(QueryError::new(
            field,
            format!("start {} is after end {}", range.start, range.end),
        ));
    }
    Ok((range.start.clone(), range.end.clone()))
}

fn is_iso_day(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && (1..=12).contains(&text[5..7].parse::<u8>().unwrap_or(0))
        && (1..=31).contains(&text[8..10].parse::<u8>().unwrap_or(0))
}
