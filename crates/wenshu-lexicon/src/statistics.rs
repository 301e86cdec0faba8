//! Names of statistics beyond a sum, a count, a mean, a maximum and a minimum (中位数, 方差, 标准差, 分位数, median,
//! variance, …): general language knowledge, so that a question asking for one is never answered with a sum.

use crate::canonical::canonical;

/// One statistic a question names: its words and what it is called in Chinese and English.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatisticWord {
    /// The words as the question spells them (canonical).
    pub words: String,
    /// The statistic's Chinese name.
    pub zh: &'static str,
    /// The statistic's English name.
    pub en: &'static str,
}

/// (spellings, Chinese name, English name); longer spellings first within a row.
const STATISTICS: &[(&[&str], &str, &str)] = &[
    (&["中位数", "中位值", "中值", "median"], "中位数", "median"),
    (
        &["四分位距", "四分位数", "四分位", "quartile", "iqr"],
        "四分位数",
        "quartiles",
    ),
    (
        &["百分位数", "百分位", "分位数", "分位点", "percentile", "quantile"],
        "分位数",
        "percentiles",
    ),
    (
        &[
            "标准偏差",
            "标准差",
            "均方差",
            "standard deviation",
            "std dev",
            "stddev",
        ],
        "标准差",
        "standard deviation",
    ),
    (&["协方差", "covariance"], "协方差", "covariance"),
    (&["方差", "variance"], "方差", "variance"),
    (&["众数"], "众数", "mode"),
    (&["偏度", "skewness"], "偏度", "skewness"),
    (&["峰度", "kurtosis"], "峰度", "kurtosis"),
    (
        &["变异系数", "离散系数", "coefficient of variation"],
        "变异系数",
        "coefficient of variation",
    ),
    (&["相关系数", "相关性", "correlation"], "相关系数", "correlation"),
    (&["极差"], "极差", "range"),
    (&["几何平均", "geometric mean"], "几何平均", "geometric mean"),
    (
        &["加权平均", "weighted average", "weighted mean"],
        "加权平均",
        "weighted mean",
    ),
    (
        &["移动平均", "滑动平均", "moving average", "rolling average"],
        "移动平均",
        "moving average",
    ),
    (&["复合增长率", "cagr"], "复合增长率", "compound growth rate"),
];

/// Every statistic `text` names, in the table's order, each once (协方差 is not also 方差).
pub fn statistic_words(text: &str) -> Vec<StatisticWord> {
    let mut folded = canonical(text);
    let mut found = Vec::new();
    for (spellings, zh, en) in STATISTICS {
        for spelling in *spellings {
            if let Some(at) = find_word(&folded, spelling) {
                found.push(StatisticWord {
                    words: spelling.to_string(),
                    zh,
                    en,
                });
                // Blank the words out so a shorter name inside them (方差 of 协方差) is not read again.
                let blank = " ".repeat(spelling.len());
                folded.replace_range(at..at + spelling.len(), &blank);
                break;
            }
        }
    }
    found
}

/// Where `word` stands in `text`; an ASCII word only between non-letters (median, not medians' inside words).
fn find_word(text: &str, word: &str) -> Option<usize> {
    let ascii = word.is_ascii();
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        if !ascii {
            return true;
        }
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric()) && !after.is_some_and(|c| c.is_ascii_alphabetic())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<&'static str> {
        statistic_words(text).into_iter().map(|s| s.zh).collect()
    }

    #[test]
    fn statistics_are_named_in_both_languages() {
        assert_eq!(names("每个地区销售额的中位数是多少"), ["中位数"]);
        assert_eq!(names("本月销售额的标准差"), ["标准差"]);
        assert_eq!(names("销量和价格的协方差"), ["协方差"]);
        assert_eq!(names("The MEDIAN order value by region"), ["中位数"]);
        assert_eq!(names("p90 percentile of delivery time"), ["分位数"]);
    }

    #[test]
    fn sums_means_and_ordinary_words_are_no_statistics() {
        for text in [
            "各地区的平均销售额",
            "本月销售额最高的产品",
            "总票房",
            "intermediate results",
            "模式",
        ] {
            assert_eq!(names(text), Vec::<&str>::new(), "{text}");
        }
    }
}
