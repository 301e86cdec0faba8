//! Yes/no words: 是/开启/yes/on → true, 否/关闭/不需要/no/off → false, with simple negation.

use crate::text::{Cursor, Folded};

/// Words that mean yes, longest first.
const YES: &[&str] = &[
    "开启", "打开", "启用", "需要", "包含", "包括", "同意", "确认", "确定", "可以", "是的", "好的", "对的", "是", "要",
    "对", "好", "有", "开", "yes", "true", "on", "enable", "enabled", "y", "1", "ok",
];

/// Words that mean no, longest first.
const NO: &[&str] = &[
    "不需要",
    "不用",
    "无需",
    "不要",
    "不必",
    "关闭",
    "禁用",
    "停用",
    "关掉",
    "取消",
    "排除",
    "不含",
    "没有",
    "否",
    "不",
    "无",
    "关",
    "没",
    "no",
    "false",
    "off",
    "disable",
    "disabled",
    "n",
    "0",
];

/// Words that negate the yes-word after them (不开启, don't include).
const NEGATORS: &[&str] = &["不是", "不", "没", "别", "无需", "don't", "do not", "not", "no"];

/// Reads a yes/no word at the cursor, with a negation before it flipping a yes.
fn read(c: &mut Cursor) -> Option<bool> {
    let start = c.pos;
    for (words, value) in [(NO, false), (YES, true)] {
        for w in words {
            let ascii = w.is_ascii();
            let mut probe = Cursor::new(c.s, start);
            if (ascii && probe.eat_word(w)) || (!ascii && probe.eat_str(w)) {
                // A negator glued to a yes-word: 不开启, 不是.
                if !value {
                    let mut after = probe;
                    after.skip_ws();
                    let negated_yes = NEGATORS.contains(w) && YES.iter().any(|y| !y.is_ascii() && after.eat_str(y));
                    if negated_yes {
                        c.pos = after.pos;
                        return Some(false);
                    }
                }
                c.pos = probe.pos;
                return Some(value);
            }
        }
    }
    None
}

/// A whole value read as yes/no: 是, 开启, true, on → true; 否, 不要, 关闭, off → false.
pub fn parse_bool(text: &str) -> Option<bool> {
    let folded = Folded::new(text.trim());
    let s: Vec<char> = folded
        .chars
        .iter()
        .copied()
        .filter(|c| !matches!(c, '。' | '.' | '!' | '！' | '吧' | '啊' | '呀' | '的'))
        .collect();
    let mut c = Cursor::new(&s, 0);
    let value = read(&mut c)?;
    c.skip_ws();
    c.at_end().then_some(value)
}

/// The first yes/no word in a sentence (不需要发票 → false, 要开启提醒 → true).
pub fn find_bool(text: &str) -> Option<bool> {
    let folded = Folded::new(text);
    let s = &folded.chars;
    (0..s.len()).find_map(|i| {
        let mut c = Cursor::new(s, i);
        if s[i].is_ascii_alphanumeric() && i > 0 && s[i - 1].is_ascii_alphanumeric() {
            return None;
        }
        // In a sentence, single-character yes-words (是, 有, 好) are too common to count.
        read(&mut c).filter(|_| c.pos - i > 1 || s[i].is_ascii() || matches!(s[i], '否' | '不' | '要'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_values() {
        for t in [
            "是", "要", "开启", "打开", "启用", "需要", "对", "yes", "true", "on", "YES", "是的", "開啟",
        ] {
            assert_eq!(parse_bool(t), Some(true), "{t}");
        }
        for t in [
            "否",
            "不",
            "不要",
            "关闭",
            "关",
            "禁用",
            "不需要",
            "无需",
            "no",
            "false",
            "off",
            "不开启",
            "不是",
            "關閉",
        ] {
            assert_eq!(parse_bool(t), Some(false), "{t}");
        }
        for t in ["", "maybe", "苹果", "是不是", "onion"] {
            assert_eq!(parse_bool(t), None, "{t}");
        }
    }

    #[test]
    fn in_sentences() {
        assert_eq!(find_bool("帮我开启自动续费"), Some(true));
        assert_eq!(find_bool("不需要发票"), Some(false));
        assert_eq!(find_bool("请不要开启提醒"), Some(false));
        assert_eq!(find_bool("提醒请关闭"), Some(false));
        assert_eq!(find_bool("turn it on please"), Some(true));
        assert_eq!(find_bool("华东区销售额是多少"), None);
        assert_eq!(find_bool(""), None);
    }
}
