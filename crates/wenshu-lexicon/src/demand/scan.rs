//! The demand scanner: the longest cue at each position, its target and measure, then one ranking per sentence.

use std::ops::Range;

use super::cues::{
    BASELINES, COUNT_WORDS, CUES, Cue, MEASURE_STOPS, NOT_GROUPING_AFTER_AN, NOT_GROUPING_AFTER_FEN, ORDINAL_ENDS,
    TARGET_FIRST_STOPS, TARGET_STOPS,
};
use super::{Aggregate, Demand, DemandKind, Grain, Order};
use crate::canonical::is_han;
use crate::numeral::NumeralKind;
use crate::text::Folded;
use crate::{Span, SpanKind, SpanValue};

/// The longest a target or measure word is read, in characters.
const MAX_WORD: usize = 4;

/// A numeral of the sentence, in characters.
struct Num {
    chars: Range<usize>,
    value: f64,
    kind: NumeralKind,
}

/// The sentence being read.
struct Reader<'a> {
    s: &'a [char],
    folded: &'a Folded,
    text: &'a str,
    numbers: Vec<Num>,
    times: Vec<Range<usize>>,
    asks_which: bool,
}

/// Whether `c` belongs to a word (CJK or ASCII letter or digit).
fn is_wordish(c: char) -> bool {
    is_han(c) || c.is_ascii_alphanumeric()
}

impl<'a> Reader<'a> {
    /// The original text of the characters `range`.
    fn slice(&self, range: Range<usize>) -> String {
        self.text.get(self.folded.bytes(range)).unwrap_or_default().to_string()
    }

    /// The character at `i`.
    fn at(&self, i: usize) -> Option<char> {
        self.s.get(i).copied()
    }

    /// Whether the folded characters at `i` spell `lit`.
    fn looking_at(&self, i: usize, lit: &str) -> bool {
        lit.chars().enumerate().all(|(k, c)| self.at(i + k) == Some(c))
    }

    /// The longest cue at `i`, with its length in characters.
    fn cue_at(&self, i: usize) -> Option<(Cue, usize)> {
        let mut best: Option<(Cue, usize)> = None;
        for (word, cue) in CUES {
            let len = word.chars().count();
            if best.is_some_and(|(_, l)| l >= len) || !self.looking_at(i, word) {
                continue;
            }
            if word.is_ascii() {
                let before_ok = i == 0 || !self.at(i - 1).is_some_and(|c| c.is_ascii_alphanumeric());
                let after_ok = !self.at(i + len).is_some_and(|c| c.is_ascii_alphanumeric());
                if !before_ok || !after_ok {
                    continue;
                }
            }
            best = Some((*cue, len));
        }
        best
    }

    /// Whether a time expression starts at `i`.
    fn time_at(&self, i: usize) -> Option<usize> {
        self.times.iter().find(|t| t.start == i).map(|t| t.end)
    }

    /// A numeral that is no part of a time expression, starting at `i` (after spaces).
    fn number_from(&self, i: usize) -> Option<&Num> {
        let mut j = i;
        while self.at(j).is_some_and(char::is_whitespace) {
            j += 1;
        }
        self.numbers.iter().find(|n| n.chars.start == j)
    }

    /// A numeral ending at `i` (before spaces).
    fn number_before(&self, i: usize) -> Option<&Num> {
        let mut j = i;
        while j > 0 && self.at(j - 1).is_some_and(char::is_whitespace) {
            j -= 1;
        }
        self.numbers.iter().find(|n| n.chars.end == j)
    }

    /// The word after a grouping cue (各产品的 → 产品): up to [`MAX_WORD`] characters, ending at a function
    /// word or a time expression; one ASCII word after `the` for English.
    fn target_after(&self, i: usize) -> Option<Range<usize>> {
        let mut j = i;
        while self.at(j).is_some_and(char::is_whitespace) {
            j += 1;
        }
        let first = self.at(j)?;
        if first.is_ascii_alphabetic() {
            let mut end = j;
            while self.at(end).is_some_and(|c| c.is_ascii_alphanumeric()) {
                end += 1;
            }
            // `by the region`, `by each salesperson`: the determiner is no part of the word.
            if ["the", "each", "every", "all"]
                .iter()
                .any(|w| self.slice(j..end).eq_ignore_ascii_case(w))
            {
                return self.target_after(end);
            }
            // `by day of the week`: the day of the week, one target (no daily grouping).
            let rest = self.slice(j..self.s.len().min(j + 16)).to_ascii_lowercase();
            if let Some(w) = ["day of the week", "day of week"]
                .iter()
                .find(|w| rest.starts_with(**w))
            {
                return Some(j..j + w.chars().count());
            }
            return Some(j..end);
        }
        if !is_han(first) || TARGET_FIRST_STOPS.contains(&first) || self.time_at(j).is_some() {
            return None;
        }
        let mut end = j + 1;
        while end - j < MAX_WORD
            && self.at(end).is_some_and(|c| is_han(c) && !TARGET_STOPS.contains(&c))
            && self.time_at(end).is_none()
            && !self.sort_from(end)
            && self.cue_at(end).is_none_or(|(_, len)| len < 2)
        {
            end += 1;
        }
        Some(j..end)
    }

    /// The mean a comparison is with, after its cue: 平均(水平|值|数), 所在X的平均, 本X平均, (the) average / mean;
    /// where it ends, and the X whose rows it is taken over, when said.
    fn mean_after(&self, i: usize) -> Option<(usize, Option<Range<usize>>, bool)> {
        let mut j = i;
        while self.at(j).is_some_and(char::is_whitespace) {
            j += 1;
        }
        for word in ["the average", "the mean", "the median", "average", "mean", "median"] {
            if self.looking_at(j, word) && !self.at(j + word.len()).is_some_and(|c| c.is_ascii_alphanumeric()) {
                return Some((j + word.chars().count(), None, word.ends_with("median")));
            }
        }
        let mut parent = None;
        for lead in ["所在", "所属", "同一", "同", "本"] {
            if self.looking_at(j, lead) {
                let start = j + lead.chars().count();
                let mut end = start;
                while end - start < MAX_WORD
                    && !self.looking_at(end, "平均")
                    && !self.looking_at(end, "的平均")
                    && !self.looking_at(end, "中位")
                    && !self.looking_at(end, "的中位")
                {
                    end += 1;
                }
                if end == start || !self.s[start..end].iter().all(|c| is_han(*c)) {
                    return None;
                }
                parent = Some(start..end);
                j = if self.at(end) == Some('的') { end + 1 } else { end };
                break;
            }
        }
        // 中位数, 中位值: the median; 平均(水平|值|数): the mean.
        let median = self.looking_at(j, "中位");
        if !median && !self.looking_at(j, "平均") {
            return None;
        }
        j += 2;
        for tail in ["水平", "数值", "值", "数", "线"] {
            if self.looking_at(j, tail) {
                j += tail.chars().count();
                break;
            }
        }
        Some((j, parent, median))
    }

    /// Whether a sort word starts at `i`, or after 来 / 进行 (按城市升序, 按城市来排序, 按城市进行排序).
    fn sort_from(&self, i: usize) -> bool {
        let skip = if self.looking_at(i, "进行") {
            2
        } else {
            usize::from(self.at(i) == Some('来'))
        };
        matches!(self.cue_at(i + skip), Some((Cue::Sort(_), _)))
    }

    /// The target of a ranking, after its cue: skips 的, 是, 哪个 and a count (最低的5个快递员 → 快递员).
    fn rank_target_after(&self, i: usize) -> Option<Range<usize>> {
        let mut j = i;
        loop {
            if let Some(n) = self.number_from(j) {
                j = n.chars.end;
                continue;
            }
            match self.at(j) {
                Some('的' | '是' | '哪' | '个' | '位' | '部' | '款' | '家' | '名' | '一' | '大' | ' ') => {
                    j += 1
                }
                _ => break,
            }
        }
        // `grew the most year over year`: a period-over-period cue is no target.
        if matches!(self.cue_at(j), Some((Cue::Period(_), _))) {
            return None;
        }
        self.target_after(j)
    }

    /// The number of places a superlative names after 的 (最高的十部 → 10, 最低的5个 → 5).
    fn places_after(&self, i: usize) -> Option<u32> {
        if self.at(i) != Some('的') {
            return None;
        }
        let n = self.number_from(i + 1)?;
        (n.value >= 1.0).then_some(n.value as u32)
    }

    /// Where a superlative's words end: after the places it names after 的 (最高的十部), else at `end`.
    fn rank_end(&self, end: usize) -> usize {
        match self.places_after(end) {
            Some(_) => self.number_from(end + 1).map_or(end, |n| n.chars.end),
            None => end,
        }
    }

    /// The measure before a ranking or threshold, read backwards (上个月销量最高 → 销量).
    fn measure_before(&self, i: usize) -> Option<Range<usize>> {
        let mut end = i;
        while end > 0 && matches!(self.at(end - 1), Some('得' | '排' | ' ')) {
            end -= 1;
        }
        let mut start = end;
        while start > 0
            && end - start < MAX_WORD
            && self
                .at(start - 1)
                .is_some_and(|c| is_han(c) && !MEASURE_STOPS.contains(&c))
            && !self.times.iter().any(|t| t.end == start)
        {
            start -= 1;
        }
        if start == end {
            // An English measure: the word before (`revenue above 5000`).
            while start > 0 && self.at(start - 1).is_some_and(|c| c.is_ascii_alphabetic()) {
                start -= 1;
            }
        }
        (start < end).then_some(start..end)
    }

    /// A period named at `i` after a comparison word (比上月 → 上月).
    fn baseline_at(&self, i: usize) -> Option<Range<usize>> {
        let mut j = i;
        while self.at(j).is_some_and(char::is_whitespace) {
            j += 1;
        }
        BASELINES
            .iter()
            .find(|b| self.looking_at(j, b))
            .map(|b| j..j + b.chars().count())
    }

    /// The demand of `kind` over `range`, with the cue words `words` and the target and measure read.
    fn demand(
        &self,
        kind: DemandKind,
        range: Range<usize>,
        words: Range<usize>,
        target: Option<Range<usize>>,
        measure: Option<Range<usize>>,
    ) -> Demand {
        Demand {
            kind,
            range: self.folded.bytes(range),
            words: self.slice(words),
            target: target.map(|t| self.slice(t)),
            measure: measure.map(|m| self.slice(m)),
            within: None,
        }
    }
}

/// The time grain a grouping word names (月 of 每个月, 天 of 按天看), with its length, or none.
fn grain_of(word: &[char]) -> Option<(Grain, usize)> {
    let w: String = word.iter().collect();
    const GRAINS: &[(&str, Grain)] = &[
        ("季度", Grain::Quarter),
        ("星期", Grain::Week),
        ("礼拜", Grain::Week),
        ("月份", Grain::Month),
        ("年度", Grain::Year),
        ("天", Grain::Day),
        ("日", Grain::Day),
        ("周", Grain::Week),
        ("月", Grain::Month),
        ("季", Grain::Quarter),
        ("年", Grain::Year),
        ("day", Grain::Day),
        ("daily", Grain::Day),
        ("week", Grain::Week),
        ("weekly", Grain::Week),
        ("month", Grain::Month),
        ("monthly", Grain::Month),
        ("quarter", Grain::Quarter),
        ("year", Grain::Year),
    ];
    /// Words that start with a unit but name no grain.
    const NOT_GRAINS: &[&str] = &["年龄", "年级", "年轻", "周边", "日志", "日程", "月饼", "天气"];
    if NOT_GRAINS.iter().any(|n| w.starts_with(n)) {
        return None;
    }
    GRAINS.iter().find_map(|(unit, grain)| {
        let exact = unit.is_ascii() && w.eq_ignore_ascii_case(unit);
        let prefix = !unit.is_ascii() && w.starts_with(unit);
        (exact || prefix).then(|| (*grain, unit.chars().count()))
    })
}

/// Every demand of `text`, given its spans.
pub(super) fn demands(text: &str, spans: &[Span]) -> Vec<Demand> {
    let folded = Folded::new(text);
    let starts: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    let char_of = |b: usize| starts.partition_point(|&o| o < b);
    let mut numbers = Vec::new();
    let mut times = Vec::new();
    for span in spans {
        let chars = char_of(span.range.start)..char_of(span.range.end);
        match (span.kind, span.value) {
            (SpanKind::Number(kind), SpanValue::Number(value)) => numbers.push(Num { chars, value, kind }),
            (SpanKind::Time(_), _) => times.push(chars),
            _ => {}
        }
    }
    let asks_which = ["哪", "谁", "which", "who"]
        .iter()
        .any(|w| folded.chars.iter().collect::<String>().contains(w));
    let r = Reader {
        s: &folded.chars,
        folded: &folded,
        text,
        numbers,
        times,
        asks_which,
    };
    let mut out = Vec::new();
    let mut from_top_n_only = true;
    let mut i = 0;
    while i < r.s.len() {
        if let Some(end) = r.time_at(i) {
            i = end.max(i + 1);
            continue;
        }
        if let Some(n) = r
            .number_from(i)
            .filter(|n| n.chars.start == i && n.kind == NumeralKind::TopN)
        {
            let end = n.chars.end;
            let top = u32::try_from(n.value as i64).ok();
            let is_rows =
                matches!(r.at(end.saturating_sub(1)), Some('条' | '行')) || matches!(r.at(end), Some('条' | '行'));
            if !is_rows {
                let kind = DemandKind::Rank {
                    order: Order::Highest,
                    top,
                };
                out.push(r.demand(kind, i..end, i..end, r.rank_target_after(end), r.measure_before(i)));
            }
            i = end.max(i + 1);
            continue;
        }
        let Some((cue, len)) = r.cue_at(i) else {
            i += 1;
            continue;
        };
        let end = i + len;
        let mut next = end;
        match cue {
            Cue::GroupBefore | Cue::GroupSplit => {
                let word = r.slice(i..end);
                let excluded = match cue {
                    Cue::GroupSplit => {
                        let prev_ok = i == 0
                            || r.at(i - 1)
                                .is_some_and(|c| !is_wordish(c) || "请再并也都就要来".contains(c));
                        !prev_ok || r.at(end).is_some_and(|c| NOT_GROUPING_AFTER_FEN.contains(&c))
                    }
                    _ => word == "按" && r.at(end).is_some_and(|c| NOT_GROUPING_AFTER_AN.contains(&c)),
                };
                match r.target_after(end).filter(|_| !excluded) {
                    Some(t) => {
                        // 星期几, 周几: the day of the week, no weekly grouping.
                        let weekday = crate::words::days::asks_weekday(&r.slice(t.clone()).to_ascii_lowercase());
                        let grain = grain_of(&r.s[t.clone()])
                            .filter(|(g, unit)| *g != Grain::Week || r.at(t.start + unit) != Some('几'))
                            .filter(|_| !weekday);
                        let t = match grain {
                            Some((_, unit)) => t.start..t.start + unit,
                            None if r.at(t.end) == Some('几') => t.start..t.end + 1,
                            None => t,
                        };
                        // 逐 takes only a time grain; 每 before anything else is a grouping or a ratio per that
                        // thing (每单销量), which the catalog decides: never dropped.
                        let only_grains = word == "逐";
                        // 每单金额超过5万: the words are the measure of a threshold on each record, no grouping.
                        let measure_of_threshold = word == "每"
                            && grain.is_none()
                            && matches!(r.cue_at(t.end), Some((Cue::ThresholdBefore(_), _)));
                        if (grain.is_some() || !only_grains) && !measure_of_threshold {
                            let kind = DemandKind::Group {
                                grain: grain.map(|(g, _)| g),
                            };
                            out.push(r.demand(kind, i..t.end, i..end, Some(t.clone()), None));
                        }
                        next = t.end;
                    }
                    None if word == "各" => {
                        out.push(r.demand(DemandKind::Group { grain: None }, i..end, i..end, None, None))
                    }
                    None => {}
                }
            }
            Cue::Each => out.push(r.demand(DemandKind::Group { grain: None }, i..end, i..end, None, None)),
            Cue::Grain(grain) => {
                let kind = DemandKind::Group { grain: Some(grain) };
                out.push(r.demand(kind, i..end, i..end, Some(i..end), None));
            }
            // 最快 ranks only a change (增长最快); alone it names no measure.
            Cue::Pace(_) if !out.iter().any(|d| d.kind == DemandKind::Change) => {}
            Cue::Superlative(_) | Cue::Ranking | Cue::Pace(_) => {
                from_top_n_only = false;
                let order = match cue {
                    Cue::Superlative(o) | Cue::Pace(o) => o,
                    _ => Order::Highest,
                };
                let kind = DemandKind::Rank {
                    order,
                    top: r.places_after(end),
                };
                let range = i..r.rank_end(end);
                out.push(r.demand(kind, range, i..end, r.rank_target_after(end), r.measure_before(i)));
            }
            Cue::Extreme(order) if r.asks_which => {
                from_top_n_only = false;
                let kind = DemandKind::Rank {
                    order,
                    top: r.places_after(end),
                };
                let range = i..r.rank_end(end);
                out.push(r.demand(kind, range, i..end, r.rank_target_after(end), r.measure_before(i)));
            }
            Cue::Extreme(order) => {
                let of = if order == Order::Highest {
                    Aggregate::Max
                } else {
                    Aggregate::Min
                };
                let measure = r.measure_before(i).or_else(|| r.target_after(end));
                out.push(r.demand(DemandKind::Aggregate { of }, i..end, i..end, None, measure));
            }
            Cue::Bottom => {
                from_top_n_only = false;
                let (top, stop) = match r.number_from(end) {
                    Some(n) => (u32::try_from(n.value as i64).ok(), n.chars.end),
                    None => (None, end),
                };
                let kind = DemandKind::Rank {
                    order: Order::Lowest,
                    top,
                };
                out.push(r.demand(kind, i..stop, i..end, r.rank_target_after(stop), r.measure_before(i)));
                next = stop;
            }
            Cue::Ordinal => {
                // A bare 第 only before a numeral and a rank word (第二高, 第3多); 第三季度 is a time.
                let bare = r.slice(i..end) == "第";
                let mut stop = end;
                while bare
                    && r.at(stop)
                        .is_some_and(|c| c.is_ascii_digit() || "一二两三四五六七八九十".contains(c))
                {
                    stop += 1;
                }
                let ranked = !bare || (stop > end && r.at(stop).is_some_and(|c| ORDINAL_ENDS.contains(&c)));
                if ranked {
                    let stop = if bare { stop + 1 } else { end };
                    out.push(r.demand(DemandKind::Ordinal, i..stop, i..stop, None, r.measure_before(i)));
                    next = stop;
                }
            }
            Cue::Compare => out.push(r.demand(DemandKind::Compare, i..end, i..end, None, None)),
            Cue::Period(baseline) => {
                let kind = DemandKind::Period { baseline };
                out.push(r.demand(kind, i..end, i..end, None, None));
            }
            Cue::Against | Cue::Joined => match r.baseline_at(end) {
                Some(b) => {
                    let kind = DemandKind::Period {
                        baseline: super::Baseline::Named,
                    };
                    out.push(r.demand(kind, i..b.end, i..end, Some(b.clone()), None));
                    next = b.end;
                }
                None if cue == Cue::Joined => {
                    let joins = i > 0
                        && r.at(i - 1).is_some_and(is_wordish)
                        && r.at(end).is_some_and(|c| is_wordish(c) || c == ' ');
                    if joins {
                        out.push(r.demand(DemandKind::Joined, i..end, i..end, None, None));
                    }
                }
                None => {}
            },
            Cue::Change => out.push(r.demand(DemandKind::Change, i..end, i..end, None, None)),
            Cue::Combine => out.push(r.demand(DemandKind::Combine, i..end, i..end, None, None)),
            Cue::Aggregate(of) => out.push(r.demand(DemandKind::Aggregate { of }, i..end, i..end, None, None)),
            Cue::HowMany => {
                if r.at(end).is_some_and(|c| COUNT_WORDS.contains(&c)) {
                    let kind = DemandKind::Aggregate { of: Aggregate::Count };
                    out.push(r.demand(kind, i..end + 1, i..end, Some(end..end + 1), None));
                    next = end + 1;
                }
            }
            Cue::ThresholdBefore(op) => {
                if let Some(n) = r.number_from(end).filter(|n| n.kind != NumeralKind::TopN) {
                    let kind = DemandKind::Threshold { op, value: n.value };
                    let stop = n.chars.end;
                    out.push(r.demand(kind, i..stop, i..end, None, r.measure_before(i)));
                    next = stop;
                } else if let Some((stop, parent, median)) = r.mean_after(end) {
                    let kind = DemandKind::Relative { op, median };
                    out.push(r.demand(kind, i..stop, i..end, parent, r.measure_before(i)));
                    next = stop;
                }
            }
            Cue::ThresholdAfter(op) => {
                if let Some(n) = r.number_before(i) {
                    let kind = DemandKind::Threshold { op, value: n.value };
                    let start = n.chars.start;
                    out.push(r.demand(kind, start..end, i..end, None, r.measure_before(start)));
                }
            }
            Cue::Sort(order) => {
                let kind = DemandKind::Sort { order };
                out.push(r.demand(kind, i..end, i..end, None, r.measure_before(i)));
            }
            // 超过9分的电影有哪些: the things listed are read before the cue (电影).
            Cue::List => out.push(r.demand(DemandKind::List, i..end, i..end, None, r.measure_before(i))),
        }
        i = next.max(i + 1);
    }
    super::sort::attach(&mut out, text);
    let mut out = tidy(out, from_top_n_only);
    super::running::mark(&mut out);
    super::within::mark(&mut out);
    out
}

/// One ranking per sentence (排名前五 is one demand); a bare 前N beside a list is its length, not a ranking;
/// 分别 adds nothing beside a grouping with a target; one grouping per target.
fn tidy(mut demands: Vec<Demand>, from_top_n_only: bool) -> Vec<Demand> {
    // `monthly revenue by month`: a time adjective (its words are its target) beside a grouping by its grain.
    let adjective = |d: &Demand| d.grain().is_some() && d.target.as_deref() == Some(d.words.as_str());
    let grains: Vec<Grain> = demands
        .iter()
        .filter(|d| !adjective(d))
        .filter_map(Demand::grain)
        .collect();
    demands.retain(|d| !adjective(d) || !d.grain().is_some_and(|g| grains.contains(&g)));
    // English `by X` beside a ranking names its measure (top 3 couriers by rating), not a grouping.
    let has_rank = demands.iter().any(Demand::is_rank);
    let is_rank_by =
        |d: &Demand| has_rank && d.kind == (DemandKind::Group { grain: None }) && d.words.eq_ignore_ascii_case("by");
    let rank_by = demands.iter().find(|d| is_rank_by(d)).and_then(|d| d.target.clone());
    let demands: Vec<Demand> = demands
        .into_iter()
        .filter(|d| !is_rank_by(d))
        .map(|mut d| {
            if d.is_rank() && d.measure.is_none() {
                d.measure = rank_by.clone();
            }
            d
        })
        .collect();
    let has_list = demands.iter().any(|d| d.kind == DemandKind::List);
    let has_target_group = demands
        .iter()
        .any(|d| matches!(d.kind, DemandKind::Group { .. }) && d.target.is_some());
    let mut out: Vec<Demand> = Vec::with_capacity(demands.len());
    for d in demands {
        match d.kind {
            DemandKind::Rank { .. } if has_list && from_top_n_only => {}
            DemandKind::Rank { order, top } => match out.iter_mut().find(|o| o.is_rank()) {
                Some(first) => {
                    if let DemandKind::Rank { order: o, top: t } = &mut first.kind {
                        if order == Order::Lowest {
                            *o = Order::Lowest;
                        }
                        *t = t.or(top);
                    }
                    first.range = first.range.start.min(d.range.start)..first.range.end.max(d.range.end);
                    first.words = format!("{}…{}", first.words, d.words);
                    first.target = first.target.take().or(d.target);
                    first.measure = first.measure.take().or(d.measure);
                }
                None => out.push(d),
            },
            DemandKind::Group { .. } if d.target.is_none() && has_target_group => {}
            DemandKind::Group { .. }
                if out
                    .iter()
                    .any(|o| matches!(o.kind, DemandKind::Group { .. }) && o.target == d.target) => {}
            _ => out.push(d),
        }
    }
    out
}
