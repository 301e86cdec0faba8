//! A model's identifiers as English words: a measure or dimension named `sales_person` is "sales person",
//! "salesperson" or "salespeople" in a question (general English: word breaks and plurals), so that `sales by
//! region` and `top 3 salespeople by quantity` read the model's own names.

use std::ops::Range;

/// Words of tool names that say what kind of tool it is, not what it measures (general English).
const TOOL_KIND_WORDS: &[&str] = &[
    "metric",
    "metrics",
    "query",
    "queries",
    "analysis",
    "analytics",
    "stat",
    "stats",
    "statistics",
    "report",
    "reports",
    "data",
    "lookup",
    "search",
    "tool",
    "api",
    "info",
    "detail",
    "details",
    "list",
];

/// Last parts of column names that say what kind of column it is (`doctor_name`, `ward_id`): the thing is the rest.
const COLUMN_KIND_WORDS: &[&str] = &["name", "id", "code", "key", "no", "num"];

/// The singular of an English word (lower case): people → person, categories → category, boxes → box.
pub fn singular(word: &str) -> String {
    let w = word.to_ascii_lowercase();
    if let Some(head) = w.strip_suffix("people") {
        return format!("{head}person");
    }
    if let Some(head) = w.strip_suffix("children") {
        return format!("{head}child");
    }
    if w.len() > 4
        && let Some(head) = w.strip_suffix("ies")
    {
        return format!("{head}y");
    }
    for end in ["sses", "xes", "ches", "shes", "zes"] {
        if w.len() > end.len() + 1 && w.ends_with(end) {
            return w[..w.len() - 2].to_string();
        }
    }
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        return w[..w.len() - 1].to_string();
    }
    w
}

/// The plural of an English word (lower case): person → people, category → categories, box → boxes.
fn plural(word: &str) -> String {
    let w = word.to_ascii_lowercase();
    if let Some(head) = w.strip_suffix("person") {
        return format!("{head}people");
    }
    if w.ends_with('y') && !w.ends_with("ay") && !w.ends_with("ey") && !w.ends_with("oy") {
        return format!("{}ies", &w[..w.len() - 1]);
    }
    if ["s", "x", "ch", "sh", "z"].iter().any(|e| w.ends_with(e)) {
        return format!("{w}es");
    }
    format!("{w}s")
}

/// The parts of an identifier, lower case (`sales_person` → [sales, person], `releaseYear` → [release, year]).
fn parts(identifier: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in identifier.chars() {
        if !c.is_ascii_alphanumeric() || (c.is_ascii_uppercase() && !word.is_empty()) {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            if !c.is_ascii_alphanumeric() {
                continue;
            }
        }
        word.push(c.to_ascii_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    if out.len() > 1 && out.last().is_some_and(|w| COLUMN_KIND_WORDS.contains(&w.as_str())) {
        out.pop();
    }
    out
}

/// An identifier's parts glued, its last part singular (`sales_person` → salesperson).
fn glued(parts: &[String]) -> String {
    match parts.split_last() {
        Some((last, head)) => format!("{}{}", head.concat(), singular(last)),
        None => String::new(),
    }
}

/// The ASCII words of `text` (lower case), with their byte ranges.
fn tokens(text: &str) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (c.is_ascii_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                out.push((s..at, singular(&text[s..at])));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Where `text` names the identifier: its parts as consecutive words (sales person) or glued (salesperson), in
/// the singular or the plural; byte ranges of `text`.
pub fn find(text: &str, identifier: &str) -> Vec<Range<usize>> {
    let raw = parts(identifier);
    if raw.is_empty() {
        return Vec::new();
    }
    let glued = glued(&raw);
    let want: Vec<String> = raw.iter().map(|p| singular(p)).collect();
    let words = tokens(text);
    let mut out = Vec::new();
    for (i, (range, word)) in words.iter().enumerate() {
        if want.len() > 1 && *word == glued {
            out.push(range.clone());
            continue;
        }
        let Some(run) = words.get(i..i + want.len()) else {
            continue;
        };
        if run.iter().zip(&want).all(|((_, w), p)| w == p) {
            out.push(range.start..run[want.len() - 1].0.end);
        }
    }
    out
}

/// Whether `words` (a demand's target or measure, as written) name the identifier, every word of them.
pub fn names(words: &str, identifier: &str) -> bool {
    let all = tokens(words);
    !all.is_empty()
        && find(words, identifier)
            .iter()
            .any(|r| r.start == all[0].0.start && r.end == all[all.len() - 1].0.end)
}

/// The spellings of an identifier a question may use: spaced and glued, singular and plural.
pub fn forms(identifier: &str) -> Vec<String> {
    let p = parts(identifier);
    let Some((last, head)) = p.split_last() else {
        return Vec::new();
    };
    let mut many = head.to_vec();
    many.push(plural(last));
    vec![p.join(" "), p.concat(), many.join(" "), many.concat()]
}

/// The words of a tool's name that say what it is about (`sales_metrics` → sales), found in `text`.
pub fn tool_words(text: &str, tool: &str) -> Vec<Range<usize>> {
    let about: Vec<String> = parts(tool)
        .into_iter()
        .filter(|p| p.len() >= 3 && !TOOL_KIND_WORDS.contains(&p.as_str()))
        .map(|p| singular(&p))
        .collect();
    tokens(text)
        .into_iter()
        .filter(|(_, w)| about.contains(w))
        .map(|(r, _)| r)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_and_word_breaks_name_an_identifier() {
        assert_eq!(find("top 3 salespeople by quantity", "sales_person"), vec![6..17]);
        assert_eq!(find("visits by ward", "ward").len(), 1);
        assert_eq!(find("by sales persons", "sales_person"), vec![3..16]);
        assert_eq!(find("the categories", "category"), vec![4..14]);
        assert_eq!(find("by releaseyear", "releaseYear"), vec![3..14]);
        assert!(find("wardrobe", "ward").is_empty(), "whole words only");
        assert_eq!(
            find("by doctors", "doctor_name"),
            vec![3..10],
            "a column's kind word is no part of the thing"
        );
    }

    #[test]
    fn a_target_names_an_identifier_with_every_word() {
        assert!(names("regions", "region"));
        assert!(names("Sales People", "sales_person"));
        assert!(!names("sales", "sales_person"));
        assert!(!names("region code", "region"));
    }

    #[test]
    fn forms_are_spaced_glued_and_plural() {
        let f = forms("sales_person");
        assert!(
            f.contains(&"salespeople".to_string()) && f.contains(&"sales person".to_string()),
            "{f:?}"
        );
        assert!(forms("category").contains(&"categories".to_string()));
    }

    #[test]
    fn a_tool_name_speaks_for_its_subject_not_its_kind() {
        assert_eq!(tool_words("visits by ward", "visit_metrics"), vec![0..6]);
        assert!(tool_words("show the metrics", "visit_metrics").is_empty());
    }
}
