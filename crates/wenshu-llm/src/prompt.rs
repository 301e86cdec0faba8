//! Prompt templates (minijinja), shipped in `prompts/` and embedded in the binary, overridable from a folder.
//!
//! The shipped templates are compiled in with `include_str!`. [`PromptTemplates::with_overrides`] reads, from a
//! folder, files named like the shipped ones (`extract_system.j2`, …) and uses them instead; other files there are
//! ignored. That read is this crate's only file IO; [`PromptTemplates::from_sources`] takes the texts directly
//! for callers that read files themselves. Undefined variables are errors (strict), and every error names the
//! template.

use std::collections::BTreeMap;
use std::path::Path;

use minijinja::syntax::SyntaxConfig;
use minijinja::{Environment, UndefinedBehavior, Value};
use serde::Serialize;

use crate::error::LlmError;

/// The extract call's system prompt (seed 000 rules); context [`ExtractSystemContext`].
pub const EXTRACT_SYSTEM: &str = "extract_system.j2";
/// The extract call's user message; context [`ExtractUserContext`].
pub const EXTRACT_USER: &str = "extract_user.j2";
/// The corrective re-ask after a binding error; context [`ExtractRetryContext`].
pub const EXTRACT_RETRY: &str = "extract_retry.j2";
/// The route call's system prompt (seed 003); context [`RouteContext`].
pub const ROUTE_SYSTEM: &str = "route_system.j2";
/// The route call's user message; context [`RouteContext`].
pub const ROUTE_USER: &str = "route_user.j2";

/// The Text-to-SQL fallback's system prompt; context [`SqlContext`].
pub const SQL_SYSTEM: &str = "sql_system.j2";
/// The Text-to-SQL fallback's user message (and its one correction); context [`SqlContext`].
pub const SQL_USER: &str = "sql_user.j2";

/// The name used in errors of a per-tool custom template.
pub const CUSTOM: &str = "x-param-prompt";

/// Every shipped template: name and text.
pub const EMBEDDED: [(&str, &str); 7] = [
    (EXTRACT_SYSTEM, include_str!("../prompts/extract_system.j2")),
    (EXTRACT_USER, include_str!("../prompts/extract_user.j2")),
    (EXTRACT_RETRY, include_str!("../prompts/extract_retry.j2")),
    (ROUTE_SYSTEM, include_str!("../prompts/route_system.j2")),
    (ROUTE_USER, include_str!("../prompts/route_user.j2")),
    (SQL_SYSTEM, include_str!("../prompts/sql_system.j2")),
    (SQL_USER, include_str!("../prompts/sql_user.j2")),
];

/// Context of `sql_system.j2` and `sql_user.j2`: the question, the schema, and the previous attempt on a correction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SqlContext {
    /// Today, `YYYY-MM-DD`.
    pub today: String,
    /// Today's weekday, e.g. `星期日`.
    pub weekday: String,
    /// The time zone the dates are in.
    pub timezone: String,
    /// `sqlite`, `postgres` or `mysql`.
    pub dialect: String,
    /// The description of the allowed tables (columns, types, comments, sample values, join paths).
    pub schema: String,
    /// The most rows a query may return.
    pub max_rows: u64,
    /// The question (the rewritten one).
    pub question: String,
    /// On a correction: the SQL that failed.
    pub previous_sql: Option<String>,
    /// On a correction: why it failed (the guard's reasons or the database's error).
    pub error: Option<String>,
}

/// The route call sees at most this many earlier turns.
pub const MAX_HISTORY: usize = 3;

/// Context of `extract_system.j2` (and usually of a custom `x-param-prompt`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtractSystemContext {
    /// Today, `YYYY-MM-DD`.
    pub today: String,
    /// Today's weekday, e.g. `星期日`.
    pub weekday: String,
    /// The time zone the dates are in, e.g. `Asia/Shanghai`.
    pub timezone: String,
}

/// Context of `extract_user.j2`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtractUserContext {
    /// The tool rendered as readable text (name, description, one line per parameter).
    pub tool_definition: String,
    /// The person's question, verbatim.
    pub question: String,
}

/// Context of `extract_retry.j2`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtractRetryContext {
    /// The exact binding error message.
    pub error: String,
    /// The model's previous answer, verbatim.
    pub previous_answer: String,
}

/// One enabled tool as the route call sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RouteTool {
    /// The tool code the model must copy.
    pub code: String,
    /// A short title.
    pub title: String,
    /// What it answers.
    pub description: String,
    /// Example questions.
    pub examples: Vec<String>,
}

/// One earlier turn of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RouteTurn {
    /// What the person asked (as rewritten then).
    pub question: String,
    /// The conclusion given.
    pub answer: String,
}

/// Context of `route_system.j2` and `route_user.j2`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RouteContext {
    /// Today, `YYYY-MM-DD`.
    pub today: String,
    /// Today's weekday, e.g. `星期日`.
    pub weekday: String,
    /// The time zone the dates are in.
    pub timezone: String,
    /// The enabled tools.
    pub tools: Vec<RouteTool>,
    /// The subject types the system knows (e.g. `影片`); empty: not listed in the prompt.
    pub subject_types: Vec<String>,
    /// Earlier turns, oldest first; only the last [`MAX_HISTORY`] are shown; none: the prompt says 无.
    pub history: Vec<RouteTurn>,
    /// The person's question, verbatim (never the rewritten one).
    pub question: String,
}

/// The prompt templates: shipped ones, some possibly replaced.
#[derive(Debug)]
pub struct PromptTemplates {
    env: Environment<'static>,
}

impl PromptTemplates {
    /// The shipped templates.
    pub fn embedded() -> Self {
        Self::from_sources(Vec::<(String, String)>::new()).expect("the shipped templates parse (tested)")
    }

    /// The shipped templates, each replaced by the file of the same name in `dir` when there is one.
    pub fn with_overrides(dir: &Path) -> Result<Self, LlmError> {
        let io_error = |path: &Path, e: std::io::Error| LlmError::PromptIo {
            path: path.to_owned(),
            message: e.to_string(),
        };
        if !dir.is_dir() {
            return Err(LlmError::PromptIo {
                path: dir.to_owned(),
                message: "not a folder".into(),
            });
        }
        let mut overrides = Vec::new();
        for (name, _) in EMBEDDED {
            let path = dir.join(name);
            if path.is_file() {
                let text = std::fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
                overrides.push((name.to_owned(), text));
            }
        }
        Self::from_sources(overrides)
    }

    /// The shipped templates, with these (name, text) pairs replacing the ones of the same name.
    pub fn from_sources(overrides: impl IntoIterator<Item = (String, String)>) -> Result<Self, LlmError> {
        let mut sources: BTreeMap<String, String> = EMBEDDED
            .iter()
            .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
            .collect();
        for (name, text) in overrides {
            if !sources.contains_key(&name) {
                let allowed = EMBEDDED.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ");
                return Err(LlmError::config("prompt template name", name, allowed));
            }
            sources.insert(name, text);
        }
        let mut env = new_environment();
        for (name, text) in sources {
            env.add_template_owned(name.clone(), text)
                .map_err(|e| template_error(&name, &e))?;
        }
        Ok(PromptTemplates { env })
    }

    /// Renders a template by name with any serializable context.
    pub fn render(&self, name: &str, context: impl Serialize) -> Result<String, LlmError> {
        let template = self.env.get_template(name).map_err(|e| template_error(name, &e))?;
        template
            .render(Value::from(minijinja::value::Serde(context)))
            .map_err(|e| template_error(name, &e))
    }

    /// Renders a per-tool custom template (the catalog's `x-param-prompt`), which replaces the extract system
    /// prompt; errors name it `x-param-prompt`. The context is usually an [`ExtractSystemContext`].
    pub fn render_custom(&self, template_text: &str, context: impl Serialize) -> Result<String, LlmError> {
        let template = self
            .env
            .template_from_str(template_text)
            .map_err(|e| template_error(CUSTOM, &e))?;
        template
            .render(Value::from(minijinja::value::Serde(context)))
            .map_err(|e| template_error(CUSTOM, &e))
    }

    /// The extract system prompt.
    pub fn extract_system(&self, context: &ExtractSystemContext) -> Result<String, LlmError> {
        self.render(EXTRACT_SYSTEM, context)
    }

    /// The extract user message; the question cannot close its `<question>` block.
    pub fn extract_user(&self, context: &ExtractUserContext) -> Result<String, LlmError> {
        let context = ExtractUserContext {
            question: as_data(&context.question),
            ..context.clone()
        };
        self.render(EXTRACT_USER, &context)
    }

    /// The corrective re-ask after a binding error.
    pub fn extract_retry(&self, context: &ExtractRetryContext) -> Result<String, LlmError> {
        let context = ExtractRetryContext {
            previous_answer: as_data(&context.previous_answer),
            ..context.clone()
        };
        self.render(EXTRACT_RETRY, &context)
    }

    /// The route system prompt (tools, subject types, today).
    pub fn route_system(&self, context: &RouteContext) -> Result<String, LlmError> {
        self.render(ROUTE_SYSTEM, context)
    }

    /// Renders the Text-to-SQL system prompt.
    pub fn sql_system(&self, context: &SqlContext) -> Result<String, LlmError> {
        self.render(SQL_SYSTEM, context)
    }

    /// Renders the Text-to-SQL user message; the question is delimited as data.
    pub fn sql_user(&self, context: &SqlContext) -> Result<String, LlmError> {
        let context = SqlContext {
            question: as_data(&context.question),
            ..context.clone()
        };
        self.render(SQL_USER, &context)
    }

    /// The route user message: the last [`MAX_HISTORY`] turns (or 无) and the question verbatim.
    pub fn route_user(&self, context: &RouteContext) -> Result<String, LlmError> {
        let skip = context.history.len().saturating_sub(MAX_HISTORY);
        let history = context.history[skip..]
            .iter()
            .map(|turn| RouteTurn {
                question: as_data(&turn.question),
                answer: as_data(&turn.answer),
            })
            .collect();
        let context = RouteContext {
            history,
            question: as_data(&context.question),
            ..context.clone()
        };
        self.render(ROUTE_USER, &context)
    }
}

fn new_environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    let syntax = SyntaxConfig::builder().trim_blocks(true).lstrip_blocks(true).build();
    if let Ok(syntax) = syntax {
        env.set_syntax(syntax);
    }
    env
}

fn template_error(name: &str, error: &minijinja::Error) -> LlmError {
    let mut message = error.to_string();
    if let Some(line) = error.line()
        && !message.contains(&format!(":{line}"))
    {
        message.push_str(&format!(" (line {line})"));
    }
    LlmError::Template {
        name: name.to_owned(),
        message,
    }
}

/// Data shown inside a tag block must not close it: `</question>` and the like lose their `<`.
fn as_data(text: &str) -> String {
    const TAGS: [&str; 3] = ["</question", "</previous_answer", "</error"];
    TAGS.iter().fold(text.to_owned(), |text, tag| {
        text.replace(tag, &format!("＜{}", &tag[1..]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_templates_parse() {
        let templates = PromptTemplates::embedded();
        for (name, _) in EMBEDDED {
            assert!(templates.env.get_template(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn strict_undefined_names_the_template() {
        let templates = PromptTemplates::embedded();
        let err = templates
            .render(EXTRACT_SYSTEM, serde_json::json!({"today": "2026-01-04"}))
            .expect_err("strict");
        assert!(err.to_string().contains(EXTRACT_SYSTEM), "{err}");
        let err = templates
            .render_custom("{{ missing }}", serde_json::json!({}))
            .expect_err("strict");
        assert!(err.to_string().contains(CUSTOM), "{err}");
        let err = templates
            .render_custom("{% if %}", serde_json::json!({}))
            .expect_err("syntax");
        assert!(err.to_string().contains(CUSTOM), "{err}");
    }

    #[test]
    fn unknown_override_name_is_refused() {
        let err = PromptTemplates::from_sources([("nope.j2".to_owned(), "x".to_owned())]).expect_err("unknown");
        assert!(err.to_string().contains("extract_system.j2"), "{err}");
    }

    #[test]
    fn question_cannot_close_its_block() {
        assert_eq!(as_data("a</question>b"), "a＜/question>b");
    }
}
