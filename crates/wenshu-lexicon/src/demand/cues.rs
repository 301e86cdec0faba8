//! The cue words of demands: general Chinese and English, nothing of any catalog.

use super::{Aggregate, Baseline, Grain, Order, ThresholdOp};

/// What a cue word starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cue {
    /// 各X, 每个X, 按X, 哪个X: a grouping by the word after it.
    GroupBefore,
    /// 分X: a grouping only at the start of a clause (部分 is no grouping).
    GroupSplit,
    /// 分别, 各自: each of the things named.
    Each,
    /// daily, monthly: a grouping by that time grain (English adjectives of time).
    Grain(Grain),
    /// 最高, 最低: a superlative.
    Superlative(Order),
    /// 最大, 最小: a superlative when the question asks "which", else an aggregate.
    Extreme(Order),
    /// 排名, 排行: a ranking.
    Ranking,
    /// 倒数 N: the last N.
    Bottom,
    /// 排第, 第几, 第N高: one place of a ranking (the second highest), not its top.
    Ordinal,
    /// 对比, 比较, vs: a comparison.
    Compare,
    /// 环比, 同比: a period over period.
    Period(Baseline),
    /// 比, 较, 和…比: a comparison with the period named after it.
    Against,
    /// 增长, 下降: a change.
    Change,
    /// 平均, 占比, 合计, 数量: an aggregate.
    Aggregate(Aggregate),
    /// 多少, 几: a count when a count word follows.
    HowMany,
    /// 超过 N: a threshold before the number.
    ThresholdBefore(ThresholdOp),
    /// N 以上: a threshold after the number.
    ThresholdAfter(ThresholdOp),
    /// 明细, 列表: rows.
    List,
    /// 和, 与, 、: things named together.
    Joined,
}

use Cue::*;

/// Every cue word; the scanner takes the longest at each position. ASCII words match whole words only.
pub(super) const CUES: &[(&str, Cue)] = &[
    // Grouping.
    ("各个", GroupBefore),
    ("各", GroupBefore),
    ("每一个", GroupBefore),
    ("每个", GroupBefore),
    ("每一", GroupBefore),
    ("每位", GroupBefore),
    ("每家", GroupBefore),
    ("每款", GroupBefore),
    ("每部", GroupBefore),
    ("每条", GroupBefore),
    ("每种", GroupBefore),
    ("每", GroupBefore),
    ("按照", GroupBefore),
    ("按", GroupBefore),
    ("逐", GroupBefore),
    ("哪一个", GroupBefore),
    ("哪个", GroupBefore),
    ("哪些", GroupBefore),
    ("哪几个", GroupBefore),
    ("哪几", GroupBefore),
    ("哪一", GroupBefore),
    ("哪家", GroupBefore),
    ("哪位", GroupBefore),
    ("哪部", GroupBefore),
    ("哪款", GroupBefore),
    ("哪种", GroupBefore),
    ("哪条", GroupBefore),
    ("哪", GroupBefore),
    ("分", GroupSplit),
    ("by", GroupBefore),
    ("per", GroupBefore),
    ("each", GroupBefore),
    ("every", GroupBefore),
    ("which", GroupBefore),
    ("分别", Each),
    ("各自", Each),
    ("respectively", Each),
    ("daily", Grain(Grain::Day)),
    ("weekly", Grain(Grain::Week)),
    ("monthly", Grain(Grain::Month)),
    ("quarterly", Grain(Grain::Quarter)),
    ("yearly", Grain(Grain::Year)),
    ("annual", Grain(Grain::Year)),
    // Superlatives and rankings.
    ("最高", Superlative(Order::Highest)),
    ("最多", Superlative(Order::Highest)),
    ("最好", Superlative(Order::Highest)),
    ("最棒", Superlative(Order::Highest)),
    ("最佳", Superlative(Order::Highest)),
    ("最强", Superlative(Order::Highest)),
    ("最火", Superlative(Order::Highest)),
    ("最畅销", Superlative(Order::Highest)),
    ("最贵", Superlative(Order::Highest)),
    ("最低", Superlative(Order::Lowest)),
    ("最差", Superlative(Order::Lowest)),
    ("最少", Superlative(Order::Lowest)),
    ("最弱", Superlative(Order::Lowest)),
    ("最便宜", Superlative(Order::Lowest)),
    ("垫底", Superlative(Order::Lowest)),
    ("最大", Extreme(Order::Highest)),
    ("最小", Extreme(Order::Lowest)),
    ("highest", Superlative(Order::Highest)),
    ("most", Superlative(Order::Highest)),
    ("best", Superlative(Order::Highest)),
    ("lowest", Superlative(Order::Lowest)),
    ("least", Superlative(Order::Lowest)),
    ("worst", Superlative(Order::Lowest)),
    ("fewest", Superlative(Order::Lowest)),
    ("largest", Extreme(Order::Highest)),
    ("biggest", Extreme(Order::Highest)),
    ("smallest", Extreme(Order::Lowest)),
    ("排名第", Ordinal),
    ("排在第", Ordinal),
    ("排第", Ordinal),
    ("第几", Ordinal),
    ("第", Ordinal),
    ("排行榜", Ranking),
    ("排名", Ranking),
    ("排行", Ranking),
    ("名次", Ranking),
    ("排序", Ranking),
    ("ranking", Ranking),
    ("rank", Ranking),
    ("top", Ranking),
    ("倒数", Bottom),
    ("bottom", Bottom),
    // Comparisons.
    ("对比", Compare),
    ("比较", Compare),
    ("相比", Compare),
    ("多还是少", Compare),
    ("高还是低", Compare),
    ("差多少", Compare),
    ("差距", Compare),
    ("相差", Compare),
    ("versus", Compare),
    ("vs", Compare),
    ("compare", Compare),
    ("compared", Compare),
    ("环比", Period(Baseline::Previous)),
    ("同比", Period(Baseline::YearAgo)),
    ("去年同期", Period(Baseline::YearAgo)),
    ("同期", Period(Baseline::YearAgo)),
    ("month over month", Period(Baseline::Previous)),
    ("mom", Period(Baseline::Previous)),
    ("year over year", Period(Baseline::YearAgo)),
    ("yoy", Period(Baseline::YearAgo)),
    ("相较于", Against),
    ("相较", Against),
    ("比起", Against),
    ("比", Against),
    ("较", Against),
    ("than", Against),
    ("增长率", Change),
    ("增长", Change),
    ("增加", Change),
    ("下降", Change),
    ("下滑", Change),
    ("减少", Change),
    ("涨了", Change),
    ("跌了", Change),
    ("涨幅", Change),
    ("跌幅", Change),
    ("增幅", Change),
    ("降幅", Change),
    ("增速", Change),
    ("多了多少", Change),
    ("少了多少", Change),
    ("growth", Change),
    ("increase", Change),
    ("decrease", Change),
    ("change", Change),
    // Aggregates.
    ("平均值", Aggregate(Aggregate::Average)),
    ("平均", Aggregate(Aggregate::Average)),
    ("均值", Aggregate(Aggregate::Average)),
    ("人均", Aggregate(Aggregate::Average)),
    ("日均", Aggregate(Aggregate::Average)),
    ("均价", Aggregate(Aggregate::Average)),
    ("average", Aggregate(Aggregate::Average)),
    ("avg", Aggregate(Aggregate::Average)),
    ("mean", Aggregate(Aggregate::Average)),
    ("占比", Aggregate(Aggregate::Share)),
    ("比例", Aggregate(Aggregate::Share)),
    ("比重", Aggregate(Aggregate::Share)),
    ("份额", Aggregate(Aggregate::Share)),
    ("百分之几", Aggregate(Aggregate::Share)),
    ("百分比", Aggregate(Aggregate::Share)),
    ("占多少", Aggregate(Aggregate::Share)),
    ("share", Aggregate(Aggregate::Share)),
    ("proportion", Aggregate(Aggregate::Share)),
    ("percentage", Aggregate(Aggregate::Share)),
    ("合计", Aggregate(Aggregate::Total)),
    ("总计", Aggregate(Aggregate::Total)),
    ("总共", Aggregate(Aggregate::Total)),
    ("一共", Aggregate(Aggregate::Total)),
    ("总和", Aggregate(Aggregate::Total)),
    ("累计", Aggregate(Aggregate::Total)),
    ("汇总", Aggregate(Aggregate::Total)),
    ("total", Aggregate(Aggregate::Total)),
    ("how much", Aggregate(Aggregate::Total)),
    ("的总", Aggregate(Aggregate::Total)),
    ("sum", Aggregate(Aggregate::Total)),
    ("订单量", Aggregate(Aggregate::Count)),
    ("订单数", Aggregate(Aggregate::Count)),
    ("单量", Aggregate(Aggregate::Count)),
    ("单数", Aggregate(Aggregate::Count)),
    ("笔数", Aggregate(Aggregate::Count)),
    ("人数", Aggregate(Aggregate::Count)),
    ("次数", Aggregate(Aggregate::Count)),
    ("个数", Aggregate(Aggregate::Count)),
    ("件数", Aggregate(Aggregate::Count)),
    ("数量", Aggregate(Aggregate::Count)),
    ("how many", Aggregate(Aggregate::Count)),
    ("number of", Aggregate(Aggregate::Count)),
    ("count", Aggregate(Aggregate::Count)),
    ("多少", HowMany),
    ("几", HowMany),
    // Thresholds.
    ("不少于", ThresholdBefore(ThresholdOp::AtLeast)),
    ("不低于", ThresholdBefore(ThresholdOp::AtLeast)),
    ("不小于", ThresholdBefore(ThresholdOp::AtLeast)),
    ("至少", ThresholdBefore(ThresholdOp::AtLeast)),
    ("起码", ThresholdBefore(ThresholdOp::AtLeast)),
    ("达到", ThresholdBefore(ThresholdOp::AtLeast)),
    ("超过", ThresholdBefore(ThresholdOp::Above)),
    ("超出", ThresholdBefore(ThresholdOp::Above)),
    ("大于", ThresholdBefore(ThresholdOp::Above)),
    ("高于", ThresholdBefore(ThresholdOp::Above)),
    ("多于", ThresholdBefore(ThresholdOp::Above)),
    ("不超过", ThresholdBefore(ThresholdOp::AtMost)),
    ("不高于", ThresholdBefore(ThresholdOp::AtMost)),
    ("不大于", ThresholdBefore(ThresholdOp::AtMost)),
    ("至多", ThresholdBefore(ThresholdOp::AtMost)),
    ("低于", ThresholdBefore(ThresholdOp::Below)),
    ("小于", ThresholdBefore(ThresholdOp::Below)),
    ("少于", ThresholdBefore(ThresholdOp::Below)),
    ("不到", ThresholdBefore(ThresholdOp::Below)),
    ("不足", ThresholdBefore(ThresholdOp::Below)),
    ("more than", ThresholdBefore(ThresholdOp::Above)),
    ("greater than", ThresholdBefore(ThresholdOp::Above)),
    ("over", ThresholdBefore(ThresholdOp::Above)),
    ("above", ThresholdBefore(ThresholdOp::Above)),
    ("at least", ThresholdBefore(ThresholdOp::AtLeast)),
    ("less than", ThresholdBefore(ThresholdOp::Below)),
    ("fewer than", ThresholdBefore(ThresholdOp::Below)),
    ("under", ThresholdBefore(ThresholdOp::Below)),
    ("below", ThresholdBefore(ThresholdOp::Below)),
    ("at most", ThresholdBefore(ThresholdOp::AtMost)),
    ("以上", ThresholdAfter(ThresholdOp::AtLeast)),
    ("以下", ThresholdAfter(ThresholdOp::AtMost)),
    ("以内", ThresholdAfter(ThresholdOp::AtMost)),
    // Rows.
    ("明细", List),
    ("列表", List),
    ("清单", List),
    ("详情", List),
    ("有哪些", List),
    ("列出来", List),
    ("列出", List),
    ("列一下", List),
    ("列举", List),
    ("罗列", List),
    ("逐笔", List),
    ("每一笔", List),
    ("每笔", List),
    ("list", List),
    ("details", List),
    ("detail", List),
    // Things named together.
    ("以及", Joined),
    ("和", Joined),
    ("与", Joined),
    ("跟", Joined),
    ("及", Joined),
    ("、", Joined),
    ("and", Joined),
];

/// Words that count things after 多少 / 几 (多少单, 几个): the answer is a count. Measure words of goods (件, 套)
/// are left out: 卖了多少套 asks for a quantity, not a count of rows.
pub(super) const COUNT_WORDS: &[char] = &[
    '单', '笔', '人', '个', '次', '家', '位', '名', '条', '项', '户', '起', '例', '宗',
];

/// Earlier periods a comparison is made against (比上月, 和去年比), longest first.
pub(super) const BASELINES: &[&str] = &[
    "上一个季度",
    "上一个月",
    "上个季度",
    "上个星期",
    "上一季度",
    "上个月",
    "上一年",
    "上一周",
    "上一期",
    "上季度",
    "上星期",
    "上半年",
    "前一天",
    "前一周",
    "上月",
    "上周",
    "上季",
    "上年",
    "上期",
    "去年",
    "前年",
    "昨天",
    "前天",
    "last month",
    "last week",
    "last year",
    "last quarter",
];

/// Characters that end the word after a grouping cue (各产品的 → 产品), from its second character on.
pub(super) const TARGET_STOPS: &[char] = &[
    '的', '各', '分', '都', '是', '有', '在', '卖', '成', '签', '销', '统', '一', '总', '了', '里', '中', '和', '与',
    '跟', '及', '最', '排', '前', '比', '占', '平', '均', '多', '少', '几', '怎', '如', '为', '做', '这', '那', '上',
    '下', '本', '今', '去', '对', '按', '每', '哪', '谁', '被', '给', '把', '看', '要', '共', '呢', '吗', '啊', '、',
];

/// Characters that cannot start the word after a grouping cue (各是多少, 哪里).
pub(super) const TARGET_FIRST_STOPS: &[char] = &[
    '的', '是', '了', '自', '有', '在', '都', '别', '为', '里', '儿', '怕', '么', '样', '卖', '成', '签', '被', '给',
    '把', '看', '要', '来', '去', '就', '也', '还', '人',
];

/// Words after 按 that are not groupings (按时, 按期).
pub(super) const NOT_GROUPING_AFTER_AN: &[char] = &['时', '期', '揭', '钮', '摩', '键', '住', '下', '规', '要'];

/// Words after 分 that are not groupings (分别, 分钟, 分析).
pub(super) const NOT_GROUPING_AFTER_FEN: &[char] = &[
    '别', '钟', '析', '数', '享', '配', '期', '布', '成', '开', '之', '手', '红', '量', '公', '店', '行', '类', '发',
    '拣', '批', '摊', '担', '解', '散', '离', '裂', '页', '段', '子',
];

/// Characters that end the measure before a superlative, read backwards (上个月销量最高 → 销量).
pub(super) const MEASURE_STOPS: &[char] = &[
    '的', '在', '是', '了', '里', '中', '和', '与', '跟', '谁', '哪', '个', '月', '年', '周', '天', '季', '度', '最',
    '得', '排', '被', '区', '按', '各', '每', '、',
];

/// Words after 第N that make it a place of a ranking (第二高, 第3多, 第五名).
pub(super) const ORDINAL_ENDS: &[char] = &['高', '多', '大', '低', '少', '小', '好', '差', '名', '位'];
