//! The per-type entity index: built once, then exact lookups, fuzzy candidates and mentions without scanning names.

use std::collections::HashMap;
use std::fmt;

use serde_json::Value;

use super::entity::{Candidate, Entity, MatchMethod, Resolution, compare_ids};
use super::postings::{HashTable, Postings};
use wenshu_lexicon::surname::looks_like_person_name;

use super::text::{
    bigram_term, canonical_key, char_term, compact_into, hash_chars, is_significant, loose_pinyin_into, pinyin_into,
    query_key,
};
use super::{DEFAULT_LIMIT, fuzzy};

/// One searchable name of an entity: its name or one of its aliases, in canonical form.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyRecord {
    /// Byte range of the canonical key in the index's key text.
    pub(crate) start: usize,
    /// End of that byte range.
    pub(crate) end: usize,
    /// The entity's position in the index.
    pub(crate) entity: u32,
    /// Whether the key is an alias rather than the name.
    pub(crate) alias: bool,
    /// The number of significant characters (letters, digits, ideographs), saturating.
    pub(crate) compact_len: u16,
}

/// An ID in a hashable form (integers by value, strings by text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum IdKey {
    /// An integer ID.
    Int(i128),
    /// A string ID.
    Str(String),
    /// Anything else, by its JSON text.
    Other(String),
}

impl IdKey {
    /// The hashable form of an ID.
    fn of(id: &Value) -> Self {
        match id {
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => IdKey::Int(i128::from(i)),
                (None, Some(u)) => IdKey::Int(i128::from(u)),
                _ => IdKey::Other(n.to_string()),
            },
            Value::String(s) => IdKey::Str(s.clone()),
            other => IdKey::Other(other.to_string()),
        }
    }
}

/// The least share of an entity type's names that must look like personal names for the type to be people.
const PERSON_SHARE: f64 = 0.8;
/// The fewest entities a type needs before its names say what it is.
const MIN_ENTITIES: usize = 3;
/// How many names are looked at to tell (the first ones).
const SAMPLE: usize = 200;

/// All entities of one type, indexed for exact lookup, fuzzy search and mention finding.
///
/// Built once by [`EntityIndex::new`]: canonical names and aliases go into a hash table (exact matches and
/// mentions), their characters and character bigrams into inverted indexes (fuzzy candidates), and their toneless
/// pinyin into a second hash table (same-sounding names), so a lookup never scans all names.
#[derive(Clone, Default)]
pub struct EntityIndex {
    /// The entities, in the order given.
    pub(crate) entities: Vec<Entity>,
    /// Every searchable key (names and aliases).
    pub(crate) keys: Vec<KeyRecord>,
    /// The canonical keys back to back.
    pub(crate) key_text: String,
    /// Hash of a canonical key → keys.
    pub(crate) exact: HashTable,
    /// Hash of the pinyin of a compact key → keys.
    pub(crate) pinyin: HashTable,
    /// Hash of the loose pinyin (confusable sounds merged) of a compact key → keys.
    pub(crate) loose_pinyin: HashTable,
    /// Compact character → keys containing it.
    pub(crate) chars: Postings,
    /// Compact character bigram → keys containing it.
    pub(crate) bigrams: Postings,
    /// `mention_lengths[n]`: whether some canonical key has `n` characters.
    pub(crate) mention_lengths: Vec<bool>,
    /// ID → entity position (the first entity with that ID).
    by_id: HashMap<IdKey, u32>,
    /// Whether the names are people's names, once asked (see [`EntityIndex::is_person_type`]).
    person_names: std::sync::OnceLock<bool>,
    /// An identity of this index's contents, unique in the process (a clone shares it): memos of what a question
    /// names key on it.
    pub(crate) identity: u64,
}

impl fmt::Debug for EntityIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EntityIndex")
            .field("entities", &self.entities.len())
            .field("keys", &self.keys.len())
            .finish()
    }
}

impl EntityIndex {
    /// Whether an entity type's names are people's names (王磊, 李秀英): most of the first names have that shape. Read
    /// once per index: the answer depends on its names only.
    pub fn is_person_type(&self) -> bool {
        *self.person_names.get_or_init(|| {
            let names: Vec<&str> = self.entities().iter().take(SAMPLE).map(|e| e.name.as_str()).collect();
            let people = names.iter().filter(|n| looks_like_person_name(n)).count();
            names.len() >= MIN_ENTITIES && people as f64 >= PERSON_SHARE * names.len() as f64
        })
    }

    /// Indexes the entities. Names and aliases whose canonical form is empty are not searchable.
    /// At most `u32::MAX` entities are indexed.
    pub fn new(mut entities: Vec<Entity>) -> Self {
        entities.truncate(u32::MAX as usize);
        let mut keys = Vec::with_capacity(entities.len());
        let mut key_text = String::new();
        let mut by_id = HashMap::with_capacity(entities.len());
        for (position, entity) in (0u32..).zip(&entities) {
            by_id.entry(IdKey::of(&entity.id)).or_insert(position);
            let start_of_entity = keys.len();
            let names = std::iter::once((entity.name.as_str(), false))
                .chain(entity.aliases.iter().map(|alias| (alias.as_str(), true)));
            for (name, alias) in names {
                let key = canonical_key(name);
                let duplicate = keys
                    .get(start_of_entity..)
                    .unwrap_or(&[])
                    .iter()
                    .any(|k: &KeyRecord| key_text.get(k.start..k.end) == Some(key.as_str()));
                if key.is_empty() || duplicate || keys.len() >= u32::MAX as usize {
                    continue;
                }
                let start = key_text.len();
                key_text.push_str(&key);
                let compact_len = u16::try_from(key.chars().filter(|&c| is_significant(c)).count()).unwrap_or(u16::MAX);
                keys.push(KeyRecord {
                    start,
                    end: key_text.len(),
                    entity: position,
                    alias,
                    compact_len,
                });
            }
        }
        static NEXT_IDENTITY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut index = EntityIndex {
            entities,
            keys,
            key_text,
            by_id,
            identity: NEXT_IDENTITY.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            ..EntityIndex::default()
        };
        index.build_lookups();
        index
    }

    /// Builds the hash tables, inverted indexes and mention lengths from the keys.
    fn build_lookups(&mut self) {
        let key_count = u32::try_from(self.keys.len()).unwrap_or(u32::MAX);
        let mut exact = Vec::with_capacity(self.keys.len());
        let mut pinyin = Vec::with_capacity(self.keys.len());
        let mut loose = Vec::with_capacity(self.keys.len());
        let mut compact = Vec::new();
        let mut spoken = String::new();
        let mut lengths: Vec<bool> = Vec::new();
        for number in 0..key_count {
            let key = self.key_str(number);
            exact.push((hash_chars(key.chars()), number));
            let length = key.chars().count();
            if lengths.len() <= length {
                lengths.resize(length + 1, false);
            }
            if let Some(slot) = lengths.get_mut(length) {
                *slot = true;
            }
            compact_into(key, &mut compact);
            if !compact.is_empty() {
                pinyin_into(&compact, &mut spoken);
                pinyin.push((hash_chars(spoken.chars()), number));
                loose_pinyin_into(&compact, &mut spoken);
                loose.push((hash_chars(spoken.chars()), number));
            }
        }
        self.mention_lengths = lengths;
        self.exact = HashTable::new(exact);
        self.pinyin = HashTable::new(pinyin);
        self.loose_pinyin = HashTable::new(loose);
        let mut compact = Vec::new();
        self.chars = Postings::build(key_count, |number, out| {
            compact_into(self.key_str(number), &mut compact);
            out.extend(compact.iter().map(|&c| char_term(c)));
        });
        self.bigrams = Postings::build(key_count, |number, out| {
            compact_into(self.key_str(number), &mut compact);
            out.extend(compact.windows(2).filter_map(|w| match w {
                [a, b] => Some(bigram_term(*a, *b)),
                _ => None,
            }));
        });
    }

    /// The number of entities.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the index holds no entities.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The entities, in the order given.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// Gives the entities back (to extend them and index again).
    pub fn into_entities(self) -> Vec<Entity> {
        self.entities
    }

    /// The entity with this ID (integers match integers, strings match strings); the first one if repeated.
    pub fn by_id(&self, id: &Value) -> Option<&Entity> {
        self.by_id
            .get(&IdKey::of(id))
            .and_then(|&position| self.entity(position))
    }

    /// Resolves a name to an entity: exact canonical name/alias first, then fuzzy matching.
    ///
    /// `limit` caps the candidates of an ambiguous result (0 means the default, 5). Several exact matches, or
    /// several fuzzy matches none clearly ahead, give [`Resolution::Ambiguous`] — never one picked silently.
    pub fn resolve(&self, name: &str, limit: usize) -> Resolution {
        let limit = if limit == 0 { DEFAULT_LIMIT } else { limit };
        let query = query_key(name);
        if query.is_empty() {
            return Resolution::NotFound;
        }
        let mut matched: Vec<(u32, MatchMethod)> = Vec::new();
        for number in self.exact_keys(query.chars()) {
            let Some(record) = self.keys.get(number as usize) else {
                continue;
            };
            let method = if record.alias {
                MatchMethod::Alias
            } else {
                MatchMethod::Exact
            };
            match matched.iter_mut().find(|(entity, _)| *entity == record.entity) {
                Some(existing) => existing.1 = existing.1.min(method),
                None => matched.push((record.entity, method)),
            }
        }
        match matched.as_slice() {
            [] => fuzzy::resolve_fuzzy(self, &query, limit),
            [(position, _)] => match self.entity(*position) {
                Some(entity) => Resolution::Exact { entity: entity.clone() },
                None => Resolution::NotFound,
            },
            _ => {
                let mut found: Vec<(&Entity, MatchMethod)> = matched
                    .iter()
                    .filter_map(|&(position, method)| self.entity(position).map(|e| (e, method)))
                    .collect();
                found.sort_by(|(a, _), (b, _)| compare_ids(&a.id, &b.id));
                found.truncate(limit);
                let candidates = found
                    .into_iter()
                    .map(|(entity, method)| Candidate {
                        entity: entity.clone(),
                        score: 1.0,
                        method,
                    })
                    .collect();
                Resolution::Ambiguous {
                    candidates,
                    exact: true,
                }
            }
        }
    }

    /// The keys whose canonical text equals the characters (verified, not just hash-equal).
    pub(crate) fn exact_keys<I>(&self, chars: I) -> Vec<u32>
    where
        I: Iterator<Item = char> + Clone,
    {
        let hash = hash_chars(chars.clone());
        self.exact
            .get(hash)
            .filter(|&number| self.key_str(number).chars().eq(chars.clone()))
            .collect()
    }

    /// The canonical text of a key.
    pub(crate) fn key_str(&self, number: u32) -> &str {
        self.keys
            .get(number as usize)
            .and_then(|k| self.key_text.get(k.start..k.end))
            .unwrap_or("")
    }

    /// The entity at a position.
    pub(crate) fn entity(&self, position: u32) -> Option<&Entity> {
        self.entities.get(position as usize)
    }
}
