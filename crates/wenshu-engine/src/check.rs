//! Check (seed 003 §五): every routed field cleaned and validated before use; each problem has a fixed handling.
//!
//! | field | check | when it fails |
//! |---|---|---|
//! | toolCode | trimmed, in the enabled list | the fallback path |
//! | subjectType | a known entity type | treated as not given |
//! | subjectName | 《》 and quotes stripped; named by the question or the recent rounds | not given |
//! | startDate/endDate | valid ISO dates, start ≤ end; words (上个月) read by the time knowledge | treated as not given |
//! | rewrittenQuestion | non-empty | the user's own words |
//!
//! The question's own time expression, when it has exactly one, is the time knowledge's to read: routed dates that
//! differ from it, or none where it names one, give way to it (noted) — never to the tool's default range.

use jiff::civil::Date;
use serde::Serialize;
use wenshu_lexicon::canonical::{canonical, strip_name_decorations};
use wenshu_lexicon::time::{DateRange, parse_date_range};

use crate::route::{MAX_HISTORY, RouteDecision, Turn};

/// A routed decision after the checks: every field usable as is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckedRoute {
    /// The enabled tool chosen; `None` sends the question down the fallback path.
    pub tool: Option<String>,
    /// The subject's entity type, when known.
    pub subject_type: Option<String>,
    /// The subject's name, cleaned.
    pub subject_name: Option<String>,
    /// The routed date range, when both ends are valid.
    pub dates: Option<DateRange>,
    /// The complete question (the user's own words when the router gave none).
    pub rewritten_question: String,
    /// One line per field that was changed or set aside, and why.
    pub notes: Vec<String>,
    /// The same lines in Chinese, one for each of `notes`.
    pub notes_zh: Vec<String>,
}

/// The check's notes, each in English and Chinese.
#[derive(Default)]
struct Notes {
    en: Vec<String>,
    zh: Vec<String>,
}

impl Notes {
    fn push(&mut self, en: String, zh: String) {
        self.en.push(en);
        self.zh.push(zh);
    }
}

/// Checks a decision against the enabled tools and the known entity types; dates are read on `today`; a subject
/// name must come from the question or the recent rounds (`history`).
pub fn check_route(
    decision: &RouteDecision,
    question: &str,
    history: &[Turn],
    today: Date,
    enabled: &[&str],
    subject_types: &[String],
) -> CheckedRoute {
    let mut notes = Notes::default();
    let tool = check_tool(decision.tool_code.as_deref(), enabled, &mut notes);
    let subject_type = decision
        .subject_type
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .and_then(|t| {
            if subject_types.iter().any(|known| known == t) {
                Some(t.to_string())
            } else {
                notes.push(
                    format!(
                        "subjectType `{t}` is not a known type ({}): not given",
                        subject_types.join(", ")
                    ),
                    format!("对象类型「{t}」不是已知类型（{}）：不采用", subject_types.join("、")),
                );
                None
            }
        });
    let subject_name = decision
        .subject_name
        .as_deref()
        .map(strip_name_decorations)
        .filter(|n| !n.is_empty());
    if let (Some(raw), Some(clean)) = (&decision.subject_name, &subject_name)
        && raw.trim() != clean
    {
        notes.push(
            format!("subjectName `{raw}` cleaned to `{clean}`"),
            format!("对象名「{raw}」整理为「{clean}」"),
        );
    }
    let subject_name = subject_name.filter(|name| {
        let named = named_in_context(name, question, history);
        if !named {
            notes.push(
                format!("subjectName `{name}` is in neither the question nor the last rounds: not given"),
                format!("对象名「{name}」既不在问题里，也不在前几轮对话里：不采用"),
            );
        }
        named
    });
    let dates = check_dates(
        decision.start_date.as_deref(),
        decision.end_date.as_deref(),
        today,
        &mut notes,
    );
    let dates = question_dates(question, today, dates, &mut notes);
    let rewritten_question = match decision.rewritten_question.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => text.to_string(),
        _ => {
            notes.push(
                "rewrittenQuestion is empty: the user's own words are used".to_string(),
                "改写后的问题为空：用用户的原话".to_string(),
            );
            question.to_string()
        }
    };
    CheckedRoute {
        tool,
        subject_type,
        subject_name,
        dates,
        rewritten_question,
        notes: notes.en,
        notes_zh: notes.zh,
    }
}

fn check_tool(code: Option<&str>, enabled: &[&str], notes: &mut Notes) -> Option<String> {
    let code = code.map(str::trim).filter(|c| !c.is_empty());
    match code {
        None => {
            notes.push(
                "no tool was chosen: the fallback path".to_string(),
                "没有选中工具：走兜底".to_string(),
            );
            None
        }
        Some(code) if enabled.contains(&code) => Some(code.to_string()),
        Some(code) => {
            notes.push(
                format!("toolCode `{code}` is not an enabled tool: the fallback path"),
                format!("工具「{code}」未启用：走兜底"),
            );
            None
        }
    }
}

fn check_dates(start: Option<&str>, end: Option<&str>, today: Date, notes: &mut Notes) -> Option<DateRange> {
    let parse = |label: &str, text: Option<&str>, notes: &mut Notes| -> Option<Date> {
        let text = text.map(str::trim).filter(|t| !t.is_empty())?;
        match text.parse::<Date>() {
            Ok(date) if text.len() == 10 => Some(date),
            _ => match parse_date_range(text, today) {
                Ok(range) => {
                    let day = if label == "startDate" { range.start } else { range.end };
                    notes.push(
                        format!("{label} `{text}` read as a time expression: {day}"),
                        format!("{}「{text}」按时间说法读作 {day}", date_label_zh(label)),
                    );
                    Some(day)
                }
                Err(_) => {
                    notes.push(
                        format!("{label} `{text}` is not an ISO date: not given"),
                        format!("{}「{text}」不是 ISO 日期：不采用", date_label_zh(label)),
                    );
                    None
                }
            },
        }
    };
    let (start, end) = (parse("startDate", start, notes), parse("endDate", end, notes));
    match (start, end) {
        (Some(start), Some(end)) => DateRange::new(start, end).ok().or_else(|| {
            notes.push(
                format!("the dates {start}..{end} are inverted: not given"),
                format!("日期 {start}～{end} 起止颠倒：不采用"),
            );
            None
        }),
        (Some(day), None) | (None, Some(day)) => {
            notes.push(
                format!("only one end of the range was given: the single day {day}"),
                format!("只给了时间段的一端：按 {day} 这一天"),
            );
            Some(DateRange { start: day, end: day })
        }
        (None, None) => None,
    }
}

/// A routed date field's name in Chinese.
fn date_label_zh(label: &str) -> &'static str {
    if label == "startDate" {
        "开始日期"
    } else {
        "结束日期"
    }
}

/// A date range as the Chinese page writes it: 2026-11-01～2026-11-30.
fn zh_range(range: &DateRange) -> String {
    format!("{}～{}", range.start, range.end)
}

/// Whether a routed name comes from the question or the recent rounds: contained (folded), or most of its
/// characters there (a model may fix a typo or a numeral, never invent a name).
fn named_in_context(name: &str, question: &str, history: &[Turn]) -> bool {
    let recent = &history[history.len().saturating_sub(MAX_HISTORY)..];
    let mut context = canonical(question);
    for turn in recent {
        context.push_str(&canonical(&turn.question));
        context.push_str(&canonical(&turn.answer));
        if let Some(subject) = &turn.subject {
            context.push_str(&canonical(&subject.name));
        }
    }
    let name = canonical(name);
    if context.contains(&name) {
        return true;
    }
    let chars: Vec<char> = name.chars().filter(|c| !c.is_whitespace()).collect();
    let present = chars.iter().filter(|c| context.contains(**c)).count();
    !chars.is_empty() && present * 2 > chars.len()
}

/// The question's one time expression, read by the time knowledge, over routed dates that differ or are missing.
fn question_dates(question: &str, today: Date, routed: Option<DateRange>, notes: &mut Notes) -> Option<DateRange> {
    let facts = crate::facts::QuestionFacts::shared(question, today);
    let [span] = facts.times.as_slice() else {
        return routed;
    };
    let words = question.get(span.range.clone()).unwrap_or_default();
    match routed {
        Some(range) if range == span.date_range => Some(range),
        Some(range) => {
            notes.push(
                format!(
                    "the routed dates {range} differ from 「{words}」 ({}): the question's dates are used",
                    span.date_range
                ),
                format!(
                    "路由给的日期 {} 与问题里的「{words}」（{}）不同：用问题的日期",
                    zh_range(&range),
                    zh_range(&span.date_range)
                ),
            );
            Some(span.date_range)
        }
        None => {
            notes.push(
                format!(
                    "no dates were routed though the question says 「{words}」: {}",
                    span.date_range
                ),
                format!("路由没有给日期，问题里说了「{words}」：{}", zh_range(&span.date_range)),
            );
            Some(span.date_range)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    fn decision(tool: &str, name: Option<&str>, start: Option<&str>, end: Option<&str>) -> RouteDecision {
        RouteDecision {
            tool_code: Some(tool.to_string()),
            subject_type: Some("movie".into()),
            subject_name: name.map(str::to_string),
            start_date: start.map(str::to_string),
            end_date: end.map(str::to_string),
            rewritten_question: Some(String::new()),
        }
    }

    fn check(d: &RouteDecision) -> CheckedRoute {
        check_route(
            d,
            "原话",
            &[Turn::new("满江红的评分", "《满江红》7.8")],
            date(2026, 11, 29),
            &["movie_rating", "movie_box_office"],
            &["movie".to_string()],
        )
    }

    #[test]
    fn tool_codes_are_trimmed_and_must_be_enabled() {
        assert_eq!(
            check(&decision(" movie_rating\n", None, None, None)).tool.as_deref(),
            Some("movie_rating")
        );
        let checked = check(&decision("sales_delete", None, None, None));
        assert_eq!(checked.tool, None);
        assert!(checked.notes[0].contains("sales_delete"));
        // Each note in Chinese too, for the Chinese page's trace.
        assert_eq!(checked.notes_zh.len(), checked.notes.len());
        assert!(checked.notes_zh[0].contains("sales_delete") && checked.notes_zh[0].contains("未启用"));
    }

    #[test]
    fn names_are_cleaned_and_types_known() {
        let mut d = decision("movie_rating", Some("《满江红》"), None, None);
        assert_eq!(check(&d).subject_name.as_deref(), Some("满江红"));
        d.subject_type = Some("电影".into());
        assert_eq!(check(&d).subject_type, None);
    }

    #[test]
    fn a_subject_name_must_come_from_the_question_or_the_last_rounds() {
        let types = ["movie".to_string()];
        let today = date(2026, 11, 29);
        let named = |name: &str, question: &str, history: &[Turn]| {
            let d = decision("movie_rating", Some(name), None, None);
            check_route(&d, question, history, today, &["movie_rating"], &types).subject_name
        };
        assert_eq!(named("满江红", "满江红的评分", &[]).as_deref(), Some("满江红"));
        assert_eq!(
            named("满江红", "那它的评分呢", &[Turn::new("满江红的票房", "…")]).as_deref(),
            Some("满江红")
        );
        assert_eq!(
            named("流浪地球2", "流浪地球二的评分", &[]).as_deref(),
            Some("流浪地球2")
        );
        assert_eq!(named("长津湖", "那它的评分呢", &[]), None);
        let old = [
            Turn::new("长津湖的票房", "…"),
            Turn::new("a", "b"),
            Turn::new("c", "d"),
            Turn::new("e", "f"),
        ];
        assert_eq!(named("长津湖", "那它的评分呢", &old), None);
    }

    #[test]
    fn bad_dates_are_treated_as_not_given() {
        let ok = check(&decision(
            "movie_box_office",
            None,
            Some("2026-11-23"),
            Some("2026-11-29"),
        ));
        assert_eq!(
            ok.dates,
            Some(DateRange {
                start: date(2026, 11, 23),
                end: date(2026, 11, 29)
            })
        );
        assert_eq!(
            check(&decision("movie_box_office", None, Some("11/23"), Some("2026-11-29")))
                .dates
                .map(|d| d.start),
            Some(date(2026, 11, 23))
        );
        assert_eq!(
            check(&decision("movie_box_office", None, Some("soon"), Some("2026-11-29")))
                .dates
                .map(|d| d.start),
            Some(date(2026, 11, 29))
        );
        assert_eq!(
            check(&decision("movie_box_office", None, Some("2026-02-30"), Some("x"))).dates,
            None
        );
        assert_eq!(
            check(&decision(
                "movie_box_office",
                None,
                Some("2026-11-29"),
                Some("2026-11-01")
            ))
            .dates,
            None
        );
    }

    #[test]
    fn dates_in_words_and_the_questions_own_time_win_over_a_default() {
        let enabled = ["movie_box_office"];
        let types = ["movie".to_string()];
        let today = date(2026, 11, 29);
        let october = Some(DateRange {
            start: date(2026, 10, 1),
            end: date(2026, 10, 31),
        });
        let words = decision("movie_box_office", None, Some("上个月"), Some("上个月"));
        let checked = check_route(&words, "满江红的票房", &[], today, &enabled, &types);
        assert_eq!(checked.dates, october);
        assert!(checked.notes.iter().any(|n| n.contains("read as a time expression")));
        let none = decision("movie_box_office", None, None, None);
        let checked = check_route(&none, "满江红上个月的票房", &[], today, &enabled, &types);
        assert_eq!(checked.dates, october, "{:?}", checked.notes);
        let wrong = decision("movie_box_office", None, Some("2026-11-01"), Some("2026-11-30"));
        let checked = check_route(&wrong, "满江红上个月的票房", &[], today, &enabled, &types);
        assert_eq!(checked.dates, october);
        assert!(checked.notes.iter().any(|n| n.contains("differ")));
        let checked = check_route(&wrong, "满江红的票房", &[], today, &enabled, &types);
        assert_eq!(checked.dates.map(|d| d.start), Some(date(2026, 11, 1)));
    }

    #[test]
    fn an_empty_rewrite_falls_back_to_the_users_words() {
        assert_eq!(
            check(&decision("movie_rating", None, None, None)).rewritten_question,
            "原话"
        );
    }
}
