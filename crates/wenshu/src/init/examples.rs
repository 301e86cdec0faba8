//! `x-examples` made from a drafted model: a total in the last sampled year, the first measure by the first
//! dimension, a monthly series and a filter on a sampled value — in Chinese when the labels are Chinese. English
//! periods are written as day ranges (`from 2025-01-01 to 2025-12-31`): a bare year is read as a number there.

use serde_json::Value;

/// Sample questions over `model` (an `x-metrics` object), each with whether it names a period; `year` is the
/// year of the last sampled day.
pub fn examples(
    model: &Value,
    year: Option<&str>,
    sampled: &[(usize, Vec<String>)],
    chinese: bool,
) -> Vec<(String, bool)> {
    let label = |list: &str, i: usize| model[list][i]["label"].as_str().map(str::to_string);
    let Some(first) = label("measures", 0) else {
        return Vec::new();
    };
    let second = label("measures", 1).unwrap_or_else(|| first.clone());
    let dimension = label("dimensions", 0);
    let value = sampled.iter().find_map(|(_, values)| values.first().cloned());
    let mut out = Vec::new();
    if chinese {
        let period = year.map(|y| format!("{y}年")).unwrap_or_default();
        out.push(format!("{period}的{first}"));
        if let Some(d) = &dimension {
            out.push(format!("{period}各{d}的{first}"));
        }
        if year.is_some() {
            out.push(format!("{period}每个月的{second}"));
        }
        if let Some(v) = value {
            out.push(format!("{v}的{first}"));
        }
    } else {
        let period = year
            .map(|y| format!(" from {y}-01-01 to {y}-12-31"))
            .unwrap_or_default();
        out.push(format!("total {first}{period}"));
        if let Some(d) = &dimension {
            out.push(format!("{first} by {d}{period}"));
        }
        if year.is_some() {
            out.push(format!("{second} by month{period}"));
        }
        if let Some(v) = value {
            out.push(format!("{first} of {v}"));
        }
    }
    let dated = year.is_some();
    let last = out.len().saturating_sub(usize::from(value_example(sampled)));
    out.into_iter()
        .enumerate()
        .map(|(i, q)| (q.trim_start_matches('的').to_string(), dated && i < last))
        .collect()
}

fn value_example(sampled: &[(usize, Vec<String>)]) -> bool {
    sampled.iter().any(|(_, values)| !values.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn examples_follow_the_labels_language_and_name_their_periods() {
        let model = json!({"measures": [{"label": "销售额"}], "dimensions": [{"label": "渠道"}]});
        let sampled = vec![(0, vec!["线上".to_string()])];
        let zh = examples(&model, Some("2025"), &sampled, true);
        assert_eq!(zh[0], ("2025年的销售额".to_string(), true));
        assert_eq!(zh[1], ("2025年各渠道的销售额".to_string(), true));
        assert_eq!(zh.last().unwrap(), &("线上的销售额".to_string(), false));
        let model = json!({"measures": [{"label": "amount"}], "dimensions": []});
        let en = examples(&model, None, &[], false);
        assert_eq!(en, vec![("total amount".to_string(), false)]);
    }
}
