//! The rewrite as text: the parsed query rendered so that the server lexes it as the guard parsed it. MySQL reads a
//! backslash in a string literal as an escape, and sqlparser renders the unescaped value, so backslashes are
//! doubled there (`'a\\b'` stays the three characters `a\b`, never `a` + backspace).

use std::ops::ControlFlow;

use sqlparser::ast::{Query, Value, ValueWithSpan, VisitMut, VisitorMut};

use crate::dialect::Dialect;

/// The SQL text of `query` for `dialect`.
pub(super) fn render(mut query: Query, dialect: Dialect) -> String {
    if dialect.rules().backslash_escapes() {
        let _ = query.visit(&mut EscapeBackslashes);
    }
    query.to_string()
}

struct EscapeBackslashes;

impl VisitorMut for EscapeBackslashes {
    type Break = ();

    fn post_visit_value(&mut self, value: &mut ValueWithSpan) -> ControlFlow<()> {
        if let Value::SingleQuotedString(text) | Value::DoubleQuotedString(text) | Value::NationalStringLiteral(text) =
            &mut value.value
            && text.contains('\\')
        {
            *text = text.replace('\\', "\\\\");
        }
        ControlFlow::Continue(())
    }
}
