//! Every user-facing text the engine makes: a stable [`Code`], its parameters, and the text in Chinese and in
//! English, both made here, so that the API, the CLI and MCP carry both and the page shows the one of its language.
//!
//! To add a text: a `Code` variant (its dotted name in `as_str`, `ALL` and `user_fixable`), then
//! `Message::new(code, zh, en).with(key, value)` where the stop is made; the server's `openapi.json` lists every
//! code (a test compares it with [`Code::ALL`]).

use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};
use wenshu_contract::Tool;
use wenshu_sql::scope::ScopeRefusal;
use wenshu_sql::scope::bound::OUTSIDE;

/// A stable code of a user-facing text, serialized as its dotted name (`fallback.no_model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// No tool answers the question; the message lists what can be asked.
    QuestionOutsideTools,
    /// The subject name matches no entity.
    ResolveNotFound,
    /// The tool needs one subject and the question names none while asking about many.
    ResolveNoSubject,
    /// The name is no entity of the tool's type, and the question asks about many.
    ResolveNotOne,
    /// No entity catalog of the tool's subject type is configured.
    ResolveNoCatalog,
    /// The routed call cannot answer part of the question.
    CoverageUnmet,
    /// What the routed tool can answer instead.
    CoverageInstead,
    /// The question names a value the tool cannot take.
    ToolUnsupportedValue,
    /// The tool's call failed.
    ToolFailed,
    /// The routed tool is not in the catalog.
    ToolNotInCatalog,
    /// The routed tool cannot run here (no executor): the user is told before any value is asked for.
    ToolNotRunnable,
    /// The tool's definition cannot take what code filled (a date range, a subject ID): a catalog to fix.
    CatalogInvalid,
    /// The router gave no decision (the model failed or answered nothing usable).
    RouteFailed,
    /// The extraction failed (the model failed or answered nothing usable).
    ExtractFailed,
    /// The fallback needs a model and none is configured.
    FallbackNoModel,
    /// The fallback tool is disabled or absent.
    FallbackDisabled,
    /// The fallback ran and found no answer (its reasons follow).
    FallbackFailed,
    /// A hint for the administrator: a model (and the fallback tool) would let Text-to-SQL answer.
    HintEnableFallback,
    /// Required parameters are missing.
    NeedParams,
    /// The subject name matches several entities.
    ChooseCandidates,
    /// The question asks for rows outside the asker's row scope.
    ScopeOutside,
    /// The asker's row scope cannot be bound (an attribute a rule reads is missing): a configuration to fix.
    ScopeDenied,
}

impl Code {
    /// Every code, in a fixed order.
    pub const ALL: &'static [Code] = &[
        Code::QuestionOutsideTools,
        Code::ResolveNotFound,
        Code::ResolveNoSubject,
        Code::ResolveNotOne,
        Code::ResolveNoCatalog,
        Code::CoverageUnmet,
        Code::CoverageInstead,
        Code::ToolUnsupportedValue,
        Code::ToolFailed,
        Code::ToolNotInCatalog,
        Code::ToolNotRunnable,
        Code::CatalogInvalid,
        Code::RouteFailed,
        Code::ExtractFailed,
        Code::FallbackNoModel,
        Code::FallbackDisabled,
        Code::FallbackFailed,
        Code::HintEnableFallback,
        Code::NeedParams,
        Code::ChooseCandidates,
        Code::ScopeOutside,
        Code::ScopeDenied,
    ];

    /// The dotted name (`area.what`), stable across versions.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::QuestionOutsideTools => "question.outside_tools",
            Code::ResolveNotFound => "resolve.not_found",
            Code::ResolveNoSubject => "resolve.no_subject",
            Code::ResolveNotOne => "resolve.not_one",
            Code::ResolveNoCatalog => "resolve.no_catalog",
            Code::CoverageUnmet => "coverage.unmet",
            Code::CoverageInstead => "coverage.instead",
            Code::ToolUnsupportedValue => "tool.unsupported_value",
            Code::ToolFailed => "tool.failed",
            Code::ToolNotInCatalog => "tool.not_in_catalog",
            Code::ToolNotRunnable => "tool.not_runnable",
            Code::CatalogInvalid => "catalog.invalid",
            Code::RouteFailed => "route.failed",
            Code::ExtractFailed => "extract.failed",
            Code::FallbackNoModel => "fallback.no_model",
            Code::FallbackDisabled => "fallback.disabled",
            Code::FallbackFailed => "fallback.failed",
            Code::HintEnableFallback => "hint.enable_fallback",
            Code::NeedParams => "need.params",
            Code::ChooseCandidates => "choose.candidates",
            Code::ScopeOutside => "scope.outside",
            Code::ScopeDenied => "scope.denied",
        }
    }

    /// Whether the person asking can act on it (another wording, another value); otherwise only a configuration
    /// change helps and the stop is for the administrator.
    pub fn user_fixable(self) -> bool {
        !matches!(
            self,
            Code::ResolveNoCatalog
                | Code::ToolFailed
                | Code::ToolNotInCatalog
                | Code::CatalogInvalid
                | Code::RouteFailed
                | Code::ExtractFailed
                | Code::FallbackNoModel
                | Code::FallbackDisabled
                | Code::ScopeDenied
        )
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A user-facing text: its code, its parameters, and the text in Chinese and in English.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    /// The stable code.
    pub code: Code,
    /// The values the text names (a tool, a name, a parameter), for a client that writes its own text.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub params: Map<String, Value>,
    /// The text in Chinese.
    pub zh: String,
    /// The text in English.
    pub en: String,
}

impl Message {
    /// A message with its code and both texts, no parameters yet.
    pub fn new(code: Code, zh: impl Into<String>, en: impl Into<String>) -> Self {
        Self {
            code,
            params: Map::new(),
            zh: zh.into(),
            en: en.into(),
        }
    }

    /// The message with one more parameter.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.params.insert(key.to_string(), value.into());
        self
    }

    /// A question no tool answers, with what can be asked: each tool's title, description and examples.
    pub fn outside_tools(tools: &[&Tool]) -> Self {
        let askable: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({
                    "tool": t.name(),
                    "title": t.title().unwrap_or(t.name()),
                    "description": t.description(),
                    "examples": t.extensions().examples,
                })
            })
            .collect();
        let listed = |example_word: &str, open: &str, close: &str, sep: &str| {
            tools
                .iter()
                .map(|t| {
                    let title = t.title().unwrap_or(t.name());
                    match t.extensions().examples.first() {
                        Some(e) => format!("{title}{open}{example_word}{e}{close}"),
                        None => title.to_string(),
                    }
                })
                .collect::<Vec<_>>()
                .join(sep)
        };
        let (zh, en) = if tools.is_empty() {
            (
                "没有工具能回答这个问题，目前也没有可用的工具".to_string(),
                "No tool answers this question, and no tool is available".to_string(),
            )
        } else {
            (
                format!("没有工具能回答这个问题。可以问：{}", listed("如「", "（", "」）", "；")),
                format!(
                    "No tool answers this question. You can ask about: {}",
                    listed("e.g. “", " (", "”)", "; ")
                ),
            )
        };
        Self::new(Code::QuestionOutsideTools, zh, en).with("tools", Value::Array(askable))
    }

    /// A subject name that matches no entity.
    pub fn not_found(name: &str) -> Self {
        Self::new(
            Code::ResolveNotFound,
            format!("对象未找到：没有名为「{name}」的对象，请换个说法"),
            format!("Not found: nothing is named “{name}”; try another wording"),
        )
        .with("name", name)
    }

    /// A value the tool cannot take (`label` the parameter's label).
    pub fn unsupported_value(tool: &str, param: &str, label: &str, value: &str) -> Self {
        Self::new(
            Code::ToolUnsupportedValue,
            format!("工具「{tool}」不能取{label}为「{value}」，请换一个值"),
            format!("Tool `{tool}` cannot take {label} = “{value}”; try another value"),
        )
        .with("tool", tool)
        .with("param", param)
        .with("value", value)
    }

    /// A number beyond the range a parameter takes (前200条 of a tool that lists at most 100): the user can change it.
    pub fn beyond_range(
        tool: &str,
        param: &str,
        label: &str,
        value: &str,
        least: Option<&str>,
        most: Option<&str>,
    ) -> Self {
        let (zh, en) = match (least, most) {
            (Some(least), Some(most)) => (
                format!("「{label}」可取 {least}～{most}，问题里是 {value}：请换一个 {least}～{most} 之间的数"),
                format!("{label} takes {least} to {most}, the question asks {value}: ask with a number in that range"),
            ),
            (None, Some(most)) => (
                format!("「{label}」一次最多 {most}，问题里是 {value}：请改成不超过 {most} 的数"),
                format!("{label} is at most {most}, the question asks {value}: ask for {most} or fewer"),
            ),
            (Some(least), None) => (
                format!("「{label}」至少 {least}，问题里是 {value}：请改成不小于 {least} 的数"),
                format!("{label} is at least {least}, the question asks {value}: ask for {least} or more"),
            ),
            (None, None) => return Self::unsupported_value(tool, param, label, value),
        };
        Self::new(Code::ToolUnsupportedValue, zh, en)
            .with("tool", tool)
            .with("param", param)
            .with("value", value)
    }

    /// Conditions of the question the tool cannot express (the words the user said that the model listed under
    /// `param`, joined as `value`), each named.
    pub fn unmatched(tool: &str, param: &str, value: &str, words: &[&str]) -> Self {
        let zh: Vec<String> = words.iter().map(|w| format!("「{w}」")).collect();
        let en: Vec<String> = words.iter().map(|w| format!("“{w}”")).collect();
        Self::new(
            Code::ToolUnsupportedValue,
            format!(
                "工具「{tool}」的参数无法表达问题中的{}，不能按它回答，请换个问法",
                zh.join("、")
            ),
            format!(
                "Tool `{tool}` has no parameter that can express {} of the question, so it cannot answer it; try \
                 another wording",
                en.join(", ")
            ),
        )
        .with("tool", tool)
        .with("param", param)
        .with("value", value)
        .with(
            "words",
            Value::Array(words.iter().map(|w| Value::String((*w).to_string())).collect()),
        )
    }

    /// A tool call that failed: the executor's error, said in each language (`error` its English words).
    pub fn tool_failed(tool: &str, error_en: &str, error_zh: &str) -> Self {
        Self::new(
            Code::ToolFailed,
            format!("工具「{tool}」调用失败：{error_zh}"),
            format!("tool `{tool}` failed: {error_en}"),
        )
        .with("tool", tool)
        .with("error", error_en)
    }

    /// A routed tool that cannot run here (`title` its title): another question may be answered.
    pub fn tool_not_runnable(tool: &str, title: &str) -> Self {
        Self::new(
            Code::ToolNotRunnable,
            format!("「{title}」在这里还没有接入，暂时不能查询；可以换一个问题"),
            format!("「{title}」 is not connected here yet and cannot be asked; try another question"),
        )
        .with("tool", tool)
    }

    /// A routed tool the catalog does not have.
    pub fn not_in_catalog(tool: &str) -> Self {
        Self::new(
            Code::ToolNotInCatalog,
            format!("工具「{tool}」不在目录中"),
            format!("tool `{tool}` is not in the catalog"),
        )
        .with("tool", tool)
    }

    /// The fallback needs a model and none is configured (the stop for the administrator).
    pub fn fallback_no_model() -> Self {
        Self::new(
            Code::FallbackNoModel,
            "兜底（Text-to-SQL）需要配置一个模型：请管理员配置模型服务",
            "The Text-to-SQL fallback needs a model: an administrator must configure a model service",
        )
    }

    /// The fallback tool is disabled or absent (the stop for the administrator).
    pub fn fallback_disabled() -> Self {
        Self::new(
            Code::FallbackDisabled,
            "兜底工具已停用：请管理员启用兜底工具",
            "The fallback tool is disabled: an administrator must enable it",
        )
    }

    /// One reason the fallback found no answer, said in each language (`en` also its `reason` parameter).
    pub fn fallback_failed_in(zh: &str, en: &str) -> Self {
        Self::new(
            Code::FallbackFailed,
            format!("兜底未能回答：{zh}"),
            format!("The fallback found no answer: {en}"),
        )
        .with("reason", en)
    }

    /// The secondary hint of a user stop: what an administrator could enable (`model`: a model is missing too).
    pub fn enable_fallback(model: bool) -> Self {
        let (zh, en) = if model {
            (
                "提示（管理员）：配置模型后，兜底（Text-to-SQL）可以回答工具之外的问题",
                "For the administrator: configuring a model lets the Text-to-SQL fallback answer questions outside the tools",
            )
        } else {
            (
                "提示（管理员）：启用兜底工具后，兜底（Text-to-SQL）可以回答工具之外的问题",
                "For the administrator: enabling the fallback tool lets Text-to-SQL answer questions outside the tools",
            )
        };
        Self::new(Code::HintEnableFallback, zh, en).with("model", model)
    }

    /// Missing required parameters: their names and, in the same order, their labels (what the texts say).
    pub fn need(tool: &str, missing: &[String], labels: &[String]) -> Self {
        Self::new(
            Code::NeedParams,
            format!("还需要：{}，请在问题中补充", labels.join("、")),
            format!("Also needed: {}; add it to the question", labels.join(", ")),
        )
        .with("tool", tool)
        .with("missing", missing.to_vec())
        .with("labels", labels.to_vec())
    }

    /// A name that matches several entities.
    pub fn choose(tool: &str, name: &str, candidates: usize) -> Self {
        Self::new(
            Code::ChooseCandidates,
            format!("「{name}」有 {candidates} 个候选，请选择一个"),
            format!("“{name}” matches {candidates} candidates: pick one"),
        )
        .with("tool", tool)
        .with("name", name)
        .with("candidates", candidates)
    }

    /// A technical reason wrapped in a code (`detail` the engine's words, the same in both texts).
    pub fn detail(code: Code, zh_head: &str, en_head: &str, detail: &str) -> Self {
        Self::new(code, format!("{zh_head}：{detail}"), format!("{en_head}: {detail}")).with("detail", detail)
    }
}

/// A scope refusal as the engine's coded message.
pub trait RefusalMessage {
    /// The refusal as a coded message in both languages (`scope.outside` for the user; `scope.denied` otherwise).
    fn message(&self) -> Message;
}

impl RefusalMessage for ScopeRefusal {
    fn message(&self) -> Message {
        let code = if self.code == OUTSIDE {
            Code::ScopeOutside
        } else {
            Code::ScopeDenied
        };
        self.params
            .iter()
            .fold(Message::new(code, self.zh.clone(), self.en.clone()), |m, (k, v)| {
                m.with(k, v.clone())
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_dotted_names() {
        let names: std::collections::HashSet<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names.len(), Code::ALL.len());
        for code in Code::ALL {
            let (area, what) = code.as_str().split_once('.').expect("area.what");
            assert!(!area.is_empty() && !what.is_empty(), "{code}");
            assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
        }
    }

    #[test]
    fn a_message_carries_code_params_and_both_texts() {
        let m = Message::not_found("某某");
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"code": "resolve.not_found", "params": {"name": "某某"},
                   "zh": "对象未找到：没有名为「某某」的对象，请换个说法",
                   "en": "Not found: nothing is named “某某”; try another wording"})
        );
        assert!(Code::ResolveNotFound.user_fixable());
        assert!(!Code::FallbackNoModel.user_fixable());
        assert!(Code::ScopeOutside.user_fixable());
    }
}
