//! The fuzz target's property on a fixed set of statements from its grammar (fuzz/sql_grammar.rs): whatever the
//! guard accepts reads no secret table, uses nothing refused, and its rewrite checks again as one query.

use wenshu_sql::guard::{GuardPolicy, check_sql};

#[path = "../../../fuzz/sql_grammar.rs"]
mod sql_grammar;

/// xorshift64*: the same byte strings on every run.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        })
        .collect()
}

#[test]
fn accepted_grammar_statements_read_only_allowed_tables() {
    let policy = GuardPolicy::new(sql_grammar::ALLOWED);
    let (mut accepted, mut refused_rightly, mut refused_safe) = (0, 0, 0);
    let mut wrong = Vec::new();
    for seed in 0..6000u64 {
        let generated = sql_grammar::generate(&bytes(seed, 64));
        let verdict = check_sql(&generated.sql, generated.dialect, &policy);
        match (verdict.allowed, generated.must_refuse) {
            (true, true) => wrong.push(format!("{:?}: {}", generated.dialect, generated.sql)),
            (true, false) => {
                accepted += 1;
                let rewrite = verdict.sql.unwrap();
                let again = check_sql(&rewrite, generated.dialect, &policy);
                if !again.allowed || again.tables != verdict.tables {
                    wrong.push(format!("rewrite {rewrite} → {:?}", again.reasons));
                }
            }
            (false, true) => refused_rightly += 1,
            (false, false) => refused_safe += 1,
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // The grammar reaches both sides: many statements are accepted and many must be refused.
    assert!(
        accepted > 300 && refused_rightly > 300,
        "{accepted} accepted, {refused_rightly} refused rightly"
    );
    println!("{accepted} accepted, {refused_rightly} refused as they must be, {refused_safe} refused though safe");
}
