//! Inverted indexes from terms (characters, bigrams) to sorted key numbers, and sorted hash tables.

use std::collections::HashMap;

/// An inverted index: for each term, the sorted numbers of the keys that contain it, stored contiguously.
#[derive(Debug, Default, Clone)]
pub(crate) struct Postings {
    /// Term → (start, length) in `ids`.
    slots: HashMap<u64, (usize, usize)>,
    /// All posting lists back to back.
    ids: Vec<u32>,
}

impl Postings {
    /// Builds the index over keys `0..count`; `terms(key, out)` fills `out` with the key's terms (duplicates allowed).
    pub(crate) fn build(count: u32, mut terms: impl FnMut(u32, &mut Vec<u64>)) -> Self {
        let mut buf = Vec::new();
        let mut counts: HashMap<u64, usize> = HashMap::new();
        for key in 0..count {
            distinct_terms(key, &mut terms, &mut buf);
            for &term in &buf {
                *counts.entry(term).or_insert(0) += 1;
            }
        }
        let mut slots = HashMap::with_capacity(counts.len());
        let mut start = 0;
        for (term, len) in counts {
            slots.insert(term, (start, 0));
            start += len;
        }
        let mut ids = vec![0u32; start];
        for key in 0..count {
            distinct_terms(key, &mut terms, &mut buf);
            for &term in &buf {
                if let Some((begin, filled)) = slots.get_mut(&term)
                    && let Some(slot) = ids.get_mut(*begin + *filled)
                {
                    *slot = key;
                    *filled += 1;
                }
            }
        }
        Postings { slots, ids }
    }

    /// The sorted keys containing `term` (empty when none).
    pub(crate) fn get(&self, term: u64) -> &[u32] {
        self.slots
            .get(&term)
            .and_then(|&(start, len)| self.ids.get(start..start + len))
            .unwrap_or(&[])
    }
}

/// Fills `buf` with the distinct terms of `key`.
fn distinct_terms(key: u32, terms: &mut impl FnMut(u32, &mut Vec<u64>), buf: &mut Vec<u64>) {
    buf.clear();
    terms(key, buf);
    buf.sort_unstable();
    buf.dedup();
}

/// The keys present in every list (each list sorted ascending). Starts from the shortest list and gallops.
pub(crate) fn intersect(mut lists: Vec<&[u32]>) -> Vec<u32> {
    lists.sort_by_key(|list| list.len());
    let Some((first, rest)) = lists.split_first() else {
        return Vec::new();
    };
    let mut rest: Vec<&[u32]> = rest.to_vec();
    let mut out = Vec::new();
    'outer: for &key in *first {
        for list in &mut rest {
            let skip = list.partition_point(|&k| k < key);
            *list = list.get(skip..).unwrap_or(&[]);
            match list.first() {
                Some(&k) if k == key => {}
                Some(_) => continue 'outer,
                None => break 'outer,
            }
        }
        out.push(key);
    }
    out
}

/// A table of (hash, key) pairs sorted by hash: lookups by binary search, no allocation per entry.
#[derive(Debug, Default, Clone)]
pub(crate) struct HashTable {
    entries: Vec<(u64, u32)>,
}

impl HashTable {
    /// Builds the table from unsorted pairs.
    pub(crate) fn new(mut entries: Vec<(u64, u32)>) -> Self {
        entries.sort_unstable();
        entries.dedup();
        HashTable { entries }
    }

    /// The keys stored under `hash` (possibly including collisions: callers verify).
    pub(crate) fn get(&self, hash: u64) -> impl Iterator<Item = u32> + '_ {
        let start = self.entries.partition_point(|&(h, _)| h < hash);
        self.entries
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .take_while(move |&&(h, _)| h == hash)
            .map(|&(_, k)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_are_sorted_and_distinct() {
        let docs: [&[u64]; 4] = [&[1, 2, 2], &[2], &[3], &[1, 3]];
        let p = Postings::build(4, |k, out| {
            out.extend_from_slice(docs.get(k as usize).copied().unwrap_or(&[]))
        });
        assert_eq!(p.get(1), &[0, 3]);
        assert_eq!(p.get(2), &[0, 1]);
        assert_eq!(p.get(3), &[2, 3]);
        assert!(p.get(9).is_empty());
    }

    #[test]
    fn intersection() {
        assert_eq!(intersect(vec![&[1, 3, 5, 7], &[3, 7, 9], &[0, 3, 4, 7]]), vec![3, 7]);
        assert_eq!(intersect(vec![&[1, 2], &[]]), Vec::<u32>::new());
        assert_eq!(intersect(vec![&[4, 5]]), vec![4, 5]);
        assert!(intersect(Vec::new()).is_empty());
    }

    #[test]
    fn hash_table_lookup() {
        let t = HashTable::new(vec![(5, 1), (3, 0), (5, 2), (9, 3)]);
        assert_eq!(t.get(5).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(t.get(4).count(), 0);
    }
}
