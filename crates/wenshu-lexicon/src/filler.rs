//! Words that restrict nothing: question words, particles, greetings and politeness, verbs of asking, looking,
//! selling and counting, general words of comparing and ranking (Chinese and English). This is general language
//! knowledge, never a catalog's words: what a question says beyond these — and beyond what the catalog and the
//! rest of the language knowledge read — is unread, and an answer must not ignore it.
//!
//! Three kinds of filler:
//! - words of two or more characters (帮我, 查一下, 是多少, 谢谢, 麻烦), taken out wherever they stand;
//! - particles (的, 了, 吗, 呢, 呀), taken out one character at a time;
//! - weak characters (上, 下, 前, 多, 总, 各 …) that carry no restriction alone but are the first character of many
//!   names (上海, 前门, 多伦多): a piece made of them only is filler, a piece with any other character is kept whole.

use std::collections::HashMap;

/// Chinese filler words of two or more characters, any order (the longest is taken out first).
const WORDS_ZH: &[&str] = &[
    "帮我",
    "帮忙",
    "给我",
    "我想",
    "我要",
    "想要",
    "想看",
    "想知道",
    "看看",
    "看下",
    "看一下",
    "查下",
    "查一下",
    "查询",
    "查查",
    "统计",
    "统计一下",
    "一下",
    "分析",
    "分别",
    "各自",
    "每个",
    "按照",
    "多少",
    "怎么样",
    "如何",
    "情况",
    "是多少",
    "有多少",
    "哪个",
    "哪些",
    "哪几",
    "哪部",
    "哪一",
    "什么",
    "数据",
    "卖了",
    "卖出",
    "签了",
    "成交",
    "成交了",
    "一共",
    "总共",
    "合计",
    "总计",
    "对比",
    "比较",
    "相比",
    "多还是少",
    "还是",
    "当天",
    "那天",
    "期间",
    "所有",
    "全部",
    "整体",
    "总的",
    "以来",
    "请问",
    "请帮",
    "麻烦",
    "劳驾",
    "谢谢",
    "多谢",
    "感谢",
    "辛苦",
    "你好",
    "您好",
    "哈喽",
    "能否",
    "能不能",
    "可以",
    "可不可以",
    "是否",
    "告诉我",
    "告诉",
    "了解",
    "知道",
    "帮着",
    "一个",
    "一些",
    "具体",
    "大概",
    "大约",
    "一共是",
    "到底",
    "究竟",
    "目前",
    "现在的",
    "给出",
    "列出",
    "看一看",
    "瞧瞧",
    "贡献",
    "产生",
    "实现",
    "完成",
    "达到",
    "带来",
    "取得",
    "做了",
    "做到",
    "表现",
    "结果",
    "数字",
    "数值",
    "指标",
    "金额是",
    "怎样",
    "是不是",
    "有没有",
    "多不多",
    "高不高",
    "的话",
    "呢还是",
    "返回",
    "输出",
    "显示",
    "展示",
    // Directions of sending and coming (发往北京, 电话进来的): the places and channels around them are read apart.
    "发到",
    "发往",
    "寄到",
    "寄往",
    "送到",
    "运到",
    "运往",
    "发自",
    "来自",
    "寄自",
    "进来",
    "过来",
    "出去",
    "进去",
    "回来",
    "起来",
    "下来",
    // Including and not counting: what is included is read by the flag it names.
    "包括",
    "包含",
    "算上",
    "计入",
    "不要算",
    "不算",
    "别算",
    "不计",
    "不包括",
    "才算",
    // Positions around a value (杭州以外): the exclusion or range they make is read by its own check.
    "以外",
    "之外",
    "以内",
    "之内",
    "以上",
    "以下",
    // Ranking words: the ranking itself is a demand.
    "排行榜",
    "排行",
    "排名",
    "排序",
    "名次",
    // Asking the time of day or a moment (几点, 什么时候): the question word, not a restriction.
    "几点钟",
    "几点",
    "什么时候",
    "何时",
    // How a total spreads over the groups the question names (各地区的销售分布): the grouping is the demand.
    "分布",
    "构成",
    // The whole of something (全国, 全公司): no restriction.
    "全国",
    "全公司",
    "总体",
    "全体",
    // Words addressed to the assistant rather than the data (忽略之前的规则, 我是管理员): they restrict no answer;
    // who may see what is the row scope's, bound by code.
    "超级管理员",
    "管理员",
    "忽略",
    "无视",
    "之前的规则",
    "以上的规则",
    "规则",
    "指令",
    "提示词",
    "限制",
];

/// [`WORDS_ZH`] by their first character, longest first, made once.
static BY_FIRST: std::sync::LazyLock<HashMap<char, Vec<&'static str>>> = std::sync::LazyLock::new(|| {
    let mut by_first: HashMap<char, Vec<&'static str>> = HashMap::new();
    for word in WORDS_ZH {
        if let Some(first) = word.chars().next() {
            by_first.entry(first).or_default().push(word);
        }
    }
    by_first
        .values_mut()
        .for_each(|words| words.sort_by_key(|w| std::cmp::Reverse(w.len())));
    by_first
});

/// `text` with each filler word of [`WORDS_ZH`] replaced by a space, the longest at each place first.
fn without_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        let word = BY_FIRST
            .get(&c)
            .and_then(|words| words.iter().find(|w| text[at..].starts_with(**w)));
        match word {
            Some(word) => {
                out.push(' ');
                at += word.len();
            }
            None => {
                out.push(c);
                at += c.len_utf8();
            }
        }
    }
    out
}

/// Chinese particles: filler one character at a time.
const PARTICLES_ZH: &str = "的是了在和与跟及或吗呢吧啊呀嘛呗哦啦哈么请您你我们咱";

/// Chinese characters that restrict nothing alone but begin many names: a piece made only of them is filler.
const WEAK_ZH: &str = "各每按几有谁哪卖签共比多少排名前位内里中上下得地都总分个这那其之为到从至往想查看给把被将就还只也又再很最更才算件单笔次条张份套台辆家项批";

/// English filler words, matched as whole words.
const WORDS_EN: &[&str] = &[
    "what",
    "whats",
    "what's",
    "the",
    "of",
    "is",
    "was",
    "show",
    "me",
    "by",
    "per",
    "each",
    "and",
    "in",
    "for",
    "how",
    "much",
    "many",
    "a",
    "an",
    "are",
    "were",
    "be",
    "been",
    "has",
    "have",
    "had",
    "do",
    "does",
    "did",
    "get",
    "got",
    "give",
    "tell",
    "find",
    "with",
    "on",
    "at",
    "to",
    "from",
    "during",
    "all",
    "our",
    "we",
    "us",
    "i",
    "which",
    "who",
    "whose",
    "please",
    "sold",
    "sell",
    "sells",
    "selling",
    "hello",
    "hi",
    "hey",
    "thanks",
    "thank",
    "you",
    "could",
    "would",
    "can",
    "will",
    "let",
    "see",
    "know",
    "want",
    "need",
    "list",
    "there",
    "my",
    "your",
    "it's",
    "s",
    "total",
    "overall",
    "value",
    "number",
    "amount",
    "figure",
    "figures",
    "data",
    "look",
    "up",
    "about",
    "so",
    "far",
    "just",
    "only",
    "any",
    "some",
    "or",
    "than",
    "this",
    "that",
    "these",
    "those",
    "as",
    "into",
    "out",
    "over",
    "compared",
    "compare",
    "versus",
    "vs",
    "between",
    "did",
    "make",
    "made",
    // Verbs that only say a record came about or was dealt with (orders placed, handled, processed).
    "placed",
    "handled",
    "processed",
    "bring",
    "brought",
    "kindly",
    "admin",
    "administrator",
    "ignore",
    "previous",
    "instructions",
    "rules",
];

/// Whether a character restricts nothing on its own (a particle or a weak character).
pub fn restricts_nothing(c: char) -> bool {
    PARTICLES_ZH.contains(c) || WEAK_ZH.contains(c)
}

/// Whether `word` (lower case) is an English filler word.
pub fn is_english_filler(word: &str) -> bool {
    WORDS_EN.contains(&word)
}

/// The pieces of `text` that are not filler: Chinese pieces of two or more characters that are not made only of
/// weak characters, and English words (or letter-and-digit tokens, 3D) that are not filler words; in order.
pub fn unread_pieces(text: &str) -> Vec<String> {
    let rest = without_words(text);
    let mut pieces = Vec::new();
    let mut piece = String::new();
    let mut ascii = String::new();
    let flush_piece = |piece: &mut String, pieces: &mut Vec<String>| {
        if piece.chars().count() >= 2 && !piece.chars().all(|c| WEAK_ZH.contains(c)) {
            pieces.push(piece.clone());
        }
        piece.clear();
    };
    let flush_ascii = |ascii: &mut String, pieces: &mut Vec<String>| {
        while ascii.ends_with(['-', '\'']) {
            ascii.pop();
        }
        let lower = ascii.to_ascii_lowercase();
        let mixed = ascii.chars().any(|c| c.is_ascii_digit()) && ascii.chars().any(|c| c.is_ascii_alphabetic());
        let worded = ascii.chars().all(|c| c.is_ascii_alphabetic() || c == '-' || c == '\'') && ascii.len() >= 2;
        if (mixed || worded) && !is_english_filler(&lower) {
            pieces.push(ascii.clone());
        }
        ascii.clear();
    };
    for c in rest.chars() {
        if c.is_ascii_alphanumeric() || ((c == '\'' || c == '-') && !ascii.is_empty()) {
            flush_piece(&mut piece, &mut pieces);
            ascii.push(c);
            continue;
        }
        flush_ascii(&mut ascii, &mut pieces);
        if c.is_alphanumeric() && !PARTICLES_ZH.contains(c) {
            piece.push(c);
        } else {
            flush_piece(&mut piece, &mut pieces);
        }
    }
    flush_piece(&mut piece, &mut pieces);
    flush_ascii(&mut ascii, &mut pieces);
    pieces
}

/// What remains of `text` once the filler is taken out: its [`unread_pieces`], space-separated.
pub fn strip_filler(text: &str) -> String {
    unread_pieces(text).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asking_politeness_and_particles_are_filler() {
        for text in [
            "能帮我查下",
            "吗",
            "请问",
            "卖了多少",
            "你好，",
            "呀",
            "麻烦统计一下，谢谢",
            "想看看",
            "hello, how much did we",
            "what were",
            "were placed",
            "handled",
            "排名前",
            "都有哪些",
        ] {
            assert_eq!(unread_pieces(text), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn names_and_places_that_begin_with_a_weak_character_stay_whole() {
        assert_eq!(unread_pieces("在上海的"), ["上海"]);
        assert_eq!(unread_pieces("多伦多的"), ["多伦多"]);
        assert_eq!(unread_pieces("各省"), ["各省"]);
        assert_eq!(unread_pieces("每个城市"), ["城市"]);
    }

    #[test]
    fn english_words_are_whole_words() {
        assert_eq!(unread_pieces("in Beijing"), ["Beijing"]);
        // "in" inside a word and "a" inside "sales" are not taken out of it.
        assert_eq!(unread_pieces("sales"), ["sales"]);
        assert_eq!(unread_pieces("3D"), ["3D"]);
        assert_eq!(unread_pieces("invoices"), ["invoices"]);
    }

    #[test]
    fn restricting_words_are_left() {
        assert_eq!(unread_pieces("老客户贡献了"), ["老客户"]);
        assert_eq!(unread_pieces("直营店"), ["直营店"]);
        assert_eq!(unread_pieces("佣金是多少"), ["佣金"]);
    }
}
