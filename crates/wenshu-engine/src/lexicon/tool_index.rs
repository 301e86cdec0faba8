//! The tools as documents for BM25: character 1–3-grams of their Chinese text and whole ASCII words, from the
//! name, title, description, parameter descriptions, `x-examples`, enum values, synonyms and labels. Entity names
//! and time expressions inside the examples are left out, so 满江红 or 上个月 never speak for a tool.

use std::collections::{HashMap, HashSet};

use jiff::civil::Date;
use wenshu_contract::{ParamSpec, Tool};
use wenshu_lexicon::time::scan_times;

use crate::resolve::EntityCatalogs;
use wenshu_lexicon::sentence::{Sentence, is_cjk, is_separator};

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalization.
const B: f64 = 0.75;

/// English function words: they say as little as a single Chinese character (the "on" of on-time, the "by" of
/// "by region").
const ENGLISH_FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "of", "on", "in", "at", "by", "to", "for", "from", "with", "and", "or", "is", "are", "was",
    "were", "be", "what", "how", "many", "much", "which", "who", "all", "per", "this", "that", "me", "my",
];

/// How much one matched term counts, by its kind: single characters and English function words say little,
/// bigrams and longer say more.
fn term_weight(term: &str) -> f64 {
    match term.chars().count() {
        _ if ENGLISH_FUNCTION_WORDS.contains(&term) => 0.25,
        _ if term.is_ascii() => 1.0,
        1 => 0.25,
        2 => 1.0,
        _ => 1.3,
    }
}

/// The terms of a text: CJK character 1–3-grams within runs, whole ASCII words (a plural -s dropped).
pub fn terms(text: &str) -> Vec<String> {
    let sentence = Sentence::new(text);
    let mut out = Vec::new();
    let mut cjk: Vec<char> = Vec::new();
    let mut word = String::new();
    let flush_cjk = |cjk: &mut Vec<char>, out: &mut Vec<String>| {
        for n in 1..=3 {
            for window in cjk.windows(n) {
                out.push(window.iter().collect());
            }
        }
        cjk.clear();
    };
    let flush_word = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            let stem = if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
                &word[..word.len() - 1]
            } else {
                word.as_str()
            };
            out.push(stem.to_string());
            word.clear();
        }
    };
    for &c in &sentence.chars {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            cjk.push(c);
        } else if c.is_ascii_alphabetic() {
            flush_cjk(&mut cjk, &mut out);
            word.push(c);
        } else {
            flush_cjk(&mut cjk, &mut out);
            flush_word(&mut word, &mut out);
            if !is_separator(c) && !c.is_ascii_digit() && !c.is_whitespace() && c != '_' && c != '-' {
                out.push(c.to_string());
            }
        }
    }
    flush_cjk(&mut cjk, &mut out);
    flush_word(&mut word, &mut out);
    out.extend(closed_compounds(&sentence.chars));
    out
}

/// The hyphenated English compounds of a text written closed (on-time → ontime), as names often write them.
fn closed_compounds(chars: &[char]) -> Vec<String> {
    let text: String = chars.iter().collect();
    let mut out = Vec::new();
    for piece in text.split(|c: char| !c.is_ascii_alphabetic() && c != '-') {
        let parts: Vec<&str> = piece.split('-').collect();
        if parts.len() > 1 && parts.iter().all(|p| !p.is_empty()) {
            out.push(parts.concat());
        }
    }
    out
}

/// One tool as a document.
#[derive(Debug, Clone)]
struct Document {
    /// The tool's name.
    name: String,
    /// Term → count.
    counts: HashMap<String, f64>,
    /// Number of terms.
    length: f64,
    /// The folded text the terms came from (tool words for the subject search).
    text: String,
}

/// BM25 over the tools a router may choose.
#[derive(Debug, Clone)]
pub struct ToolIndex {
    /// One document per tool, in the order given.
    documents: Vec<Document>,
    /// Term → number of documents holding it.
    document_frequency: HashMap<String, usize>,
    /// The mean document length.
    average_length: f64,
}

/// The text a tool is known by, with entity names and time expressions of its examples blanked out.
pub fn tool_text(tool: &Tool, entities: &EntityCatalogs, today: Date) -> String {
    let mut parts: Vec<String> = vec![tool.name().replace(['_', '-'], " ")];
    parts.extend(tool.title().map(str::to_string));
    parts.push(tool.description().to_string());
    for spec in tool.params().iter() {
        push_param_text(tool, spec, &mut parts);
    }
    for example in &tool.extensions().examples {
        let mut sentence = Sentence::new(example);
        for span in scan_times(example, today) {
            sentence.mask_bytes(&span.range);
        }
        for entity_type in entities.types() {
            if let Some(index) = entities.get(entity_type) {
                for mention in index.find_mentions(example) {
                    sentence.mask_bytes(&mention.range);
                }
                mask_partial_names(&mut sentence, index);
            }
        }
        parts.push(sentence.open_text());
    }
    let joined = parts.join(" | ");
    Sentence::new(&joined).chars.iter().collect()
}

/// The fewest characters a part of an entity name needs to be hidden from a tool's example words.
const PARTIAL_NAME_CHARS: usize = 3;

/// Masks the longest open CJK windows of an example that are part of an entity's name (嘉定仓 of 上海嘉定仓), so
/// a shortened name in an example never speaks for a tool, nor hides the subject of a question.
fn mask_partial_names(sentence: &mut Sentence, index: &crate::resolve::EntityIndex) {
    let names: Vec<String> = index
        .entities()
        .iter()
        .flat_map(|e| std::iter::once(&e.name).chain(e.aliases.iter()))
        .map(|name| Sentence::new(name).chars.iter().collect())
        .collect();
    for run in sentence.open_runs() {
        let mut start = run.start;
        while start + PARTIAL_NAME_CHARS <= run.end {
            let longest = (start + PARTIAL_NAME_CHARS..=run.end).rev().find(|&end| {
                let window: String = sentence.chars.get(start..end).unwrap_or_default().iter().collect();
                window.chars().all(is_cjk) && names.iter().any(|name| name.contains(window.as_str()))
            });
            match longest {
                Some(end) => {
                    sentence.mask_chars(&(start..end));
                    start = end;
                }
                None => start += 1,
            }
        }
    }
}

fn push_param_text(tool: &Tool, spec: &ParamSpec, parts: &mut Vec<String>) {
    parts.push(spec.description.clone());
    if let Some(index) = tool.enum_index(&spec.name) {
        for (value, spellings) in index.surfaces() {
            parts.push(value.clone());
            parts.extend(spellings.iter().cloned());
        }
    }
    for property in &spec.properties {
        parts.push(property.description.clone());
    }
}

impl ToolIndex {
    /// Indexes the tools.
    pub fn build(tools: &[&Tool], entities: &EntityCatalogs, today: Date) -> Self {
        let mut documents = Vec::with_capacity(tools.len());
        let mut document_frequency: HashMap<String, usize> = HashMap::new();
        for tool in tools {
            let text = tool_text(tool, entities, today);
            let all = terms(&text);
            let mut counts: HashMap<String, f64> = HashMap::new();
            for term in &all {
                *counts.entry(term.clone()).or_default() += 1.0;
            }
            for term in counts.keys() {
                *document_frequency.entry(term.clone()).or_default() += 1;
            }
            documents.push(Document {
                name: tool.name().to_string(),
                length: all.len() as f64,
                counts,
                text,
            });
        }
        let average_length = if documents.is_empty() {
            1.0
        } else {
            (documents.iter().map(|d| d.length).sum::<f64>() / documents.len() as f64).max(1.0)
        };
        Self {
            documents,
            document_frequency,
            average_length,
        }
    }

    /// The inverse document frequency of a term (BM25+, never negative).
    fn idf(&self, term: &str) -> f64 {
        let n = self.documents.len() as f64;
        let df = self.document_frequency.get(term).copied().unwrap_or(0) as f64;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// Each tool's BM25 score for a query text, with the terms that matched it, in index order.
    pub fn score(&self, query: &str) -> Vec<(String, f64, Vec<String>)> {
        let unique: HashSet<String> = terms(query).into_iter().collect();
        // Only terms some tool has can score; each one's weight and idf is the same for every tool.
        let mut query_terms: Vec<(String, f64, bool)> = unique
            .into_iter()
            .filter(|term| self.document_frequency.contains_key(term))
            .map(|term| {
                let weight = term_weight(&term) * self.idf(&term);
                let shown = term.chars().count() > 1 || term.is_ascii();
                (term, weight, shown)
            })
            .collect();
        query_terms.sort_by(|a, b| a.0.cmp(&b.0));
        self.documents
            .iter()
            .map(|doc| {
                let mut score = 0.0;
                let mut matched = Vec::new();
                for (term, weight, shown) in &query_terms {
                    let Some(&tf) = doc.counts.get(term) else { continue };
                    let norm = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * doc.length / self.average_length));
                    score += weight * norm;
                    if *shown {
                        matched.push(term.clone());
                    }
                }
                (doc.name.clone(), score, matched)
            })
            .collect()
    }

    /// The folded text a tool is known by (empty for a tool not indexed).
    pub fn text_of(&self, tool: &str) -> &str {
        self.documents
            .iter()
            .find(|d| d.name == tool)
            .map_or("", |d| d.text.as_str())
    }

    /// How many of the indexed tools' texts contain a folded phrase.
    pub fn tools_containing(&self, phrase: &str) -> usize {
        self.documents.iter().filter(|d| d.text.contains(phrase)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_cjk_ngrams_and_ascii_words() {
        let t = terms("评分 East-China sales");
        for expected in ["评", "分", "评分", "east", "china", "sale"] {
            assert!(t.iter().any(|x| x == expected), "{expected} in {t:?}");
        }
        assert_eq!(terms("票房呢").len(), 6);
    }

    #[test]
    fn english_function_words_say_little() {
        assert!(term_weight("on") < term_weight("time"));
        assert!(term_weight("by") <= term_weight("率"));
        assert!((term_weight("rate") - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn hyphenated_words_are_also_written_closed() {
        let t = terms("the on-time rate, well-known");
        for expected in ["on", "time", "ontime", "wellknown"] {
            assert!(t.iter().any(|x| x == expected), "{expected} in {t:?}");
        }
        assert!(!terms("on time").iter().any(|x| x == "ontime"));
    }

    #[test]
    fn a_shortened_entity_name_in_an_example_is_hidden() {
        let entities = EntityCatalogs::from_json_str(r#"{"site": [{"id": 1, "name": "东城青松站"}]}"#).unwrap();
        let Some(index) = entities.get("site") else {
            panic!("site index");
        };
        let mut sentence = Sentence::new("青松站的到货量");
        mask_partial_names(&mut sentence, index);
        assert_eq!(sentence.open_text().trim(), "的到货量");
        let mut two = Sentence::new("青松的到货量");
        mask_partial_names(&mut two, index);
        assert_eq!(two.open_text(), "青松的到货量", "two characters are too few to hide");
    }
}
