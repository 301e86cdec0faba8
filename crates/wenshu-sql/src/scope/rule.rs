//! Row-scope rules as written once per table (`region = :user.region AND tenant_id IN :user.tenants`), parsed
//! into typed conditions and checked when the configuration loads.

use std::collections::BTreeMap;

/// The grammar, stated in every error about a rule.
pub const RULE_SYNTAX: &str = "`column = :user.attribute` or `column IN :user.attribute`, joined with AND (an array attribute matches any of its values)";

/// A rule that cannot be read: the table, the text, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("row scope of table `{table}`: `{text}`: {reason}; allowed: {RULE_SYNTAX}")]
pub struct ScopeError {
    /// The table the rule is declared for.
    pub table: String,
    /// The rule as written.
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

/// How a condition compares its column with the attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// `column = :user.attr` (an array attribute still means any of its values).
    Equals,
    /// `column IN :user.attr`.
    In,
}

/// One condition of a rule: a column of the table compared with an attribute of the viewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// The column, as written (quoted per dialect when SQL is made).
    pub column: String,
    /// The viewer's attribute (`region` of `:user.region`).
    pub attribute: String,
    /// `=` or `IN`.
    pub comparison: Comparison,
}

/// The row scope of one table: every condition must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRule {
    /// The table as configured (`sales`, or `schema.sales`).
    pub table: String,
    /// The rule as written.
    pub text: String,
    /// Its conditions, in order.
    pub conditions: Vec<Condition>,
}

impl TableRule {
    /// Reads `text` as the rule of `table`.
    pub fn parse(table: &str, text: &str) -> Result<Self, ScopeError> {
        let error = |reason: String| ScopeError {
            table: table.to_string(),
            text: text.to_string(),
            reason,
        };
        if table.trim().is_empty() {
            return Err(error("the table name is empty".into()));
        }
        if let Some(part) = table.split('.').find(|p| !is_identifier(p)) {
            return Err(error(format!(
                "the table name `{part}` is not a plain identifier (letters, digits, `_`)"
            )));
        }
        if text.trim().is_empty() {
            return Err(error("the rule is empty".into()));
        }
        let tokens = tokenize(text).map_err(&error)?;
        let mut conditions = Vec::new();
        let mut rest = tokens.as_slice();
        loop {
            let (condition, after) = condition(rest).map_err(&error)?;
            if conditions.iter().any(|c: &Condition| c.column == condition.column) {
                return Err(error(format!("column `{}` is scoped twice", condition.column)));
            }
            conditions.push(condition);
            match after {
                [] => break,
                [Token::Word(and), tail @ ..] if and.eq_ignore_ascii_case("and") => rest = tail,
                [other, ..] => return Err(error(format!("expected AND or the end, found {}", other.describe()))),
            }
        }
        Ok(Self {
            table: table.to_string(),
            text: text.to_string(),
            conditions,
        })
    }

    /// The bare table name (the last part of `schema.table`), lower case.
    pub fn table_key(&self) -> String {
        table_key(&self.table)
    }
}

/// Every table's rule, read at load.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeRules {
    rules: Vec<TableRule>,
}

impl ScopeRules {
    /// No rule: every viewer sees every row.
    pub fn none() -> Self {
        Self::default()
    }

    /// Reads one rule per table (`table → text`, as the `[scope]` section holds them); the first bad one fails,
    /// naming the table and the text. Two spellings of one table (`Sales`, `sales`) are refused.
    pub fn parse(rules: &BTreeMap<String, String>) -> Result<Self, ScopeError> {
        let mut parsed: Vec<TableRule> = Vec::new();
        for (table, text) in rules {
            let rule = TableRule::parse(table, text)?;
            if let Some(twin) = parsed.iter().find(|r| r.table_key() == rule.table_key()) {
                return Err(ScopeError {
                    table: table.clone(),
                    text: text.clone(),
                    reason: format!("table `{}` already has a rule", twin.table),
                });
            }
            parsed.push(rule);
        }
        Ok(Self { rules: parsed })
    }

    /// Whether any table is scoped (the server warns when rules exist and every key sees every row).
    pub fn has_scopes(&self) -> bool {
        !self.rules.is_empty()
    }

    /// The rules, in table order.
    pub fn rules(&self) -> &[TableRule] {
        &self.rules
    }

    /// The rule of a table, matched by its bare name ignoring ASCII case (`public.Sales` → `sales`).
    pub fn rule(&self, table: &str) -> Option<&TableRule> {
        let key = table_key(table);
        self.rules.iter().find(|r| r.table_key() == key)
    }

    /// Every attribute some rule reads, sorted, once each.
    pub fn attributes(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .rules
            .iter()
            .flat_map(|r| r.conditions.iter().map(|c| c.attribute.as_str()))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

/// The key a table is matched by: its last dotted part, ASCII lower case.
pub fn table_key(table: &str) -> String {
    table.rsplit('.').next().unwrap_or(table).to_ascii_lowercase()
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Equals,
    Attribute(String),
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Word(w) => format!("`{w}`"),
            Token::Equals => "`=`".into(),
            Token::Attribute(a) => format!("`:user.{a}`"),
        }
    }
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(|c| c.is_alphanumeric() || c == '_')
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c == '=' {
            tokens.push(Token::Equals);
            continue;
        }
        let word_char = |c: char| c.is_alphanumeric() || c == '_';
        if c == ':' {
            let mut name = String::new();
            while let Some(&(_, next)) = chars.peek() {
                if word_char(next) || next == '.' {
                    name.push(next);
                    chars.next();
                } else {
                    break;
                }
            }
            let attribute = name
                .strip_prefix("user.")
                .ok_or_else(|| format!("`:{name}` at byte {at} is not `:user.<attribute>`"))?;
            if attribute.is_empty() {
                return Err(format!("`:{name}` at byte {at} names no attribute"));
            }
            if !is_identifier(attribute) {
                return Err(format!(
                    "attribute `{attribute}` at byte {at} is not a plain name (letters, digits, `_`)"
                ));
            }
            tokens.push(Token::Attribute(attribute.to_string()));
            continue;
        }
        if word_char(c) {
            let mut word = c.to_string();
            while let Some(&(_, next)) = chars.peek() {
                if word_char(next) {
                    word.push(next);
                    chars.next();
                } else {
                    break;
                }
            }
            tokens.push(Token::Word(word));
            continue;
        }
        return Err(format!("`{c}` at byte {at} is not part of a rule"));
    }
    Ok(tokens)
}

fn condition(tokens: &[Token]) -> Result<(Condition, &[Token]), String> {
    match tokens {
        [] => Err("a condition is missing (after AND, or an empty rule)".into()),
        [
            Token::Word(column),
            Token::Equals,
            Token::Attribute(attribute),
            rest @ ..,
        ] if !is_keyword(column) => Ok((
            Condition {
                column: column.clone(),
                attribute: attribute.clone(),
                comparison: Comparison::Equals,
            },
            rest,
        )),
        [
            Token::Word(column),
            Token::Word(op),
            Token::Attribute(attribute),
            rest @ ..,
        ] if op.eq_ignore_ascii_case("in") && !is_keyword(column) => Ok((
            Condition {
                column: column.clone(),
                attribute: attribute.clone(),
                comparison: Comparison::In,
            },
            rest,
        )),
        [Token::Word(column), op, other, ..] if !is_keyword(column) && is_comparison(op) => Err(format!(
            "column `{column}` must be compared with `:user.<attribute>`, found {}",
            other.describe()
        )),
        [Token::Word(column), op] if is_comparison(op) => Err(format!(
            "column `{column}` is compared with nothing: the attribute is missing"
        )),
        [Token::Word(column), Token::Word(op), ..] => Err(format!(
            "`{column} {op}`: only `=` and `IN` compare a column with an attribute"
        )),
        [first, ..] => Err(format!("a condition starts with a column, found {}", first.describe())),
    }
}

fn is_comparison(token: &Token) -> bool {
    match token {
        Token::Equals => true,
        Token::Word(w) => w.eq_ignore_ascii_case("in"),
        Token::Attribute(_) => false,
    }
}

fn is_keyword(word: &str) -> bool {
    ["and", "or", "not", "in"].iter().any(|k| word.eq_ignore_ascii_case(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<TableRule, ScopeError> {
        TableRule::parse("sales", text)
    }

    #[test]
    fn conditions_are_read_with_and_and_in() {
        let rule = parse("tenant_id = :user.tenant_id and region IN :user.regions").unwrap();
        assert_eq!(
            rule.conditions,
            vec![
                Condition {
                    column: "tenant_id".into(),
                    attribute: "tenant_id".into(),
                    comparison: Comparison::Equals
                },
                Condition {
                    column: "region".into(),
                    attribute: "regions".into(),
                    comparison: Comparison::In
                },
            ]
        );
        assert_eq!(parse("大区 = :user.大区").unwrap().conditions[0].column, "大区");
    }

    #[test]
    fn bad_rules_name_the_table_the_text_and_the_grammar() {
        for (text, why) in [
            ("", "the rule is empty"),
            ("region = ", "the attribute is missing"),
            ("= :user.region", "starts with a column"),
            ("region = :region", "is not `:user.<attribute>`"),
            ("region = :user.", "names no attribute"),
            ("region = 'East'", "is not part of a rule"),
            ("region = :user.region OR 1 = 1", "expected AND"),
            ("region = :user.region AND", "a condition is missing"),
            ("region LIKE :user.region", "only `=` and `IN`"),
            ("region = :user.a AND region = :user.b", "scoped twice"),
            ("region = :user.a.b", "not a plain name"),
        ] {
            let error = parse(text).unwrap_err();
            let message = error.to_string();
            assert!(message.contains(why), "{text}: {message}");
            assert!(
                message.contains("`sales`") && message.contains(RULE_SYNTAX),
                "{message}"
            );
        }
        assert!(TableRule::parse(" ", "a = :user.a").is_err());
        assert!(TableRule::parse("sales;drop", "a = :user.a").is_err());
    }

    #[test]
    fn tables_match_by_bare_name_ignoring_case() {
        let map = BTreeMap::from([("public.Sales".to_string(), "region = :user.region".to_string())]);
        let rules = ScopeRules::parse(&map).unwrap();
        assert!(rules.has_scopes());
        assert!(rules.rule("sales").is_some() && rules.rule("main.SALES").is_some());
        assert!(rules.rule("sale").is_none());
        assert!(!ScopeRules::none().has_scopes());
        let twins = BTreeMap::from([
            ("Sales".to_string(), "a = :user.a".to_string()),
            ("sales".to_string(), "a = :user.a".to_string()),
        ]);
        assert!(
            ScopeRules::parse(&twins)
                .unwrap_err()
                .reason
                .contains("already has a rule")
        );
    }
}
