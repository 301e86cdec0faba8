//! A list a row limit cuts — a tool reading SQL (`x-sql`) whose `x-answers` names a `limit` parameter with a declared
//! `maximum` —: the call reads one row past the most it may show (the tool's maximum within the server's row cap,
//! never unbounded), so the answer knows the list's true count up to that cap, cut to the call's own limit; and a
//! user may ask for every row up to the cap (`RowsWanted::All`, or 全部明细 / all rows in the question).

use serde::Serialize;
use serde_json::{Map, Value};
use wenshu_contract::Tool;

/// Which rows of a list a question wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RowsWanted {
    /// The rows its limit (asked or the tool's default) lets through.
    #[default]
    Limit,
    /// Every row up to the cap: the call's limit raised to it.
    All,
}

/// How many rows a list with a row limit has in all, beside the rows shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ListSize {
    /// The rows of the whole result when they are at most `rows_cap`; absent when there are more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows_total: Option<u64>,
    /// The most rows one call of the tool may show: its `maximum`, within the server's row cap.
    pub rows_cap: u64,
}

/// Words of a question asking for every row of a list rather than its first ones.
const ALL_ROWS_WORDS: [&str; 8] = [
    "全部明细",
    "所有明细",
    "全部记录",
    "所有记录",
    "全部数据明细",
    "all rows",
    "every row",
    "all the rows",
];

/// Whether `question` asks for every row of a list (全部明细, all rows).
pub fn asks_all_rows(question: &str) -> bool {
    let lower = question.to_lowercase();
    ALL_ROWS_WORDS.iter().any(|word| lower.contains(word))
}

/// The limit parameter of one call of a list, the rows the call shows and the cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListWindow {
    /// The limit parameter.
    pub param: String,
    /// The rows the call shows.
    pub limit: u64,
    /// The most rows one call may show.
    pub cap: u64,
}

impl ListWindow {
    /// The window of a call of `tool` with `params` (none when its answer has no limit with a maximum, or it does
    /// not read SQL); with `RowsWanted::All` — or a question asking every row with the limit left at its default —
    /// the limit in `params` is raised to the cap.
    pub fn of(
        tool: &Tool,
        params: &mut Map<String, Value>,
        row_cap: usize,
        wanted: RowsWanted,
        question: &str,
    ) -> Option<Self> {
        tool.definition().get("x-sql")?;
        let (param, asked) = crate::offer::offer_of(tool, params).limit?;
        let spec = tool.param(&param)?;
        let maximum = spec.maximum.as_ref().and_then(Value::as_u64)?;
        let cap = maximum.min(u64::try_from(row_cap).unwrap_or(u64::MAX)).max(1);
        let defaulted = spec.default.as_ref().and_then(Value::as_u64) == Some(asked);
        let all = wanted == RowsWanted::All || (defaulted && asks_all_rows(question));
        let limit = if all { cap } else { asked.min(cap) };
        params.insert(param.clone(), Value::from(limit));
        Some(Self { param, limit, cap })
    }

    /// The arguments the call runs with: its own, the limit one row past the cap.
    pub fn probe(&self, params: &Map<String, Value>) -> Map<String, Value> {
        let mut probe = params.clone();
        probe.insert(self.param.clone(), Value::from(self.cap.saturating_add(1)));
        probe
    }

    /// Cuts the rows read by the probe to the call's limit, and says how many the whole list has: counted when
    /// they were at most the cap and no server cap cut them (`capped`).
    pub fn cut(&self, rows: &mut Vec<Vec<Value>>, capped: bool) -> ListSize {
        let read = u64::try_from(rows.len()).unwrap_or(u64::MAX);
        rows.truncate(usize::try_from(self.limit).unwrap_or(usize::MAX));
        ListSize {
            rows_total: (read <= self.cap && !capped).then_some(read),
            rows_cap: self.cap,
        }
    }
}

impl ListSize {
    /// The note of a list showing fewer rows than it has, in Chinese and English: 「（显示前 10 行，共 38 行）」;
    /// none when every row is shown.
    pub fn note(&self, shown: usize) -> Option<(String, String)> {
        let shown_rows = u64::try_from(shown).unwrap_or(u64::MAX);
        match self.rows_total {
            Some(total) if total > shown_rows => Some((
                format!("（显示前 {shown} 行，共 {total} 行）"),
                format!(" (showing {shown} of {total} rows)"),
            )),
            Some(_) => None,
            None => Some((
                format!("（显示前 {shown} 行，共超过 {} 行）", self.rows_cap),
                format!(" (showing {shown} of more than {} rows)", self.rows_cap),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wenshu_contract::Catalog;

    use super::*;

    fn tool(maximum: Option<u64>) -> Catalog {
        let mut limit = json!({"type": "integer", "default": 10});
        if let Some(maximum) = maximum {
            limit["maximum"] = json!(maximum);
        }
        Catalog::from_value(&json!({"tools": [{"name": "t", "description": "d",
            "inputSchema": {"type": "object", "properties": {"limit": limit}},
            "x-answers": {"shape": "rows", "limit": "limit"},
            "x-sql": {"query": "SELECT a FROM t LIMIT :limit"}}]}))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn params(n: u64) -> Map<String, Value> {
        json!({ "limit": n }).as_object().cloned().unwrap_or_default()
    }

    fn rows(n: usize) -> Vec<Vec<Value>> {
        (0..n).map(|i| vec![json!(i)]).collect()
    }

    #[test]
    fn a_list_reads_one_row_past_the_cap_and_counts_what_it_cuts() {
        let catalog = tool(Some(100));
        let t = catalog.get("t").unwrap_or_else(|| panic!("no tool"));
        let mut p = params(10);
        let window = ListWindow::of(t, &mut p, 1000, RowsWanted::Limit, "明细").unwrap_or_else(|| panic!("none"));
        assert_eq!((window.limit, window.cap), (10, 100));
        assert_eq!(window.probe(&p)["limit"], json!(101));
        let mut read = rows(38);
        let size = window.cut(&mut read, false);
        assert_eq!((read.len(), size.rows_total), (10, Some(38)));
        assert_eq!(
            size.note(10).map(|n| n.0),
            Some("（显示前 10 行，共 38 行）".to_string())
        );
        // More than the cap: the count is not known, and said so.
        let mut read = rows(101);
        let size = window.cut(&mut read, false);
        assert_eq!(size.rows_total, None);
        assert_eq!(
            size.note(10).map(|n| n.1),
            Some(" (showing 10 of more than 100 rows)".to_string())
        );
    }

    #[test]
    fn all_rows_raise_the_limit_to_the_cap_within_the_server_cap() {
        let catalog = tool(Some(100));
        let t = catalog.get("t").unwrap_or_else(|| panic!("no tool"));
        let mut p = params(10);
        let window = ListWindow::of(t, &mut p, 50, RowsWanted::All, "").unwrap_or_else(|| panic!("none"));
        assert_eq!((window.limit, window.cap, p["limit"].clone()), (50, 50, json!(50)));
        let mut read = rows(38);
        let size = window.cut(&mut read, false);
        assert_eq!((read.len(), size.note(38)), (38, None));
        // 全部明细 with the default limit asks every row; with a limit the user asked, it keeps that limit.
        let mut p = params(10);
        let window = ListWindow::of(t, &mut p, 1000, RowsWanted::Limit, "张伟的全部明细");
        assert_eq!(window.map(|w| w.limit), Some(100));
        let mut p = params(20);
        let window = ListWindow::of(t, &mut p, 1000, RowsWanted::Limit, "全部明细前20条");
        assert_eq!(window.map(|w| w.limit), Some(20));
    }

    #[test]
    fn a_limit_without_a_maximum_is_no_window() {
        let catalog = tool(None);
        let t = catalog.get("t").unwrap_or_else(|| panic!("no tool"));
        assert_eq!(ListWindow::of(t, &mut params(10), 1000, RowsWanted::All, ""), None);
    }
}
