//! The names of a metric tool's model, as a reviewer reads them: a name that is the start of another (游戏 /
//! 游戏类型 — a question saying the shorter may mean either) and a name the time knowledge reads as a period (a
//! label 本月 or 2024 is never read as a measure or a dimension).

use jiff::civil::Date;
use wenshu_contract::Tool;
use wenshu_lexicon::{SpanKind, scan};

use super::{Finding, finding};

/// The prefix and time-word findings of a metric tool's measures and dimensions.
pub fn metric_names(tool: &Tool, today: Date) -> Vec<Finding> {
    let Some(model) = &tool.extensions().metrics else {
        return Vec::new();
    };
    // (spelling, what it names)
    let mut spellings: Vec<(String, String)> = Vec::new();
    for m in &model.measures {
        let owner = format!("measure `{}`", m.name);
        spellings.extend(
            std::iter::once(&m.label)
                .chain(&m.synonyms)
                .map(|s| (s.clone(), owner.clone())),
        );
    }
    for d in &model.dimensions {
        let owner = format!("dimension `{}`", d.name);
        spellings.extend(
            std::iter::once(&d.label)
                .chain(&d.synonyms)
                .map(|s| (s.clone(), owner.clone())),
        );
    }
    let mut out = Vec::new();
    for (short, short_owner) in &spellings {
        if let Some((long, long_owner)) = spellings
            .iter()
            .find(|(long, owner)| owner != short_owner && starts_as_name(long, short))
        {
            out.push(finding(
                tool.name(),
                "prefix",
                format!(
                    "`{short}` ({short_owner}) is the start of `{long}` ({long_owner}): a question saying `{short}` \
                     may mean either — give one a name of its own"
                ),
            ));
        }
        let timed = scan(short, today)
            .into_iter()
            .any(|s| matches!(s.kind, SpanKind::Time(_)));
        if timed {
            out.push(finding(
                tool.name(),
                "time-word",
                format!("`{short}` ({short_owner}) reads as a period: questions naming it get a time range instead"),
            ));
        }
    }
    out
}

/// Whether `long` starts with the name `short` and goes on (at a word break for English words).
fn starts_as_name(long: &str, short: &str) -> bool {
    let Some(rest) = long.strip_prefix(short) else {
        return false;
    };
    match (rest.chars().next(), short.chars().last()) {
        (None, _) => false,
        (Some(next), Some(last)) if last.is_ascii_alphanumeric() => !next.is_ascii_alphanumeric(),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_starts_another_at_a_word_break() {
        assert!(starts_as_name("游戏类型", "游戏"));
        assert!(starts_as_name("order date", "order"));
        assert!(!starts_as_name("orders", "order"));
        assert!(!starts_as_name("游戏", "游戏"));
    }
}
