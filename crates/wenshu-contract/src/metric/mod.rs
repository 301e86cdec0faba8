//! `x-metrics`: a tool's metric model — tables (joins declared once), a time column with grains, measures and
//! dimensions — checked and compiled when the catalog loads, and the metric query asked of it ([`query`]).

pub mod expr;
mod model;
pub mod query;
mod schema;

pub use expr::MetricExpr;
pub use model::read_metrics;
pub use query::{
    Bands, ChangeBy, ChangeRank, Combine, Compare, CompareKind, DayKind, DayPart, Filter, MeasureSel, Measured,
    MetricQuery, Order, OrderDir, QueryError, Relative, ResolvedMeasure, ResolvedQuery, Share, SortBy, Threshold,
    ThresholdOp, TimeRange, Within,
};
pub use schema::input_schema;

use serde::Serialize;

/// A column of one of the model's tables.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ColumnRef {
    /// The alias of the table (its name when no alias is given).
    pub table: String,
    /// The column.
    pub column: String,
}

/// One table of the model; every table after the first joins an earlier one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MetricTable {
    /// The table or view name.
    pub name: String,
    /// The alias used in SQL.
    pub alias: String,
    /// Its columns (the only ones a measure or dimension may read).
    pub columns: Vec<String>,
    /// `(left, right)`: this table joins where `left = right` (an inner join); none for the first table.
    pub join: Option<(ColumnRef, ColumnRef)>,
}

/// A time bucket size: the one grain of wenshu (see [`wenshu_lexicon::Grain`]).
pub use wenshu_lexicon::Grain;

/// How the time column stores a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeType {
    /// ISO `YYYY-MM-DD` text.
    Text,
    /// A SQL `DATE`.
    Date,
    /// A timestamp (`TIMESTAMP`, `DATETIME`) or ISO text starting with a day (`2025-03-04 10:20:00`): read as its
    /// day, whatever the time of day.
    Timestamp,
}

/// The model's time column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeColumn {
    /// The column.
    pub column: ColumnRef,
    /// How it stores a day.
    pub ty: TimeType,
    /// The grains a query may bucket by.
    pub grains: Vec<Grain>,
    /// Its label (`日期`).
    pub label: String,
}

/// A re-aggregation a measure allows over its one column (`SUM(amount)` → `AVG(amount)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reaggregate {
    /// The mean of the column.
    Avg,
    /// The largest value.
    Max,
    /// The smallest value.
    Min,
    /// The number of non-null values.
    Count,
}

impl Reaggregate {
    /// Every re-aggregation.
    pub const ALL: [Reaggregate; 4] = [Self::Avg, Self::Max, Self::Min, Self::Count];

    /// The SQL function and the name (`avg`, `max`, `min`, `count`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Avg => "avg",
            Self::Max => "max",
            Self::Min => "min",
            Self::Count => "count",
        }
    }

    /// The Chinese label (`平均`, `最大`, `最小`, `笔数`).
    pub fn label(self) -> &'static str {
        match self {
            Self::Avg => "平均",
            Self::Max => "最大",
            Self::Min => "最小",
            Self::Count => "笔数",
        }
    }
}

/// One measure: a named aggregate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measure {
    /// The code (`amount`).
    pub name: String,
    /// The label (`销售额`).
    pub label: String,
    /// Other names people use (`业绩`).
    pub synonyms: Vec<String>,
    /// The expression as written.
    pub expr_text: String,
    /// The checked expression.
    #[serde(skip)]
    pub expr: MetricExpr,
    /// The unit (`元`), if any.
    pub unit: Option<String>,
    /// The number of decimals shown, if set.
    pub decimals: Option<u8>,
    /// The re-aggregations it allows over its one column.
    pub reaggregations: Vec<Reaggregate>,
}

/// Where a dimension's values come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "from", rename_all = "lowercase")]
pub enum DimensionValues {
    /// Read from the data when wenshu starts (`SELECT DISTINCT`).
    Data,
    /// The names of an entity catalog.
    Entity {
        /// The entity type (`movie`).
        entity: String,
    },
    /// Listed in the catalog.
    List {
        /// The values.
        values: Vec<String>,
    },
}

/// One dimension: a column to filter and group by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dimension {
    /// The code (`region`).
    pub name: String,
    /// The label (`地区`).
    pub label: String,
    /// Other names people use (`大区`).
    pub synonyms: Vec<String>,
    /// The column.
    pub column: ColumnRef,
    /// A column that tells rows with the same value apart (an ID): grouping is by it too, so two entities of one
    /// name never merge.
    pub key: Option<ColumnRef>,
    /// Where its values come from.
    pub values: DimensionValues,
    /// Extra spellings of values (`华东` → `华东区`).
    pub value_synonyms: Vec<(String, Vec<String>)>,
}

/// A compiled `x-metrics` model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricModel {
    /// The tables, the first one the base; each later one joins an earlier one.
    pub tables: Vec<MetricTable>,
    /// The time column, if the model has one.
    pub time: Option<TimeColumn>,
    /// The measures.
    pub measures: Vec<Measure>,
    /// The dimensions.
    pub dimensions: Vec<Dimension>,
}

impl MetricModel {
    /// The index of a measure by code, label or synonym.
    pub fn measure_index(&self, name: &str) -> Option<usize> {
        let name = name.trim();
        self.measures
            .iter()
            .position(|m| m.name == name || m.label == name || m.synonyms.iter().any(|s| s == name))
    }

    /// The index of a dimension by code, label or synonym.
    pub fn dimension_index(&self, name: &str) -> Option<usize> {
        let name = name.trim();
        self.dimensions
            .iter()
            .position(|d| d.name == name || d.label == name || d.synonyms.iter().any(|s| s == name))
    }

    /// The table names read (for the SQL guard's allowed tables).
    pub fn table_names(&self) -> Vec<&str> {
        self.tables.iter().map(|t| t.name.as_str()).collect()
    }
}
