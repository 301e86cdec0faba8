//! Labels, synonyms and units from names and comments: `销售额（元）` → label 销售额, unit 元; `金额/营业额` → label
//! 金额 and synonym 营业额; without a comment, the name's business words (`wenshu_lexicon::column_words`):
//! `unit_price` → 单价 (unit price), `ContactTitle` → contact title.

use wenshu_lexicon::column_words::name_label;

/// A label, its synonyms and a unit, read from a comment or made from a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Naming {
    /// What people call it.
    pub label: String,
    /// Other names from the comment.
    pub synonyms: Vec<String>,
    /// A unit written in brackets after the label (`（元）`).
    pub unit: Option<String>,
    /// Where the label came from, for the output.
    pub from_comment: bool,
}

/// The naming of `name` with its database comment.
pub fn naming(name: &str, comment: Option<&str>) -> Naming {
    let Some(comment) = comment.map(str::trim).filter(|c| !c.is_empty()) else {
        // The name's business words: a Chinese label where every word is known, else its English words.
        let words = name_label(name);
        let label = match words.zh {
            Some(zh) => zh,
            None if words.en.is_empty() => name.to_string(),
            None => words.en.clone(),
        };
        let mut synonyms = words.synonyms;
        synonyms.retain(|s| *s != label);
        return Naming {
            label,
            synonyms,
            unit: None,
            from_comment: false,
        };
    };
    let (head, unit) = split_unit(comment);
    let mut parts: Vec<String> = head
        .split(['/', '／', ',', '，', ';', '；', '、', '|'])
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty() && p.chars().count() <= 24)
        .collect();
    parts.dedup();
    if parts.is_empty() {
        return naming(name, None);
    }
    let label = parts.remove(0);
    parts.retain(|p| *p != label);
    // The name's English words too, so an English question reads a column labelled in Chinese.
    let english = name_label(name).en;
    if !english.is_empty() && english != label && !parts.contains(&english) {
        parts.push(english);
    }
    Naming {
        label,
        synonyms: parts,
        unit,
        from_comment: true,
    }
}

/// `销售额（元）` → (`销售额`, `元`); a bracket that is not short stays part of the text.
fn split_unit(comment: &str) -> (String, Option<String>) {
    for (open, close) in [('（', '）'), ('(', ')')] {
        if let (Some(a), Some(b)) = (comment.find(open), comment.rfind(close)) {
            let inner = comment[a + open.len_utf8()..b].trim();
            if b > a && !inner.is_empty() && inner.chars().count() <= 6 {
                let head = format!("{}{}", &comment[..a], &comment[b + close.len_utf8()..]);
                return (head.trim().to_string(), Some(inner.to_string()));
            }
        }
    }
    (comment.to_string(), None)
}

/// Whether `text` has a CJK character (the draft then writes Chinese examples).
pub fn is_chinese(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// Whether `name` is an identifier the metric model accepts (ASCII letters, digits, `_`, no leading digit).
pub fn is_identifier(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_give_labels_synonyms_and_units() {
        let n = naming("amount", Some("销售额（元）/营业额"));
        assert_eq!(n.label, "销售额");
        assert_eq!(n.synonyms, vec!["营业额".to_string(), "amount".to_string()]);
        assert_eq!(n.unit.as_deref(), Some("元"));
        let plain = naming("unit_price", None);
        assert_eq!(plain.label, "单价");
        assert!(plain.synonyms.contains(&"unit price".to_string()));
        assert!(!plain.from_comment);
        assert_eq!(naming("ContactTitle", None).label, "contact title");
        assert_eq!(naming("x", Some("  ")).label, "x");
    }

    #[test]
    fn identifiers_and_chinese_are_recognised() {
        assert!(is_identifier("order_items"));
        assert!(!is_identifier("2024sales"));
        assert!(!is_identifier("销售"));
        assert!(is_chinese("销售额"));
        assert!(!is_chinese("amount"));
    }
}
