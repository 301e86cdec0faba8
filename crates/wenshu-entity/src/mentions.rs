//! Finding catalog names inside a sentence: dictionary matching over canonical names and aliases.

use std::cmp::Reverse;
use std::ops::Range;

use serde::Serialize;
use serde_json::Value;
use wenshu_lexicon::canonical::fold_char;

use super::entity::compare_ids;
use super::index::EntityIndex;
use super::text::CharHasher;

/// Names shorter than this many characters are not looked for inside sentences (too many false hits).
pub const MIN_MENTION_CHARS: usize = 2;

/// A catalog name or alias found in a sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mention {
    /// Byte range of the mention in the original text.
    pub range: Range<usize>,
    /// The mention as written in the original text.
    pub surface: String,
    /// The IDs of the entities with that name or alias, ordered (several when names collide, e.g. 英雄).
    pub entity_ids: Vec<Value>,
}

/// One character of the sentence: its byte offset in the original text and its folded form.
#[derive(Debug, Clone, Copy)]
struct Folded {
    offset: usize,
    original: char,
    folded: char,
}

impl EntityIndex {
    /// Finds canonical names and aliases inside `text`: the longest matches win, mentions never overlap, and
    /// each comes back with its byte range in the original text (folding may change byte lengths).
    ///
    /// Every start position is tried against the lengths names actually have, by an incremental hash looked up
    /// in the exact-name table, so the cost depends on the sentence, not on the number of names. A name starting
    /// or ending with an ASCII letter or digit must not continue a word or number of the sentence.
    pub fn find_mentions(&self, text: &str) -> Vec<Mention> {
        let chars: Vec<Folded> = text
            .char_indices()
            .map(|(offset, c)| Folded {
                offset,
                original: c,
                folded: fold_char(c),
            })
            .collect();
        let longest_name = self.mention_lengths.len().saturating_sub(1);
        let mut found: Vec<(Range<usize>, Vec<u32>)> = Vec::new();
        for start in 0..chars.len() {
            let mut hasher = CharHasher::new();
            let mut best = None;
            for end in start + 1..=chars.len().min(start + longest_name) {
                let Some(last) = chars.get(end - 1) else { break };
                hasher.push(last.folded);
                let length = end - start;
                if length < MIN_MENTION_CHARS || !self.mention_lengths.get(length).copied().unwrap_or(false) {
                    continue;
                }
                let Some(window) = chars.get(start..end) else { break };
                let keys: Vec<u32> = self
                    .exact
                    .get(hasher.finish())
                    .filter(|&number| self.key_str(number).chars().eq(window.iter().map(|c| c.folded)))
                    .collect();
                if !keys.is_empty() && stands_alone(&chars, start..end) {
                    best = Some((start..end, keys));
                }
            }
            found.extend(best);
        }
        found.sort_by_key(|(range, _)| (Reverse(range.len()), range.start));
        let mut taken = vec![false; chars.len()];
        let mut chosen = Vec::new();
        for (range, keys) in found {
            let Some(slots) = taken.get_mut(range.clone()) else {
                continue;
            };
            if slots.iter().any(|&t| t) {
                continue;
            }
            slots.iter_mut().for_each(|t| *t = true);
            chosen.push((range, keys));
        }
        chosen.sort_by_key(|(range, _)| range.start);
        chosen
            .into_iter()
            .map(|(range, keys)| self.mention(text, &chars, range, &keys))
            .collect()
    }

    /// Builds a mention from a character range and the keys that matched it.
    fn mention(&self, text: &str, chars: &[Folded], range: Range<usize>, keys: &[u32]) -> Mention {
        let start = chars.get(range.start).map_or(text.len(), |c| c.offset);
        let end = chars.get(range.end).map_or(text.len(), |c| c.offset);
        let mut positions: Vec<u32> = keys
            .iter()
            .filter_map(|&number| self.keys.get(number as usize))
            .map(|k| k.entity)
            .collect();
        positions.sort_unstable();
        positions.dedup();
        let mut entity_ids: Vec<Value> = positions
            .iter()
            .filter_map(|&p| self.entity(p))
            .map(|e| e.id.clone())
            .collect();
        entity_ids.sort_by(compare_ids);
        Mention {
            range: start..end,
            surface: text.get(start..end).unwrap_or_default().to_string(),
            entity_ids,
        }
    }
}

/// Whether a match neither continues an ASCII word or number before it nor runs into one after it.
fn stands_alone(chars: &[Folded], range: Range<usize>) -> bool {
    let alnum = |i: Option<usize>| {
        i.and_then(|i| chars.get(i))
            .is_some_and(|c| c.original.is_ascii_alphanumeric() || c.folded.is_ascii_alphanumeric())
    };
    let first_alnum = alnum(Some(range.start));
    let last_alnum = alnum(range.end.checked_sub(1));
    let continues_before = first_alnum && alnum(range.start.checked_sub(1));
    let continues_after = last_alnum && alnum(Some(range.end));
    !continues_before && !continues_after
}
