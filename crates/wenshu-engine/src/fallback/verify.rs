//! Whether a Text-to-SQL statement answers the question the user asked, read from the guarded SQL before it runs
//! (issue 23): its bounds on a time column and its filter values must be those the question states, a measure the
//! question names must not be another column under that measure's name, and a count of people must count distinct
//! people, not rows.
//!
//! What the question states comes from the language knowledge ([`QuestionFacts`] of the user's own words); what the
//! schema has, from its description ([`described_columns`](super::schema::described_columns)). The word lists
//! below are general language knowledge (measure words, words counting people), never a catalog's.

use std::collections::BTreeSet;
use std::fmt;
use std::ops::ControlFlow;

use jiff::civil::Date;
use serde::Serialize;
use sqlparser::ast::{
    BinaryOperator, DateTimeField, DuplicateTreatment, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments,
    GroupByExpr, Query, SelectItem, SetExpr, Value as SqlValue, Visit, visit_expressions,
};
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::compare::{Basis, compare_range};
use wenshu_lexicon::demand::DemandKind;
use wenshu_lexicon::time::DateRange;

use super::schema::DescribedColumn;
use crate::facts::QuestionFacts;
use wenshu_lexicon::words::people::{PEOPLE_EN, PEOPLE_ZH, PEOPLE_ZH_CLASSIFIED};
use wenshu_sql::guard::{Dialect, on_guard_stack, parse_query};

/// A measure a question may name, by its spellings: Chinese words (found inside text) and English words or
/// phrases (found as whole words). None of them is ever another measure (利润 is never 销售额).
struct MeasureWord {
    /// Chinese spellings.
    zh: &'static [&'static str],
    /// English spellings, lower case, words separated by one space.
    en: &'static [&'static str],
}

/// Measures that are never the plain amount of a sale: a question naming one needs a column of it.
const MEASURE_WORDS: &[MeasureWord] = &[
    MeasureWord {
        zh: &["毛利", "毛利润", "毛利率"],
        en: &["gross profit", "gross margin", "margin"],
    },
    MeasureWord {
        zh: &["净利", "净利润"],
        en: &["net profit", "net income"],
    },
    MeasureWord {
        zh: &["利润", "盈利"],
        en: &["profit", "profits", "earnings"],
    },
    MeasureWord {
        zh: &["成本"],
        en: &["cost", "costs"],
    },
    MeasureWord {
        zh: &["佣金", "提成"],
        en: &["commission", "commissions"],
    },
    MeasureWord {
        zh: &["运费"],
        en: &[
            "freight",
            "shipping fee",
            "shipping fees",
            "shipping cost",
            "shipping costs",
        ],
    },
    MeasureWord {
        zh: &["退款"],
        en: &["refund", "refunds"],
    },
    MeasureWord {
        zh: &["折扣"],
        en: &["discount", "discounts"],
    },
    MeasureWord {
        zh: &["税费", "税额"],
        en: &["tax", "taxes"],
    },
];

/// Characters after 人 that make it another word (人次, 人民币, 人均).
const NOT_PEOPLE_AFTER_REN: &[char] = &['次', '民', '均', '工'];

/// One way a statement differs from the question it answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mismatch {
    /// A bound on a time column that no time expression of the question states.
    Dates {
        /// The condition as the SQL writes it.
        condition: String,
        /// The day it bounds, and which end (`from` or `to`).
        bound: String,
        /// What the question states: its words and their days.
        stated: String,
    },
    /// A filter on a column the question names another value of.
    Value {
        /// The column.
        column: String,
        /// The value the SQL filters by.
        value: String,
        /// The values of that column the question names.
        named: Vec<String>,
    },
    /// A value the question names that the SQL never uses.
    MissingValue {
        /// The column it is a value of.
        column: String,
        /// The value.
        value: String,
    },
    /// A measure the question names, shown as another column under its name.
    Alias {
        /// The measure's words in the question.
        measure: String,
        /// The output name the SQL gives.
        alias: String,
        /// The expression under that name.
        expression: String,
        /// The schema's columns of that measure (none when it has none).
        columns: Vec<String>,
    },
    /// A measure the question names that the SQL reads nothing of.
    Measure {
        /// The measure's words in the question.
        measure: String,
        /// The schema's columns of that measure (none when it has none).
        columns: Vec<String>,
    },
    /// A count of people that counts rows.
    PeopleCount {
        /// The words asking for the number of people.
        words: String,
        /// The count the SQL writes.
        count: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Dates {
                condition,
                bound,
                stated,
            } => write!(
                f,
                "时间范围与问题不符：SQL 的条件 {condition}（{bound}）不是问题所说的 {stated}"
            ),
            Self::Value { column, value, named } => write!(
                f,
                "筛选值与问题不符：SQL 按 {column} = '{value}' 筛选，问题说的是「{}」",
                named.join("」「")
            ),
            Self::MissingValue { column, value } => {
                write!(f, "问题提到「{value}」（{column} 的取值），SQL 没有按它筛选")
            }
            Self::Alias {
                measure,
                alias,
                expression,
                columns,
            } => {
                write!(f, "问题问的是「{measure}」，SQL 却把 {expression} 命名为 {alias}：")?;
                if columns.is_empty() {
                    write!(f, "数据中没有「{measure}」这一列，不能用别的列冒充")
                } else {
                    write!(
                        f,
                        "{expression} 不是「{measure}」，「{measure}」是列 {}",
                        columns.join("、")
                    )
                }
            }
            Self::Measure { measure, columns } => {
                if columns.is_empty() {
                    write!(f, "问题问的是「{measure}」，数据中没有这一列，SQL 回答的是别的指标")
                } else {
                    write!(f, "问题问的是「{measure}」，SQL 没有读取它的列 {}", columns.join("、"))
                }
            }
            Self::PeopleCount { words, count } => write!(
                f,
                "问题问的是人数（「{words}」），SQL 的 {count} 数的是行数：应当用 COUNT(DISTINCT 列) 数不同的人"
            ),
        }
    }
}

/// Every way `sql` (guarded, in `dialect`) differs from what `facts` (the user's own words) state, given the
/// schema's `columns`; empty when it answers the question as asked, or when it does not parse.
pub fn verify(sql: &str, dialect: Dialect, facts: &QuestionFacts, columns: &[DescribedColumn]) -> Vec<Mismatch> {
    on_guard_stack(|| mismatches(sql, dialect, facts, columns)).unwrap_or_default()
}

/// [`verify`] on the calling thread: the walks of the parsed tree need the guard's stack.
fn mismatches(sql: &str, dialect: Dialect, facts: &QuestionFacts, columns: &[DescribedColumn]) -> Vec<Mismatch> {
    let Ok(query) = parse_query(sql, dialect) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    dates(&query, facts, &mut found);
    values(&query, facts, columns, &mut found);
    measures(&query, facts, columns, &mut found);
    people(&query, facts, &mut found);
    let mut seen = BTreeSet::new();
    found.retain(|m| seen.insert(m.to_string()));
    found
}

// ---------------------------------------------------------------------------------------------------------------
// Dates

/// A temporal literal: a day (with a time of day, when written), a month or a year.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Temporal {
    Day { day: Date, time: Option<bool> },
    Month(Date),
    Year(Date),
}

impl Temporal {
    fn first(self) -> Date {
        match self {
            Self::Day { day, .. } | Self::Month(day) | Self::Year(day) => day,
        }
    }

    fn last(self) -> Date {
        match self {
            Self::Day { day, .. } => day,
            Self::Month(day) => day.last_of_month(),
            Self::Year(day) => day.last_of_year(),
        }
    }

    /// A day written with a time of day that is not its start (`true`) or that is midnight (`false`).
    fn within_day(self) -> Option<bool> {
        match self {
            Self::Day { time, .. } => time,
            _ => None,
        }
    }
}

/// One end of the range a condition gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    From(Date),
    To(Date),
}

/// Reads `YYYY-MM-DD[ time]`, `YYYY-MM`, or (when `year` allows it) `YYYY`.
fn temporal(text: &str, year: bool) -> Option<Temporal> {
    let text = text.trim();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let number = |s: &str| s.parse::<i16>().ok();
    if text.len() >= 10 && text.is_char_boundary(10) && text.as_bytes()[4] == b'-' {
        let (day, rest) = text.split_at(10);
        let day: Date = day.parse().ok()?;
        let rest = rest.trim_start_matches(['T', ' ']);
        let time = match rest {
            "" => None,
            _ if rest.chars().all(|c| c.is_ascii_digit() || ":.".contains(c)) => {
                Some(rest.chars().any(|c| c.is_ascii_digit() && c != '0'))
            }
            _ => return None,
        };
        return Some(Temporal::Day { day, time });
    }
    match text.split_once('-') {
        Some((y, m)) if y.len() == 4 && digits(y) && m.len() == 2 && digits(m) => {
            Date::new(number(y)?, m.parse().ok()?, 1).ok().map(Temporal::Month)
        }
        None if year && text.len() == 4 && digits(text) => Date::new(number(text)?, 1, 1).ok().map(Temporal::Year),
        _ => None,
    }
}

/// The text of a literal: a quoted string, a number, a typed string (DATE '…'), a cast of one, or date('…').
fn literal(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Value(v) => match &v.value {
            SqlValue::SingleQuotedString(s) | SqlValue::DoubleQuotedString(s) => Some(s.clone()),
            SqlValue::Number(n, _) => Some(n.to_string()),
            _ => None,
        },
        Expr::TypedString(t) => literal(&Expr::Value(t.value.clone())),
        Expr::Cast { expr, .. } | Expr::Nested(expr) => literal(expr),
        Expr::Function(f) if matches!(name_of(f).as_str(), "date" | "datetime" | "to_date" | "timestamp") => {
            match args_of(f).as_slice() {
                [only] => literal(only),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A function's name, lower case, without its schema.
fn name_of(f: &Function) -> String {
    let name = f.name.to_string().to_lowercase();
    name.rsplit('.')
        .next()
        .unwrap_or_default()
        .trim_matches('"')
        .to_string()
}

/// A function's plain arguments.
fn args_of(f: &Function) -> Vec<&Expr> {
    match &f.args {
        FunctionArguments::List(list) => list
            .args
            .iter()
            .filter_map(|arg| match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether an expression reads a column (an identifier somewhere inside).
fn reads_column(expr: &Expr) -> bool {
    visit_expressions(expr, |e| match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// Whether an expression is a year of a column: EXTRACT(YEAR FROM c), YEAR(c), strftime('%Y', c), a column named
/// for years.
fn year_of_column(expr: &Expr) -> bool {
    match expr {
        Expr::Extract { field, expr, .. } => matches!(field, DateTimeField::Year) && reads_column(expr),
        Expr::Function(f) => {
            let args = args_of(f);
            let format = args.first().and_then(|a| literal(a)).unwrap_or_default().to_lowercase();
            match name_of(f).as_str() {
                "year" => true,
                "strftime" | "to_char" | "date_format" | "date_part" => {
                    format == "%y" || format == "yyyy" || format == "year"
                }
                _ => false,
            }
        }
        Expr::Cast { expr, .. } | Expr::Nested(expr) => year_of_column(expr),
        Expr::Identifier(i) => i.value.to_lowercase().contains("year") || i.value.contains('年'),
        Expr::CompoundIdentifier(parts) => parts
            .last()
            .is_some_and(|i| i.value.to_lowercase().contains("year") || i.value.contains('年')),
        _ => false,
    }
}

/// The bounds one comparison of a column with a temporal literal gives (`op` as read with the column on the left).
fn bounds_of(op: &BinaryOperator, value: Temporal) -> Vec<Bound> {
    let next = |d: Date| d.tomorrow().unwrap_or(d);
    let previous = |d: Date| d.yesterday().unwrap_or(d);
    match op {
        BinaryOperator::Eq => vec![Bound::From(value.first()), Bound::To(value.last())],
        BinaryOperator::GtEq => vec![Bound::From(value.first())],
        BinaryOperator::Gt if value.within_day() == Some(true) => vec![Bound::From(value.first())],
        BinaryOperator::Gt => vec![Bound::From(next(value.last()))],
        BinaryOperator::LtEq => vec![Bound::To(value.last())],
        BinaryOperator::Lt if value.within_day() == Some(true) => vec![Bound::To(value.last())],
        BinaryOperator::Lt => vec![Bound::To(previous(value.first()))],
        _ => Vec::new(),
    }
}

/// `a op b` read with `b` on the left.
fn flipped(op: &BinaryOperator) -> BinaryOperator {
    match op {
        BinaryOperator::Gt => BinaryOperator::Lt,
        BinaryOperator::Lt => BinaryOperator::Gt,
        BinaryOperator::GtEq => BinaryOperator::LtEq,
        BinaryOperator::LtEq => BinaryOperator::GtEq,
        other => other.clone(),
    }
}

/// Every condition of the query on a time column with a temporal literal, with the bounds it gives.
fn time_conditions(query: &Query) -> Vec<(String, Vec<Bound>)> {
    let mut found = Vec::new();
    let _ = visit_expressions(query, |expr| {
        match expr {
            Expr::BinaryOp { left, op, right } => {
                let sides = [(left, right, op.clone()), (right, left, flipped(op))];
                for (column, value, op) in sides {
                    if literal(column).is_some() || !reads_column(column) {
                        continue;
                    }
                    let Some(value) = literal(value).and_then(|text| temporal(&text, year_of_column(column))) else {
                        continue;
                    };
                    let bounds = bounds_of(&op, value);
                    if !bounds.is_empty() {
                        found.push((expr.to_string(), bounds));
                    }
                }
            }
            Expr::Between {
                expr: column,
                negated: false,
                low,
                high,
            } if reads_column(column) => {
                let year = year_of_column(column);
                let read = |e: &Expr| literal(e).and_then(|text| temporal(&text, year));
                if let (Some(low), Some(high)) = (read(low), read(high)) {
                    found.push((expr.to_string(), vec![Bound::From(low.first()), Bound::To(high.last())]));
                }
            }
            Expr::Like {
                negated: false,
                expr: column,
                pattern,
                ..
            } if reads_column(column) => {
                let pattern = literal(pattern).unwrap_or_default();
                if let Some(prefix) = pattern.strip_suffix('%').filter(|p| !p.contains(['%', '_']))
                    && let Some(value) = temporal(prefix, true)
                {
                    found.push((
                        expr.to_string(),
                        vec![Bound::From(value.first()), Bound::To(value.last())],
                    ));
                }
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    found
}

/// The ranges the question allows: its time expressions, and their comparison periods when it compares periods.
fn allowed_ranges(facts: &QuestionFacts) -> Vec<DateRange> {
    let stated: Vec<DateRange> = facts.times.iter().map(|t| t.date_range).collect();
    let compares = facts
        .demands
        .iter()
        .any(|d| matches!(d.kind, DemandKind::Period { .. } | DemandKind::Change));
    let mut allowed = stated.clone();
    if compares {
        for range in &stated {
            for basis in [Basis::YearOverYear, Basis::PeriodOverPeriod] {
                allowed.extend(compare_range(*range, basis));
            }
        }
    }
    allowed
}

fn dates(query: &Query, facts: &QuestionFacts, found: &mut Vec<Mismatch>) {
    if facts.times.is_empty() {
        return;
    }
    let allowed = allowed_ranges(facts);
    let today = facts.today;
    let fits = |bound: &Bound| match *bound {
        Bound::From(day) => allowed.iter().any(|r| r.start == day),
        // An end cut at today or later, inside a range that reaches past today, reads the same data.
        Bound::To(day) => allowed
            .iter()
            .any(|r| r.end == day || (r.start <= today && today <= day && day <= r.end)),
    };
    let stated = facts
        .times
        .iter()
        .map(|t| {
            let words = facts.question.get(t.range.clone()).unwrap_or_default();
            format!("「{words}」（{} 至 {}）", t.date_range.start, t.date_range.end)
        })
        .collect::<Vec<_>>()
        .join("、");
    for (condition, bounds) in time_conditions(query) {
        for bound in bounds.iter().filter(|b| !fits(b)) {
            let bound = match bound {
                Bound::From(day) => format!("从 {day} 起"),
                Bound::To(day) => format!("到 {day} 止"),
            };
            found.push(Mismatch::Dates {
                condition: condition.clone(),
                bound,
                stated: stated.clone(),
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Filter values

/// Whether the question names `value`: a whole word for Latin text, inside the text for other scripts; a value of
/// one character is too short to tell.
fn question_names(facts: &QuestionFacts, value: &str) -> bool {
    let value = canonical(value.trim());
    if value.chars().count() < 2 {
        return false;
    }
    if value.is_ascii() {
        return contains_word(&facts.canonical, &value);
    }
    facts.canonical.contains(&value)
}

/// Whether `needle` occurs in `text` with no letter or digit right before or after it.
fn contains_word(text: &str, needle: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    text.match_indices(needle)
        .any(|(at, _)| !word(text[..at].chars().next_back()) && !word(text[at + needle.len()..].chars().next()))
}

/// The last part of a column reference, lower case.
fn column_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Identifier(i) => Some(i.value.to_lowercase()),
        Expr::CompoundIdentifier(parts) => parts.last().map(|i| i.value.to_lowercase()),
        Expr::Nested(e) => column_name(e),
        _ => None,
    }
}

/// Every string value compared with a column (=, <>, IN, LIKE), by the column's name.
fn filter_values(query: &Query) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let _ = visit_expressions(query, |expr| {
        match expr {
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq | BinaryOperator::NotEq,
                right,
            } => {
                for (column, value) in [(left, right), (right, left)] {
                    if let (Some(column), Some(value)) = (column_name(column), literal(value)) {
                        found.push((column, value));
                    }
                }
            }
            Expr::In { expr, target, .. } => {
                if let (Some(column), sqlparser::ast::InTarget::List(items)) = (column_name(expr), target) {
                    found.extend(items.iter().filter_map(literal).map(|v| (column.clone(), v)));
                }
            }
            Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
                if let (Some(column), Some(value)) = (column_name(expr), literal(pattern)) {
                    found.push((column, value.trim_matches('%').to_string()));
                }
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    found
}

/// Every string literal of the query.
fn string_literals(query: &Query) -> Vec<String> {
    let mut found = Vec::new();
    let _ = visit_expressions(query, |expr| {
        if let Expr::Value(v) = expr
            && let SqlValue::SingleQuotedString(s) | SqlValue::DoubleQuotedString(s) = &v.value
        {
            found.push(canonical(s));
        }
        ControlFlow::<()>::Continue(())
    });
    found
}

fn values(query: &Query, facts: &QuestionFacts, columns: &[DescribedColumn], found: &mut Vec<Mismatch>) {
    let filters = filter_values(query);
    let literals = string_literals(query);
    for column in columns.iter().filter(|c| !c.values.is_empty()) {
        let named: Vec<&String> = column.values.iter().filter(|v| question_names(facts, v)).collect();
        if named.is_empty() {
            continue;
        }
        let name = column.name.to_lowercase();
        let label = format!("{}.{}", column.table, column.name);
        for (_, value) in filters.iter().filter(|(c, _)| *c == name) {
            let text = canonical(value);
            let agrees = question_names(facts, value)
                || named.iter().any(|n| {
                    let n = canonical(n);
                    text.contains(&n) || n.contains(&text)
                });
            if !agrees && !text.is_empty() {
                found.push(Mismatch::Value {
                    column: label.clone(),
                    value: value.clone(),
                    named: named.iter().map(|n| n.to_string()).collect(),
                });
            }
        }
        for value in named {
            let wanted = canonical(value);
            if !literals.iter().any(|l| l.contains(&wanted)) {
                found.push(Mismatch::MissingValue {
                    column: label.clone(),
                    value: value.clone(),
                });
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Measures

/// The lower-case words of an identifier or a phrase (gross_profit, grossProfit, "gross profit" → gross profit).
fn words_of(text: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && previous_lower {
                out.push(' ');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            if !c.is_ascii() {
                out.push(c);
                out.push(' ');
            }
            previous_lower = false;
        }
    }
    out.trim().to_string()
}

/// The spelling by which `text` names `measure`, if it does.
fn spelled(measure: &MeasureWord, text: &str) -> Option<&'static str> {
    let folded = canonical(text);
    if let Some(zh) = measure.zh.iter().find(|w| folded.contains(*w)) {
        return Some(zh);
    }
    let words = format!(" {} ", words_of(text));
    measure.en.iter().find(|w| words.contains(&format!(" {w} "))).copied()
}

/// The distinct schema columns an expression reads, lower case.
fn schema_columns_read(expr: &impl Visit, schema: &BTreeSet<String>) -> BTreeSet<String> {
    let mut read = BTreeSet::new();
    let _ = visit_expressions(expr, |e| {
        if let Some(name) = column_name(e).filter(|n| schema.contains(n)) {
            read.insert(name);
        }
        ControlFlow::<()>::Continue(())
    });
    read
}

/// Every query block of a query, outermost first.
struct Blocks<'a> {
    queries: Vec<&'a Query>,
}

impl<'a> Blocks<'a> {
    fn of(query: &'a Query) -> Vec<&'a Query> {
        let mut blocks = Blocks { queries: Vec::new() };
        blocks.walk(query);
        blocks.queries
    }

    fn walk(&mut self, query: &'a Query) {
        self.queries.push(query);
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                self.walk(&cte.query);
            }
        }
        self.walk_set(&query.body);
    }

    fn walk_set(&mut self, body: &'a SetExpr) {
        match body {
            SetExpr::Select(select) => {
                for table in &select.from {
                    self.walk_factor(&table.relation);
                    for join in &table.joins {
                        self.walk_factor(&join.relation);
                    }
                }
            }
            SetExpr::Query(query) => self.walk(query),
            SetExpr::SetOperation { left, right, .. } => {
                self.walk_set(left);
                self.walk_set(right);
            }
            _ => {}
        }
    }

    fn walk_factor(&mut self, factor: &'a sqlparser::ast::TableFactor) {
        match factor {
            sqlparser::ast::TableFactor::Derived { subquery, .. } => self.walk(subquery),
            sqlparser::ast::TableFactor::NestedJoin { table_with_joins, .. } => {
                self.walk_factor(&table_with_joins.relation);
                for join in &table_with_joins.joins {
                    self.walk_factor(&join.relation);
                }
            }
            _ => {}
        }
    }
}

/// The select blocks of a set expression.
fn selects(body: &SetExpr) -> Vec<&sqlparser::ast::Select> {
    match body {
        SetExpr::Select(select) => vec![select],
        SetExpr::Query(query) => selects(&query.body),
        SetExpr::SetOperation { left, right, .. } => {
            let mut all = selects(left);
            all.extend(selects(right));
            all
        }
        _ => Vec::new(),
    }
}

/// Whether the query computes from two columns or more (a - b, a / b): a measure may be derived.
fn computes(query: &Query, schema: &BTreeSet<String>) -> bool {
    visit_expressions(query, |e| match e {
        Expr::BinaryOp {
            op: BinaryOperator::Plus | BinaryOperator::Minus | BinaryOperator::Multiply | BinaryOperator::Divide,
            ..
        } if schema_columns_read(e, schema).len() >= 2 => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

fn measures(query: &Query, facts: &QuestionFacts, columns: &[DescribedColumn], found: &mut Vec<Mismatch>) {
    let schema: BTreeSet<String> = columns.iter().map(|c| c.name.to_lowercase()).collect();
    let read = schema_columns_read(query, &schema);
    let blocks = Blocks::of(query);
    for measure in MEASURE_WORDS {
        let Some(words) = spelled(measure, &facts.question) else {
            continue;
        };
        let of_measure: Vec<String> = columns
            .iter()
            .filter(|c| {
                spelled(measure, &c.name).is_some()
                    || c.comment.as_deref().is_some_and(|t| spelled(measure, t).is_some())
            })
            .map(|c| c.name.to_lowercase())
            .collect();
        if of_measure.iter().any(|c| read.contains(c)) {
            continue;
        }
        let mut aliased = false;
        for block in &blocks {
            for select in selects(&block.body) {
                for item in &select.projection {
                    let SelectItem::ExprWithAlias { expr, alias } = item else {
                        continue;
                    };
                    if spelled(measure, &alias.value).is_none() {
                        continue;
                    }
                    aliased = true;
                    if schema_columns_read(expr, &schema).len() < 2 {
                        found.push(Mismatch::Alias {
                            measure: words.to_string(),
                            alias: alias.value.clone(),
                            expression: expr.to_string(),
                            columns: of_measure.clone(),
                        });
                    }
                }
            }
        }
        if !aliased && !computes(query, &schema) {
            found.push(Mismatch::Measure {
                measure: words.to_string(),
                columns: of_measure,
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Counts of people

/// The words of a question asking for a number of people (多少人, 几位, 几个客户, how many customers), if any.
pub fn people_count_words(question: &str) -> Option<String> {
    let text = canonical(question);
    for (at, cue) in text
        .match_indices("多少")
        .chain(text.match_indices('几').map(|(at, _)| (at, "几")))
    {
        let rest = &text[at + cue.len()..];
        let (classifier, rest) = match rest.chars().next() {
            Some(c @ ('个' | '位' | '名')) => (Some(c), &rest[c.len_utf8()..]),
            _ => (None, rest),
        };
        let noun = PEOPLE_ZH
            .iter()
            .find(|w| rest.starts_with(*w))
            .or_else(|| classifier.and(PEOPLE_ZH_CLASSIFIED.iter().find(|w| rest.starts_with(*w))));
        let words = |tail: &str| format!("{cue}{}{tail}", classifier.map(String::from).unwrap_or_default());
        match noun {
            Some(&"人") if rest["人".len()..].starts_with(NOT_PEOPLE_AFTER_REN) => {}
            Some(noun) => return Some(words(noun)),
            // 几位 / 几名 count people even without a noun.
            None if matches!(classifier, Some('位' | '名')) => return Some(words("")),
            None => {}
        }
    }
    if let Some(at) = text.find("人数") {
        return Some(text[at..at + "人数".len()].to_string());
    }
    let words: Vec<String> = words_of(question).split(' ').map(str::to_string).collect();
    for (i, pair) in words.windows(2).enumerate() {
        let cue = matches!((pair[0].as_str(), pair[1].as_str()), ("how", "many") | ("number", "of"));
        if cue
            && let Some(noun) = words
                .iter()
                .skip(i + 2)
                .take(3)
                .find(|w| PEOPLE_EN.contains(&w.as_str()))
        {
            return Some(format!("{} {} … {noun}", pair[0], pair[1]));
        }
    }
    None
}

/// The counts of a query and whether each is distinct.
fn counts(query: &Query) -> Vec<(String, bool)> {
    let mut found = Vec::new();
    let _ = visit_expressions(query, |expr| {
        if let Expr::Function(f) = expr
            && name_of(f) == "count"
        {
            let distinct = matches!(&f.args, FunctionArguments::List(list)
                if list.duplicate_treatment == Some(DuplicateTreatment::Distinct));
            found.push((expr.to_string(), distinct));
        }
        ControlFlow::<()>::Continue(())
    });
    found
}

/// Whether an inner block of the query makes its rows distinct (SELECT DISTINCT, GROUP BY): a count over it
/// counts distinct things.
fn inner_distinct(query: &Query) -> bool {
    Blocks::of(query).iter().skip(1).any(|block| {
        selects(&block.body).iter().any(|select| {
            select.distinct.is_some()
                || match &select.group_by {
                    GroupByExpr::All(_) => true,
                    GroupByExpr::Expressions(exprs, _) => !exprs.is_empty(),
                }
        })
    })
}

fn people(query: &Query, facts: &QuestionFacts, found: &mut Vec<Mismatch>) {
    let Some(words) = people_count_words(&facts.question) else {
        return;
    };
    let counts = counts(query);
    if counts.is_empty() || counts.iter().any(|(_, distinct)| *distinct) || inner_distinct(query) {
        return;
    }
    for (count, _) in counts {
        found.push(Mismatch::PeopleCount {
            words: words.clone(),
            count,
        });
    }
}

#[cfg(test)]
mod tests;
