//! One demand against what a call offers: met, or the words of what cannot be done.

use serde_json::{Map, Value};
use wenshu_contract::Tool;
use wenshu_contract::answers::{RankOrder, Shape};
use wenshu_lexicon::canonical::{canonical, is_han};
use wenshu_lexicon::demand::{Aggregate, Demand, DemandKind, Order};
use wenshu_lexicon::filler::restricts_nothing;

use super::Unmet;
use super::message::{grain_zh, unmet};
use crate::offer::Offer;
use wenshu_lexicon::words::quantity::COUNTED;

/// Last characters of Chinese measure nouns (单价, 金额, 比率, 数量): a ranking by such a word is by that measure.
const MEASURE_ENDS: &[char] = &['价', '额', '率', '量', '值', '费', '比', '数', '分'];

/// Whether a word of the question names one of `words`: either holds the other (canonical), at least one
/// character long.
pub fn names(word: &str, words: &[String]) -> bool {
    let w = canonical(word);
    !w.is_empty()
        && words.iter().any(|x| {
            let x = canonical(x);
            !x.is_empty() && (w.contains(&x) || (w.chars().count() >= 2 && x.contains(&w)))
        })
}

/// Whether the demand's dimension word starts one of `words` or one starts it (各销售 ↔ 销售员).
fn same_dimension(target: &str, words: &[String]) -> bool {
    let t = canonical(target);
    words.iter().any(|w| {
        let w = canonical(w);
        let long = |s: &str| s.chars().count() >= 2;
        !w.is_empty()
            && (t.starts_with(&w) || w.starts_with(&t) || (long(&t) && w.contains(&t)) || (long(&w) && t.contains(&w)))
    })
}

/// Whether a measure's word starts with `phrase`'s first two characters (每单 of 每单运费 when a measure is called
/// 每单运费): the phrase is that word, not a grouping.
fn word_of_measure(phrase: &str, offer: &Offer) -> bool {
    let head: String = canonical(phrase).chars().take(2).collect();
    head.chars().count() == 2 && offer.measures.iter().any(|m| canonical(m).starts_with(&head))
}

/// Whether `demand` is met by `offer`; `all` are every demand of the question.
pub fn meets(
    demand: &Demand,
    offer: &Offer,
    tool: &Tool,
    arguments: &Map<String, Value>,
    all: &[Demand],
) -> Result<(), Unmet> {
    let words = demand.words.as_str();
    let target = demand.target.as_deref();
    match demand.kind {
        DemandKind::Group { grain: Some(grain) } => {
            let want = grain;
            // 平均每个月: a mean per month meets the grouping by month it is computed over.
            let per_bucket = offer.aggregates.contains(&wenshu_lexicon::demand::Aggregate::Average);
            // 哪天…最高: a ranking of the buckets is grouped by them.
            let bucketed = matches!(offer.shape, Some(Shape::Series | Shape::Ranked));
            if (bucketed || per_bucket) && offer.grain == Some(want) {
                return Ok(());
            }
            let zh = grain_zh(grain);
            Err(unmet(
                &demand_words(demand),
                format!("不能按{zh}分组"),
                format!("cannot group by {}", grain.name()),
            ))
        }
        DemandKind::Group { grain: None } => {
            // A metric call's series is grouped by its dimensions too (各地区每月的销售额).
            let grouped = matches!(offer.shape, Some(Shape::Grouped | Shape::Ranked))
                || (offer.shape == Some(Shape::Series) && offer.source == "x-metrics" && target.is_some());
            match target {
                Some(t) if grouped && same_dimension(t, &offer.dimension) => Ok(()),
                // 每个订单的销售额: a ratio per order, no grouping by orders.
                Some(t) if names(t, &offer.ratio_per) => Ok(()),
                // 每单运费 where that is a measure's own word.
                Some(t) if word_of_measure(&format!("{words}{t}"), offer) => Ok(()),
                // A和B哪个票房高: 哪个 before a measure asks which of the rows shown is higher.
                Some(t) if grouped && offer.source == "x-metrics" && names(t, &offer.measures) => Ok(()),
                // 哪个X…最高: the ranking decides, by the same dimension.
                Some(t) => Err(unmet(
                    &demand_words(demand),
                    format!("不能按{t}分组"),
                    format!("cannot group by {t}"),
                )),
                None if grouped || offer.shape == Some(Shape::Series) => Ok(()),
                None => Err(unmet(
                    words,
                    "不能分别列出".into(),
                    "cannot list each separately".into(),
                )),
            }
        }
        DemandKind::Rank { order, top } => rank(demand, offer, order, top, arguments, all),
        DemandKind::Sort { order } => sort(demand, offer, order, arguments, all),
        // The mean is no median, nor the median a mean.
        DemandKind::Relative { median, .. } if median != offer.relative_median && offer.relative.is_some() => {
            Err(unmet(
                words,
                format!(
                    "比较的是{}，不是{}",
                    if offer.relative_median { "中位数" } else { "平均" },
                    if median { "中位数" } else { "平均" }
                ),
                format!(
                    "compares with the {} rather than the {}",
                    if offer.relative_median { "median" } else { "mean" },
                    if median { "median" } else { "mean" }
                ),
            ))
        }
        DemandKind::Relative { .. } => match (&offer.relative, target) {
            (Some(parent), None) if parent.is_empty() => Ok(()),
            // 各地区…高于平均的产品: the mean of each region, as the distributing grouping says.
            (Some(parent), None)
                if all.iter().any(|g| {
                    wenshu_lexicon::demand::distributes(g)
                        && g.target.as_deref().is_some_and(|t| same_dimension(t, parent))
                }) =>
            {
                Ok(())
            }
            (Some(parent), Some(t)) if same_dimension(t, parent) => Ok(()),
            _ => Err(unmet(
                words,
                format!("不能和平均比较：{words}"),
                format!("cannot compare with the mean: {words}"),
            )),
        },
        DemandKind::Combine if offer.combined => Ok(()),
        DemandKind::Combine => Err(unmet(
            words,
            format!("不能把两个指标相除或相减：{words}"),
            format!("cannot divide or subtract two measures: {words}"),
        )),
        DemandKind::Cumulative if offer.cumulative => Ok(()),
        DemandKind::Cumulative => Err(unmet(
            words,
            format!("不能算累计值：{words}"),
            format!("cannot compute running totals: {words}"),
        )),
        // Rows side by side compare what the question groups by (or, for a metric call, the values it named); a
        // ranking of something the question never names compares nothing it asked (compared with the month before).
        DemandKind::Compare => match offer.shape {
            Some(Shape::Grouped | Shape::Ranked)
                if offer.source == "x-metrics" || all.iter().any(|d| matches!(d.kind, DemandKind::Group { .. })) =>
            {
                Ok(())
            }
            _ if !offer.periods.is_empty() => Ok(()),
            _ => Err(unmet(words, "不支持对比".into(), "cannot compare".into())),
        },
        DemandKind::Joined => Ok(()),
        // No offer says which place of a ranking it shows: 第二高 / 排第几 is never answered by a top or a total.
        DemandKind::Ordinal => Err(unmet(
            words,
            format!("不支持取排名中的某一位：{words}"),
            format!("cannot take one place of a ranking: {words}"),
        )),
        DemandKind::Period { baseline } => {
            if offer.periods.contains(&baseline) {
                return Ok(());
            }
            let (zh, en) = match baseline {
                wenshu_lexicon::demand::Baseline::Previous => {
                    ("不支持环比".to_string(), "no period-over-period comparison".to_string())
                }
                wenshu_lexicon::demand::Baseline::YearAgo => {
                    ("不支持同比".to_string(), "no year-over-year comparison".to_string())
                }
                wenshu_lexicon::demand::Baseline::Named => {
                    let t = target.unwrap_or("另一时段");
                    (format!("不支持与{t}对比"), format!("cannot compare with {t}"))
                }
            };
            Err(unmet(&demand_words(demand), zh, en))
        }
        DemandKind::Change => {
            if offer.periods.is_empty() {
                Err(unmet(words, "不支持计算增减".into(), "cannot compute a change".into()))
            } else {
                Ok(())
            }
        }
        DemandKind::Aggregate { of } => aggregate(demand, offer, of, all),
        DemandKind::Threshold { op, value } => {
            if offer.thresholds.iter().any(|n| (n - value).abs() < 1e-9) {
                return Ok(());
            }
            let measure = demand.measure.as_deref().unwrap_or("数值");
            let n = wenshu_lexicon::numeral::integer_of(value).map_or_else(|| value.to_string(), |i| i.to_string());
            let (zh_op, en_op) = super::message::threshold_words(op);
            Err(unmet(
                &demand_words(demand),
                format!("不支持按{measure}{zh_op}{n}筛选"),
                format!("cannot filter {measure} {en_op} {n}"),
            ))
        }
        DemandKind::List => {
            // 超过9分的电影有哪些: the things listed are the rows of a grouping by them.
            let grouped_by_them = matches!(offer.shape, Some(Shape::Grouped | Shape::Ranked))
                && demand
                    .measure
                    .as_deref()
                    .is_some_and(|t| same_dimension(t, &offer.dimension));
            if offer.shape == Some(Shape::Rows) || grouped_by_them {
                Ok(())
            } else {
                let _ = tool;
                Err(unmet(words, "不能列出明细".into(), "cannot list the records".into()))
            }
        }
    }
}

/// A ranking: the shape, the end, the measure, the dimension and the number of places.
/// An order asked for: by a dimension the rows are grouped by (按地区排序) only where the call sorts by it, the
/// way asked; by anything else (a measure, or nothing named) it is a ranking, highest first unless said.
fn sort(
    demand: &Demand,
    offer: &Offer,
    order: Option<Order>,
    arguments: &Map<String, Value>,
    all: &[Demand],
) -> Result<(), Unmet> {
    let measure_words = || offer.measures.iter().chain(&offer.order_by);
    let by_dimension = demand.target.as_deref().filter(|t| {
        let exact_measure = measure_words().any(|m| canonical(m) == canonical(t));
        let measure = names(t, &offer.measures) || names(t, &offer.order_by);
        // 按销售升序 beside 销售额: a dimension's word the measure's only holds is the dimension.
        !exact_measure
            && (same_dimension(t, &offer.dimension) || same_dimension(t, &offer.sorted_by) || !measure)
            && (offer.source == "x-metrics" || same_dimension(t, &offer.dimension))
    });
    let Some(target) = by_dimension else {
        // 按销售额排序: a ranking by the measure its target names.
        let mut ranking = demand.clone();
        let by = ranking.target.take();
        ranking.measure = ranking.measure.take().or(by);
        return rank(&ranking, offer, order.unwrap_or(Order::Highest), None, arguments, all);
    };
    let words = demand_words(demand);
    if !same_dimension(target, &offer.sorted_by) {
        return Err(unmet(
            &words,
            format!("不能按{target}排序"),
            format!("cannot sort by {target}"),
        ));
    }
    let way_ok = match order {
        None => true,
        Some(Order::Lowest) => offer.sorted == RankOrder::Asc,
        Some(Order::Highest) => offer.sorted == RankOrder::Desc,
    };
    if !way_ok {
        return Err(unmet(
            &words,
            format!("排序方向不对：{words}"),
            format!("sorted the other way: {words}"),
        ));
    }
    Ok(())
}

fn rank(
    demand: &Demand,
    offer: &Offer,
    order: Order,
    top: Option<u32>,
    arguments: &Map<String, Value>,
    all: &[Demand],
) -> Result<(), Unmet> {
    let words = demand_words(demand);
    if offer.shape != Some(Shape::Ranked) {
        return Err(unmet(&words, "不能排名".into(), "cannot rank".into()));
    }
    let end_ok = !order_stated(demand, top)
        || matches!(
            (order, offer.order),
            (_, RankOrder::Both) | (Order::Highest, RankOrder::Desc) | (Order::Lowest, RankOrder::Asc)
        );
    if !end_ok {
        let (zh, en) = match order {
            Order::Lowest => ("不能从低到高排名", "cannot rank from the bottom"),
            Order::Highest => ("不能从高到低排名", "cannot rank from the top"),
        };
        return Err(unmet(&words, zh.into(), en.into()));
    }
    if let Some(measure) = demand.measure.as_deref().filter(|_| !offer.order_by.is_empty()) {
        let by_order = names(measure, &offer.order_by);
        let other_measure = offer
            .measures
            .iter()
            .any(|m| !offer.order_by.contains(m) && names(measure, std::slice::from_ref(m)));
        let counted = COUNTED.iter().any(|c| canonical(measure).ends_with(&canonical(c)));
        // A word ending like a measure noun (客单价, 转化率) that the call does not order by is another measure.
        let measure_like = MEASURE_ENDS.iter().any(|c| canonical(measure).ends_with(*c));
        if !by_order && (other_measure || counted || measure_like) {
            let by = offer.order_by.first().cloned().unwrap_or_default();
            return Err(unmet(
                &words,
                format!("不能按{measure}排名（只能按{by}排名）"),
                format!("cannot rank by {measure} (only by {by})"),
            ));
        }
    }
    let dimension_targets = demand
        .target
        .iter()
        .map(String::as_str)
        .chain(all.iter().filter_map(|d| match d.kind {
            DemandKind::Group { grain: None } => d.target.as_deref(),
            _ => None,
        }))
        // 按销售额排名: the word after 按 is the measure ranked by, no dimension.
        .filter(|t| !names(t, &offer.order_by));
    // `which region had the highest sales`: an English superlative's noun is its measure when the question's
    // grouping already names the dimension.
    let grouped_here = all.iter().any(|d| {
        d.kind == (DemandKind::Group { grain: None })
            && d.target.as_deref().is_some_and(|t| same_dimension(t, &offer.dimension))
    });
    let own_target = demand.target.as_deref();
    for t in dimension_targets {
        if grouped_here && t.is_ascii() && Some(t) == own_target {
            continue;
        }
        // An undeclared tool's own words may be in another language than the question's.
        let unknown_language = offer.source == "spellings" && t.is_ascii();
        if !offer.dimension.is_empty() && !unknown_language && !same_dimension(t, &offer.dimension) {
            return Err(unmet(&words, format!("不能按{t}排名"), format!("cannot rank {t}")));
        }
    }
    // 每个地区销售额最高的产品: only a ranking inside each of those groups meets it, never one ranked list; and
    // a ranking inside groups meets only a question that asks for one.
    // 每单销售额最高的销售: 每单 is a ratio per order, not a grouping to rank within.
    let within = demand.within.as_deref().filter(|g| !names(g, &offer.ratio_per));
    match (within, offer.within_top) {
        (Some(groups), Some(keep)) if same_dimension(groups, &offer.within) || grain_named(groups, &offer.within) => {
            if let Some(n) = top.filter(|n| *n != keep) {
                return Err(unmet(
                    &words,
                    format!("没有在每组取前 {n} 名（取了 {keep} 个）"),
                    format!("the top {n} of each group were not taken ({keep} were)"),
                ));
            }
            return Ok(());
        }
        (Some(groups), _) => {
            return Err(unmet(
                &words,
                format!("不能在每个{groups}里分别排名"),
                format!("cannot rank within each {groups}"),
            ));
        }
        (None, Some(_)) => {
            return Err(unmet(
                &words,
                "问题没有要在每组里分别排名".into(),
                "the question asks no ranking within groups".into(),
            ));
        }
        (None, None) => {}
    }
    if let (Some(n), Some((param, bound))) = (top, &offer.limit)
        && u64::from(n) != *bound
        && arguments.get(param).is_some()
    {
        return Err(unmet(
            &words,
            format!("没有取前 {n} 名（取了 {bound} 个）"),
            format!("the top {n} were not taken ({bound} were)"),
        ));
    }
    Ok(())
}

/// Whether a grouping word by time (月 of 每个月, month) names one of a time bucket's words.
fn grain_named(groups: &str, words: &[String]) -> bool {
    let g = canonical(groups).to_lowercase();
    words.iter().any(|w| {
        let w = canonical(w).to_lowercase();
        !w.is_empty() && g.starts_with(&w)
    })
}

/// Whether a ranking says which end (最高, 倒数, 前N), not only 排名 / 排行.
fn order_stated(demand: &Demand, top: Option<u32>) -> bool {
    const ENDS: &[&str] = &[
        "最", "倒数", "垫底", "bottom", "highest", "lowest", "most", "least", "best", "worst", "fewest", "largest",
        "biggest", "smallest",
    ];
    top.is_some() || ENDS.iter().any(|w| demand.words.to_lowercase().contains(w))
}

/// A count of something the call does not count, when the offer declares what it counts (订单, 单): 多少人 is a
/// count of people and 多少个销售员 one of sales people, never of the rows.
pub fn uncounted(demand: &Demand, offer: &Offer, question: &str) -> Option<Unmet> {
    if offer.counted.is_empty() || demand.kind != (DemandKind::Aggregate { of: Aggregate::Count }) {
        return None;
    }
    let target = demand.target.as_deref().filter(|t| !t.is_empty())?;
    // A classifier other than one of people (个 of 多少个订单) names the thing written after it.
    let thing = if target.chars().count() == 1 && !"人位名".contains(target) {
        word_after(question, demand.range.end)?
    } else {
        target.to_string()
    };
    let counts_it = |c: &String| thing.contains(c.as_str()) || c.contains(thing.as_str());
    if offer.counted.iter().any(counts_it) {
        return None;
    }
    let shown = offer.counted.join("、");
    Some(unmet(
        &demand.words,
        format!("不能数有多少{thing}（只能数{shown}）"),
        format!("cannot count {thing} (only {shown})"),
    ))
}

/// The Chinese word written at `at`: its first Han character and those after it up to one that restricts nothing
/// (销售员 of 销售员有成交, 地区 of 地区有成交).
fn word_after(question: &str, at: usize) -> Option<String> {
    let word: String = question
        .get(at..)?
        .chars()
        .enumerate()
        .take_while(|(i, c)| is_han(*c) && (*i == 0 || !restricts_nothing(*c)))
        .map(|(_, c)| c)
        .collect();
    (!word.is_empty()).then_some(word)
}

/// An aggregate: average, share, max and min only when computed; a total unless the rows are records; a count
/// when one is shown.
fn aggregate(demand: &Demand, offer: &Offer, of: Aggregate, all: &[Demand]) -> Result<(), Unmet> {
    let words = demand.words.as_str();
    // 一共 over a range is one number; a series totals only per bucket, which 每天一共 asks for.
    let by_time = all.iter().any(|d| d.grain().is_some());
    let ok = match of {
        Aggregate::Total => offer.shape != Some(Shape::Rows) && (offer.shape != Some(Shape::Series) || by_time),
        Aggregate::Count => offer.counts,
        other => offer.aggregates.contains(&other),
    };
    if ok {
        return Ok(());
    }
    let (zh, en) = match of {
        Aggregate::Average => ("不支持求平均", "cannot average"),
        Aggregate::Share => ("不支持算占比", "cannot compute a share"),
        Aggregate::Max => ("不支持求最大值", "cannot take the largest value"),
        Aggregate::Min => ("不支持求最小值", "cannot take the smallest value"),
        Aggregate::Total if offer.shape == Some(Shape::Series) => ("不能合计成一个总数", "cannot sum into one total"),
        Aggregate::Total => ("不能合计明细", "cannot total the records"),
        Aggregate::Count => ("不支持计数", "cannot count"),
    };
    Err(unmet(words, zh.into(), en.into()))
}

/// The words of a demand for a message: the cue with its target (各产品), else the cue.
fn demand_words(demand: &Demand) -> String {
    match &demand.target {
        Some(t) if !demand.words.contains(t.as_str()) => format!("{}{t}", demand.words),
        _ => demand.words.clone(),
    }
}
