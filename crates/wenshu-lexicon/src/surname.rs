//! Chinese personal names by their shape: a common surname (王, 欧阳) followed by a given name of one or two
//! characters (王磊, 欧阳娜娜), so words that look like a person's name can be told from other words.

/// Common single-character surnames (the most frequent of the 百家姓 as used today), leaving out those that are
/// mostly everyday words (单, 和, 时, 成, 明, 查 …).
const SINGLE: &str = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆\
汪范廖贾夏韦付白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵钱严覃武戴莫孔汤温康施牛樊葛邢乔伍庞颜倪庄聂章鲁岳翟\
殷詹耿兰焦俞柳甘祝宁舒阮柯纪梅童凌裴霍涂苗盛翁冉骆蓝辛靳管柴蒙鲍喻祁蒲滕屈饶牟艾尤穆卓缪项芦麦褚娄窦戚岑费晏柏瞿\
桂佟臧闵苟邬卞姬仇栾隋刁荣巫寇郎甄仲虞敖巩佘迟邝";

/// Common two-character surnames.
const DOUBLE: &[&str] = &[
    "欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "尉迟", "公孙", "慕容", "长孙", "宇文", "夏侯", "令狐", "司徒",
    "西门", "南宫", "独孤", "端木", "轩辕", "呼延",
];

/// Whether a character is a CJK ideograph.
fn is_ideograph(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// The length in characters of the common surname a word starts with (two for 欧阳), or none.
pub fn surname_len(word: &str) -> Option<usize> {
    if DOUBLE.iter().any(|d| word.starts_with(d)) {
        return Some(2);
    }
    word.chars().next().filter(|c| SINGLE.contains(*c)).map(|_| 1)
}

/// Whether a word has the shape of a Chinese personal name: ideographs only, a common surname, then one or two
/// characters (王磊, 李秀英, 欧阳娜娜).
pub fn looks_like_person_name(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    if !chars.iter().all(|&c| is_ideograph(c)) {
        return false;
    }
    surname_len(word).is_some_and(|surname| (1..=2).contains(&(chars.len().saturating_sub(surname))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_have_a_surname_and_a_short_given_name() {
        for name in ["王磊", "李秀英", "何勇", "欧阳娜娜", "司马光"] {
            assert!(looks_like_person_name(name), "{name}");
        }
        for word in ["仓库", "王", "王小明明", "订单", "Li Lei", "欧阳"] {
            assert!(!looks_like_person_name(word), "{word}");
        }
        assert_eq!(surname_len("诸葛亮"), Some(2));
        assert_eq!(surname_len("订单"), None);
    }
}
