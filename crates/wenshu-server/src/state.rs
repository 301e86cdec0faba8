//! What every handler shares: the engine, the store, the settings, the keys and the rate limiters.

use std::sync::Arc;

use jiff::civil::Date;
use wenshu_engine::Engine;
use wenshu_store::Store;

use crate::jwt::JwtVerifier;
use crate::limits::{InFlight, RateLimiter};
use crate::principal::{KeyPrincipal, Keys};
use crate::timeouts::Timeouts;

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// Keys that may ask (`Authorization: Bearer KEY`); empty: no key needed.
    pub user_keys: Vec<String>,
    /// Keys that may also change tools; empty: tools cannot be changed over HTTP.
    pub admin_keys: Vec<String>,
    /// Keys with a principal each (a name, a role, attributes); checked first.
    pub principals: Vec<KeyPrincipal>,
    /// JWT bearer tokens, when configured: verified after the keys.
    pub jwt: Option<Arc<JwtVerifier>>,
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Requests a client (key or address) may make per minute; 0 turns the limit off.
    pub rate_per_minute: u32,
    /// The longest question accepted, in characters.
    pub max_question_chars: usize,
    /// A fixed "today" (demos and tests); `None`: today in the time zone.
    pub today: Option<Date>,
    /// The time zone "today" is reckoned in.
    pub timezone: String,
    /// The most turns one conversation may hold; a question beyond it is refused with 409.
    pub max_turns_per_conversation: usize,
    /// How often one wrong API key or token may be sent from one address per minute before it gets 429s (an
    /// address trying many different wrong ones gets 429s after ten times this); a valid one always passes.
    pub auth_failures_per_minute: u32,
    /// The body-read timeout and the request deadline.
    pub timeouts: Timeouts,
    /// Turns and traces older than this many days are purged; `None` keeps them.
    pub store_retention_days: Option<u32>,
    /// The most bytes of turns one conversation page carries: older turns go to the next page, and a turn
    /// larger than this alone has its rows cut to fit.
    pub max_page_bytes: usize,
    /// The most conversation pages one principal (key, token, or address without keys) may be reading at once;
    /// more get 429.
    pub max_page_reads_per_principal: usize,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            user_keys: Vec::new(),
            admin_keys: Vec::new(),
            principals: Vec::new(),
            jwt: None,
            max_body_bytes: 64 * 1024,
            rate_per_minute: 0,
            max_question_chars: 500,
            today: None,
            timezone: "Asia/Shanghai".into(),
            max_turns_per_conversation: 1000,
            auth_failures_per_minute: 10,
            timeouts: Timeouts::default(),
            store_retention_days: None,
            max_page_bytes: 1024 * 1024,
            max_page_reads_per_principal: 4,
        }
    }
}

/// How many times `auth_failures_per_minute` an address may send wrong credentials of any kind per minute.
pub const ADDRESS_FAILURES_FACTOR: u32 = 10;

struct Inner {
    engine: Engine,
    store: Arc<dyn Store>,
    settings: ServerSettings,
    keys: Keys,
    limiter: RateLimiter,
    auth_failures: RateLimiter,
    auth_failures_by_address: RateLimiter,
    page_reads: InFlight,
    /// Each metric tool's first and last day of data, per scope and day (`api::catalog`).
    spans: SpanCache,
}

/// The metric tools' data spans (tool, first day, last day), kept by a key of scope and day; at most
/// [`SpanCache::KEPT`] keys, all dropped when it is full.
#[derive(Default)]
pub struct SpanCache {
    kept: std::sync::Mutex<std::collections::HashMap<String, Spans>>,
}

/// Each metric tool's name with its first and last day of data.
pub type Spans = Arc<Vec<(String, String, String)>>;

impl SpanCache {
    /// The most keys kept.
    pub const KEPT: usize = 64;

    /// What was kept for `key`.
    pub fn get(&self, key: &str) -> Option<Spans> {
        self.kept.lock().ok()?.get(key).cloned()
    }

    /// Keeps `spans` for `key`.
    pub fn insert(&self, key: String, spans: Spans) {
        if let Ok(mut kept) = self.kept.lock() {
            if kept.len() >= Self::KEPT {
                kept.clear();
            }
            kept.insert(key, spans);
        }
    }
}

/// The shared state; cloning is cheap.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

impl AppState {
    /// A state over an engine and a store.
    pub fn new(engine: Engine, store: Arc<dyn Store>, settings: ServerSettings) -> Self {
        let limiter = RateLimiter::new(settings.rate_per_minute);
        let auth_failures = RateLimiter::new(settings.auth_failures_per_minute);
        let auth_failures_by_address = RateLimiter::new(
            settings
                .auth_failures_per_minute
                .saturating_mul(ADDRESS_FAILURES_FACTOR),
        );
        let page_reads = InFlight::new(settings.max_page_reads_per_principal);
        let keys = Keys::with_principals(&settings.principals, &settings.user_keys, &settings.admin_keys);
        Self {
            inner: Arc::new(Inner {
                engine,
                store,
                settings,
                keys,
                limiter,
                auth_failures,
                auth_failures_by_address,
                page_reads,
                spans: SpanCache::default(),
            }),
        }
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.inner.store
    }

    /// The settings.
    pub fn settings(&self) -> &ServerSettings {
        &self.inner.settings
    }

    /// The rate limiter of verified principals.
    pub fn limiter(&self) -> &RateLimiter {
        &self.inner.limiter
    }

    /// The limiter of wrong API keys and tokens, by client address and the credential tried.
    pub fn auth_failures(&self) -> &RateLimiter {
        &self.inner.auth_failures
    }

    /// The limiter of wrong API keys and tokens by client address alone, whatever was tried (at
    /// [`ADDRESS_FAILURES_FACTOR`] times the rate of one credential), so that trying many keys stays throttled.
    pub fn auth_failures_by_address(&self) -> &RateLimiter {
        &self.inner.auth_failures_by_address
    }

    /// Conversation page reads in flight, by principal.
    pub fn page_reads(&self) -> &InFlight {
        &self.inner.page_reads
    }

    /// The configured keys (digests only).
    pub fn keys(&self) -> &Keys {
        &self.inner.keys
    }

    /// The JWT verifier, when tokens are configured.
    pub fn jwt(&self) -> Option<&JwtVerifier> {
        self.inner.settings.jwt.as_deref()
    }

    /// Whether requests must prove who they are (keys or tokens are configured).
    pub fn auth_enabled(&self) -> bool {
        self.inner.keys.enabled() || self.inner.settings.jwt.is_some()
    }

    /// Whether an admin can be proved (an admin key, or tokens whose role claim can name an admin).
    pub fn admin_possible(&self) -> bool {
        self.inner.keys.has_admin() || self.jwt().is_some_and(JwtVerifier::may_admit_admins)
    }

    /// The request timeouts.
    pub fn timeouts(&self) -> crate::timeouts::Timeouts {
        self.inner.settings.timeouts
    }

    /// The metric tools' data spans (tool, first day, last day) kept for a scope and day.
    pub fn spans(&self) -> &SpanCache {
        &self.inner.spans
    }

    /// Today, fixed or in the time zone.
    pub fn today(&self) -> Date {
        let settings = &self.inner.settings;
        settings
            .today
            .or_else(|| wenshu_lexicon::time::today_in(&settings.timezone).ok())
            .unwrap_or_else(|| jiff::Timestamp::now().to_zoned_datetime(jiff::tz::TimeZone::UTC).date())
    }
}
