//! The subject a question names for a tool: the longest entity name of the tool's subject type, else the words
//! left once time expressions, counts, the tool's own words, enum values and function words are taken out (a name
//! the entity catalog may know only fuzzily, or not at all; at least two characters), else a reference (它, 这部)
//! to an earlier subject.

use jiff::civil::Date;
use serde::Serialize;
use wenshu_contract::Tool;
use wenshu_lexicon::numeral::NumeralKind;
use wenshu_lexicon::{SpanKind, scan};

use super::tool_choice::NamedEntity;
use super::tool_index::ToolIndex;
use wenshu_lexicon::sentence::Sentence;
use wenshu_lexicon::words::cues::{has_reference, trim_function_words};

/// What a question says about its subject.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SubjectFinding {
    /// An entity name of the subject type, found in the entity catalog.
    Named {
        /// The words of the question.
        name: String,
    },
    /// Words left over that may name the subject (resolved exactly or fuzzily, or not found).
    Words {
        /// The words.
        name: String,
    },
    /// A reference to an earlier subject (它, 这部, 该片).
    Reference,
    /// Nothing about a subject.
    Nothing,
}

impl SubjectFinding {
    /// The name, when the question gives one.
    pub fn name(&self) -> Option<&str> {
        match self {
            Self::Named { name } | Self::Words { name } => Some(name),
            Self::Reference | Self::Nothing => None,
        }
    }
}

/// The subject of `question` for a tool with an `x-subject`; `mentions` are the question's entity mentions.
pub fn find_subject(
    tool: &Tool,
    index: &ToolIndex,
    mentions: &[NamedEntity],
    question: &str,
    today: Date,
) -> SubjectFinding {
    let Some(subject) = &tool.extensions().subject else {
        return SubjectFinding::Nothing;
    };
    if let Some(mention) = mentions.iter().find(|m| m.entity_type == subject.entity_type) {
        let sequel = sequel_digits(question, mention.range.end, today);
        if !sequel.is_empty() {
            return SubjectFinding::Words {
                name: format!("{}{sequel}", mention.surface),
            };
        }
        return SubjectFinding::Named {
            name: mention.surface.clone(),
        };
    }
    let sentence = leftover(tool, index, mentions, question, today);
    let best = sentence
        .open_runs()
        .into_iter()
        .map(|run| trim_function_words(&sentence, run))
        .filter(|run| run.len() >= MIN_NAME_CHARS)
        .max_by_key(|run| (run.len(), std::cmp::Reverse(run.start)));
    match best {
        Some(run) => SubjectFinding::Words {
            name: sentence.slice(&run).trim().to_string(),
        },
        None if has_reference(&sentence.chars.iter().collect::<String>()) => SubjectFinding::Reference,
        None => SubjectFinding::Nothing,
    }
}

/// The fewest characters left-over words need to be taken for a name (a lone 下 of 查下 is none).
const MIN_NAME_CHARS: usize = 2;

/// The question with everything that is not a name masked: time expressions, counts and top-N numerals, entity
/// names of other types, the tool's words (common substrings of two or more characters) and its enum values.
pub fn leftover(tool: &Tool, index: &ToolIndex, mentions: &[NamedEntity], question: &str, today: Date) -> Sentence {
    let mut sentence = Sentence::new(question);
    for span in scan(question, today) {
        let drop = match span.kind {
            SpanKind::Time(_) => true,
            SpanKind::Number(kind) => matches!(kind, NumeralKind::TopN | NumeralKind::Count | NumeralKind::Percent),
        };
        if drop {
            sentence.mask_bytes(&span.range);
        }
    }
    for mention in mentions {
        sentence.mask_bytes(&mention.range);
    }
    for spec in tool.params().iter() {
        if let Some(enum_index) = tool.enum_index(&spec.name) {
            for hit in enum_index.matcher().find_all(question) {
                sentence.mask_bytes(&hit.range);
            }
        }
    }
    let words: Vec<char> = index.text_of(tool.name()).chars().collect();
    for run in sentence.open_runs() {
        let mut i = run.start;
        while i < run.end {
            let longest = (2..=run.end - i)
                .rev()
                .find(|&len| contains_chars(&words, &sentence.chars[i..i + len]));
            match longest {
                Some(len) => {
                    sentence.mask_chars(&(i..i + len));
                    i += len;
                }
                None => i += 1,
            }
        }
    }
    sentence
}

/// ASCII digits right after a name that no time expression takes (流浪地球3: a sequel the catalog may not have).
fn sequel_digits(question: &str, end: usize, today: Date) -> &str {
    let rest = question.get(end..).unwrap_or_default();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let in_time = scan(question, today)
        .iter()
        .any(|s| matches!(s.kind, SpanKind::Time(_)) && s.range.start <= end && end < s.range.end);
    if in_time {
        ""
    } else {
        rest.get(..digits).unwrap_or_default()
    }
}

/// Whether `needle` occurs in `haystack`.
fn contains_chars(haystack: &[char], needle: &[char]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}
