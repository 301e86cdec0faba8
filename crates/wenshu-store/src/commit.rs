//! How the store gathers the writes of concurrent asks into one transaction (group commit).

use std::time::Duration;

/// Group commit: one writer gathers the writes of concurrent asks (a new conversation, a turn with its trace and
/// audit entry, an audit entry alone) for at most `window` or `max_writes` writes, writes them in one transaction
/// with one sync to disk, and acknowledges each only once that transaction has committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupCommit {
    /// How long the writer waits for more writes after the first of a group; zero turns group commit off (each
    /// write is a transaction of its own, committed on the asking task).
    pub window: Duration,
    /// The most writes one group holds (at least one).
    pub max_writes: usize,
}

impl GroupCommit {
    /// The default window: 1 ms.
    pub const DEFAULT_WINDOW: Duration = Duration::from_millis(1);

    /// The default size of a group: 256 writes.
    pub const DEFAULT_MAX_WRITES: usize = 256;

    /// No group commit: each write in a transaction of its own.
    pub fn off() -> Self {
        Self {
            window: Duration::ZERO,
            max_writes: 1,
        }
    }

    /// Whether writes are gathered (a window above zero and room for more than one write).
    pub fn is_on(&self) -> bool {
        !self.window.is_zero() && self.max_writes > 1
    }
}

impl Default for GroupCommit {
    /// A 1 ms window, up to 256 writes.
    fn default() -> Self {
        Self {
            window: Self::DEFAULT_WINDOW,
            max_writes: Self::DEFAULT_MAX_WRITES,
        }
    }
}
