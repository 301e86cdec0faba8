//! A circuit breaker per provider: closed, open after N consecutive failed calls, half-open after a cool-down.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use serde::Serialize;

use crate::config::BreakerConfig;

/// A source of the current instant, injectable so tests can move time.
pub trait Clock: Send + Sync + fmt::Debug {
    /// The current instant.
    fn now(&self) -> Instant;
}

/// The real clock: [`Instant::now`].
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// The state of a breaker, as shown in traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakerState {
    /// Calls go through; counts consecutive failures.
    Closed,
    /// The provider is skipped until the cool-down ends.
    Open,
    /// The cool-down ended: one trial call may go through.
    HalfOpen,
}

#[derive(Debug, Clone, Copy)]
enum Inner {
    Closed { failures: u32 },
    Open { since: Instant },
    HalfOpen { trial_in_flight: bool },
}

/// The circuit breaker of one provider. Cheap to share: all state is behind one mutex.
#[derive(Debug)]
pub struct CircuitBreaker {
    config: BreakerConfig,
    clock: Arc<dyn Clock>,
    inner: Mutex<Inner>,
}

impl CircuitBreaker {
    /// A closed breaker on the real clock.
    pub fn new(config: BreakerConfig) -> Self {
        Self::with_clock(config, Arc::new(SystemClock))
    }

    /// A closed breaker on the given clock.
    pub fn with_clock(config: BreakerConfig, clock: Arc<dyn Clock>) -> Self {
        CircuitBreaker {
            config,
            clock,
            inner: Mutex::new(Inner::Closed { failures: 0 }),
        }
    }

    /// The current state (an open breaker whose cool-down has ended reads as half-open).
    pub fn state(&self) -> BreakerState {
        match *self.lock() {
            Inner::Closed { .. } => BreakerState::Closed,
            Inner::Open { since } if self.cooled_down(since) => BreakerState::HalfOpen,
            Inner::Open { .. } => BreakerState::Open,
            Inner::HalfOpen { .. } => BreakerState::HalfOpen,
        }
    }

    /// Asks to make one call. `None` while open (or while a half-open trial is in flight).
    ///
    /// The permit must be settled with [`BreakerPermit::success`] or [`BreakerPermit::failure`]; a permit
    /// dropped unsettled (a cancelled call) counts as neither, and frees the half-open trial slot.
    pub fn try_acquire(&self) -> Option<BreakerPermit<'_>> {
        let mut inner = self.lock();
        let trial = match *inner {
            Inner::Closed { .. } => false,
            Inner::Open { since } if self.cooled_down(since) => {
                *inner = Inner::HalfOpen { trial_in_flight: true };
                true
            }
            Inner::Open { .. } | Inner::HalfOpen { trial_in_flight: true } => return None,
            Inner::HalfOpen { trial_in_flight: false } => {
                *inner = Inner::HalfOpen { trial_in_flight: true };
                true
            }
        };
        Some(BreakerPermit {
            breaker: self,
            trial,
            settled: false,
        })
    }

    fn cooled_down(&self, since: Instant) -> bool {
        self.clock.now().saturating_duration_since(since) >= self.config.cool_down
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn on_success(&self) {
        *self.lock() = Inner::Closed { failures: 0 };
    }

    fn on_failure(&self) {
        let mut inner = self.lock();
        let now = self.clock.now();
        *inner = match *inner {
            Inner::Closed { failures } if failures + 1 < self.config.failure_threshold => {
                Inner::Closed { failures: failures + 1 }
            }
            Inner::Closed { .. } | Inner::HalfOpen { .. } => Inner::Open { since: now },
            open @ Inner::Open { .. } => open,
        };
    }

    fn on_abandon(&self) {
        let mut inner = self.lock();
        if let Inner::HalfOpen { .. } = *inner {
            *inner = Inner::HalfOpen { trial_in_flight: false };
        }
    }
}

/// Leave to make one call through a breaker; settle it with the call's outcome.
#[derive(Debug)]
pub struct BreakerPermit<'a> {
    breaker: &'a CircuitBreaker,
    trial: bool,
    settled: bool,
}

impl BreakerPermit<'_> {
    /// Whether this is the single trial call of a half-open breaker.
    pub fn is_trial(&self) -> bool {
        self.trial
    }

    /// The call succeeded: the breaker closes and its failure count resets.
    pub fn success(mut self) {
        self.settled = true;
        self.breaker.on_success();
    }

    /// The call failed: one more consecutive failure; a half-open breaker re-opens.
    pub fn failure(mut self) {
        self.settled = true;
        self.breaker.on_failure();
    }
}

impl Drop for BreakerPermit<'_> {
    fn drop(&mut self) {
        if !self.settled && self.trial {
            self.breaker.on_abandon();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[derive(Debug)]
    struct ManualClock(Mutex<Instant>);

    impl ManualClock {
        fn advance(&self, by: Duration) {
            let mut now = self.0.lock().expect("clock");
            *now += by;
        }
    }

    impl Clock for ManualClock {
        fn now(&self) -> Instant {
            *self.0.lock().expect("clock")
        }
    }

    fn breaker(threshold: u32) -> (CircuitBreaker, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock(Mutex::new(Instant::now())));
        let config = BreakerConfig {
            failure_threshold: threshold,
            cool_down: Duration::from_secs(30),
        };
        (CircuitBreaker::with_clock(config, clock.clone()), clock)
    }

    #[test]
    fn opens_after_consecutive_failures_only() {
        let (b, _) = breaker(3);
        b.try_acquire().expect("closed").failure();
        b.try_acquire().expect("closed").failure();
        b.try_acquire().expect("closed").success();
        b.try_acquire().expect("closed").failure();
        b.try_acquire().expect("closed").failure();
        assert_eq!(b.state(), BreakerState::Closed);
        b.try_acquire().expect("closed").failure();
        assert_eq!(b.state(), BreakerState::Open);
        assert!(b.try_acquire().is_none());
    }

    #[test]
    fn half_open_allows_one_trial_and_success_closes() {
        let (b, clock) = breaker(1);
        b.try_acquire().expect("closed").failure();
        assert!(b.try_acquire().is_none());
        clock.advance(Duration::from_secs(31));
        assert_eq!(b.state(), BreakerState::HalfOpen);
        let trial = b.try_acquire().expect("trial");
        assert!(trial.is_trial());
        assert!(b.try_acquire().is_none(), "only one trial at a time");
        trial.success();
        assert_eq!(b.state(), BreakerState::Closed);
        assert!(!b.try_acquire().expect("closed").is_trial());
    }

    #[test]
    fn failed_trial_reopens_for_a_full_cool_down() {
        let (b, clock) = breaker(1);
        b.try_acquire().expect("closed").failure();
        clock.advance(Duration::from_secs(31));
        b.try_acquire().expect("trial").failure();
        assert_eq!(b.state(), BreakerState::Open);
        clock.advance(Duration::from_secs(29));
        assert!(b.try_acquire().is_none());
        clock.advance(Duration::from_secs(2));
        assert!(b.try_acquire().is_some());
    }

    #[test]
    fn abandoned_trial_frees_the_slot() {
        let (b, clock) = breaker(1);
        b.try_acquire().expect("closed").failure();
        clock.advance(Duration::from_secs(31));
        drop(b.try_acquire().expect("trial"));
        assert!(b.try_acquire().expect("trial again").is_trial());
    }
}
