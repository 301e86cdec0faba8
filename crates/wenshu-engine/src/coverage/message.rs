//! The words of coverage: a parameter's label, a grain, a threshold, an unmet item, and what a tool can answer
//! instead (from its declared answers).

use wenshu_contract::answers::{Answer, Shape};
use wenshu_contract::{ParamSpec, Tool};
use wenshu_lexicon::demand::{Grain, ThresholdOp};

use super::Unmet;

/// An unmet item.
pub fn unmet(words: &str, reason: String, reason_en: String) -> Unmet {
    Unmet {
        words: words.to_string(),
        reason,
        reason_en,
    }
}

/// A parameter's label: its description up to the first punctuation, without 筛选/过滤 (地区筛选：… → 地区);
/// the name when the description gives none.
pub fn param_label(spec: &ParamSpec) -> String {
    let head: String = spec
        .description
        .chars()
        .take_while(|c| !matches!(c, '：' | ':' | '，' | ',' | '（' | '(' | '。' | '；' | ';'))
        .collect();
    let head = head.trim();
    let head = ["筛选", "过滤", "filter"]
        .iter()
        .fold(head, |h, suffix| h.strip_suffix(suffix).unwrap_or(h))
        .trim();
    if head.is_empty() || head.chars().count() > 8 {
        spec.name.clone()
    } else {
        head.to_string()
    }
}

/// The Chinese word of a demand's grain (天, 周, 月, 季度, 年).
pub fn grain_zh(grain: Grain) -> &'static str {
    match grain {
        Grain::Day => "天",
        Grain::Week => "周",
        Grain::Month => "月",
        Grain::Quarter => "季度",
        Grain::Year => "年",
    }
}

/// A threshold's comparison in Chinese and English.
pub fn threshold_words(op: ThresholdOp) -> (&'static str, &'static str) {
    match op {
        ThresholdOp::Above => ("超过", "above"),
        ThresholdOp::AtLeast => ("不少于", "at least"),
        ThresholdOp::Below => ("低于", "below"),
        ThresholdOp::AtMost => ("不超过", "at most"),
    }
}

/// One declared answer in words (汇总, 按销售员排名, 按日趋势, 明细).
pub fn answer_words(answer: &Answer) -> String {
    let dimension = answer.dimension.first().map(String::as_str).unwrap_or_default();
    match answer.shape {
        Shape::Totals => "汇总".to_string(),
        Shape::Grouped => format!("按{dimension}分组"),
        Shape::Ranked => format!("按{dimension}排名"),
        Shape::Series => {
            let mut grains = vec![answer.grain.map(Grain::label).unwrap_or("日")];
            for (_, _, g) in &answer.grain_when {
                let g = g.label();
                if !grains.contains(&g) {
                    grains.push(g);
                }
            }
            format!("按{}的趋势", grains.join("或"))
        }
        Shape::Rows => "明细".to_string(),
    }
}

/// One declared answer in English words (totals, ranked by 销售员, trend by day).
pub fn answer_words_en(answer: &Answer) -> String {
    let dimension = answer.dimension.first().map(String::as_str).unwrap_or_default();
    match answer.shape {
        Shape::Totals => "totals".to_string(),
        Shape::Grouped => format!("grouped by {dimension}"),
        Shape::Ranked => format!("ranked by {dimension}"),
        Shape::Series => {
            let mut grains = vec![answer.grain.map(Grain::name).unwrap_or("day")];
            for (_, _, g) in &answer.grain_when {
                let g = g.name();
                if !grains.contains(&g) {
                    grains.push(g);
                }
            }
            format!("trend by {}", grains.join(" or "))
        }
        Shape::Rows => "rows".to_string(),
    }
}

/// What a tool can answer, in English words: its title and each declared answer.
pub fn instead_en(tool: &Tool) -> Vec<String> {
    let title = tool.title().unwrap_or(tool.name());
    match &tool.extensions().answers {
        Some(answers) => {
            let mut kinds: Vec<String> = Vec::new();
            for (_, answer) in answers.all() {
                let words = answer_words_en(answer);
                if !kinds.contains(&words) {
                    kinds.push(words);
                }
            }
            vec![format!("{title}: {}", kinds.join(", "))]
        }
        None => vec![title.to_string()],
    }
}

/// What a tool can answer, in words: its title and each declared answer (销售数据查询：汇总、按销售员排名…).
pub fn instead(tool: &Tool) -> Vec<String> {
    let title = tool.title().unwrap_or(tool.name());
    match &tool.extensions().answers {
        Some(answers) => {
            let mut kinds: Vec<String> = Vec::new();
            for (_, answer) in answers.all() {
                let words = answer_words(answer);
                if !kinds.contains(&words) {
                    kinds.push(words);
                }
            }
            vec![format!("{title}：{}", kinds.join("、"))]
        }
        None => vec![title.to_string()],
    }
}
