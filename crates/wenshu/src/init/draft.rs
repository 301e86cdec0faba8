//! From a schema and its samples to a draft: one metric tool per fact-like table (numeric columns → measures,
//! low-cardinality text → dimensions, a day column → the time column, foreign keys → joins to dimension tables
//! and their name columns → entity catalogs), the fallback tool, and why each thing was or was not drafted.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};
use wenshu_lexicon::column_words::{NameKind, name_kind, name_words};
use wenshu_lexicon::identifiers::singular;
use wenshu_sql::db::Dialect;

use super::naming::{Naming, is_chinese, is_identifier, naming};
use super::sample::TableSample;
use super::schema::{Column, ColumnKind, Table};

/// An entity catalog loaded by a query (`[[entity_queries]]` in `wenshu.toml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityQuery {
    /// The entity type (the dimension table's name).
    pub entity_type: String,
    /// `SELECT id, name FROM …`.
    pub query: String,
}

/// What `init` drafts, before it is checked and written.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The metric tools, one per fact-like table.
    pub tools: Vec<Value>,
    /// The tables the fallback may read.
    pub fallback_tables: Vec<String>,
    /// The entity catalogs of the dimension tables' name columns.
    pub entity_queries: Vec<EntityQuery>,
    /// What was decided and why, one line each.
    pub decisions: Vec<String>,
    /// Per tool, the drafted examples that name a period (their metric query must have a time range).
    pub dated_examples: Vec<(String, Vec<String>)>,
}

/// The largest share of a table's rows a text column's distinct values may make up to be a dimension.
const DIMENSION_SHARE: f64 = 0.5;

/// Drafts the catalog of `tables` sampled as `samples`, in `dialect`.
pub fn draft(tables: &[Table], samples: &HashMap<String, TableSample>, dialect: Dialect) -> Draft {
    let mut out = Draft {
        tools: Vec::new(),
        fallback_tables: Vec::new(),
        entity_queries: Vec::new(),
        decisions: Vec::new(),
        dated_examples: Vec::new(),
    };
    let empty = TableSample::default();
    let shapes: Vec<Result<(), String>> = tables
        .iter()
        .map(|t| fact_shape(t, samples.get(&t.name).unwrap_or(&empty), dialect))
        .collect();
    // Views over the tables repeat their rows: drafted only when no table is a fact table.
    let table_facts = tables.iter().zip(&shapes).any(|(t, s)| s.is_ok() && !t.view);
    let facts: HashSet<&str> = tables
        .iter()
        .zip(&shapes)
        .filter(|(t, s)| s.is_ok() && !(t.view && table_facts))
        .map(|(t, _)| t.name.as_str())
        .collect();
    // A table of lines (it references another fact table: an order's lines) after the tables it details: where
    // several tools answer, the first in the catalog does, and a header counts its own rows (how many orders).
    let lines = |t: &Table| {
        t.foreign_keys
            .iter()
            .any(|k| k.table != t.name && facts.contains(k.table.as_str()))
    };
    let mut order: Vec<(&Table, Result<(), String>)> = tables.iter().zip(shapes).collect();
    order.sort_by_key(|(t, _)| lines(t));
    for (table, shape) in order {
        match shape {
            Err(reason) => out.decisions.push(format!("{}: no metric tool — {reason}", table.name)),
            Ok(()) if table.view && table_facts => out.decisions.push(format!(
                "{}: no metric tool — a view, and tables are drafted (a view's rows repeat theirs)",
                table.name
            )),
            Ok(()) => draft_tool(table, tables, samples, dialect, &mut out),
        }
    }
    out.fallback_tables.sort();
    out.fallback_tables.dedup();
    out
}

/// Whether `table` looks like a fact table: measures, and a day column or a foreign key.
fn fact_shape(table: &Table, sample: &TableSample, dialect: Dialect) -> Result<(), String> {
    if table_alias(&table.name).is_none() {
        return Err("its name has no English words to alias it by, which metric models require".into());
    }
    if sample.rows == 0 {
        return Err("it has no rows to sample".into());
    }
    if measure_columns(table).is_empty() {
        return Err(
            "no numeric column outside its keys to measure (a dimension table, joined where referenced)".into(),
        );
    }
    if time_column(table, sample, dialect).is_none() && table.foreign_keys.is_empty() {
        return Err("neither a day column nor a foreign key: nothing to slice its numbers by".into());
    }
    Ok(())
}

/// The name a model reads a table by: its own when an identifier, else its words joined (`Order Details` →
/// order_details), which the model gives it as an alias.
fn table_alias(name: &str) -> Option<String> {
    if is_identifier(name) {
        return Some(name.to_string());
    }
    let alias = name_words(name).join("_");
    is_identifier(&alias).then_some(alias)
}

/// Whether a column is a key or names one (`id`, `…_id`, `OrderID`, `code`).
fn is_key(table: &Table, column: &Column) -> bool {
    column.primary_key || table.foreign_key(&column.name).is_some() || name_kind(&column.name) == NameKind::Key
}

/// The numeric columns that add up across rows: no keys, and none whose name says rank, year, rate or the like.
fn measure_columns(table: &Table) -> Vec<&Column> {
    table
        .columns
        .iter()
        .filter(|c| c.kind == ColumnKind::Number && is_identifier(&c.name) && !is_key(table, c))
        .filter(|c| name_kind(&c.name) != NameKind::NotAdditive)
        .collect()
}

/// The day column: the first `DATE`, or `DATETIME`/`TIMESTAMP` holding only days, (or, in SQLite, ISO day text)
/// with a sampled range; else the first timestamp with times of day (in SQLite, ISO text after a day), read as its
/// day.
fn time_column<'a>(table: &'a Table, sample: &TableSample, dialect: Dialect) -> Option<(&'a Column, &'static str)> {
    let columns = || table.columns.iter().filter(|c| is_identifier(&c.name));
    let days = columns().find_map(|c| {
        let ranged = sample.columns.get(&c.name).is_some_and(|s| s.range.is_some());
        match (c.kind, dialect, ranged) {
            (ColumnKind::Date | ColumnKind::Timestamp, Dialect::Postgres | Dialect::MySql, true) => Some((c, "date")),
            (ColumnKind::Date | ColumnKind::Timestamp | ColumnKind::Text, Dialect::Sqlite, true) => Some((c, "text")),
            _ => None,
        }
    });
    days.or_else(|| {
        columns()
            .find(|c| sample.columns.get(&c.name).is_some_and(|s| s.stamps.is_some()))
            .map(|c| (c, "timestamp"))
    })
}

/// Names used so far in one model (codes, labels and synonyms must be unique across it).
#[derive(Default)]
struct Names(HashSet<String>);

impl Names {
    /// A free code, label and synonyms for one item: a taken label gets `prefix`, a taken code a number, a taken
    /// synonym is dropped (each name must denote one thing); the item's own code may equal its label.
    fn item(&mut self, code: &str, label: &str, prefix: &str, synonyms: &[String]) -> (String, String, Vec<String>) {
        let label = self.free(label, |l, n| match n {
            0 if is_chinese(prefix) => format!("{prefix}{l}"),
            0 => format!("{prefix} {l}"),
            n => format!("{prefix} {l} {n}"),
        });
        let code = if code == label {
            code.to_string()
        } else {
            self.free(code, |c, n| format!("{c}_{}", n + 2))
        };
        self.0.insert(label.clone());
        self.0.insert(code.clone());
        let synonyms = synonyms
            .iter()
            .filter(|s| **s != label && **s != code)
            .filter(|s| self.0.insert((*s).clone()))
            .cloned()
            .collect();
        (code, label, synonyms)
    }

    fn free(&self, wanted: &str, next: impl Fn(&str, usize) -> String) -> String {
        let mut candidate = wanted.to_string();
        let mut n = 0;
        while self.0.contains(&candidate) {
            candidate = next(wanted, n);
            n += 1;
        }
        candidate
    }
}

/// A named item of a model: `name`, `label` and (when any) `synonyms`, made unique by `names`.
fn named(names: &mut Names, code: &str, label: &str, prefix: &str, synonyms: &[String], mut rest: Value) -> Value {
    let (code, label, synonyms) = names.item(code, label, prefix, synonyms);
    rest["name"] = json!(code);
    rest["label"] = json!(label);
    if !synonyms.is_empty() {
        rest["synonyms"] = json!(synonyms);
    }
    rest
}

/// A table joined to the fact table through one foreign key.
struct Joined<'a> {
    alias: String,
    table: &'a Table,
    via: String,
    /// The alias and table it joins from: the fact table, or a table joined to it (a second hop).
    from_alias: String,
    from_table: &'a Table,
}

fn draft_tool(
    table: &Table,
    tables: &[Table],
    samples: &HashMap<String, TableSample>,
    dialect: Dialect,
    out: &mut Draft,
) {
    let empty = TableSample::default();
    let sample = samples.get(&table.name).unwrap_or(&empty);
    let tool_name = format!(
        "{}_metrics",
        table_alias(&table.name).unwrap_or_else(|| table.name.clone())
    );
    let table_naming = naming(&table.name, table.comment.as_deref());
    let mut names = Names::default();
    let mut notes: Vec<String> = Vec::new();
    let mut joins: Vec<Joined> = Vec::new();
    let own = table_alias(&table.name).unwrap_or_else(|| table.name.clone());
    let mut aliases: HashSet<String> = HashSet::from([own.clone()]);
    for key in &table.foreign_keys {
        let Some(target) = tables.iter().find(|t| t.name == key.table) else {
            notes.push(format!(
                "foreign key {} → {} not joined: that table is not read",
                key.column, key.table
            ));
            continue;
        };
        if !is_identifier(&target.name) || !is_identifier(&key.target) {
            notes.push(format!(
                "foreign key {} → {} not joined: not an ASCII identifier",
                key.column, key.table
            ));
            continue;
        }
        if let Some(&joined) = sample.joined.get(&key.column)
            && joined != sample.rows
        {
            notes.push(format!(
                "foreign key {} → {} not joined: joined, {} rows become {joined} ({})",
                key.column,
                key.table,
                sample.rows,
                if joined < sample.rows {
                    "some keys are empty or match nothing; a metric join keeps matching rows only"
                } else {
                    "the referenced column repeats"
                }
            ));
            continue;
        }
        let alias = if aliases.contains(&target.name) {
            key.column.trim_end_matches("_id").to_string()
        } else {
            target.name.clone()
        };
        if !is_identifier(&alias) || !aliases.insert(alias.clone()) {
            notes.push(format!(
                "foreign key {} → {} not joined: no free alias",
                key.column, key.table
            ));
            continue;
        }
        joins.push(Joined {
            alias,
            table: target,
            via: key.column.clone(),
            from_alias: own.clone(),
            from_table: table,
        });
    }
    // A second hop: the tables a joined table references (a line's track's genre), when the chain keeps the rows.
    let first_hop: Vec<(String, &Table, String)> = joins
        .iter()
        .map(|j| (j.alias.clone(), j.table, j.via.clone()))
        .collect();
    for (from_alias, from_table, via) in first_hop {
        for key in &from_table.foreign_keys {
            let Some(target) = tables.iter().find(|t| t.name == key.table) else {
                continue;
            };
            let plain = is_identifier(&target.name) && is_identifier(&key.target) && is_identifier(&key.column);
            if !plain || target.name == table.name || joins.iter().any(|j| j.table.name == target.name) {
                continue;
            }
            match sample.joined.get(&format!("{via}>{}", key.column)) {
                Some(&n) if n == sample.rows => {}
                Some(&n) => {
                    notes.push(format!(
                        "{from_alias}.{} → {} not joined: through {via}, {} rows become {n}",
                        key.column, key.table, sample.rows
                    ));
                    continue;
                }
                None => continue,
            }
            if !aliases.insert(target.name.clone()) {
                continue;
            }
            joins.push(Joined {
                alias: target.name.clone(),
                table: target,
                via: key.column.clone(),
                from_alias: from_alias.clone(),
                from_table,
            });
        }
    }
    // A column of the fact table whose name a joined table also has is written with the table's name (Track and
    // InvoiceLine both have UnitPrice): unqualified it names either, and the model refuses it. A table read under
    // an alias has every column written with it.
    let column_ref = |column: &str| -> String {
        let shared = joins
            .iter()
            .any(|j| j.table.columns.iter().any(|c| c.name.eq_ignore_ascii_case(column)));
        if shared || own != table.name {
            format!("{own}.{column}")
        } else {
            column.to_string()
        }
    };
    for column in table
        .columns
        .iter()
        .filter(|c| c.kind == ColumnKind::Number && !is_key(table, c) && name_kind(&c.name) == NameKind::NotAdditive)
    {
        notes.push(format!(
            "{} not a measure: its name says a rank, year, rate or level, which does not add up",
            column.name
        ));
    }
    let mut measures = Vec::new();
    for column in measure_columns(table) {
        let n = naming(&column.name, column.comment.as_deref());
        let integer = column.declared.to_ascii_lowercase().contains("int");
        let rest = json!({
            "expr": format!("SUM({})", column_ref(&column.name)),
            "decimals": if integer { 0 } else { 2 },
            "aggregations": ["avg", "max", "min", "count"],
        });
        let mut m = named(
            &mut names,
            &column.name,
            &n.label,
            &table_naming.label,
            &n.synonyms,
            rest,
        );
        if let Some(unit) = &n.unit {
            m["unit"] = json!(unit);
        }
        measures.push(m);
    }
    if let Some((price, quantity)) = price_and_quantity(table) {
        let discount = table
            .columns
            .iter()
            .find(|c| c.kind == ColumnKind::Number && name_words(&c.name).iter().any(|w| w == "discount"));
        // A discount whose every value is a fraction (0 to 1) is taken off; any other scale is not guessed.
        let fraction = discount.filter(|d| {
            sample
                .columns
                .get(&d.name)
                .and_then(|s| s.bounds)
                .is_some_and(|(low, high)| (0.0..=1.0).contains(&low) && (0.0..=1.0).contains(&high))
        });
        if let (Some(d), None) = (discount, fraction) {
            notes.push(format!(
                "{price} × {quantity} not drafted as sales: {} is not a fraction from 0 to 1, and another scale is \
                 not guessed",
                d.name
            ));
        } else {
            let product = format!("{} * {}", column_ref(&price), column_ref(&quantity));
            let expr = match fraction {
                Some(d) => format!("SUM({product} * (1 - {}))", column_ref(&d.name)),
                None => format!("SUM({product})"),
            };
            let rest = json!({
                "expr": expr,
                "decimals": 2,
                "aggregations": ["avg", "max", "min"],
            });
            let synonyms: Vec<String> = ["revenue", "sales", "sales amount", "营收", "销售收入"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            measures.push(named(
                &mut names,
                "sales_amount",
                "销售额",
                &table_naming.label,
                &synonyms,
                rest,
            ));
            notes.push(format!(
                "{price} × {quantity}{} → measure 销售额 (revenue)",
                fraction.map_or(String::new(), |d| format!(" × (1 − {})", d.name))
            ));
        }
    }
    // The rows of an event table each line belongs to (the orders of order lines), counted by their key, when
    // every one of them has lines (else the count would leave some out).
    for join in joins.iter().filter(|j| j.from_alias == own) {
        let joined_sample = samples.get(&join.table.name).unwrap_or(&empty);
        let header = facts_of_events(join.table, joined_sample, dialect);
        if !header || sample.distinct.get(&join.via) != Some(&joined_sample.rows) {
            continue;
        }
        let header_naming = naming(&join.table.name, join.table.comment.as_deref());
        let (label, mut synonyms) = count_naming(&header_naming.label, &join.table.name);
        // A word that starts a name of the lines' own count (订单 of 订单明细数, invoice of invoice line count) would
        // name either.
        let (own_label, own_synonyms) = count_naming(&table_naming.label, &table.name);
        synonyms.retain(|s| {
            !std::iter::once(&own_label)
                .chain(&own_synonyms)
                .any(|o| o.starts_with(s.as_str()))
        });
        let rest = json!({"expr": format!("COUNT(DISTINCT {})", column_ref(&join.via)), "decimals": 0});
        let code = format!("{}_count", join.alias);
        measures.push(named(&mut names, &code, &label, &table_naming.label, &synonyms, rest));
        notes.push(format!(
            "{label}: COUNT(DISTINCT {}), every row of {} having lines",
            join.via, join.table.name
        ));
    }
    let (count_label, count_synonyms) = count_naming(&table_naming.label, &table.name);
    let rest = json!({"expr": "COUNT(*)", "decimals": 0});
    measures.push(named(
        &mut names,
        "row_count",
        &count_label,
        &table_naming.label,
        &count_synonyms,
        rest,
    ));

    let time = time_column(table, sample, dialect);
    let mut dimensions = Vec::new();
    let mut sampled: Vec<(usize, Vec<String>)> = Vec::new();
    for column in &table.columns {
        if time.is_some_and(|(t, _)| t.name == column.name) || column.kind != ColumnKind::Text {
            continue;
        }
        match dimension_values(column, sample, sample.rows) {
            Ok(values) => {
                let n = naming(&column.name, column.comment.as_deref());
                sampled.push((dimensions.len(), values.clone()));
                dimensions.push(dimension(
                    &mut names,
                    &n,
                    &column.name,
                    &column_ref(&column.name),
                    &table_naming,
                    &values,
                ));
            }
            Err(reason) => notes.push(format!("{} not a dimension: {reason}", column.name)),
        }
    }
    let mut from = vec![json!({"table": table.name, "columns": identifiers(table)})];
    if own != table.name {
        from[0]["alias"] = json!(own);
    }
    for join in &joins {
        from.push(json!({
            "table": join.table.name,
            "alias": join.alias,
            "columns": identifiers(join.table),
            "on": [
                format!("{}.{}", join.from_alias, join.via),
                format!("{}.{}", join.alias, target_of(join.from_table, &join.via))
            ],
        }));
        out.fallback_tables.push(join.table.name.clone());
        let joined_sample = samples.get(&join.table.name).unwrap_or(&empty);
        let joined_naming = naming(&join.alias, join.table.comment.as_deref());
        let events = facts_of_events(join.table, joined_sample, dialect);
        let name_column = name_column(join.table, joined_sample, events);
        match name_column {
            None if !events => {
                notes.push(format!(
                    "{} (via {}): no name column, so no dimension of it (its rows are not told apart by name)",
                    join.alias, join.via
                ));
                continue;
            }
            None => notes.push(format!(
                "{} (via {}): records of events without a name of their own: no entity of them, their columns \
                 grouped by",
                join.alias, join.via
            )),
            Some(_) => {}
        }
        // The name column first: a question naming the table (各客户) finds it before the table's other columns.
        let is_name = |c: &Column| name_column.is_some_and(|n| n.name == c.name);
        let columns = name_column
            .into_iter()
            .chain(join.table.columns.iter().filter(|c| !is_name(c)));
        for column in columns {
            if column.kind != ColumnKind::Text || !is_identifier(&column.name) {
                continue;
            }
            let code = format!("{}_{}", join.alias, column.name);
            let col_ref = format!("{}.{}", join.alias, column.name);
            let n = naming(&column.name, column.comment.as_deref());
            if is_name(column) {
                let pk = join
                    .table
                    .columns
                    .iter()
                    .find(|c| c.primary_key)
                    .map_or(target_of(join.from_table, &join.via), |c| c.name.clone());
                let label = if n.from_comment {
                    n.label.clone()
                } else {
                    joined_naming.label.clone()
                };
                // The table's own words name its rows too (shipper, shippers for a CompanyName).
                let mut syn = n.synonyms.clone();
                syn.push(joined_naming.label.clone());
                syn.extend(joined_naming.synonyms.iter().cloned());
                let rest = json!({"column": col_ref, "values": {"entity": join.table.name}});
                dimensions.push(named(&mut names, &code, &label, &joined_naming.label, &syn, rest));
                if !out.entity_queries.iter().any(|e| e.entity_type == join.table.name) {
                    out.entity_queries.push(EntityQuery {
                        entity_type: join.table.name.clone(),
                        query: format!(
                            "SELECT {} AS id, {} AS name FROM {}",
                            dialect.quote_identifier(&pk),
                            dialect.quote_identifier(&column.name),
                            dialect.quote_identifier(&join.table.name)
                        ),
                    });
                }
                notes.push(format!(
                    "{} (via {}) → dimension `{label}` resolved by name from the entity catalog `{}`",
                    col_ref, join.via, join.table.name
                ));
                continue;
            }
            // A joined column groups the fact table's rows: its values are counted against those.
            match dimension_values(column, joined_sample, sample.rows) {
                Ok(values) => {
                    sampled.push((dimensions.len(), values.clone()));
                    dimensions.push(dimension(&mut names, &n, &code, &col_ref, &joined_naming, &values));
                }
                Err(reason) => notes.push(format!("{col_ref} not a dimension: {reason}")),
            }
        }
    }
    drop_shared_first_words(&mut dimensions);
    if dimensions.is_empty() {
        out.decisions.push(format!(
            "{}: no metric tool — no column to group or filter by (a metric tool needs a dimension)",
            table.name
        ));
        out.decisions.extend(notes.into_iter().map(|n| format!("  {n}")));
        return;
    }
    let mut model = json!({"from": from, "measures": measures, "dimensions": dimensions});
    // Without a day of its own, the day of a table it joins (an order line's order date).
    let parent_time = if time.is_none() {
        joins.iter().find_map(|j| {
            let joined_sample = samples.get(&j.table.name)?;
            let (column, ty) = time_column(j.table, joined_sample, dialect)?;
            Some((j, column, ty, joined_sample))
        })
    } else {
        None
    };
    if let Some((column, ty)) = time {
        let n = naming(&column.name, column.comment.as_deref());
        let label = n.label;
        model["time"] = json!({"column": column_ref(&column.name), "type": ty, "label": label});
        let range = sample
            .columns
            .get(&column.name)
            .and_then(|s| s.range.clone().or_else(|| s.stamps.clone()))
            .unwrap_or_default();
        notes.push(format!(
            "{} is the time column ({ty}, {} to {})",
            column.name, range.0, range.1
        ));
    } else if let Some((join, column, ty, joined_sample)) = parent_time {
        let n = naming(&column.name, column.comment.as_deref());
        model["time"] = json!({"column": format!("{}.{}", join.alias, column.name), "type": ty, "label": n.label});
        let range = joined_sample
            .columns
            .get(&column.name)
            .and_then(|s| s.range.clone().or_else(|| s.stamps.clone()))
            .unwrap_or_default();
        notes.push(format!(
            "{}.{} (via {}) is the time column ({ty}, {} to {})",
            join.alias, column.name, join.via, range.0, range.1
        ));
    } else {
        notes.push("no day column: questions cannot name periods".into());
    }
    let chosen = model["time"]["column"].as_str().unwrap_or_default().to_string();
    for c in table.columns.iter().filter(|c| c.kind == ColumnKind::Timestamp) {
        if sample.columns.get(&c.name).is_some_and(|s| s.timed) && chosen != column_ref(&c.name) {
            notes.push(format!(
                "{} holds times of day: not the time column (another is)",
                c.name
            ));
        }
    }
    for key in &table.composite_keys {
        notes.push(format!("composite foreign key {key} not joined"));
    }
    let chinese =
        is_chinese(&table_naming.label) || measures.iter().any(|m| m["label"].as_str().is_some_and(is_chinese));
    let labels = |list: &[Value]| {
        list.iter()
            .filter_map(|m| m["label"].as_str().map(str::to_string))
            .collect::<Vec<_>>()
    };
    let (measure_labels, dimension_labels) = (labels(&measures), labels(&dimensions));
    let (title, description) = if chinese {
        (
            format!("{}指标", table_naming.label),
            format!(
                "{}的指标：{}{}{}",
                table_naming.label,
                measure_labels.join("、"),
                if dimension_labels.is_empty() {
                    String::new()
                } else {
                    format!("，可按{}分组、筛选", dimension_labels.join("、"))
                },
                if model.get("time").is_some() {
                    "，按日、周、月、季度、年统计"
                } else {
                    ""
                }
            ),
        )
    } else {
        (
            format!("{} metrics", table_naming.label),
            format!(
                "Metrics of {}: {}{}{}",
                table_naming.label,
                measure_labels.join(", "),
                if dimension_labels.is_empty() {
                    String::new()
                } else {
                    format!("; by {}", dimension_labels.join(", "))
                },
                if model.get("time").is_some() {
                    "; per day, week, month, quarter or year"
                } else {
                    ""
                }
            ),
        )
    };
    let year = match parent_time {
        Some((_, column, ty, joined_sample)) => sample_year(Some((column, ty)), joined_sample),
        None => sample_year(time, sample),
    };
    let examples = super::examples::examples(&model, year.as_deref(), &sampled, chinese);
    out.decisions.push(format!(
        "{}: metric tool `{tool_name}` — {} measures ({}), {} dimensions ({}){}",
        table.name,
        measure_labels.len(),
        measure_labels.join(", "),
        dimension_labels.len(),
        dimension_labels.join(", "),
        if joins.is_empty() {
            String::new()
        } else {
            format!(
                ", joins {}",
                joins
                    .iter()
                    .map(|j| format!("{} on {}", j.table.name, j.via))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    ));
    out.decisions.extend(notes.into_iter().map(|n| format!("  {n}")));
    out.fallback_tables.push(table.name.clone());
    let dated = examples.iter().filter(|(_, d)| *d).map(|(q, _)| q.clone()).collect();
    out.dated_examples.push((tool_name.clone(), dated));
    let examples: Vec<&String> = examples.iter().map(|(q, _)| q).collect();
    out.tools.push(json!({
        "name": tool_name,
        "title": title,
        "description": description,
        "x-examples": examples,
        "x-metrics": model,
    }));
}

/// The label and synonyms of the count of a table's rows, from its label `t` and its name (订单数, number of
/// orders).
fn count_naming(t: &str, name: &str) -> (String, Vec<String>) {
    if is_chinese(t) {
        let mut synonyms = vec![format!("{t}数量"), format!("{t}总数"), format!("{t}量"), t.to_string()];
        // The table's English words too (orders → number of orders).
        let english = name_words(name).join(" ");
        if !english.is_empty() && !is_chinese(&english) {
            synonyms.extend([
                format!("number of {english}"),
                format!("{english} count"),
                english.clone(),
            ]);
        }
        (format!("{t}数"), synonyms)
    } else {
        (format!("number of {t}"), vec![format!("{t} count"), t.to_string()])
    }
}

/// Whether `table` is a fact table whose rows carry a day (events: orders, invoices).
fn facts_of_events(table: &Table, sample: &TableSample, dialect: Dialect) -> bool {
    !table.view && fact_shape(table, sample, dialect).is_ok() && time_column(table, sample, dialect).is_some()
}

/// Removes English synonyms a one-word English target would read as the wrong dimension. A question's English
/// target is read one word at a time (`by ship country` → ship) and names a dimension whose spelling starts with
/// it: for each such first word of a dimension's spellings or code, the synonyms of other dimensions it starts
/// (or that start it) are left out; when several dimensions begin with it (ship region, ship country), theirs too.
fn drop_shared_first_words(dimensions: &mut [Value]) {
    let ascii_words = |s: &str| -> Vec<String> { if s.is_ascii() { name_words(s) } else { Vec::new() } };
    let spellings = |d: &Value| -> Vec<String> {
        let mut all = vec![d["label"].as_str().unwrap_or_default().to_string()];
        all.extend(
            d["synonyms"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| s.as_str().map(str::to_string)),
        );
        all
    };
    // Per dimension, the first words of its spellings and code of two or more words.
    let firsts: Vec<HashSet<String>> = dimensions
        .iter()
        .map(|d| {
            let mut words: Vec<Vec<String>> = spellings(d).iter().map(|s| ascii_words(s)).collect();
            words.push(name_words(d["name"].as_str().unwrap_or_default()));
            words
                .into_iter()
                .filter(|w| w.len() > 1)
                .map(|w| w[0].clone())
                .collect()
        })
        .collect();
    let targets: HashSet<&String> = firsts.iter().flatten().collect();
    for target in targets {
        let intended: Vec<usize> = (0..dimensions.len()).filter(|i| firsts[*i].contains(target)).collect();
        for (i, d) in dimensions.iter_mut().enumerate() {
            if intended == [i] {
                continue;
            }
            let hits = |s: &str| {
                let s = s.to_ascii_lowercase();
                s.is_ascii()
                    && !s.is_empty()
                    && s != *target
                    && (s.starts_with(target.as_str()) || target.starts_with(&s))
            };
            if let Some(list) = d.get_mut("synonyms").and_then(Value::as_array_mut) {
                list.retain(|s| !s.as_str().is_some_and(hits));
                if list.is_empty() {
                    d.as_object_mut().map(|o| o.remove("synonyms"));
                }
            }
        }
    }
}

/// A unit price and a quantity column of one table (`UnitPrice`, `Quantity`): their product is the line's amount.
fn price_and_quantity(table: &Table) -> Option<(String, String)> {
    let measures = measure_columns(table);
    let last_is = |words: &[&str]| {
        measures
            .iter()
            .find(|c| name_words(&c.name).last().is_some_and(|w| words.contains(&w.as_str())))
            .map(|c| c.name.clone())
    };
    Some((last_is(&["price"])?, last_is(&["quantity", "qty"])?))
}

/// The year of the last sampled day, for examples.
fn sample_year(time: Option<(&Column, &str)>, sample: &TableSample) -> Option<String> {
    let (column, _) = time?;
    let found = sample.columns.get(&column.name)?;
    let (_, last) = found.range.clone().or_else(|| found.stamps.clone())?;
    Some(last.chars().take(4).collect())
}

/// The referenced column of the foreign key at `via`.
fn target_of(table: &Table, via: &str) -> String {
    table.foreign_key(via).map(|k| k.target.clone()).unwrap_or_default()
}

/// The identifier columns of a table (the only ones a model may list).
fn identifiers(table: &Table) -> Vec<String> {
    table
        .columns
        .iter()
        .filter(|c| is_identifier(&c.name))
        .map(|c| c.name.clone())
        .collect()
}

/// A dimension table's name column: `name`, `…_name`, `CompanyName` or `title`, else its first text column with
/// many values. A table of `events` (its rows carry a day: an order, an invoice) is named only by its own name
/// (`name`, `title`, `order_name` of orders): another name in it (a ship-to name) or a column of many values (a
/// customer's code) names something else, and a question naming the table would read it as that.
fn name_column<'a>(table: &'a Table, sample: &TableSample, events: bool) -> Option<&'a Column> {
    let text = table
        .columns
        .iter()
        .filter(|c| c.kind == ColumnKind::Text && is_identifier(&c.name));
    // People named in parts (first and last name) have no one name column; their `title` is a job's.
    if text.clone().any(|c| name_kind(&c.name) == NameKind::NamePart) {
        return None;
    }
    let own: Vec<String> = name_words(&table.name).iter().map(|w| singular(w)).collect();
    let own_name = |c: &&Column| {
        let words = name_words(&c.name);
        match words.split_last() {
            Some((last, head)) if last == "name" || last == "title" => {
                head.is_empty() || own.ends_with(&head.iter().map(|w| singular(w)).collect::<Vec<_>>())
            }
            _ => false,
        }
    };
    if events {
        return text.clone().find(own_name);
    }
    let named = text.clone().find(|c| {
        let words = name_words(&c.name);
        words.last().is_some_and(|w| w == "name") || words == ["title"]
    });
    let plain = || {
        text.clone()
            .filter(|c| !matches!(name_kind(&c.name), NameKind::Key | NameKind::Contact))
    };
    named
        .or_else(|| {
            text.clone()
                .find(|c| sample.columns.get(&c.name).is_some_and(|s| s.values.is_none()))
        })
        // A lookup table of one text column (a store's city): that column names its rows.
        .or_else(|| plain().next().filter(|_| plain().count() == 1))
}

/// The sampled values of a text column, when it is low-cardinality enough to be a dimension of `fact_rows` rows.
fn dimension_values(column: &Column, sample: &TableSample, fact_rows: u64) -> Result<Vec<String>, String> {
    if !is_identifier(&column.name) {
        return Err("not an ASCII identifier".into());
    }
    match name_kind(&column.name) {
        NameKind::Contact => return Err("its name says contact details or a locator".into()),
        NameKind::FreeText => return Err("its name says free text".into()),
        NameKind::Key => return Err("its name says a key or code".into()),
        NameKind::NamePart => return Err("its name says a part of a person's name".into()),
        NameKind::NotAdditive | NameKind::Plain => {}
    }
    let Some(values) = sample.columns.get(&column.name).and_then(|s| s.values.clone()) else {
        return Err(format!("more than {} distinct values", super::sample::VALUE_CAP));
    };
    if values.is_empty() {
        return Err("no values".into());
    }
    let rows = fact_rows.max(1) as f64;
    if values.len() > 1 && values.len() as f64 > rows * DIMENSION_SHARE {
        return Err(format!(
            "{} distinct values in {fact_rows} rows: nearly every row differs",
            values.len(),
        ));
    }
    Ok(values)
}

fn dimension(names: &mut Names, n: &Naming, code: &str, column: &str, owner: &Naming, values: &[String]) -> Value {
    let shown: Vec<&str> = values.iter().take(8).map(String::as_str).collect();
    let rest = json!({
        "column": column,
        "values": "data",
        "description": format!("{} values when drafted: {}", values.len(), shown.join(", ")),
    });
    named(names, code, &n.label, &owner.label, &n.synonyms, rest)
}
