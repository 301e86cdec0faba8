//! Business words of column and table names, in Chinese and English: a name in any case style (`BillingCountry`,
//! `order_date`, `Order Details`) read as English words, labelled in Chinese where every word is known (billing
//! country → 账单国家, order date → 下单日期, unit price → 单价) with its English words and other spellings as
//! synonyms; and what the shape of a name says a column holds (a key, contact details, free text, a number that
//! does not add up).

use crate::english::identifier_words;
use crate::identifiers::singular;

/// English words and phrases (singular, lowercase, space-separated) of business columns: the Chinese label, other
/// Chinese spellings, other English spellings.
const VOCABULARY: &[(&str, &str, &[&str], &[&str])] = &[
    // Money and quantities.
    ("amount", "金额", &[], &[]),
    ("total", "总额", &["合计"], &[]),
    ("subtotal", "小计", &[], &[]),
    ("price", "价格", &[], &[]),
    ("unit price", "单价", &[], &[]),
    ("quantity", "数量", &[], &["qty"]),
    ("qty", "数量", &[], &["quantity"]),
    ("freight", "运费", &[], &["freight cost", "shipping cost"]),
    ("shipping fee", "运费", &[], &["shipping cost"]),
    ("discount", "折扣", &[], &[]),
    ("revenue", "收入", &["营收"], &[]),
    ("income", "收入", &[], &[]),
    ("sale", "销售额", &["销售"], &["sales"]),
    ("cost", "成本", &[], &[]),
    ("profit", "利润", &[], &[]),
    ("tax", "税额", &["税"], &[]),
    ("fee", "费用", &[], &[]),
    ("balance", "余额", &[], &[]),
    ("salary", "工资", &["薪资"], &[]),
    ("budget", "预算", &[], &[]),
    ("payment", "付款", &[], &[]),
    ("stock", "库存", &[], &[]),
    ("units in stock", "库存", &["库存数量"], &["stock"]),
    ("units on order", "在订数量", &[], &[]),
    ("reorder level", "再订货点", &[], &[]),
    ("weight", "重量", &[], &[]),
    ("score", "评分", &[], &[]),
    ("rating", "评分", &[], &[]),
    // Places.
    ("country", "国家", &[], &[]),
    ("city", "城市", &[], &[]),
    ("region", "地区", &["区域"], &[]),
    ("province", "省份", &[], &[]),
    ("state", "州", &[], &[]),
    ("district", "区县", &[], &[]),
    ("territory", "销售区域", &[], &[]),
    // Things and people.
    ("category", "类别", &["品类", "分类"], &[]),
    ("type", "类型", &[], &[]),
    ("kind", "种类", &[], &[]),
    ("status", "状态", &[], &[]),
    ("channel", "渠道", &[], &[]),
    ("brand", "品牌", &[], &[]),
    ("customer", "客户", &["顾客"], &[]),
    ("client", "客户", &[], &[]),
    ("employee", "员工", &["雇员"], &[]),
    ("staff", "员工", &[], &[]),
    ("sale person", "销售员", &["销售人员"], &["salesperson"]),
    ("salesperson", "销售员", &["销售人员"], &[]),
    ("product", "产品", &["商品"], &[]),
    ("item", "商品", &[], &[]),
    ("order", "订单", &[], &[]),
    ("order detail", "订单明细", &[], &["order line"]),
    ("order line", "订单明细", &[], &[]),
    ("invoice", "发票", &[], &[]),
    ("invoice line", "发票明细", &[], &[]),
    ("supplier", "供应商", &[], &[]),
    ("vendor", "供应商", &[], &[]),
    ("shipper", "承运商", &["物流公司", "货运公司"], &[]),
    ("carrier", "承运商", &[], &[]),
    ("company", "公司", &[], &[]),
    ("store", "门店", &[], &[]),
    ("shop", "店铺", &[], &[]),
    ("member", "会员", &[], &[]),
    ("user", "用户", &[], &[]),
    ("department", "部门", &[], &[]),
    ("level", "等级", &[], &[]),
    ("gender", "性别", &[], &[]),
    ("method", "方式", &[], &[]),
    ("name", "名称", &[], &[]),
    ("detail", "明细", &[], &[]),
    // Days.
    ("date", "日期", &[], &[]),
    ("day", "日期", &[], &[]),
    ("order date", "下单日期", &["订单日期"], &[]),
    ("ship date", "发货日期", &[], &[]),
    ("shipped date", "发货日期", &[], &[]),
    ("required date", "要求到货日期", &[], &[]),
    ("hire date", "入职日期", &[], &[]),
    ("birth date", "出生日期", &[], &[]),
    ("invoice date", "开票日期", &[], &[]),
    ("payment date", "付款日期", &[], &[]),
    // Modifiers.
    ("ship", "发货", &[], &[]),
    ("billing", "账单", &[], &[]),
    ("unit", "单位", &[], &[]),
];

/// Last words of a name that make it a key: never a measure.
const KEY_WORDS: &[&str] = &[
    "id", "uuid", "guid", "key", "code", "no", "num", "number", "sku", "编号", "代码",
];
/// Words of a name that make it contact details or a locator: never a dimension.
const CONTACT_WORDS: &[&str] = &[
    "phone",
    "mobile",
    "fax",
    "email",
    "mail",
    "url",
    "homepage",
    "website",
    "web",
    "link",
    "address",
    "postal",
    "postcode",
    "zip",
    "extension",
    "photo",
    "picture",
    "image",
    "path",
    "password",
    "电话",
    "手机",
    "传真",
    "邮箱",
    "地址",
    "网址",
    "邮编",
];
/// Words before `name` that make it a part of a person's name (`FirstName`, `last_name`).
const NAME_PART_WORDS: &[&str] = &["first", "last", "given", "family", "middle", "sur", "nick"];
/// Words of a name that make it free text: never a dimension.
const FREE_TEXT_WORDS: &[&str] = &[
    "note",
    "notes",
    "description",
    "comment",
    "comments",
    "remark",
    "remarks",
    "memo",
    "text",
    "body",
    "备注",
    "描述",
    "说明",
];
/// Words of a name that make a number something other than an amount: it does not add up across rows.
const NOT_ADDITIVE_WORDS: &[&str] = &[
    "rank",
    "ranking",
    "year",
    "month",
    "week",
    "day",
    "quarter",
    "age",
    "level",
    "lat",
    "latitude",
    "lng",
    "lon",
    "longitude",
    "version",
    "seq",
    "sequence",
    "sort",
    "position",
    "ordinal",
    "rate",
    "ratio",
    "percent",
    "percentage",
    "pct",
    "discount",
    "score",
    "rating",
    "排名",
    "年份",
    "年龄",
    "比例",
    "折扣",
    "评分",
];

/// What the shape of a column's name says it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// A key or code (`OrderID`, `customer_id`, `sku`).
    Key,
    /// Contact details or a locator (phone, fax, email, URL, address, postal code, photo path).
    Contact,
    /// Free text (notes, description, comment).
    FreeText,
    /// A number that is not an amount: ranks, years, ages, rates, discounts, levels.
    NotAdditive,
    /// A part of a person's name (first name, last name): one person's rows are not told apart by it.
    NamePart,
    /// Nothing in the name says otherwise.
    Plain,
}

/// A column's or table's label in Chinese (when every word is known) and English, and its other spellings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameLabel {
    /// The Chinese label, when every word of the name is in the vocabulary (or the name is Chinese).
    pub zh: Option<String>,
    /// The name's English words, singular where the name is a plural (`Order Details` → order detail).
    pub en: String,
    /// Other spellings: the English words, other Chinese and English words of the vocabulary.
    pub synonyms: Vec<String>,
}

/// The words of a name, lowercase: case styles, `_`, `-` and spaces split; CJK text kept whole.
pub fn name_words(name: &str) -> Vec<String> {
    if name.chars().any(is_cjk) {
        return name
            .split([' ', '_', '-'])
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
    }
    identifier_words(name)
}

fn is_cjk(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// What the shape of `name` says its column holds.
pub fn name_kind(name: &str) -> NameKind {
    let words = name_words(name);
    let chinese = name.chars().any(is_cjk);
    // `HomePage` is homepage too: the words glued.
    let glued = words.concat();
    let has = |list: &[&str]| {
        words.iter().any(|w| list.contains(&w.as_str()))
            || list.contains(&glued.as_str())
            || (chinese && list.iter().any(|l| l.chars().any(is_cjk) && name.contains(l)))
    };
    let last_is_key = words.last().is_some_and(|w| KEY_WORDS.contains(&w.as_str()))
        || (chinese && KEY_WORDS.iter().any(|k| k.chars().any(is_cjk) && name.ends_with(k)));
    let name_part = words.len() >= 2
        && words.last().is_some_and(|w| w == "name")
        && NAME_PART_WORDS.contains(&words[words.len() - 2].as_str());
    if has(CONTACT_WORDS) {
        NameKind::Contact
    } else if name_part || words == ["surname"] {
        NameKind::NamePart
    } else if last_is_key {
        NameKind::Key
    } else if has(FREE_TEXT_WORDS) {
        NameKind::FreeText
    } else if has(NOT_ADDITIVE_WORDS) {
        NameKind::NotAdditive
    } else {
        NameKind::Plain
    }
}

/// The entry of the vocabulary spelled by `words` exactly.
fn entry(
    words: &[String],
) -> Option<&'static (
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
)> {
    let phrase = words.join(" ");
    VOCABULARY.iter().find(|(en, ..)| *en == phrase)
}

/// The label of a column or table named `name`: `BillingCountry` → 账单国家 (billing country), `Orders` → 订单
/// (order), `订单金额` → 订单金额; an English word the vocabulary lacks leaves the name without a Chinese label.
pub fn name_label(name: &str) -> NameLabel {
    let words: Vec<String> = name_words(name).iter().map(|w| singular(w)).collect();
    let en = words.join(" ");
    if name.chars().any(is_cjk) {
        return NameLabel {
            zh: Some(name.trim().to_string()),
            en: name.trim().to_string(),
            synonyms: Vec::new(),
        };
    }
    let mut zh = String::new();
    let mut synonyms: Vec<String> = Vec::new();
    let mut whole = true;
    let mut at = 0;
    while at < words.len() {
        // The longest phrase of the vocabulary starting here.
        let found = (at + 1..=words.len())
            .rev()
            .find_map(|end| entry(&words[at..end]).map(|e| (end, e)));
        match found {
            Some((end, (_, label, other_zh, other_en))) => {
                zh.push_str(label);
                if end - at == words.len() {
                    synonyms.extend(other_zh.iter().map(|s| s.to_string()));
                    synonyms.extend(other_en.iter().map(|s| s.to_string()));
                } else {
                    // A phrase inside a longer name: the name with this part spelled another way.
                    for other in other_en.iter() {
                        let mut respelled = words.clone();
                        respelled.splice(at..end, [other.to_string()]);
                        synonyms.push(respelled.join(" "));
                    }
                }
                at = end;
            }
            None => {
                whole = false;
                break;
            }
        }
    }
    let zh = (whole && !zh.is_empty()).then_some(zh);
    if zh.is_some() && !en.is_empty() {
        synonyms.insert(0, en.clone());
    }
    let raw = name_words(name).join(" ");
    if raw != en && !raw.is_empty() {
        synonyms.push(raw);
    }
    synonyms.retain(|s| Some(s) != zh.as_ref());
    let mut seen = std::collections::HashSet::new();
    synonyms.retain(|s| seen.insert(s.clone()));
    NameLabel { zh, en, synonyms }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_any_case_style_are_labelled_in_both_languages() {
        let l = name_label("BillingCountry");
        assert_eq!(l.zh.as_deref(), Some("账单国家"));
        assert_eq!(l.en, "billing country");
        assert!(l.synonyms.contains(&"billing country".to_string()));
        assert_eq!(name_label("order_date").zh.as_deref(), Some("下单日期"));
        assert_eq!(name_label("UnitPrice").zh.as_deref(), Some("单价"));
        let plural = name_label("Order Details");
        assert_eq!(
            (plural.zh.as_deref(), plural.en.as_str()),
            (Some("订单明细"), "order detail")
        );
        assert!(plural.synonyms.contains(&"order details".to_string()), "{plural:?}");
        assert!(name_label("Freight").synonyms.contains(&"freight cost".to_string()));
        assert_eq!(name_label("订单金额").zh.as_deref(), Some("订单金额"));
        let unknown = name_label("ContactTitle");
        assert_eq!((unknown.zh, unknown.en.as_str()), (None, "contact title"));
    }

    #[test]
    fn the_shape_of_a_name_says_what_it_holds() {
        assert_eq!(name_kind("OrderID"), NameKind::Key);
        assert_eq!(name_kind("customer_id"), NameKind::Key);
        assert_eq!(name_kind("HomePage"), NameKind::Contact);
        assert_eq!(name_kind("Fax"), NameKind::Contact);
        assert_eq!(name_kind("PostalCode"), NameKind::Contact);
        assert_eq!(name_kind("Notes"), NameKind::FreeText);
        assert_eq!(name_kind("rank"), NameKind::NotAdditive);
        assert_eq!(name_kind("release_year"), NameKind::NotAdditive);
        assert_eq!(name_kind("Discount"), NameKind::NotAdditive);
        assert_eq!(name_kind("联系电话"), NameKind::Contact);
        assert_eq!(name_kind("FirstName"), NameKind::NamePart);
        assert_eq!(name_kind("last_name"), NameKind::NamePart);
        assert_eq!(name_kind("CompanyName"), NameKind::Plain);
        assert_eq!(name_kind("Freight"), NameKind::Plain);
        assert_eq!(name_kind("ShipCountry"), NameKind::Plain);
    }
}
