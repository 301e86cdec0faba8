//! A small bounded memo: the last few values computed, each found again by a test on its key, the oldest
//! forgotten first. Each thread keeps its own (see [`recall`]), so reading one needs no lock.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::thread::LocalKey;

/// The last `capacity` (key, value) pairs remembered, oldest first.
#[derive(Debug)]
pub struct Recent<K, V> {
    capacity: usize,
    entries: VecDeque<(K, V)>,
}

impl<K, V: Clone> Recent<K, V> {
    /// An empty memo that remembers at most `capacity` values (at least one).
    pub const fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: VecDeque::new(),
        }
    }

    /// The value of the most recent key that `is_key` accepts.
    pub fn find(&self, is_key: impl Fn(&K) -> bool) -> Option<V> {
        self.entries
            .iter()
            .rev()
            .find(|(key, _)| is_key(key))
            .map(|(_, value)| value.clone())
    }

    /// Remembers a value, forgetting the oldest one when the memo is full.
    pub fn insert(&mut self, key: K, value: V) {
        while self.entries.len() >= self.capacity.max(1) {
            self.entries.pop_front();
        }
        self.entries.push_back((key, value));
    }

    /// How many values are remembered.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The value a thread's memo remembers for the key `is_key` accepts; else `make` computes the key and value
/// (outside the memo's borrow, so it may use the memo itself), and the memo remembers them.
pub fn recall<K: 'static, V: Clone + 'static>(
    memo: &'static LocalKey<RefCell<Recent<K, V>>>,
    is_key: impl Fn(&K) -> bool,
    make: impl FnOnce() -> (K, V),
) -> V {
    if let Some(value) = memo.with(|recent| recent.borrow().find(&is_key)) {
        return value;
    }
    let (key, value) = make();
    memo.with(|recent| recent.borrow_mut().insert(key, value.clone()));
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static SQUARES: RefCell<Recent<u32, u64>> = const { RefCell::new(Recent::new(2)) };
        static NESTED: RefCell<Recent<u32, u32>> = const { RefCell::new(Recent::new(4)) };
    }

    #[test]
    fn a_value_is_computed_once_while_remembered() {
        let mut made = 0;
        for _ in 0..3 {
            let v = recall(
                &SQUARES,
                |k| *k == 7,
                || {
                    made += 1;
                    (7, 49)
                },
            );
            assert_eq!(v, 49);
        }
        assert_eq!(made, 1);
    }

    #[test]
    fn the_oldest_value_is_forgotten_first() {
        let mut memo: Recent<u32, &str> = Recent::new(2);
        memo.insert(1, "one");
        memo.insert(2, "two");
        memo.insert(3, "three");
        assert_eq!(memo.len(), 2);
        assert_eq!(memo.find(|k| *k == 1), None);
        assert_eq!(memo.find(|k| *k == 2), Some("two"));
        assert_eq!(memo.find(|k| *k == 3), Some("three"));
        let mut none: Recent<u32, u32> = Recent::new(0);
        none.insert(1, 1);
        assert_eq!(none.len(), 1, "a memo remembers at least one value");
        assert!(!none.is_empty());
    }

    #[test]
    fn make_may_use_the_memo_it_fills() {
        fn value(n: u32) -> u32 {
            recall(&NESTED, |k| *k == n, || (n, if n == 0 { 1 } else { 2 * value(n - 1) }))
        }
        assert_eq!(value(3), 8);
        assert_eq!(NESTED.with(|m| m.borrow().find(|k| *k == 1)), Some(2));
    }
}
