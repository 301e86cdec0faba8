//! The entities a question names, of every type the catalogs hold, longest names first as each index finds them;
//! the last few readings remembered per thread (a plan reads one question several times).

use std::cell::RefCell;
use std::sync::Arc;

use serde::Serialize;
use wenshu_lexicon::memo::{Recent, recall};

use super::catalog::EntityCatalogs;

/// An entity named in a question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedEntity {
    /// The entity type.
    pub entity_type: String,
    /// The words of the question.
    pub surface: String,
    /// Byte range in the question.
    pub range: std::ops::Range<usize>,
    /// The entities the words name.
    pub ids: Vec<serde_json::Value>,
}

/// The catalogs' identities and a text: what a remembered reading of mentions is found by.
type MentionsKey = (Vec<u64>, String);

thread_local! {
    /// The mentions of the texts most recently read on this thread, by the catalogs' identities and the text.
    static RECENT_MENTIONS: RefCell<Recent<MentionsKey, Arc<Vec<NamedEntity>>>> =
        const { RefCell::new(Recent::new(8)) };
}

/// Every entity mention of every type in a text, longest names first as the entity index finds them. A plan reads
/// the same question several times: the last few answers are remembered per thread.
pub fn entity_mentions(entities: &EntityCatalogs, text: &str) -> Vec<NamedEntity> {
    let identities = entities.identities();
    let found = recall(
        &RECENT_MENTIONS,
        |(ids, t)| t == text && *ids == identities,
        || {
            let found = Arc::new(read_mentions(entities, text));
            ((identities.clone(), text.to_string()), found)
        },
    );
    found.as_ref().clone()
}

fn read_mentions(entities: &EntityCatalogs, text: &str) -> Vec<NamedEntity> {
    let mut out = Vec::new();
    for entity_type in entities.types() {
        let Some(index) = entities.get(entity_type) else {
            continue;
        };
        for mention in index.find_mentions(text) {
            out.push(NamedEntity {
                entity_type: entity_type.to_string(),
                surface: mention.surface.clone(),
                range: mention.range.clone(),
                ids: mention.entity_ids.clone(),
            });
        }
    }
    out.sort_by_key(|m| m.range.start);
    out
}

/// Whether two byte ranges overlap.
pub fn overlaps(a: &std::ops::Range<usize>, b: &std::ops::Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}
