//! What the user said: the user's own words and the recent rounds behind them, the evidence a model's values are
//! grounded in. A router's rewrite is what the model understood, never evidence: a rewrite naming a movie's ID
//! must not make the movie's name look unstated, nor dates the rewrite invents look stated.

use jiff::civil::Date;

use crate::facts::QuestionFacts;
use crate::route::{MAX_HISTORY, Turn};

/// The user's own words and the earlier rounds (oldest first; the last [`MAX_HISTORY`] are read).
#[derive(Debug, Clone, Copy)]
pub struct Said<'a> {
    /// The question as the user wrote it.
    pub question: &'a str,
    /// Earlier rounds, oldest first.
    pub history: &'a [Turn],
    /// The subject's name code resolved to the ID it fills (hidden from the model), when there is one.
    pub subject: Option<&'a str>,
}

impl<'a> Said<'a> {
    /// The user's words alone, with no earlier rounds.
    pub fn alone(question: &'a str) -> Self {
        Self {
            question,
            history: &[],
            subject: None,
        }
    }

    /// The facts grounding reads: names and values from the question and the recent rounds' questions (and the
    /// subjects they resolved); time expressions and demands from the question, or — when it states none, as a
    /// follow-up 那长津湖呢 — from the latest round that does.
    pub fn facts(&self, today: Date) -> QuestionFacts {
        let recent = &self.history[self.history.len().saturating_sub(MAX_HISTORY)..];
        if recent.is_empty() {
            return QuestionFacts::new(self.question, today);
        }
        let mut text = String::new();
        let mut starts = Vec::new();
        for turn in recent {
            starts.push(text.len());
            text.push_str(turn.question.trim());
            if let Some(subject) = &turn.subject {
                text.push('。');
                text.push_str(subject.name.trim());
            }
            text.push_str("。\n");
        }
        let own = text.len();
        starts.push(own);
        text.push_str(self.question);
        let mut facts = QuestionFacts::new(&text, today);
        // The round a position of the text is in (the question's own is the last).
        let round = |at: usize| starts.iter().rposition(|start| *start <= at).unwrap_or(0);
        let latest = |positions: Vec<usize>| positions.into_iter().map(round).max();
        if let Some(keep) = latest(facts.times.iter().map(|t| t.range.start).collect()) {
            facts.times.retain(|t| round(t.range.start) == keep);
        }
        if let Some(keep) = latest(facts.demands.iter().map(|d| d.range.start).collect()) {
            facts.demands.retain(|d| round(d.range.start) == keep);
        }
        facts
    }
}

#[cfg(test)]
mod tests {
    use jiff::civil::date;

    use super::*;

    #[test]
    fn times_come_from_the_question_else_from_the_latest_round_stating_one() {
        let today = date(2025, 6, 15);
        let history = [
            Turn::new("去年Lyon的订单总额", "…"),
            Turn::new("上个月Lyon的订单总额", "…"),
        ];
        let own = Said {
            question: "那本周呢",
            history: &history,
            subject: None,
        }
        .facts(today);
        assert_eq!(own.times.len(), 1);
        assert_eq!(own.times[0].date_range.start, date(2025, 6, 9));
        assert!(own.contains("Lyon"), "values of earlier rounds are said");

        let follow_up = Said {
            question: "Porto呢",
            history: &history,
            subject: None,
        }
        .facts(today);
        assert_eq!(follow_up.times.len(), 1);
        assert_eq!(follow_up.times[0].date_range.start, date(2025, 5, 1));
        assert_eq!(follow_up.first_time().map(|(_, words)| words), Some("上个月"));

        let alone = Said::alone("Porto的订单总额").facts(today);
        assert!(alone.times.is_empty() && !alone.contains("Lyon"));
    }
}
