//! A metric filter whose values reach a scoped table through the model's joins: a dimension of an unscoped table
//! (an entity's name) whose column or key the model joins to a scoped table's column is decided by the viewer's
//! scope there. A value whose every key lies outside the scope is refused by its name (`scope.outside`), never
//! left out of the answer without a word.

use serde_json::Value;
use wenshu_contract::metric::{ColumnRef, MetricModel};

use super::values::KnownValue;
use crate::scope::BoundScope;
use crate::scope::ScopeRefusal;
use crate::scope::reach::{ColumnKey, equal_columns, named_refusal};

/// The refusal of filtering `dimension` of `model` by `values` when some of them lie, through the model's joins,
/// outside `scope`: named by the dimension's label and those values; `None` when every value may be within it.
pub(crate) fn outside_through_joins(
    model: &MetricModel,
    dimension: usize,
    values: &[&KnownValue],
    scope: &BoundScope,
) -> Option<ScopeRefusal> {
    let dim = &model.dimensions[dimension];
    let equalities: Vec<(ColumnKey, ColumnKey)> = model
        .tables
        .iter()
        .filter_map(|t| t.join.as_ref())
        .map(|(a, b)| (key(a), key(b)))
        .collect();
    let reach = Reach {
        model,
        equalities: &equalities,
        scope,
    };
    reach
        .outside(&dim.column, values, |v| vec![v.value.clone()])
        .or_else(|| {
            dim.key
                .as_ref()
                .and_then(|column| reach.outside(column, values, |v| v.keys.clone()))
        })
        .map(|(refusal, names)| named_refusal(refusal, &dim.label, &names))
}

/// A model's equal columns under one viewer's scope.
struct Reach<'a> {
    model: &'a MetricModel,
    equalities: &'a [(ColumnKey, ColumnKey)],
    scope: &'a BoundScope,
}

impl Reach<'_> {
    /// At the first column equal to `start` where some `values` hold (as `held` tells: the value itself, or its
    /// keys) only values outside the scope: that column's refusal and those values' names.
    fn outside(
        &self,
        start: &ColumnRef,
        values: &[&KnownValue],
        held: impl Fn(&KnownValue) -> Vec<Value>,
    ) -> Option<(ScopeRefusal, Vec<String>)> {
        for reached in equal_columns(&key(start), self.equalities) {
            let Some(table) = reached.table.as_deref().and_then(|alias| {
                self.model
                    .tables
                    .iter()
                    .find(|t| t.alias.eq_ignore_ascii_case(alias))
                    .map(|t| t.name.as_str())
            }) else {
                continue;
            };
            let mut first = None;
            let mut names = Vec::new();
            for value in values {
                let held = held(value);
                let refusals: Vec<ScopeRefusal> = held
                    .iter()
                    .filter_map(|v| self.scope.outside(table, &reached.column, std::slice::from_ref(v)))
                    .collect();
                if !held.is_empty() && refusals.len() == held.len() {
                    first = first.or(refusals.into_iter().next());
                    names.push(value.text.clone());
                }
            }
            if let Some(refusal) = first {
                return Some((refusal, names));
            }
        }
        None
    }
}

fn key(column: &ColumnRef) -> ColumnKey {
    ColumnKey::new(Some(&column.table), &column.column)
}
