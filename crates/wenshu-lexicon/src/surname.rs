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

/// Everyday words that begin with a surname's character (马上, 费用, 项目): never a name.
const COMMON_WORDS: &[&str] = &[
    "马上", "马路", "高峰", "高速", "高级", "高温", "高价", "高端", "高层", "黄金", "周末", "周期", "周边", "周年",
    "周报", "许多", "何时", "何地", "任何", "任务", "曾经", "余额", "余量", "程度", "程序", "钟点", "陆续", "范围",
    "夏天", "夏季", "付款", "付费", "白天", "白色", "熊猫", "江湖", "段落", "雷达", "龙头", "史上", "陶瓷", "黎明",
    "顾客", "顾问", "毛利", "毛重", "钱款", "严重", "严格", "武器", "温度", "康复", "施工", "牛奶", "颜色", "庄园",
    "章节", "焦点", "祝贺", "宁可", "舒适", "纪录", "纪念", "童年", "凌晨", "涂料", "盛大", "蓝色", "辛苦", "管理",
    "柴油", "尤其", "卓越", "项目", "费用", "柏油", "荣誉", "甄别", "仲裁", "巩固", "迟到", "董事", "叶子", "孙子",
    "罗列", "胡乱", "杜绝", "苏醒", "丁点", "汪洋", "庞大", "鲁莽", "甘心", "梅花", "兰花", "戴上", "乔装", "牟利",
    "韩国", "唐朝", "宋体", "肖像", "田地", "林业", "罗马",
];

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
    if !chars.iter().all(|&c| crate::canonical::is_han(c)) || COMMON_WORDS.iter().any(|w| word.starts_with(w)) {
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
        for word in [
            "仓库",
            "王",
            "王小明明",
            "订单",
            "Li Lei",
            "欧阳",
            "马上",
            "费用",
            "高峰期",
        ] {
            assert!(!looks_like_person_name(word), "{word}");
        }
        assert_eq!(surname_len("诸葛亮"), Some(2));
        assert_eq!(surname_len("订单"), None);
    }
}
