//! Fuzz the SQL guard with statements of a small grammar over allowed and secret tables. Property: when the guard
//! accepts, the oracle says the statement reads no secret table and uses nothing refused, and the rewrite checks
//! again as exactly one query reading the same allowed tables.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wenshu_sql::guard::{GuardPolicy, check_sql};

#[path = "../sql_grammar.rs"]
mod sql_grammar;

fuzz_target!(|data: &[u8]| {
    let generated = sql_grammar::generate(data);
    let policy = GuardPolicy::new(sql_grammar::ALLOWED);
    let verdict = check_sql(&generated.sql, generated.dialect, &policy);
    if !verdict.allowed {
        return;
    }
    assert!(
        !generated.must_refuse,
        "accepted a statement that must be refused: {generated:?}"
    );
    let rewrite = verdict.sql.expect("an accepted statement has its rewrite");
    let again = check_sql(&rewrite, generated.dialect, &policy);
    assert!(
        again.allowed,
        "the rewrite {rewrite:?} does not check again: {:?}",
        again.reasons
    );
    assert_eq!(again.tables, verdict.tables, "{rewrite}");
    assert!(
        verdict.tables.iter().all(|t| policy.table_allowed(t)),
        "{rewrite}: {:?}",
        verdict.tables
    );
});
