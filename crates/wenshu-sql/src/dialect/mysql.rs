//! MySQL and MariaDB: names compared ignoring ASCII case, CTE names as written, a qualifier names another
//! database, backslashes escape in strings, `DUAL`, `a MOD b`.

use sqlparser::ast::Ident;
use sqlparser::dialect::MySqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::{CteSight, DialectRules};

/// MySQL's and MariaDB's rules.
#[derive(Debug, Clone, Copy)]
pub struct MySql;

impl DialectRules for MySql {
    fn name(&self) -> &'static str {
        "mysql"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["mariadb"]
    }

    fn parser(&self) -> Box<dyn sqlparser::dialect::Dialect> {
        Box::new(MySqlDialect {})
    }

    /// The operator `a MOD b` (which the parser takes only as a function) spelled `a % b`, the same operator.
    fn respell(&self, sql: &str) -> Option<String> {
        let tokens = Tokenizer::new(&MySqlDialect {}, sql).tokenize().ok()?;
        let is_operator = |at: usize| {
            let Token::Word(word) = &tokens[at] else { return false };
            let next = tokens[at + 1..].iter().find(|t| !matches!(t, Token::Whitespace(_)));
            word.keyword == Keyword::MOD && word.quote_style.is_none() && !matches!(next, Some(Token::LParen))
        };
        let mut respelled = String::with_capacity(sql.len());
        let mut found = false;
        for (at, token) in tokens.iter().enumerate() {
            if is_operator(at) {
                respelled.push('%');
                found = true;
            } else {
                respelled.push_str(&token.to_string());
            }
        }
        found.then_some(respelled)
    }

    /// CTE names are compared as written.
    fn cte_key(&self, ident: &Ident) -> String {
        ident.value.clone()
    }

    /// A qualifier names another database, never the default.
    fn default_schema(&self) -> Option<&'static str> {
        None
    }

    fn has_dual(&self) -> bool {
        true
    }

    fn session_keywords(&self) -> &'static [&'static str] {
        &["current_user", "current_role"]
    }

    /// Without RECURSIVE only earlier CTEs; with it also itself, while a later CTE is a table to MySQL and the CTE
    /// to MariaDB (refused).
    fn later_cte_sight(&self, recursive: bool, is_itself: bool) -> CteSight {
        match (recursive, is_itself) {
            (true, true) => CteSight::Cte,
            (true, false) => CteSight::Ambiguous,
            (false, _) => CteSight::Outside,
        }
    }

    fn table_functions(&self) -> &'static [&'static str] {
        &["json_table"]
    }

    /// `FORMAT(number, decimals)` formats a number.
    fn format_takes_pattern(&self) -> bool {
        false
    }

    fn limit_bounds_recursion(&self) -> bool {
        false
    }

    /// A LIMIT stops the derived-table merge and condition pushdown.
    fn scope_fence(&self) -> &'static str {
        "SELECT * FROM t WHERE 1 = 1 LIMIT 18446744073709551615"
    }

    fn identifier_quote(&self) -> char {
        '`'
    }

    fn backslash_escapes(&self) -> bool {
        true
    }

    fn casts_bound_days(&self) -> bool {
        true
    }

    fn date_text(&self, column: &str) -> String {
        format!("DATE_FORMAT({column}, '%Y-%m-%d')")
    }

    fn quarter_label(&self, year: &str, month: &str) -> String {
        format!("CONCAT({year}, '-Q', FLOOR(({month} + 2) / 3))")
    }

    fn day_of_week(&self, day: &str) -> String {
        format!("(WEEKDAY(CAST({day} AS DATE)) + 1)")
    }

    fn week_start(&self, day: &str) -> String {
        format!("DATE_FORMAT(DATE_SUB(CAST({day} AS DATE), INTERVAL WEEKDAY(CAST({day} AS DATE)) DAY), '%Y-%m-%d')")
    }
}
