//! A statistic the question asks for (中位数, 方差, 标准差, median) that the tool does not name anywhere in its
//! definition is unmet: a sum or a list is no median.

use wenshu_contract::Tool;
use wenshu_lexicon::canonical::canonical;
use wenshu_lexicon::statistics::StatisticWord;

use super::Unmet;
use super::message::unmet;

/// Every statistic the question names (`asked`, from its facts) that `tool`'s definition (title, descriptions,
/// measures, expressions) never names, as unmet.
pub fn unmet_statistics(tool: &Tool, asked: &[StatisticWord]) -> Vec<Unmet> {
    if asked.is_empty() {
        return Vec::new();
    }
    let definition = canonical(&tool.definition().to_string());
    asked
        .iter()
        .filter(|s| !definition.contains(s.words.as_str()) && !definition.contains(s.zh) && !definition.contains(s.en))
        .map(|s| {
            unmet(
                &s.words,
                format!("不能算{}", s.zh),
                format!("cannot compute the {}", s.en),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wenshu_contract::Catalog;
    use wenshu_lexicon::statistics::statistic_words;

    use super::*;

    fn catalog() -> Catalog {
        let tools = json!({"tools": [
            {"name": "visits", "title": "门诊量", "description": "统计门诊量，可按科室分组",
             "inputSchema": {"type": "object", "properties": {}}},
            {"name": "waits", "title": "候诊时长", "description": "候诊时长的中位数与平均值",
             "inputSchema": {"type": "object", "properties": {}}}
        ]});
        Catalog::from_json_str(&tools.to_string()).unwrap()
    }

    #[test]
    fn a_statistic_no_tool_names_is_unmet() {
        let catalog = catalog();
        let unmet = unmet_statistics(catalog.get("visits").unwrap(), &statistic_words("各科室门诊量的中位数"));
        assert_eq!(unmet.len(), 1);
        assert_eq!(unmet[0].reason, "不能算中位数");
        assert!(unmet_statistics(catalog.get("visits").unwrap(), &statistic_words("各科室的门诊量")).is_empty());
    }

    #[test]
    fn a_tool_that_names_the_statistic_may_answer_it() {
        let catalog = catalog();
        assert!(unmet_statistics(catalog.get("waits").unwrap(), &statistic_words("上周候诊时长的中位数")).is_empty());
        assert_eq!(
            unmet_statistics(catalog.get("waits").unwrap(), &statistic_words("候诊时长的方差")).len(),
            1
        );
    }
}
