//! Time words the scan gave up on: a date glued to words that move or cut it (国庆之后, 上个月第二天) leaves no
//! span, and a call must then not answer with a default period. Such a date is found by scanning the question
//! cut right before the glued word; it is unmet (不能确定时间范围：国庆之后).

use serde_json::{Map, Value};
use wenshu_lexicon::{SpanKind, scan};

use super::Unmet;
use super::message::unmet;
use crate::facts::QuestionFacts;
use wenshu_lexicon::words::days::{KindOfDay, day_kind_words, kind_of_day};

/// Characters that may start a word glued after a date (之后, 以前, 前后, 左右, 第二天, 头三天, 最后一周, 寒假, 期间).
const GLUE_STARTS: &str = "之以前后左第头首末最假档暑寒节期";

/// How many characters of the glued word a message shows.
const GLUE_SHOWN: usize = 3;

/// Every date of the question that the scan left out because words are glued to it.
pub fn unread_times(facts: &QuestionFacts) -> Vec<Unmet> {
    let q = facts.question.as_str();
    let covered = |at: usize| {
        facts
            .spans
            .iter()
            .any(|s| matches!(s.kind, SpanKind::Time(_)) && s.range.start < at && at <= s.range.end)
    };
    let mut out: Vec<Unmet> = Vec::new();
    for (at, c) in q.char_indices() {
        if at == 0 || !GLUE_STARTS.contains(c) || covered(at) {
            continue;
        }
        let lost = scan(&q[..at], facts.today)
            .into_iter()
            .filter(|s| matches!(s.kind, SpanKind::Time(_)) && s.range.end == at)
            .find(|s| {
                !facts
                    .spans
                    .iter()
                    .any(|o| o.range.start < s.range.end && s.range.start < o.range.end)
            });
        if let Some(span) = lost {
            let glue: String = q[at..].chars().take(GLUE_SHOWN).collect();
            let words = format!("{}{glue}", span.text);
            if !out.iter().any(|u| u.words == words) {
                out.push(unmet(
                    &words,
                    format!("不能确定时间范围：{words}"),
                    format!("cannot tell the dates of 「{words}」"),
                ));
            }
        }
    }
    out
}

/// Kinds of day no time expression reads (今年周末的销售额, 上个月工作日的订单): a call over the whole period would
/// count every day, so each is unmet unless the call keeps or splits by that kind (`read`); a period that holds the word (上周末) is read and not judged here.
pub fn day_kinds(facts: &QuestionFacts, read: &[KindOfDay]) -> Vec<Unmet> {
    let mut out: Vec<Unmet> = Vec::new();
    for (_, word) in day_kind_words(&facts.question, &facts.spans) {
        // A call that keeps or splits by this kind of day reads it (a metric's `days`, `byDay`).
        if kind_of_day(word).is_some_and(|k| read.contains(&k)) {
            continue;
        }
        out.push(unmet(
            word,
            format!("不能只算{word}（只能按连续的时间段查）"),
            format!("cannot count only {word} (only a continuous period)"),
        ));
    }
    out
}

/// Two periods read apart with nothing comparing or joining them (今年周末: 今年 and 周末), or compared by a call
/// that compares no periods (10月和11月的销售额对比 answered for one month): a call takes one period, so the other
/// is unmet rather than dropped.
pub fn two_periods(facts: &QuestionFacts, offer: &super::Offer) -> Option<Unmet> {
    use wenshu_lexicon::demand::DemandKind;
    let times: Vec<&wenshu_lexicon::Span> = facts
        .spans
        .iter()
        .filter(|s| matches!(s.kind, SpanKind::Time(_)))
        .collect();
    let apart = times.windows(2).any(|w| w[0].range.end <= w[1].range.start);
    let paired = facts.demands.iter().any(|d| {
        matches!(
            d.kind,
            DemandKind::Period { .. } | DemandKind::Compare | DemandKind::Joined | DemandKind::Change
        )
    });
    if !apart || (paired && !offer.periods.is_empty()) {
        return None;
    }
    let words: Vec<&str> = times.iter().map(|s| s.text.as_str()).collect();
    let words = words.join("、");
    Some(unmet(
        &words,
        format!("问题里有几个时间（{words}），不知道按哪个查"),
        format!("the question names several periods ({words}); which one is meant is unclear"),
    ))
}

/// A metric call comparing its period with a later one (上周和本周对比 read as 上周 against 本周): the later period
/// is the current one, so such a call is unmet rather than a change with its sign turned round.
pub fn later_baseline(arguments: &Map<String, Value>) -> Option<Unmet> {
    let start = |v: Option<&Value>| v?.get("start")?.as_str().map(str::to_string);
    let current = start(arguments.get("timeRange"))?;
    let compare = arguments.get("compare")?;
    let base = start(compare.get("range"))?;
    (base > current).then(|| {
        unmet(
            &base,
            format!("对比的基准时段（{base}起）晚于当前时段（{current}起）：请把较晚的时段作为当前时段"),
            format!("the base period (from {base}) is later than the current one (from {current})"),
        )
    })
}
