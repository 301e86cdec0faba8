//! Taking the JSON object out of what models really send.
//!
//! Handled, in this order: `<think>…</think>` blocks are removed (also an unclosed `<think>` at the start, and
//! reasoning that ends in a bare `</think>`); then the whole text is tried as JSON; then each fenced block
//! (```` ```json ```` or bare ```` ``` ````); then every balanced `{…}` or `[…]` in the prose, in order, until one
//! parses. A JSON array holding exactly one object gives that object; an array of several objects is an error;
//! a JSON string holding a JSON object (double-encoded tool-call arguments) is decoded.

use serde_json::{Map, Value};

use crate::error::AnswerError;

/// At most this many opening brackets are tried in prose (keeps pathological answers cheap).
const MAX_CANDIDATES: usize = 256;

/// How deep JSON strings holding JSON are decoded.
const MAX_STRING_DEPTH: usize = 2;

/// The JSON object in a model's answer; the error keeps the raw text.
pub fn extract_json_object(text: &str) -> Result<Map<String, Value>, AnswerError> {
    if text.trim().is_empty() {
        return Err(AnswerError::Blank);
    }
    let stripped = strip_think(text);
    let body = stripped.trim();
    if body.is_empty() {
        return Err(AnswerError::Blank);
    }
    let no_object = || AnswerError::NoObject { raw: text.to_owned() };
    let found = whole(body, 0)
        .or_else(|| fenced_blocks(body).into_iter().find_map(|block| whole(block.trim(), 0)))
        .or_else(|| candidates(body))
        .ok_or_else(no_object)?;
    match found {
        Found::Object(map) => Ok(map),
        Found::Several(count) => Err(AnswerError::SeveralObjects {
            count,
            raw: text.to_owned(),
        }),
    }
}

/// What a piece of JSON gave.
enum Found {
    Object(Map<String, Value>),
    Several(usize),
}

/// The text as one JSON value: an object, an array of exactly one object (or several: an error), or a string
/// holding such JSON. `None` when it is none of these.
fn whole(text: &str, depth: usize) -> Option<Found> {
    let value: Value = serde_json::from_str(text).ok()?;
    from_value(value, depth)
}

fn from_value(value: Value, depth: usize) -> Option<Found> {
    match value {
        Value::Object(map) => Some(Found::Object(map)),
        Value::Array(items) => {
            let objects = items.iter().filter(|item| item.is_object()).count();
            match (objects, items.len()) {
                (1, 1) => match items.into_iter().next() {
                    Some(Value::Object(map)) => Some(Found::Object(map)),
                    _ => None,
                },
                (n, _) if n > 1 => Some(Found::Several(n)),
                _ => None,
            }
        }
        Value::String(inner) if depth < MAX_STRING_DEPTH => {
            let inner = strip_think(&inner);
            let inner = inner.trim();
            whole(inner, depth + 1).or_else(|| {
                fenced_blocks(inner)
                    .into_iter()
                    .find_map(|block| whole(block.trim(), depth + 1))
            })
        }
        _ => None,
    }
}

/// Removes `<think>…</think>` blocks; an unclosed `<think>` loses only its tag; text before a bare leading
/// `</think>` (reasoning whose opening tag was in the prompt) is dropped.
fn strip_think(text: &str) -> String {
    const OPEN: &str = "<think>";
    const CLOSE: &str = "</think>";
    let mut rest = text;
    if let Some(close) = rest.find(CLOSE)
        && rest.find(OPEN).is_none_or(|open| close < open)
    {
        rest = &rest[close + CLOSE.len()..];
    }
    let mut out = String::with_capacity(rest.len());
    while let Some(open) = rest.find(OPEN) {
        out.push_str(&rest[..open]);
        let after = &rest[open + OPEN.len()..];
        match after.find(CLOSE) {
            Some(close) => rest = &after[close + CLOSE.len()..],
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The contents of every fenced block (```` ```lang ```` … ```` ``` ````), in order; an unclosed fence runs to the end.
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // The info string (e.g. `json`) runs to the end of the fence line.
        let content_start = after.find('\n').map_or(after.len(), |n| n + 1);
        let info = &after[..content_start];
        let (content, next) = if info.contains("```") {
            // A one-line fence: ```{"a":1}```
            let close = info.find("```").unwrap_or(info.len());
            (&after[..close], &after[close + 3..])
        } else {
            let body = &after[content_start..];
            match body.find("```") {
                Some(close) => (&body[..close], &body[close + 3..]),
                None => (body, ""),
            }
        };
        blocks.push(content.trim_start_matches(|c: char| c.is_ascii_alphabetic()));
        rest = next;
    }
    blocks
}

/// Every balanced `{…}` or `[…]` in the text, in order of its opening bracket, until one gives an object.
fn candidates(text: &str) -> Option<Found> {
    text.char_indices()
        .filter(|&(_, c)| c == '{' || c == '[')
        .take(MAX_CANDIDATES)
        .find_map(|(start, _)| {
            let end = balanced_end(&text[start..])?;
            whole(&text[start..start + end], 0)
        })
}

/// The byte length of the balanced bracketed value at the start of `text`, respecting JSON strings and escapes.
fn balanced_end(text: &str) -> Option<usize> {
    let mut stack = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => stack.push('}'),
            '[' => stack.push(']'),
            '}' | ']' => {
                if stack.pop() != Some(c) {
                    return None;
                }
                if stack.is_empty() {
                    return Some(i + c.len_utf8());
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(text: &str) -> Value {
        Value::Object(extract_json_object(text).unwrap_or_else(|e| panic!("{text:?}: {e}")))
    }

    #[test]
    fn plain_json() {
        assert_eq!(
            object(r#"{"region":"华东","limit":5}"#),
            json!({"region": "华东", "limit": 5})
        );
        assert_eq!(object("  \n{\"a\": null}\n "), json!({"a": null}));
    }

    #[test]
    fn fenced_with_and_without_language() {
        assert_eq!(object("```json\n{\"a\":1}\n```"), json!({"a": 1}));
        assert_eq!(object("```\n{\"a\":2}\n```"), json!({"a": 2}));
        assert_eq!(object("```JSON\n{\"a\":3}\n```"), json!({"a": 3}));
        assert_eq!(object("结果如下：\n```json\n{\"a\":4}\n```\n以上。"), json!({"a": 4}));
        assert_eq!(object("```json\n{\"a\":5}"), json!({"a": 5}), "unclosed fence");
        assert_eq!(object("```{\"a\":6}```"), json!({"a": 6}), "one-line fence");
    }

    #[test]
    fn think_blocks() {
        assert_eq!(
            object("<think>用户问华东 {not json}</think>\n{\"region\":\"华东\"}"),
            json!({"region": "华东"})
        );
        assert_eq!(
            object("<think>先想想</think><think>再想想</think>{\"a\":1}"),
            json!({"a": 1})
        );
        assert_eq!(
            object("推理过程 {\"draft\":1}</think>{\"a\":2}"),
            json!({"a": 2}),
            "bare closing tag"
        );
        assert_eq!(object("<think>\n{\"a\":3}"), json!({"a": 3}), "unclosed think at start");
        assert_eq!(
            extract_json_object("<think>只有思考</think>  "),
            Err(AnswerError::Blank)
        );
    }

    #[test]
    fn prose_around() {
        assert_eq!(
            object("根据你的问题，提取的参数如下：{\"period\":\"本月\"} 希望有帮助"),
            json!({"period": "本月"})
        );
        assert_eq!(object("参数 {错误} 与 [注1] 之后 {\"a\":\"}{\"}"), json!({"a": "}{"}));
        assert_eq!(
            object(r#"见 {"a":"引号\"和\\反斜杠{"} 完"#),
            json!({"a": "引号\"和\\反斜杠{"})
        );
        assert_eq!(object("外层 {\"a\":{\"b\":[1,2]}} 尾"), json!({"a": {"b": [1, 2]}}));
    }

    #[test]
    fn array_of_one_object_and_of_several() {
        assert_eq!(object(r#"[{"a":1}]"#), json!({"a": 1}));
        assert_eq!(object("```json\n[{\"a\":1}]\n```"), json!({"a": 1}));
        let err = extract_json_object(r#"[{"a":1},{"a":2}]"#).expect_err("several");
        assert!(matches!(err, AnswerError::SeveralObjects { count: 2, .. }));
        assert_eq!(err.raw(), Some(r#"[{"a":1},{"a":2}]"#));
    }

    #[test]
    fn double_encoded_string() {
        assert_eq!(object(r#""{\"region\":\"华南\"}""#), json!({"region": "华南"}));
        assert_eq!(object(r#""\"{\\\"a\\\":1}\"""#), json!({"a": 1}), "encoded twice");
    }

    #[test]
    fn blank_and_no_object() {
        assert_eq!(extract_json_object(""), Err(AnswerError::Blank));
        assert_eq!(extract_json_object(" \n\t"), Err(AnswerError::Blank));
        for text in [
            "抱歉，我无法回答",
            "42",
            "[1,2]",
            "{\"a\":",
            "\"just a string\"",
            "null",
        ] {
            let err = extract_json_object(text).expect_err(text);
            assert_eq!(err, AnswerError::NoObject { raw: text.to_owned() });
        }
    }

    #[test]
    fn many_brackets_stay_cheap() {
        let text = "{".repeat(10_000) + "没有对象";
        assert!(extract_json_object(&text).is_err());
    }
}
