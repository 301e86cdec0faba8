//! How big and how deep a statement may be, measured on its tokens before it is parsed, and the stack the guard
//! walks it on.
//!
//! sqlparser parses a chain of binary operators (`1 + 1 + …`, `a OR b OR …`, `x || y || …`, `UNION ALL …`) in a
//! loop but builds it as a left-deep tree, which every walk of the tree — the guard's, the row-scope rewrite's,
//! rendering, even dropping it — descends recursively. A chain of a few thousand terms overflows a thread's stack,
//! and an overflow aborts the process. So before a tree exists: the text's size, its token count and an upper bound
//! of the tree's depth (per bracket level, the operators of one list item; nested levels add up) are checked, and
//! everything the guard does with a tree runs on a thread of its own with a stack sized for the largest tree the
//! bounds let through ([`on_guard_stack`]). Nesting itself (brackets, subqueries, `NOT NOT …`) is bounded by the
//! parser's own recursion limit.

use sqlparser::keywords::Keyword;
use sqlparser::parser::ParserError;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use crate::dialect::Dialect;

/// The longest statement text the guard reads, in bytes.
pub const MAX_SQL_BYTES: usize = 256 * 1024;
/// The most tokens (whitespace and comments not counted) a statement may have: a bound on the nodes of its tree.
pub const MAX_TOKENS: usize = 20_000;
/// The deepest tree a statement may build, as estimated from its tokens (see [`depth_estimate`]).
pub const MAX_DEPTH: usize = 1_000;
/// The stack of the thread the guard's work runs on: a tree [`MAX_DEPTH`] deep needs well under a tenth of it even
/// in an unoptimized build (about 8 KiB per level there), and the parser's nesting limit well under another tenth.
const GUARD_STACK_BYTES: usize = 128 * 1024 * 1024;

/// The tokens of `sql`, which the parser then reads (the text is tokenized once), or why it is too big or too
/// deep for the guard to parse, or does not tokenize.
pub(super) fn tokens_within(sql: &str, dialect: Dialect) -> Result<Vec<TokenWithSpan>, String> {
    if sql.len() > MAX_SQL_BYTES {
        return Err(format!(
            "the SQL is {} bytes long; at most {MAX_SQL_BYTES} bytes are checked",
            sql.len()
        ));
    }
    let tokens = Tokenizer::new(dialect.rules().parser().as_ref(), sql)
        .tokenize_with_location()
        .map_err(|e| {
            // Said as the parser says it when it tokenizes the text itself.
            let error = ParserError::TokenizerError(e.to_string());
            format!("the SQL does not parse as {}: {error}", dialect.name())
        })?;
    let count = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .count();
    if count > MAX_TOKENS {
        return Err(format!("the SQL has {count} tokens; at most {MAX_TOKENS} are checked"));
    }
    let depth = depth_estimate(tokens.iter().map(|t| &t.token));
    if depth > MAX_DEPTH {
        return Err(format!(
            "the SQL's expressions nest or chain about {depth} levels deep (a chain of operators or set operations \
             is one level a term); at most {MAX_DEPTH} are checked"
        ));
    }
    Ok(tokens)
}

/// Runs `work` on a thread of its own whose stack holds the deepest tree the bounds let through; a failure to start
/// that thread or a panic inside `work` is an error, never a crash of the caller.
pub fn on_guard_stack<T: Send>(work: impl FnOnce() -> T + Send) -> Result<T, String> {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("wenshu-sql-guard".into())
            .stack_size(GUARD_STACK_BYTES)
            .spawn_scoped(scope, work)
            .map_err(|e| format!("the SQL guard could not start its checker: {e}"))?;
        handle
            .join()
            .map_err(|_| "the SQL guard failed on this statement".to_string())
    })
}

/// What one bracket level (`(`, `[`, `{`, or `CASE … END`) has seen so far.
#[derive(Default)]
struct Level {
    /// Whether the level was opened by `CASE` (closed by `END`).
    case: bool,
    /// Set operations (`UNION`, `EXCEPT`, …) at this level: they chain its query blocks.
    sets: usize,
    /// Operators in the current item (since the last comma or clause keyword).
    operators: usize,
    /// The deepest bracket closed inside the current item.
    inner: usize,
    /// The deepest item finished at this level.
    deepest: usize,
}

impl Level {
    /// The current item ends (a comma, a clause keyword, `WHEN`/`THEN`/`ELSE`).
    fn end_item(&mut self) {
        self.deepest = self.deepest.max(self.operators + self.inner);
        self.operators = 0;
        self.inner = 0;
    }

    /// The depth of everything at this level once it closes.
    fn close(mut self) -> usize {
        self.end_item();
        self.deepest + self.sets + 1
    }
}

/// An upper bound of the depth of the tree `tokens` parse to: a left-deep chain of n operators is n deep, so each
/// item of a list (between commas and clause keywords, at one bracket level) counts its operators, a bracket adds
/// the deepest item inside it to the item it stands in, and set operations chain a level's query blocks.
pub fn depth_estimate<'a>(tokens: impl IntoIterator<Item = &'a Token>) -> usize {
    let mut levels = vec![Level::default()];
    for token in tokens {
        match token {
            Token::LParen | Token::LBracket | Token::LBrace => levels.push(Level::default()),
            Token::RParen | Token::RBracket | Token::RBrace => close_level(&mut levels, false),
            Token::Comma => top(&mut levels).end_item(),
            Token::Word(word) if word.quote_style.is_none() => match word.keyword {
                Keyword::CASE => levels.push(Level {
                    case: true,
                    ..Level::default()
                }),
                Keyword::END => close_level(&mut levels, true),
                Keyword::UNION | Keyword::EXCEPT | Keyword::INTERSECT | Keyword::MINUS => top(&mut levels).sets += 1,
                keyword if ends_an_item(keyword) => top(&mut levels).end_item(),
                keyword if is_operator_keyword(keyword) => top(&mut levels).operators += 1,
                _ => {}
            },
            other if is_operator(other) => top(&mut levels).operators += 1,
            _ => {}
        }
    }
    while levels.len() > 1 {
        close_level(&mut levels, false);
    }
    levels.pop().map_or(0, Level::close)
}

/// The innermost open level (the outermost one is never popped).
fn top(levels: &mut [Level]) -> &mut Level {
    let last = levels.len() - 1;
    &mut levels[last]
}

/// Closes the innermost level into the item it stands in: a bracket closes any level, `END` only a `CASE`.
fn close_level(levels: &mut Vec<Level>, by_end: bool) {
    if levels.len() < 2 || (by_end && !top(levels).case) {
        return;
    }
    if let Some(level) = levels.pop() {
        let depth = level.close();
        let parent = top(levels);
        parent.inner = parent.inner.max(depth);
    }
}

/// Keywords that begin a new sibling of the tree: a clause of a query block, a branch of `CASE`, an alias.
fn ends_an_item(keyword: Keyword) -> bool {
    matches!(
        keyword,
        Keyword::SELECT
            | Keyword::FROM
            | Keyword::WHERE
            | Keyword::GROUP
            | Keyword::HAVING
            | Keyword::ORDER
            | Keyword::LIMIT
            | Keyword::OFFSET
            | Keyword::ON
            | Keyword::USING
            | Keyword::JOIN
            | Keyword::WINDOW
            | Keyword::QUALIFY
            | Keyword::WHEN
            | Keyword::THEN
            | Keyword::ELSE
            | Keyword::AS
            | Keyword::WITH
    )
}

/// Keywords that join or modify operands, each a level of a chain.
fn is_operator_keyword(keyword: Keyword) -> bool {
    matches!(
        keyword,
        Keyword::AND
            | Keyword::OR
            | Keyword::XOR
            | Keyword::NOT
            | Keyword::IS
            | Keyword::IN
            | Keyword::LIKE
            | Keyword::ILIKE
            | Keyword::BETWEEN
            | Keyword::REGEXP
            | Keyword::RLIKE
            | Keyword::SIMILAR
            | Keyword::GLOB
            | Keyword::MATCH
            | Keyword::COLLATE
            | Keyword::DIV
            | Keyword::MOD
            | Keyword::OVERLAPS
            | Keyword::AT
            | Keyword::ESCAPE
            | Keyword::MEMBER
    )
}

/// Whether a token that is not a word, bracket or comma is an operator: one written in punctuation only (`+`,
/// `::`, `->>`, `||`, `@>` …); literals, placeholders and separators are not.
fn is_operator(token: &Token) -> bool {
    if matches!(
        token,
        Token::EOF
            | Token::Whitespace(_)
            | Token::Placeholder(_)
            | Token::SemiColon
            | Token::Period
            | Token::Colon
            | Token::DollarQuotedString(_)
    ) {
        return false;
    }
    let text = token.to_string();
    !text.is_empty() && !text.starts_with(['\'', '"', '`']) && text.chars().all(|c| c.is_ascii_punctuation())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(sql: &str) -> usize {
        let tokens = Tokenizer::new(Dialect::Postgres.rules().parser().as_ref(), sql)
            .tokenize()
            .unwrap();
        depth_estimate(&tokens)
    }

    #[test]
    fn a_chain_is_as_deep_as_its_operators() {
        let chain = format!("SELECT {} FROM t", vec!["x"; 301].join(" + "));
        assert!(estimate(&chain) >= 300, "{}", estimate(&chain));
        let or_chain = format!("SELECT a FROM t WHERE {}", vec!["a = 1"; 200].join(" OR "));
        assert!(estimate(&or_chain) >= 199);
        let unions = vec!["SELECT 1"; 150].join(" UNION ALL ");
        assert!(estimate(&unions) >= 149);
    }

    #[test]
    fn list_items_and_clauses_are_siblings_not_a_chain() {
        let list = format!("SELECT a FROM t WHERE a IN ({}) GROUP BY a", vec!["1"; 5000].join(", "));
        assert!(estimate(&list) < 10, "{}", estimate(&list));
        let many_columns = format!("SELECT {} FROM t", vec!["a + b"; 2000].join(", "));
        assert!(estimate(&many_columns) < 10);
    }

    #[test]
    fn nested_levels_add_up() {
        let inner = vec!["x"; 101].join(" + ");
        let nested = format!("SELECT {} + ({inner}) FROM t", vec!["x"; 101].join(" + "));
        assert!(estimate(&nested) >= 200, "{}", estimate(&nested));
        let case = format!("SELECT CASE WHEN {inner} > 0 THEN 1 END + {inner} FROM t");
        assert!(estimate(&case) >= 200, "{}", estimate(&case));
    }
}
