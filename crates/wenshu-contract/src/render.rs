//! The readable definition of a tool for a prompt (seed 000, step 1), in Chinese or English.

use serde_json::Value;

use crate::param::ParamSpec;
use crate::tool::Tool;

/// The language of a rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    /// Chinese labels, as seed 000 shows them.
    #[default]
    Zh,
    /// English labels.
    En,
}

impl Lang {
    /// Reads `zh` or `en`.
    pub fn from_code(code: &str) -> Option<Self> {
        match code.to_ascii_lowercase().as_str() {
            "zh" | "zh-cn" | "cn" => Some(Self::Zh),
            "en" | "en-us" => Some(Self::En),
            _ => None,
        }
    }
}

/// The words of one language.
struct Labels {
    tool_id: &'static str,
    title: &'static str,
    description: &'static str,
    params: &'static str,
    none: &'static str,
    type_: &'static str,
    required: &'static str,
    optional: &'static str,
    default: &'static str,
    allowed: &'static str,
    format: &'static str,
    minimum: &'static str,
    maximum: &'static str,
    pattern: &'static str,
    items: &'static str,
    separator: &'static str,
}

const ZH: Labels = Labels {
    tool_id: "工具ID",
    title: "工具名称",
    description: "功能描述",
    params: "参数列表",
    none: "（无参数）",
    type_: "类型",
    required: "必填",
    optional: "可选",
    default: "默认值",
    allowed: "可选值",
    format: "格式",
    minimum: "最小值",
    maximum: "最大值",
    pattern: "匹配模式",
    items: "元素",
    separator: ": ",
};

const EN: Labels = Labels {
    tool_id: "Tool ID",
    title: "Title",
    description: "Description",
    params: "Parameters",
    none: "(no parameters)",
    type_: "type",
    required: "required",
    optional: "optional",
    default: "default",
    allowed: "allowed values",
    format: "format",
    minimum: "minimum",
    maximum: "maximum",
    pattern: "pattern",
    items: "items",
    separator: ": ",
};

/// Renders a tool as readable text: ID, title, description, and one line per parameter (nested ones indented).
pub fn render_tool(tool: &Tool, lang: Lang) -> String {
    render_tool_without(tool, lang, &[])
}

/// Renders a tool leaving out the parameters named in `hidden` (those code fills: subject IDs, routed dates).
pub fn render_tool_without(tool: &Tool, lang: Lang, hidden: &[&str]) -> String {
    let labels = match lang {
        Lang::Zh => &ZH,
        Lang::En => &EN,
    };
    let sep = labels.separator;
    let mut out = format!("{}{sep}{}\n", labels.tool_id, tool.name());
    if let Some(title) = tool.title() {
        out.push_str(&format!("{}{sep}{title}\n", labels.title));
    }
    out.push_str(&format!("{}{sep}{}\n", labels.description, tool.description()));
    out.push_str(&format!("{}:\n", labels.params));
    let shown: Vec<&ParamSpec> = tool
        .params()
        .iter()
        .filter(|p| !hidden.contains(&p.name.as_str()) && p.principal.is_none())
        .collect();
    if shown.is_empty() {
        out.push_str(&format!("  {}\n", labels.none));
    }
    for spec in shown {
        render_param(&mut out, spec, 1, labels);
    }
    out
}

fn render_param(out: &mut String, spec: &ParamSpec, depth: usize, labels: &Labels) {
    let indent = "  ".repeat(depth);
    let need = if spec.required {
        labels.required
    } else {
        labels.optional
    };
    out.push_str(&format!(
        "{indent}- {} ({}: {}, {need})",
        spec.name,
        labels.type_,
        type_text(spec)
    ));
    if !spec.description.is_empty() {
        out.push_str(&format!(": {}", spec.description));
    }
    for (label, value) in tags(spec, labels) {
        out.push_str(&format!(" [{label}: {value}]"));
    }
    if let Some(items) = &spec.items {
        for (label, value) in tags(items, labels) {
            out.push_str(&format!(" [{} {label}: {value}]", labels.items));
        }
    }
    out.push('\n');
    for child in &spec.properties {
        render_param(out, child, depth + 1, labels);
    }
    if let Some(items) = spec.items.as_deref().filter(|i| !i.properties.is_empty()) {
        out.push_str(&format!("{indent}  {}:\n", labels.items));
        for child in &items.properties {
            render_param(out, child, depth + 2, labels);
        }
    }
}

/// The bracketed facts of a parameter: default, allowed values, format, bounds, pattern.
fn tags(spec: &ParamSpec, labels: &Labels) -> Vec<(&'static str, String)> {
    let mut tags = Vec::new();
    if let Some(default) = &spec.default {
        tags.push((labels.default, plain(default)));
    }
    if !spec.enum_values.is_empty() {
        tags.push((
            labels.allowed,
            spec.enum_values.iter().map(plain).collect::<Vec<_>>().join(", "),
        ));
    }
    if let Some(format) = &spec.format {
        tags.push((labels.format, format.clone()));
    }
    if let Some(min) = &spec.minimum {
        tags.push((labels.minimum, plain(min)));
    }
    if let Some(max) = &spec.maximum {
        tags.push((labels.maximum, plain(max)));
    }
    if let Some(pattern) = &spec.pattern {
        tags.push((labels.pattern, pattern.clone()));
    }
    tags
}

/// `string`, `array<string>`, `array<object>`…
fn type_text(spec: &ParamSpec) -> String {
    match &spec.items {
        Some(items) => format!("{}<{}>", spec.ty.name(), type_text(items)),
        None => spec.ty.name().to_string(),
    }
}

/// A value as a person reads it: strings without quotes.
fn plain(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}
