//! A small general English → Chinese vocabulary of business and data words (delayed → 超时, on-time → 准时,
//! rate → 率, complaint → 投诉), so an English question can be read with a catalog written in Chinese. Words are
//! matched whole, with their plural and past-tense forms; phrases of several words win over their parts.

use std::ops::Range;

use crate::english::{same_word, words};

/// English words and phrases (base forms, lowercase, words separated by spaces) and their Chinese equivalents.
const VOCABULARY: &[(&str, &[&str])] = &[
    // States and outcomes.
    ("on time", &["准时", "准点"]),
    ("ontime", &["准时", "准点"]),
    ("punctual", &["准时", "准点"]),
    ("delay", &["超时", "延误", "延迟"]),
    ("late", &["超时", "延误", "迟到"]),
    ("overdue", &["超时", "逾期", "超期"]),
    ("timeout", &["超时"]),
    ("time out", &["超时"]),
    ("expired", &["过期"]),
    ("cancel", &["取消", "已取消"]),
    ("cancelled", &["取消", "已取消"]),
    ("canceled", &["取消", "已取消"]),
    ("cancellation", &["取消"]),
    ("refund", &["退款", "已退款"]),
    ("return", &["退回", "退货", "已退回"]),
    ("deliver", &["签收", "送达", "派送"]),
    ("delivery", &["派件", "派送", "配送"]),
    ("pending", &["待处理", "待审批"]),
    ("approved", &["已批准", "已审批", "通过"]),
    ("rejected", &["已驳回", "驳回", "拒绝"]),
    ("reject", &["驳回", "拒绝"]),
    ("unresolved", &["未解决"]),
    ("resolved", &["已解决"]),
    ("closed", &["已关闭"]),
    ("exception", &["异常"]),
    ("abnormal", &["异常"]),
    ("fail", &["失败"]),
    ("failure", &["失败"]),
    ("success", &["成功"]),
    ("complete", &["完成", "已完成"]),
    ("paid", &["已支付", "已付款"]),
    ("unpaid", &["未支付", "未付款"]),
    ("active", &["活跃"]),
    ("inactive", &["不活跃"]),
    ("deleted", &["已删除"]),
    ("frozen", &["冻结"]),
    ("resigned", &["离职"]),
    ("urgent", &["紧急"]),
    // Measures.
    ("rate", &["率"]),
    ("ratio", &["比例", "率"]),
    ("percentage", &["占比", "比例"]),
    ("share", &["占比"]),
    ("count", &["数量"]),
    ("number", &["数量"]),
    ("quantity", &["数量"]),
    ("volume", &["量"]),
    ("total", &["总"]),
    ("average", &["平均"]),
    ("mean", &["平均"]),
    ("amount", &["金额"]),
    ("price", &["价格"]),
    ("cost", &["成本"]),
    ("profit", &["利润"]),
    ("revenue", &["营收", "销售额"]),
    ("sale", &["销售", "销量"]),
    ("growth", &["增长"]),
    ("throughput", &["吞吐量"]),
    ("inbound", &["入库"]),
    ("outbound", &["出库"]),
    ("inventory", &["库存"]),
    ("stock", &["库存"]),
    ("complaint", &["投诉"]),
    ("review", &["评价"]),
    ("good review", &["好评"]),
    ("positive review", &["好评"]),
    ("bad review", &["差评"]),
    ("negative review", &["差评"]),
    ("rating", &["评分"]),
    ("satisfaction", &["满意度"]),
    ("performance", &["业绩", "表现"]),
    ("attendance", &["考勤", "出勤"]),
    ("salary", &["工资", "薪资"]),
    ("balance", &["余额"]),
    // Shapes of an answer.
    ("trend", &["趋势", "走势"]),
    ("daily", &["每天", "每日"]),
    ("per day", &["每天"]),
    ("by day", &["按天"]),
    ("weekly", &["每周"]),
    ("by week", &["按周"]),
    ("monthly", &["每月"]),
    ("by month", &["按月"]),
    ("detail", &["明细"]),
    ("list", &["列表", "明细"]),
    ("ranking", &["排名"]),
    ("rank", &["排名"]),
    // Things.
    ("shipment", &["运单", "包裹"]),
    ("parcel", &["包裹", "运单"]),
    ("package", &["包裹", "运单"]),
    ("waybill", &["运单"]),
    ("order", &["订单"]),
    ("customer", &["客户"]),
    ("user", &["用户"]),
    ("member", &["会员"]),
    ("product", &["产品", "商品"]),
    ("item", &["商品"]),
    ("courier", &["快递员"]),
    ("carrier", &["承运商"]),
    ("warehouse", &["仓库"]),
    ("store", &["门店"]),
    ("shop", &["门店", "店铺"]),
    ("supplier", &["供应商"]),
    ("ticket", &["工单"]),
    ("request", &["申请"]),
    ("application", &["申请"]),
    ("priority", &["优先级"]),
    ("channel", &["渠道"]),
    ("phone", &["电话"]),
    ("email", &["邮件"]),
    ("employee", &["员工"]),
    ("staff", &["员工"]),
    ("department", &["部门"]),
    ("region", &["地区", "区域"]),
    ("city", &["城市"]),
    ("province", &["省份"]),
    ("origin", &["始发"]),
    ("destination", &["目的"]),
    ("payment", &["支付", "付款"]),
    ("invoice", &["发票"]),
    ("contract", &["合同"]),
    ("project", &["项目"]),
    ("account", &["账户"]),
    ("student", &["学生"]),
    ("course", &["课程"]),
    ("patient", &["患者"]),
    ("doctor", &["医生"]),
];

/// English words of a sentence and their Chinese equivalents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    /// Byte range of the English words in the sentence.
    pub range: Range<usize>,
    /// The vocabulary entry (base form).
    pub english: &'static str,
    /// Its Chinese equivalents.
    pub chinese: &'static [&'static str],
}

/// The vocabulary's words in a text: the longest phrase at each word, phrases never overlapping, in order.
pub fn translations(text: &str) -> Vec<Translation> {
    let written = words(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < written.len() {
        let best = VOCABULARY
            .iter()
            .filter_map(|(english, chinese)| {
                let parts: Vec<&str> = english.split(' ').collect();
                let span = written.get(i..i + parts.len())?;
                let joined = span.windows(2).all(|w| adjacent(text, &w[0].range, &w[1].range));
                (joined && span.iter().zip(&parts).all(|(w, p)| same_word(&w.text, p))).then_some((
                    parts.len(),
                    english,
                    chinese,
                ))
            })
            .max_by_key(|(len, _, _)| *len);
        match best {
            Some((len, english, chinese)) => {
                let start = written.get(i).map_or(0, |w| w.range.start);
                let end = written.get(i + len - 1).map_or(start, |w| w.range.end);
                out.push(Translation {
                    range: start..end,
                    english,
                    chinese,
                });
                i += len;
            }
            None => i += 1,
        }
    }
    out
}

/// Whether two words stand next to each other, with only spaces or a hyphen between (on-time, on time).
fn adjacent(text: &str, a: &Range<usize>, b: &Range<usize>) -> bool {
    text.get(a.end..b.start)
        .is_some_and(|between| between.chars().all(|c| c == ' ' || c == '-'))
}

/// The English entries (base forms) whose equivalents include a Chinese word (超时 → delay, late, overdue …).
pub fn english_of(chinese: &str) -> Vec<&'static str> {
    VOCABULARY
        .iter()
        .filter(|(_, equivalents)| equivalents.contains(&chinese))
        .map(|(english, _)| *english)
        .collect()
}

/// Whether a text's words, at a byte range, are one of the English entries for a Chinese word.
pub fn spells(text: &str, chinese: &str) -> Option<Translation> {
    translations(text).into_iter().find(|t| t.chinese.contains(&chinese))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chinese(text: &str) -> Vec<(&str, &'static [&'static str])> {
        translations(text)
            .into_iter()
            .map(|t| (text.get(t.range).unwrap_or_default(), t.chinese))
            .collect()
    }

    #[test]
    fn words_and_phrases_are_translated() {
        assert_eq!(
            chinese("late payments by customer"),
            vec![
                ("late", &["超时", "延误", "迟到"][..]),
                ("payments", &["支付", "付款"][..]),
                ("customer", &["客户"][..])
            ]
        );
        assert_eq!(chinese("the on-time rate")[0], ("on-time", &["准时", "准点"][..]));
        assert_eq!(
            chinese("bad reviews")[0],
            ("bad reviews", &["差评"][..]),
            "the phrase wins"
        );
        assert!(
            chinese("on, time").iter().all(|(w, _)| *w != "on, time"),
            "a comma parts words"
        );
        assert!(chinese("latest").is_empty(), "whole words only");
    }

    #[test]
    fn chinese_words_lead_back_to_english() {
        let english = english_of("逾期");
        assert_eq!(english, vec!["overdue"]);
        assert!(english_of("超时").contains(&"delay"));
        assert!(spells("were they delayed", "超时").is_some());
        assert!(spells("were they early", "超时").is_none());
    }
}
