//! What `wenshu bench ask` reads from a server's `/metrics`: the sums and counts of the histograms that say where an
//! ask's time went on the server, before and after a run.

use std::collections::HashMap;

/// The engine's time per ask (`Engine::ask`).
const ASK: &str = "wenshu_ask_duration_seconds";
/// The time each write of an ask (a new conversation, a turn, an audit entry) waited until acknowledged.
const STORE_WRITE: &str = "wenshu_store_write_seconds";
/// The writes of each group commit.
const GROUP: &str = "wenshu_store_group_writes";

/// The `_sum` and `_count` of every histogram in one scrape.
#[derive(Debug, Clone, Default)]
pub struct Scrape {
    values: HashMap<String, f64>,
}

impl Scrape {
    /// Reads the Prometheus text format: `name value` lines without labels; anything else is skipped.
    pub fn parse(text: &str) -> Self {
        let values = text
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.split_once(' '))
            .filter(|(name, _)| !name.contains('{'))
            .filter_map(|(name, value)| Some((name.to_string(), value.trim().parse::<f64>().ok()?)))
            .collect();
        Self { values }
    }

    /// One value; 0 when the server has not recorded it yet.
    fn value(&self, name: &str) -> f64 {
        self.values.get(name).copied().unwrap_or(0.0)
    }

    /// How `name`'s sum and count grew since `before`.
    fn grown(&self, before: &Scrape, name: &str) -> (f64, f64) {
        let (sum, count) = (format!("{name}_sum"), format!("{name}_count"));
        (
            self.value(&sum) - before.value(&sum),
            self.value(&count) - before.value(&count),
        )
    }
}

/// Where the server's time went during a run, per ask.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServerTime {
    /// The asks the engine answered.
    pub asks: f64,
    /// The engine's milliseconds per ask.
    pub engine_ms: f64,
    /// Milliseconds per ask spent waiting for the store's writes to be acknowledged.
    pub store_ms: f64,
    /// The store's writes per ask.
    pub writes_per_ask: f64,
    /// The writes of one group commit, on average; `None` without group commit.
    pub writes_per_group: Option<f64>,
}

impl ServerTime {
    /// The server's time between two scrapes.
    pub fn between(before: &Scrape, after: &Scrape) -> Self {
        let (ask_sum, asks) = after.grown(before, ASK);
        let (write_sum, writes) = after.grown(before, STORE_WRITE);
        let (grouped, groups) = after.grown(before, GROUP);
        let per_ask = |value: f64| if asks > 0.0 { value / asks } else { 0.0 };
        Self {
            asks,
            engine_ms: per_ask(ask_sum) * 1000.0,
            store_ms: per_ask(write_sum) * 1000.0,
            writes_per_ask: per_ask(writes),
            writes_per_group: (groups > 0.0).then(|| grouped / groups),
        }
    }

    /// The figures in words.
    pub fn describe(&self) -> String {
        let groups = match self.writes_per_group {
            Some(size) => format!(", {size:.1} writes a group commit"),
            None => String::new(),
        };
        format!(
            "server per ask: engine {:.2} ms, store writes {:.2} ms until acknowledged ({:.1} writes{groups})",
            self.engine_ms, self.store_ms, self.writes_per_ask
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_counts_grow_per_ask() {
        let before = Scrape::parse(
            "# TYPE wenshu_ask_duration_seconds histogram\nwenshu_ask_duration_seconds_bucket{le=\"0.001\"} 3\n\
             wenshu_ask_duration_seconds_sum 0.5\nwenshu_ask_duration_seconds_count 10\n",
        );
        let after = Scrape::parse(
            "wenshu_ask_duration_seconds_sum 1.5\nwenshu_ask_duration_seconds_count 110\n\
             wenshu_store_write_seconds_sum 0.4\nwenshu_store_write_seconds_count 200\n\
             wenshu_store_group_writes_sum 200\nwenshu_store_group_writes_count 20\nnot a number line\n",
        );
        let time = ServerTime::between(&before, &after);
        assert_eq!(time.asks, 100.0);
        assert!((time.engine_ms - 10.0).abs() < 1e-9, "{time:?}");
        assert!((time.store_ms - 4.0).abs() < 1e-9, "{time:?}");
        assert_eq!((time.writes_per_ask, time.writes_per_group), (2.0, Some(10.0)));
        assert!(time.describe().contains("engine 10.00 ms"), "{}", time.describe());
        let idle = ServerTime::between(&after, &after);
        assert_eq!((idle.engine_ms, idle.writes_per_group), (0.0, None));
    }
}
