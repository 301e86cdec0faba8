//! A reference nothing resolved: a question pointing at something (它上个月的销售额, 这个产品的销量) that no history
//! turned into a name, answered by a tool with no subject to resolve, would be answered for everything.

use wenshu_contract::Tool;
use wenshu_lexicon::SpanKind;

use super::Unmet;
use super::message::unmet;
use crate::facts::QuestionFacts;
use wenshu_lexicon::words::references::reference_in;

/// The reference word of the question outside its time expressions (这个月 is a time), when `tool` has no subject
/// that would resolve it.
pub fn unresolved_reference(tool: &Tool, facts: &QuestionFacts) -> Option<Unmet> {
    if tool.extensions().subject.is_some() {
        return None;
    }
    let q = facts.question.as_str();
    let mut rest = String::with_capacity(q.len());
    let mut at = 0;
    let mut times: Vec<&std::ops::Range<usize>> = facts
        .spans
        .iter()
        .filter(|s| matches!(s.kind, SpanKind::Time(_)))
        .map(|s| &s.range)
        .collect();
    times.sort_by_key(|r| r.start);
    for r in times {
        if r.start >= at {
            rest.push_str(q.get(at..r.start).unwrap_or_default());
            rest.push(' ');
            at = r.end;
        }
    }
    rest.push_str(q.get(at..).unwrap_or_default());
    let word = reference_in(&rest)?;
    Some(unmet(
        &word,
        format!("「{word}」指的是什么？请说出名字"),
        format!("what does 「{word}」 refer to? Name it"),
    ))
}
