//! Where a value reaches through equal columns. A parameter compared with one column is compared with every column
//! that equals it — a template's `JOIN … ON r.movie_id = m.id`, a metric model's join —, so a value asked of an
//! unscoped table's column reaches a scoped table's column and is decided by the viewer's scope there, never
//! answered empty ([`equal_columns`]); a refusal of such a value names it as the user asked it ([`named_refusal`]).

use std::collections::VecDeque;

use super::bound::ScopeRefusal;

/// A column as written: its table or alias (none when unqualified) and its name, both ASCII-lowercased.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ColumnKey {
    /// The table's name or alias, when the column is qualified.
    pub table: Option<String>,
    /// The column's name.
    pub column: String,
}

impl ColumnKey {
    /// The key of `table.column` (or of a bare `column`).
    pub fn new(table: Option<&str>, column: &str) -> Self {
        Self {
            table: table.map(str::to_ascii_lowercase),
            column: column.to_ascii_lowercase(),
        }
    }
}

/// Every column equal to `start` through `equalities` (pairs of columns that are equal in every row read),
/// `start` first.
pub fn equal_columns(start: &ColumnKey, equalities: &[(ColumnKey, ColumnKey)]) -> Vec<ColumnKey> {
    let mut reached = vec![start.clone()];
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(column) = queue.pop_front() {
        for (a, b) in equalities {
            let other = if *a == column {
                b
            } else if *b == column {
                a
            } else {
                continue;
            };
            if !reached.contains(other) {
                reached.push(other.clone());
                queue.push_back(other.clone());
            }
        }
    }
    reached
}

/// `refusal` (values of a scoped column outside the scope) told as what the user asked: `label` (a dimension's name;
/// empty for a named subject) and the `names` that are outside, instead of the column's raw values.
pub fn named_refusal(refusal: ScopeRefusal, label: &str, names: &[String]) -> ScopeRefusal {
    let param = |key: &str| {
        refusal
            .params
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let (column, scope) = (param("column"), param("scope"));
    let asked = names.join("、");
    let label_en = if label.is_empty() {
        String::new()
    } else {
        format!("{label} ")
    };
    let mut params = vec![("table", param("table")), ("column", column.clone())];
    if !label.is_empty() {
        params.push(("label", label.to_string()));
    }
    params.extend([("asked", asked.clone()), ("scope", scope.clone())]);
    ScopeRefusal {
        code: refusal.code,
        zh: format!("超出数据范围：你问的{label}「{asked}」不在你可见的范围内（{column}：{scope}），不能查询"),
        en: format!(
            "Outside your data scope: {label_en}「{}」 is not within what you may see ({column}: {scope})",
            names.join("」, 「")
        ),
        params,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(table: &str, column: &str) -> ColumnKey {
        ColumnKey::new((!table.is_empty()).then_some(table), column)
    }

    #[test]
    fn equal_columns_follow_every_equality_once() {
        let equalities = vec![
            (key("r", "movie_id"), key("M", "ID")),
            (key("b", "movie_id"), key("r", "movie_id")),
            (key("x", "a"), key("y", "b")),
        ];
        assert_eq!(
            equal_columns(&key("m", "id"), &equalities),
            vec![key("m", "id"), key("r", "movie_id"), key("b", "movie_id")]
        );
        assert_eq!(equal_columns(&key("", "id"), &equalities), vec![key("", "id")]);
    }

    #[test]
    fn a_named_refusal_names_what_was_asked() {
        let refusal = ScopeRefusal {
            code: super::super::bound::OUTSIDE,
            zh: String::new(),
            en: String::new(),
            params: vec![
                ("table", "ratings".into()),
                ("column", "movie_id".into()),
                ("asked", "3".into()),
                ("scope", "1、2".into()),
            ],
        };
        let named = named_refusal(refusal, "影片", &["甲片".to_string()]);
        assert!(
            named.zh.contains("影片「甲片」") && named.zh.contains("movie_id：1、2"),
            "{}",
            named.zh
        );
        assert!(named.en.contains("「甲片」"), "{}", named.en);
        assert!(named.params.contains(&("asked", "甲片".to_string())));
        let subject = named_refusal(named, "", &["乙片".to_string()]);
        assert!(subject.zh.contains("你问的「乙片」"), "{}", subject.zh);
        assert!(subject.en.contains("scope: 「乙片」"), "{}", subject.en);
        assert!(!subject.params.iter().any(|(k, _)| *k == "label"));
    }
}
