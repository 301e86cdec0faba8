//! Fuzzy matching when no name equals the query: candidates from the inverted indexes, scores, and the decision
//! between one match, several, or none.
//!
//! Scores are ordered so that containment beats edit distance: a prefix (0.75–0.95) beats an inner substring
//! (0.67–0.82), which beats a subsequence (0.53–0.68), a same-sounding name (0.70, loosely 0.60), and a
//! typo (0.43–0.55).
//! A fuzzy match is used alone only when it is the only one or [`MARGIN`] ahead of the next.

use std::collections::HashMap;

use super::entity::{Candidate, MatchMethod, Resolution};
use super::index::EntityIndex;
use super::postings::{HashTable, intersect};
use super::text::{
    bigram_term, char_term, compact_into, digit_signature, has_pinyin_form, hash_chars, loose_pinyin_into, pinyin_into,
};

/// How far the best fuzzy score must lead the second for the best to be used alone.
pub const MARGIN: f64 = 0.1;
/// An ambiguous result lists the candidates within this distance of the best score.
pub const LIST_WINDOW: f64 = 0.25;
/// The least normalized similarity (by characters or by pinyin) for a typo match.
pub const EDIT_MIN_SIMILARITY: f64 = 0.65;
/// The score of a name whose toneless pinyin equals the query's (张珊 → 张三, "zhangwei" → 张伟).
pub const PINYIN_EQUAL_SCORE: f64 = 0.7;

/// The score of a name whose loose pinyin (zh/z, n/l, ang/an… merged) equals the query's (张珊 → 张三).
pub const PINYIN_LOOSE_SCORE: f64 = 0.6;

/// Score of a prefix match: base plus span × coverage (query length / name length).
const PREFIX: (f64, f64) = (0.75, 0.2);
/// Score of an inner substring match.
const INNER: (f64, f64) = (0.62, 0.2);
/// Least coverage for an inner substring match (a short query deep inside a long name is noise).
const INNER_MIN_COVERAGE: f64 = 0.25;
/// Score of a subsequence match, plus a bonus when the first characters agree.
const SUBSEQUENCE: (f64, f64, f64) = (0.45, 0.2, 0.03);
/// Least coverage for a subsequence match; below [`SUBSEQUENCE_LOOSE_COVERAGE`] the first characters must agree.
const SUBSEQUENCE_MIN_COVERAGE: f64 = 0.4;
/// Coverage from which a subsequence match need not start at the name's first character.
const SUBSEQUENCE_LOOSE_COVERAGE: f64 = 0.6;
/// Score of a typo match: base plus span × similarity.
const EDIT: (f64, f64) = (0.2, 0.35);
/// Typo matches are searched for queries of at least this many characters.
const EDIT_MIN_CHARS: usize = 3;
/// Small tolerance for comparing scores.
const EPSILON: f64 = 1e-9;

/// The best match found so far for one entity.
#[derive(Debug, Clone, Copy)]
struct Scored {
    score: f64,
    method: MatchMethod,
}

/// Per-entity best matches.
#[derive(Debug, Default)]
struct Matches(HashMap<u32, Scored>);

impl Matches {
    /// Records a match for an entity, keeping the better one (higher score, then stronger method).
    fn record(&mut self, entity: u32, score: f64, method: MatchMethod) {
        let new = Scored { score, method };
        self.0
            .entry(entity)
            .and_modify(|old| {
                if better(&new, old) {
                    *old = new;
                }
            })
            .or_insert(new);
    }
}

/// Whether `a` beats `b`.
fn better(a: &Scored, b: &Scored) -> bool {
    a.score > b.score + EPSILON || ((a.score - b.score).abs() <= EPSILON && a.method < b.method)
}

/// Resolves a canonical query that matched no name exactly.
pub(crate) fn resolve_fuzzy(index: &EntityIndex, query: &str, limit: usize) -> Resolution {
    let mut q = Vec::new();
    compact_into(query, &mut q);
    if q.is_empty() {
        return Resolution::NotFound;
    }
    let mut matches = Matches::default();
    containment(index, &q, &mut matches);
    typos(index, &q, &mut matches);
    same_sound(index, &q, &mut matches);
    decide(index, matches, limit)
}

/// Substring and subsequence matches: names containing every character of the query.
fn containment(index: &EntityIndex, q: &[char], matches: &mut Matches) {
    let mut distinct = q.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let lists = distinct.iter().map(|&c| index.chars.get(char_term(c))).collect();
    let mut name = Vec::new();
    for number in intersect(lists) {
        let Some(record) = index.keys.get(number as usize) else {
            continue;
        };
        if usize::from(record.compact_len) < q.len() {
            continue;
        }
        compact_into(index.key_str(number), &mut name);
        if let Some((score, method)) = containment_score(q, &name) {
            matches.record(record.entity, score, method);
        }
    }
}

/// Scores a name that may contain the query: as a prefix, an inner substring, or a subsequence.
fn containment_score(q: &[char], name: &[char]) -> Option<(f64, MatchMethod)> {
    let (n, m) = (q.len(), name.len());
    if n == 0 || n > m {
        return None;
    }
    let coverage = n as f64 / m as f64;
    if let Some(position) = find_whole(name, q) {
        if position == 0 {
            return Some((PREFIX.0 + PREFIX.1 * coverage, MatchMethod::Prefix));
        }
        if n >= 2 && coverage >= INNER_MIN_COVERAGE {
            return Some((INNER.0 + INNER.1 * coverage, MatchMethod::Substring));
        }
        return None;
    }
    let first_agrees = q.first() == name.first();
    let plausible = n >= 2
        && coverage >= SUBSEQUENCE_MIN_COVERAGE
        && (first_agrees || coverage >= SUBSEQUENCE_LOOSE_COVERAGE)
        && is_subsequence(q, name)
        && numbers_agree(q, name);
    plausible.then(|| {
        let bonus = if first_agrees { SUBSEQUENCE.2 } else { 0.0 };
        (
            SUBSEQUENCE.0 + SUBSEQUENCE.1 * coverage + bonus,
            MatchMethod::Subsequence,
        )
    })
}

/// The first position where `needle` occurs in `hay` without splitting a number (误杀2 is not inside 误杀23).
fn find_whole(hay: &[char], needle: &[char]) -> Option<usize> {
    let n = needle.len();
    let first_digit = needle.first().is_some_and(char::is_ascii_digit);
    let last_digit = needle.last().is_some_and(char::is_ascii_digit);
    hay.windows(n).enumerate().find_map(|(position, window)| {
        let splits_before = first_digit
            && position
                .checked_sub(1)
                .and_then(|p| hay.get(p))
                .is_some_and(char::is_ascii_digit);
        let splits_after = last_digit && hay.get(position + n).is_some_and(char::is_ascii_digit);
        (window == needle && !splits_before && !splits_after).then_some(position)
    })
}

/// Whether the query's characters occur in the name in order.
fn is_subsequence(q: &[char], name: &[char]) -> bool {
    let mut rest = name.iter();
    q.iter().all(|c| rest.any(|x| x == c))
}

/// Numbers must agree: a query without numbers fits any name; one with numbers needs the same numbers
/// (流浪地球3 is another film than 流浪地球2, not a typo).
fn numbers_agree(q: &[char], name: &[char]) -> bool {
    let query_numbers = digit_signature(q);
    query_numbers.is_empty() || query_numbers == digit_signature(name)
}

/// Typo matches: names sharing enough character bigrams with the query, of similar length, the same numbers,
/// and a normalized edit distance (by characters or by pinyin) within [`EDIT_MIN_SIMILARITY`].
fn typos(index: &EntityIndex, q: &[char], matches: &mut Matches) {
    let n = q.len();
    if n < EDIT_MIN_CHARS {
        return;
    }
    // Within this many edits the similarity threshold can still be met, for names of similar length.
    let max_edits = ((1.0 - EDIT_MIN_SIMILARITY) * n as f64).floor() as usize;
    // q-gram lemma: each edit destroys at most two bigrams; at least one shared bigram in any case.
    let needed = (n - 1).saturating_sub(2 * max_edits).max(1);
    let mut terms: Vec<u64> = q
        .windows(2)
        .filter_map(|w| w.first().zip(w.get(1)))
        .map(|(a, b)| bigram_term(*a, *b))
        .collect();
    terms.sort_unstable();
    terms.dedup();
    let mut shared: HashMap<u32, usize> = HashMap::new();
    for &term in &terms {
        for &number in index.bigrams.get(term) {
            let similar_length = index
                .keys
                .get(number as usize)
                .is_some_and(|k| usize::from(k.compact_len).abs_diff(n) <= max_edits);
            if similar_length {
                *shared.entry(number).or_insert(0) += 1;
            }
        }
    }
    let query_numbers = digit_signature(q);
    let mut query_sound = String::new();
    pinyin_into(q, &mut query_sound);
    let query = q.to_vec();
    let mut name = Vec::new();
    let mut name_sound = String::new();
    for (number, count) in shared {
        let Some(record) = index.keys.get(number as usize) else {
            continue;
        };
        if count < needed {
            continue;
        }
        compact_into(index.key_str(number), &mut name);
        if name.len().abs_diff(n) > max_edits || digit_signature(&name) != query_numbers {
            continue;
        }
        let longest = n.max(name.len()) as f64;
        let by_chars = 1.0 - strsim::generic_levenshtein(&query, &name) as f64 / longest;
        pinyin_into(&name, &mut name_sound);
        let by_sound = strsim::normalized_levenshtein(&query_sound, &name_sound) * 0.95;
        let (similarity, method) = if by_chars >= by_sound {
            (by_chars, MatchMethod::EditDistance)
        } else {
            (by_sound, MatchMethod::Pinyin)
        };
        if (EDIT_MIN_SIMILARITY - EPSILON..1.0).contains(&similarity) {
            matches.record(record.entity, EDIT.0 + EDIT.1 * similarity, method);
        }
    }
}

/// Writes a reading (pinyin or loose pinyin) of compact characters.
type Reader = fn(&[char], &mut String);

/// Same-sounding names: the toneless pinyin of the name equals the query's (or the query typed in pinyin), or
/// failing that, their loose pinyin (confusable sounds merged) does.
fn same_sound(index: &EntityIndex, q: &[char], matches: &mut Matches) {
    if !has_pinyin_form(q) {
        return;
    }
    let readers: [(Reader, &HashTable, f64); 2] = [
        (pinyin_into, &index.pinyin, PINYIN_EQUAL_SCORE),
        (loose_pinyin_into, &index.loose_pinyin, PINYIN_LOOSE_SCORE),
    ];
    let mut sound = String::new();
    let mut name = Vec::new();
    let mut name_sound = String::new();
    for (read, table, score) in readers {
        read(q, &mut sound);
        for number in table.get(hash_chars(sound.chars())) {
            let Some(record) = index.keys.get(number as usize) else {
                continue;
            };
            compact_into(index.key_str(number), &mut name);
            read(&name, &mut name_sound);
            if name_sound == sound {
                matches.record(record.entity, score, MatchMethod::Pinyin);
            }
        }
    }
}

/// One fuzzy match alone, several to choose from, or none.
///
/// Only the best `max(limit, 2)` matches are ordered (a selection, not a full sort), so a query matching
/// thousands of names costs little more than one matching a few. Ties are ordered by method, then catalog order.
fn decide(index: &EntityIndex, matches: Matches, limit: usize) -> Resolution {
    let mut ranked: Vec<(u32, Scored)> = matches.0.into_iter().collect();
    let order = |(a, x): &(u32, Scored), (b, y): &(u32, Scored)| {
        y.score.total_cmp(&x.score).then(x.method.cmp(&y.method)).then(a.cmp(b))
    };
    let keep = limit.max(2);
    if ranked.len() > keep {
        ranked.select_nth_unstable_by(keep - 1, order);
        ranked.truncate(keep);
    }
    ranked.sort_by(order);
    let candidate = |&(position, scored): &(u32, Scored)| {
        index.entity(position).map(|entity| Candidate {
            entity: entity.clone(),
            score: round(scored.score),
            method: scored.method,
        })
    };
    match ranked.as_slice() {
        [] => Resolution::NotFound,
        [only] => single(candidate(only)),
        [first, second, ..] if first.1.score - second.1.score >= MARGIN - EPSILON => single(candidate(first)),
        [first, ..] => {
            let floor = first.1.score - LIST_WINDOW - EPSILON;
            let candidates = ranked
                .iter()
                .take_while(|(_, s)| s.score >= floor)
                .take(limit)
                .filter_map(candidate)
                .collect();
            Resolution::Ambiguous {
                candidates,
                exact: false,
            }
        }
    }
}

/// A unique fuzzy match as a resolution.
fn single(candidate: Option<Candidate>) -> Resolution {
    match candidate {
        Some(Candidate { entity, score, method }) => Resolution::Fuzzy { entity, score, method },
        None => Resolution::NotFound,
    }
}

/// Rounds a score to three decimals for display.
fn round(score: f64) -> f64 {
    (score * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn score(q: &str, name: &str) -> Option<(f64, MatchMethod)> {
        containment_score(&chars(q), &chars(name))
    }

    #[test]
    fn prefix_beats_inner_beats_subsequence() {
        let prefix = score("封神第二部", "封神第二部战火西岐");
        let inner = score("水门桥", "长津湖之水门桥");
        let subsequence = score("唐探3", "唐人街探案3");
        assert!(matches!(prefix, Some((_, MatchMethod::Prefix))));
        assert!(matches!(inner, Some((_, MatchMethod::Substring))));
        assert!(matches!(subsequence, Some((_, MatchMethod::Subsequence))));
        let s = |r: Option<(f64, MatchMethod)>| r.map_or(0.0, |(s, _)| s);
        assert!(s(prefix) > s(inner) && s(inner) > s(subsequence));
        assert!(s(subsequence) > EDIT.0 + EDIT.1 * 0.99);
    }

    #[test]
    fn numbers_are_not_split() {
        assert_eq!(find_whole(&chars("误杀23"), &chars("误杀2")), None);
        assert_eq!(find_whole(&chars("误杀2"), &chars("误杀2")), Some(0));
        assert!(score("流浪2", "流浪地球2").is_some());
        assert!(score("流浪3", "流浪地球2").is_none());
    }

    #[test]
    fn weak_containment_is_dropped() {
        assert!(score("她", "消失的她").is_none());
        assert!(score("a", "xyzabcdefgh").is_none());
        assert!(score("人3", "唐人街探案3").is_none());
    }
}
