//! Numerals: Chinese (小写, 大写, abbreviated 三千五), Arabic (3,000, 1.5), mixed (1.5万), with count words.

use std::ops::Range;

use serde::Serialize;

use crate::text::{Cursor, Folded, is_word_char};

/// The largest magnitude accepted (whole numbers are exact in f64 up to 2^53); bigger numerals are
/// errors rather than imprecise floats.
pub const MAX_VALUE: f64 = 9e15;

/// What a numeral counts, judged from the words around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NumeralKind {
    /// A bare number: 三千五, 1.5万.
    Plain,
    /// A number with a measure word: 五个, 十五条.
    Count,
    /// A "first N": 前五, 前十名, top 5.
    TopN,
    /// An ordinal: 第三.
    Ordinal,
    /// A percentage: 5%, 百分之五.
    Percent,
}

/// A parsed number and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Number {
    /// The value (15000 for 1.5万).
    pub value: f64,
    /// What the number counts.
    pub kind: NumeralKind,
}

impl Number {
    /// The value as an integer when it is one.
    pub fn as_integer(&self) -> Option<i64> {
        integer_of(self.value)
    }
}

/// The value as an integer when it is a whole number within ±[`MAX_VALUE`].
pub fn integer_of(value: f64) -> Option<i64> {
    if value.fract() == 0.0 && value.abs() <= MAX_VALUE {
        Some(value as i64)
    } else {
        None
    }
}

/// Why a text is not a number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberError {
    /// The text is empty or only spaces.
    #[error("not a number: empty text")]
    Empty,
    /// The text holds something other than one numeral.
    #[error("not a number: {0}")]
    NotANumber(String),
    /// The numeral is larger than [`MAX_VALUE`].
    #[error("number too large: {0}")]
    TooLarge(String),
}

impl NumberError {
    /// A stable machine-readable code for the error.
    pub fn code(&self) -> &'static str {
        match self {
            NumberError::Empty | NumberError::NotANumber(_) => "not_a_number",
            NumberError::TooLarge(_) => "number_too_large",
        }
    }
}

/// One numeral found in a sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NumeralSpan {
    /// Byte range in the original text, wrappers (前, 个, top) included.
    pub range: Range<usize>,
    /// The value.
    pub value: f64,
    /// What the number counts.
    pub kind: NumeralKind,
}

/// The value of a Chinese digit character (〇零一…九, 两, 俩, 仨, 大写 壹…玖).
pub(crate) fn digit_value(c: char) -> Option<u8> {
    Some(match c {
        '〇' | '零' => 0,
        '一' | '壹' | '幺' => 1,
        '二' | '贰' | '两' | '俩' => 2,
        '三' | '叁' | '参' | '仨' => 3,
        '四' | '肆' => 4,
        '五' | '伍' => 5,
        '六' | '陆' => 6,
        '七' | '柒' => 7,
        '八' | '捌' => 8,
        '九' | '玖' => 9,
        _ => return None,
    })
}

/// The value of a unit within a section (十, 百, 千 and their 大写 forms).
fn small_unit(c: char) -> Option<i128> {
    match c {
        '十' | '拾' => Some(10),
        '百' | '佰' => Some(100),
        '千' | '仟' => Some(1000),
        _ => None,
    }
}

/// The value of a unit that closes a section (万, 亿).
fn large_unit(c: char) -> Option<i128> {
    match c {
        '万' => Some(10_000),
        '亿' => Some(100_000_000),
        _ => None,
    }
}

/// 廿 (20), 卅 (30), 卌 (40): tens written as one character.
fn tens_char(c: char) -> Option<i128> {
    match c {
        '廿' => Some(20),
        '卅' => Some(30),
        '卌' => Some(40),
        _ => None,
    }
}

/// Whether `c` can be part of a Chinese numeral.
pub(crate) fn is_chinese_numeral_char(c: char) -> bool {
    digit_value(c).is_some() || small_unit(c).is_some() || large_unit(c).is_some() || tens_char(c).is_some()
}

/// An exact decimal: `mantissa / 10^scale`, so that 16.4亿 is exactly 1640000000.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decimal {
    /// The digits.
    mantissa: i128,
    /// How many of them are after the point.
    scale: u32,
}

/// The largest mantissa kept; larger values are refused rather than rounded.
const MAX_MANTISSA: i128 = 10_i128.pow(30);

impl Decimal {
    /// A whole number.
    fn int(v: i128) -> Decimal {
        Decimal { mantissa: v, scale: 0 }
    }

    /// Both at the larger scale.
    fn aligned(self, other: Decimal) -> Option<(i128, i128, u32)> {
        let scale = self.scale.max(other.scale);
        let a = self.mantissa.checked_mul(10_i128.checked_pow(scale - self.scale)?)?;
        let b = other.mantissa.checked_mul(10_i128.checked_pow(scale - other.scale)?)?;
        Some((a, b, scale))
    }

    /// The sum, None on overflow.
    fn add(self, other: Decimal) -> Option<Decimal> {
        let (a, b, scale) = self.aligned(other)?;
        Decimal {
            mantissa: a.checked_add(b)?,
            scale,
        }
        .checked()
    }

    /// Times a whole number, None on overflow.
    fn mul_int(self, k: i128) -> Option<Decimal> {
        Decimal {
            mantissa: self.mantissa.checked_mul(k)?,
            scale: self.scale,
        }
        .checked()
    }

    /// Divided by ten exactly (the 五 of 三千五 is half a thousand).
    fn tenth(self) -> Decimal {
        Decimal {
            mantissa: self.mantissa,
            scale: self.scale + 1,
        }
    }

    /// Itself when within the kept precision.
    fn checked(self) -> Option<Decimal> {
        (self.mantissa.abs() <= MAX_MANTISSA && self.scale <= 30).then_some(self)
    }

    /// Whether it is zero.
    fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    /// The nearest f64 (exact for whole numbers up to 2^53), from the decimal digits.
    fn to_f64(self) -> f64 {
        const EXACT: i128 = 1 << 53;
        if self.mantissa.abs() < EXACT && self.scale <= 22 {
            // Both operands are exact in f64, so the one division rounds correctly.
            return self.mantissa as f64 / 10_f64.powi(self.scale as i32);
        }
        format!("{}e-{}", self.mantissa, self.scale)
            .parse()
            .unwrap_or(f64::INFINITY)
    }
}

/// How a numeral was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Arabic digits, maybe with Chinese units (1.5万).
    Arabic,
    /// Chinese digits read with units (三千五) or a single Chinese digit.
    Chinese,
    /// Chinese digits read one by one (二零二五).
    Positional,
}

/// A numeral read from folded characters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Read {
    /// The value.
    pub value: f64,
    /// How it was written.
    pub style: Style,
    /// How many characters it took.
    pub len: usize,
}

/// One operand of a numeral with units: a Chinese digit, or an Arabic number (4000, 1.2).
#[derive(Debug, Clone, Copy)]
struct Operand {
    /// Its value.
    value: Decimal,
    /// A single digit (the 五 of 三千五 or 3万4 means the next unit down).
    single_digit: bool,
}

/// Reads an Arabic number at `i` (digits, thousands separators, a decimal part): (value, end).
fn arabic_operand(s: &[char], i: usize) -> Option<(Decimal, usize)> {
    let mut c = Cursor::new(s, i);
    let (int, _) = c.digits()?;
    let mut mantissa = i128::from(int);
    loop {
        let save = c.pos;
        if c.eat(',')
            && let Some((group, 3)) = c.digits()
        {
            mantissa = mantissa.checked_mul(1000)?.checked_add(i128::from(group))?;
            continue;
        }
        c.pos = save;
        break;
    }
    let mut scale = 0;
    let save = c.pos;
    if c.eat('.') {
        let frac_start = c.pos;
        match c.digits() {
            Some(_) => {
                for ch in &s[frac_start..c.pos] {
                    mantissa = mantissa.checked_mul(10)?.checked_add(i128::from(ch.to_digit(10)?))?;
                    scale += 1;
                }
            }
            None => c.pos = save,
        }
    }
    Some((Decimal { mantissa, scale }.checked()?, c.pos))
}

/// Chinese digits after 点 (三点一五): the decimal part and its end.
fn point_digits(s: &[char], i: usize) -> Option<(Decimal, usize)> {
    if s.get(i) != Some(&'点') {
        return None;
    }
    let mut digits: Vec<u8> = s.get(i + 1..)?.iter().map_while(|ch| digit_value(*ch)).collect();
    if digits.is_empty() {
        // 零点45, 二十点75: Arabic digits after a Chinese 点, when no word follows (十点30分 is a time).
        digits = s
            .get(i + 1..)?
            .iter()
            .map_while(|ch| ch.to_digit(10))
            .map(|d| d as u8)
            .collect();
        let after = s.get(i + 1 + digits.len()).copied();
        if after.is_some_and(|ch| crate::canonical::is_han(ch) || ch.is_ascii_alphanumeric() || ch == '.') {
            return None;
        }
    }
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mantissa = digits.iter().fold(0_i128, |acc, d| acc * 10 + i128::from(*d));
    Some((
        Decimal {
            mantissa,
            scale: u32::try_from(digits.len()).ok()?,
        },
        i + 1 + digits.len(),
    ))
}

/// The state of reading a numeral with units (五万四千六百, 3万4000, 1.2万亿).
struct Sections {
    /// Sections closed by 万 and 亿.
    total: Decimal,
    /// The section being read (below 万).
    section: Decimal,
    /// An operand not yet multiplied by a unit.
    pending: Option<Operand>,
    /// The last small unit (十百千) of the section; the next must be smaller.
    last_small: i128,
    /// The last large unit that closed a section.
    last_large: i128,
    /// The last unit read, for a trailing digit (三千五 → 五百).
    last_unit: Option<i128>,
    /// A 零 was read since the last unit (一千零五: the 五 is ones).
    after_zero: bool,
}

impl Sections {
    /// A fresh reading.
    fn new() -> Sections {
        Sections {
            total: Decimal::int(0),
            section: Decimal::int(0),
            pending: None,
            last_small: i128::MAX,
            last_large: 0,
            last_unit: None,
            after_zero: false,
        }
    }

    /// A small unit: the pending operand (or an implied 一 for 十, 千三) times it; None when out of order.
    fn small(&mut self, u: i128, implied_one: bool) -> Option<()> {
        if u >= self.last_small {
            return None;
        }
        let d = match self.pending.take() {
            Some(op) => op.value,
            None if u == 10 || implied_one => Decimal::int(1),
            None => return None,
        };
        self.section = self.section.add(d.mul_int(u)?)?;
        self.last_small = u;
        self.last_unit = Some(u);
        self.after_zero = false;
        Some(())
    }

    /// A large unit closing the section; None when nothing precedes it (unless `implied_one`).
    fn large(&mut self, u: i128, implied_one: bool) -> Option<()> {
        let mut sec = self.section;
        if let Some(op) = self.pending.take() {
            // 百三万, 三千五万: a single digit after a unit within the section is the next unit down.
            let down = match self.last_unit {
                Some(u) if op.single_digit && !self.after_zero && self.last_small == u => op.value.mul_int(u)?.tenth(),
                _ => op.value,
            };
            sec = sec.add(down)?;
        }
        if sec.is_zero() && self.total.is_zero() {
            if !implied_one {
                return None;
            }
            sec = Decimal::int(1);
        }
        if self.last_large > u {
            self.total = self.total.add(sec.mul_int(u)?)?;
        } else {
            self.total = self.total.add(sec)?.mul_int(u)?;
            self.last_large = u;
        }
        self.section = Decimal::int(0);
        self.last_small = i128::MAX;
        self.last_unit = Some(u);
        self.after_zero = false;
        Some(())
    }

    /// The value, a trailing single digit counting as the next unit down (三千五 = 3500, 3万4 = 34000).
    fn finish(self) -> Option<Decimal> {
        let tail = match (self.pending, self.last_unit) {
            (Some(op), Some(u)) if op.single_digit && !self.after_zero => op.value.mul_int(u)?.tenth(),
            (Some(op), _) => op.value,
            (None, _) => Decimal::int(0),
        };
        self.total.add(self.section)?.add(tail)
    }
}

/// Reads a numeral with units at `start` (Chinese digits or Arabic operands): (value, end, first
/// operand was Arabic). Colloquial 千三 / 万五 / 百二 read as 一千三 …; 廿 / 卅 / 卌 are 20 / 30 / 40.
fn sections(s: &[char], start: usize) -> Option<(Decimal, usize, bool)> {
    let mut st = Sections::new();
    let mut any = false;
    let mut arabic_first = false;
    let mut end = start;
    let mut i = start;
    // 千三, 万五, 百二: a unit first, then exactly one digit that ends the numeral.
    let leading_unit = s
        .get(start)
        .is_some_and(|c| *c != '十' && *c != '拾' && (small_unit(*c).is_some() || large_unit(*c).is_some()));
    if leading_unit {
        let one_digit_after = s.get(start + 1).and_then(|c| digit_value(*c)).is_some_and(|d| d > 0);
        let continues = |i: usize| {
            s.get(i)
                .is_some_and(|c| is_chinese_numeral_char(*c) || c.is_ascii_digit() || *c == '点')
        };
        // 百三万: the colloquial number may itself be counted in 万 or 亿.
        let large_after = s.get(start + 2).is_some_and(|c| large_unit(*c).is_some())
            && small_unit(s[start]).is_some()
            && !continues(start + 3);
        let ends = !continues(start + 2) || large_after;
        // 百万, 千亿, 万亿: a unit before a larger one, read as one of it.
        let unit_of_units = s.get(start).is_some_and(|c| small_unit(*c).is_some() || *c == '万')
            && s.get(start + 1)
                .is_some_and(|c| large_unit(*c).is_some() && Some(*c) != s.get(start).copied())
            && !s
                .get(start + 2)
                .is_some_and(|c| is_chinese_numeral_char(*c) || c.is_ascii_digit() || *c == '点');
        if !(one_digit_after && ends || unit_of_units) {
            return None;
        }
    }
    while let Some(&c) = s.get(i) {
        if let Some(d) = digit_value(c) {
            if st.pending.is_some() {
                break;
            }
            if d == 0 {
                if !any {
                    return Some((Decimal::int(0), i + 1, false));
                }
                st.after_zero = true;
                i += 1;
                end = i;
                continue;
            }
            st.pending = Some(Operand {
                value: Decimal::int(i128::from(d)),
                single_digit: true,
            });
        } else if c.is_ascii_digit() {
            if st.pending.is_some() || (any && st.last_unit.is_none()) {
                break;
            }
            let (value, next) = arabic_operand(s, i)?;
            arabic_first |= !any;
            st.pending = Some(Operand {
                value,
                single_digit: next == i + 1,
            });
            any = true;
            i = next;
            end = i;
            continue;
        } else if let Some(t) = tens_char(c) {
            if st.pending.is_some() || 10 >= st.last_small {
                break;
            }
            st.section = st.section.add(Decimal::int(t))?;
            st.last_small = 10;
            st.last_unit = Some(10);
            st.after_zero = false;
        } else if let Some(u) = small_unit(c) {
            if st.small(u, leading_unit && !any).is_none() {
                break;
            }
        } else if c == '个' && st.pending.is_some() && s.get(i + 1).is_some_and(|n| large_unit(*n).is_some()) {
            // 两个亿: a measure word before 亿 or 万.
            i += 1;
            continue;
        } else if let Some(u) = large_unit(c) {
            let before = st.total;
            if st.large(u, leading_unit && !any).is_none() {
                if !before.is_zero() {
                    // 一亿亿亿亿亿: too large to keep exactly, not a shorter numeral.
                    return None;
                }
                break;
            }
        } else {
            break;
        }
        any = true;
        i += 1;
        end = i;
    }
    if !any {
        return None;
    }
    Some((st.finish()?, end, arabic_first))
}

/// Reads a Chinese numeral (digits and units) at the cursor.
pub(crate) fn chinese(cur: &mut Cursor) -> Option<Read> {
    let start = cur.pos;
    let run = cur.s[start..].iter().take_while(|c| digit_value(**c).is_some()).count();
    let after_run = cur.s.get(start + run).copied();
    if run >= 2 && !after_run.is_some_and(|c| small_unit(c).is_some() || large_unit(c).is_some()) {
        let value = cur.s[start..start + run]
            .iter()
            .filter_map(|c| digit_value(*c))
            .fold(0.0, |acc, d| acc * 10.0 + f64::from(d));
        cur.pos = start + run;
        return Some(Read {
            value,
            style: Style::Positional,
            len: run,
        });
    }
    if cur.peek().is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    let (value, end, _) = sections_chinese_only(cur.s, start)?;
    cur.pos = end;
    Some(Read {
        value: value.to_f64(),
        style: Style::Chinese,
        len: end - start,
    })
}

/// [`sections`] stopping before any Arabic digit (the time grammar reads 十2 as nothing).
fn sections_chinese_only(s: &[char], start: usize) -> Option<(Decimal, usize, bool)> {
    let stop = s[start..]
        .iter()
        .position(|c| c.is_ascii_digit())
        .map_or(s.len(), |p| start + p);
    sections(&s[..stop], start)
}

/// Reads one numeral (Arabic, Chinese, mixed such as 5万4千6百 or 3万4000, a decimal with 点, or
/// Chinese digits read one by one) at the cursor, exactly.
fn decimal_numeral(cur: &mut Cursor) -> Option<(Decimal, Style)> {
    let start = cur.pos;
    let first = cur.peek()?;
    if !first.is_ascii_digit() {
        let run = cur.s[start..].iter().take_while(|c| digit_value(**c).is_some()).count();
        let after_run = cur.s.get(start + run).copied();
        if run >= 2 && !after_run.is_some_and(|c| small_unit(c).is_some() || large_unit(c).is_some()) {
            let mantissa = cur.s[start..start + run]
                .iter()
                .filter_map(|c| digit_value(*c))
                .try_fold(0_i128, |acc, d| acc.checked_mul(10)?.checked_add(i128::from(d)))?;
            let mut value = Decimal { mantissa, scale: 0 }.checked()?;
            cur.pos = start + run;
            // 一七二零点一三四: digits one by one, then a decimal part.
            if let Some((frac, next)) = point_digits(cur.s, cur.pos) {
                value = value.add(frac)?;
                cur.pos = next;
            }
            return Some((value, Style::Positional));
        }
    }
    let (mut value, mut end, arabic_first) = sections(cur.s, start)?;
    // 三点五, 十二点五万: a Chinese decimal part, then units multiplying the whole.
    if !arabic_first && let Some((frac, next)) = point_digits(cur.s, end) {
        value = value.add(frac)?;
        end = next;
        while let Some(u) = cur.s.get(end).and_then(|c| large_unit(*c).or_else(|| small_unit(*c))) {
            value = value.mul_int(u)?;
            end += 1;
        }
    }
    cur.pos = end;
    Some((value, if arabic_first { Style::Arabic } else { Style::Chinese }))
}

/// Reads a small whole count (Arabic or Chinese) such as the 7 of 最近7天; None above `max`.
pub(crate) fn count(cur: &mut Cursor, max: u32) -> Option<u32> {
    let save = cur.pos;
    let first = cur.peek()?;
    let value = if first.is_ascii_digit() {
        cur.digits()?.0 as f64
    } else {
        let read = chinese(cur)?;
        if read.style == Style::Positional {
            cur.pos = save;
            return None;
        }
        read.value
    };
    if value < 1.0 || value > f64::from(max) || value.fract() != 0.0 {
        cur.pos = save;
        return None;
    }
    Some(value as u32)
}

/// Measure words that make a numeral a count (个, 名, 条 …).
const MEASURE_WORDS: &[&str] = &[
    "个", "名", "条", "位", "家", "款", "部", "次", "件", "笔", "单", "项", "张", "本", "台", "辆", "只", "人", "元",
    "块", "行", "页", "份", "组", "批", "种", "座", "场", "集", "套", "箱", "瓶", "斤", "吨", "米", "岁", "倍",
];

/// Words before a numeral that make it a "first N".
const TOP_PREFIXES: &[&str] = &["前", "top"];

/// A numeral with its surrounding words, read at a cursor.
struct Wrapped {
    /// The numeral itself.
    read: Read,
    /// Its kind.
    kind: NumeralKind,
    /// Characters from the wrapper start to the wrapper end.
    end: usize,
}

/// Prefixes naming a share of a whole: (prefix, divisor turning it into a percentage).
const SHARE_PREFIXES: &[(&str, i128)] = &[("百分之", 1), ("千分之", 10), ("万分之", 100)];

/// Currency units of a money amount (三元五角, 十块八毛).
const YUAN: &[&str] = &["元", "块", "圆"];

/// Characters after a numeral that make it approximate (三十多, 十几, 100余): never guessed.
const APPROXIMATE_AFTER: &[char] = &['多', '几', '余'];

/// Two neighbouring Chinese digits (七八, 一两, 三四): "seven or eight", an approximation, not 78.
fn neighbouring_digits(s: &[char]) -> bool {
    match s {
        [a, b] => match (digit_value(*a), digit_value(*b)) {
            (Some(x), Some(y)) => y == x + 1 && x > 0,
            _ => false,
        },
        _ => false,
    }
}

/// Words before a money amount (人民币一百元, ¥100).
const MONEY_PREFIXES: &[&str] = &["人民币", "新台币", "台币", "港币", "美元", "¥", "￥", "$"];

/// Currencies after an amount other than yuan (25481港元, 45564.44美元): the amount is the number.
const CURRENCIES: &[&str] = &[
    "新台币",
    "港元",
    "港币",
    "美元",
    "美金",
    "日元",
    "欧元",
    "英镑",
    "韩元",
    "澳元",
    "加元",
    "卢布",
    "泰铢",
    "台币",
    "人民币",
];

/// The jiao and fen of a money amount after its yuan (五角, 八毛, 三角五分; 三块五: the 五 is jiao).
fn money_fraction(c: &mut Cursor) -> Option<Decimal> {
    if c.eat('整') || c.eat('正') {
        return Some(Decimal::int(0));
    }
    let save = c.pos;
    // 十元零五分: no jiao, some fen.
    if c.eat('零') {
        let fen = c.peek().and_then(digit_value).map(i128::from);
        if let Some(fen) = fen
            && c.peek_at(1) == Some('分')
        {
            c.pos += 2;
            return Some(Decimal {
                mantissa: fen,
                scale: 2,
            });
        }
        c.pos = save;
    }
    let digit = |c: &mut Cursor| {
        let d = c
            .peek()
            .and_then(|ch| digit_value(ch).map(i128::from).or(ch.to_digit(10).map(i128::from)))?;
        c.pos += 1;
        Some(d)
    };
    let Some(jiao) = digit(c) else {
        return Some(Decimal::int(0));
    };
    if !(c.eat('角') || c.eat('毛')) {
        // 三块五: a lone digit after the yuan is jiao, when nothing numeric follows.
        if c.peek()
            .is_some_and(|ch| is_chinese_numeral_char(ch) || ch.is_ascii_digit() || ch == '分')
        {
            c.pos = save;
            return None;
        }
        return Some(Decimal {
            mantissa: jiao,
            scale: 1,
        });
    }
    let mut cents = jiao * 10;
    let save_fen = c.pos;
    match digit(c) {
        Some(fen) if c.eat('分') || c.at_end() => cents += fen,
        _ => c.pos = save_fen,
    }
    Some(Decimal {
        mantissa: cents,
        scale: 2,
    })
}

/// The financial (大写) forms of digits and units, written on cheques and invoices.
const FINANCIAL_DIGITS: &str = "壹贰叁肆伍陆柒捌玖拾佰仟";

/// 半个, 半箱, 半百, 半千, 半万: half of a unit or of one thing; (value, a measure word followed).
fn half_of(c: &mut Cursor) -> Option<(Decimal, bool)> {
    if c.peek() != Some('半') {
        return None;
    }
    let save = c.pos;
    c.pos += 1;
    let unit = c
        .peek()
        .and_then(|ch| small_unit(ch).filter(|u| *u > 10).or_else(|| large_unit(ch)));
    if let Some(u) = unit
        && !c
            .peek_at(1)
            .is_some_and(|ch| is_chinese_numeral_char(ch) || ch.is_ascii_digit() || ch == '点')
    {
        c.pos += 1;
        return Some((Decimal::int(u).mul_int(5)?.tenth(), false));
    }
    if c.eat_any(MEASURE_WORDS).is_some() {
        return Some((Decimal { mantissa: 5, scale: 1 }, true));
    }
    c.pos = save;
    None
}

/// 二百又四分之一, 2又一百分之7: a whole number and a fraction; (numerator, denominator, end).
fn mixed_fraction(c: &Cursor, whole: Decimal) -> Option<(Decimal, Decimal, usize)> {
    let mut c = *c;
    (whole.scale == 0 && c.eat('又')).then_some(())?;
    let (denominator, _) = decimal_numeral(&mut c)?;
    c.eat_str("分之").then_some(())?;
    let (numerator, _) = decimal_numeral(&mut c)?;
    if denominator.scale != 0 || numerator.scale != 0 || denominator.is_zero() {
        return None;
    }
    Some((whole.mul_int(denominator.mantissa)?.add(numerator)?, denominator, c.pos))
}

/// 三份一, 四份三 (Cantonese for 三分之一): the denominator, 份, then a smaller numerator ending the numeral.
fn parts_fraction(c: &Cursor, denominator: Decimal) -> Option<(Decimal, Decimal, usize)> {
    let mut c = *c;
    (denominator.scale == 0 && c.eat('份')).then_some(())?;
    let start = c.pos;
    let (numerator, _) = decimal_numeral(&mut c)?;
    let ends = !c
        .peek()
        .is_some_and(|ch| crate::canonical::is_han(ch) || ch.is_ascii_alphanumeric());
    let smaller = numerator.scale == 0 && !numerator.is_zero() && numerator.mantissa < denominator.mantissa;
    (ends && smaller && c.pos > start).then_some((numerator, denominator, c.pos))
}

/// A numeral with its wrappers and its exact value.
fn wrapped_decimal(cur: &mut Cursor) -> Option<(Decimal, Option<Decimal>, Style, NumeralKind)> {
    let mut c = *cur;
    let mut kind = NumeralKind::Plain;
    let mut share = None;
    let top_allowed = !cur.prev().is_some_and(is_word_char);
    if top_allowed && c.eat_any(TOP_PREFIXES).is_some() {
        kind = NumeralKind::TopN;
        c.skip_ws();
        c.eat('-');
    } else if c.eat('第') {
        kind = NumeralKind::Ordinal;
    } else if let Some(divisor) = c.eat_table(SHARE_PREFIXES) {
        kind = NumeralKind::Percent;
        share = Some(divisor);
    }
    let money = kind == NumeralKind::Plain && c.eat_any(MONEY_PREFIXES).is_some();
    if kind == NumeralKind::Percent && c.looking_at("百") && !c.peek_at(1).is_some_and(is_chinese_numeral_char) {
        // 百分之百.
        c.pos += 1;
        cur.pos = c.pos;
        return Some((Decimal::int(100), None, Style::Chinese, kind));
    }
    if kind == NumeralKind::Plain && c.eat_str("一半") {
        cur.pos = c.pos;
        return Some((Decimal { mantissa: 5, scale: 1 }, None, Style::Chinese, kind));
    }
    if kind == NumeralKind::Plain
        && !money
        && let Some((half, counted)) = half_of(&mut c)
    {
        cur.pos = c.pos;
        let kind = if counted { NumeralKind::Count } else { kind };
        return Some((half, None, Style::Chinese, kind));
    }
    let numeral_start = c.pos;
    let (mut value, style) = decimal_numeral(&mut c)?;
    if c.peek().is_some_and(|ch| APPROXIMATE_AFTER.contains(&ch)) || neighbouring_digits(&c.s[numeral_start..c.pos]) {
        return None;
    }
    let mut denominator = None;
    if let Some(divisor) = share {
        value = Decimal {
            mantissa: value.mantissa,
            scale: value.scale + divisor.ilog10(),
        };
    } else if kind == NumeralKind::Plain && c.eat_str("分之") {
        // 三分之一: the denominator comes first.
        let (numerator, _) = decimal_numeral(&mut c)?;
        denominator = Some(value);
        value = numerator;
    } else if kind == NumeralKind::Plain
        && let Some((numerator, d, end)) = mixed_fraction(&c, value).or_else(|| parts_fraction(&c, value))
    {
        // 二百又四分之一, 三份一.
        value = numerator;
        denominator = Some(d);
        c.pos = end;
    } else if kind == NumeralKind::Plain && value.scale == 0 && (c.looking_at("个半") || c.looking_at("半")) {
        // 2半, 两个半: and a half.
        if c.eat('个') {
            kind = NumeralKind::Count;
        }
        c.pos += 1;
        value = value.add(Decimal { mantissa: 5, scale: 1 })?;
    } else if kind == NumeralKind::Plain
        && c.peek() == Some('分')
        && !c.peek_at(1).is_some_and(|ch| ch == '之' || ch == '钟')
        && c.s[numeral_start..c.pos]
            .iter()
            .any(|ch| FINANCIAL_DIGITS.contains(*ch))
    {
        // 贰分: fen of a money amount, in the financial digits only (3分 may be a score).
        c.pos += 1;
        kind = NumeralKind::Count;
        value = Decimal {
            mantissa: value.mantissa,
            scale: value.scale + 2,
        };
    } else {
        if c.eat('%') {
            kind = NumeralKind::Percent;
        } else if c.eat('‰') {
            kind = NumeralKind::Percent;
            value = value.tenth();
        } else if kind == NumeralKind::Plain && c.eat_any(CURRENCIES).is_some() {
            kind = NumeralKind::Count;
        } else if kind == NumeralKind::Plain && c.eat_any(YUAN).is_some() {
            kind = NumeralKind::Count;
            let mut after = c;
            if let Some(fraction) = money_fraction(&mut after) {
                value = value.add(fraction)?;
                c = after;
            }
            c.eat('钱');
            c.eat_str("人民币");
        } else if kind == NumeralKind::Plain && c.peek().is_some_and(|ch| ch == '角' || ch == '毛') {
            c.pos += 1;
            kind = NumeralKind::Count;
            value = value.tenth();
            // 三毛五: a lone digit after the jiao is fen.
            if let Some(fen) = c.peek().and_then(digit_value)
                && !c
                    .peek_at(1)
                    .is_some_and(|ch| is_chinese_numeral_char(ch) || ch.is_ascii_digit())
            {
                c.pos += 1;
                c.eat('分');
                value = value.add(Decimal {
                    mantissa: i128::from(fen),
                    scale: 2,
                })?;
            }
        } else if c.eat_any(MEASURE_WORDS).is_some() && kind == NumeralKind::Plain {
            kind = NumeralKind::Count;
        }
    }
    if money {
        kind = NumeralKind::Count;
    }
    cur.pos = c.pos;
    Some((value, denominator, style, kind))
}

/// Reads a numeral with optional wrappers: 前五名, top 5, 第三, 百分之五, 五个, 5%, 三分之一, 三元五角.
fn wrapped(cur: &mut Cursor) -> Option<Wrapped> {
    let start = cur.pos;
    let (value, denominator, style, kind) = wrapped_decimal(cur)?;
    let v = match denominator {
        Some(d) if !d.is_zero() => value.to_f64() / d.to_f64(),
        Some(_) => return None,
        None => value.to_f64(),
    };
    Some(Wrapped {
        read: Read {
            value: v,
            style,
            len: cur.pos - start,
        },
        kind,
        end: cur.pos,
    })
}

/// 3/4 as a whole text: an Arabic fraction (never a date here).
fn slash_fraction(s: &[char], start: usize) -> Option<f64> {
    let mut c = Cursor::new(s, start);
    let (numerator, _) = c.digits()?;
    c.eat('/').then_some(())?;
    let (denominator, _) = c.digits()?;
    (c.at_end() && denominator != 0).then(|| numerator as f64 / denominator as f64)
}

/// Parses text holding exactly one numeral, with wrappers such as 前五, 前十名, top 5, 两个.
pub fn parse_number(text: &str) -> Result<Number, NumberError> {
    let folded = Folded::expression(text.trim());
    let s = &folded.chars;
    if s.is_empty() {
        return Err(NumberError::Empty);
    }
    let mut cur = Cursor::new(s, 0);
    let negative = cur.eat('-') || cur.eat('负');
    let not_a_number = || NumberError::NotANumber(text.trim().to_string());
    if let Some(v) = slash_fraction(s, cur.pos) {
        return Ok(Number {
            value: if negative { -v } else { v },
            kind: NumeralKind::Plain,
        });
    }
    let Some(w) = wrapped(&mut cur) else {
        let all_numeral = s[cur.pos..]
            .iter()
            .all(|c| is_chinese_numeral_char(*c) || c.is_ascii_digit());
        let has_large = s.iter().any(|c| large_unit(*c).is_some())
            && s.iter().any(|c| digit_value(*c).is_some() || c.is_ascii_digit());
        return Err(if all_numeral && has_large {
            NumberError::TooLarge(text.trim().to_string())
        } else {
            not_a_number()
        });
    };
    cur.skip_ws();
    if !cur.at_end() {
        return Err(not_a_number());
    }
    if !w.read.value.is_finite() || w.read.value > MAX_VALUE {
        return Err(NumberError::TooLarge(text.trim().to_string()));
    }
    let value = if negative { -w.read.value } else { w.read.value };
    Ok(Number { value, kind: w.kind })
}

/// Finds every numeral in a sentence (byte ranges), skipping digits inside identifiers and lone 一 in 一下.
pub fn scan_numbers(text: &str) -> Vec<NumeralSpan> {
    let folded = Folded::expression(text);
    scan_folded(&folded, &[])
}

/// Scans folded text for numerals, skipping the character ranges in `taken` (sorted).
pub(crate) fn scan_folded(folded: &Folded, taken: &[Range<usize>]) -> Vec<NumeralSpan> {
    let s = &folded.chars;
    let mut out = Vec::new();
    let mut i = 0;
    let mut taken_iter = taken.iter().peekable();
    while i < s.len() {
        while taken_iter.peek().is_some_and(|r| r.end <= i) {
            taken_iter.next();
        }
        if let Some(r) = taken_iter.peek().filter(|r| r.start <= i) {
            i = r.end;
            continue;
        }
        let c = s[i];
        let starts = c.is_ascii_digit() || is_chinese_numeral_char(c) || matches!(c, '前' | '第' | '百' | 't');
        let prev = i.checked_sub(1).and_then(|p| s.get(p).copied());
        let glued = prev.is_some_and(|p| is_word_char(p) || p == '_' || p == '.');
        if !starts || glued {
            i += 1;
            continue;
        }
        let mut cur = Cursor::new(s, i);
        let found = wrapped(&mut cur).filter(|w| accept(w, taken, i));
        match found {
            Some(w) => {
                out.push(NumeralSpan {
                    range: folded.bytes(i..w.end),
                    value: w.read.value,
                    kind: w.kind,
                });
                i = w.end;
            }
            None => i += 1,
        }
    }
    out
}

/// Whether a numeral found by the scanner is worth reporting.
fn accept(w: &Wrapped, taken: &[Range<usize>], start: usize) -> bool {
    let noisy = match w.read.style {
        Style::Arabic => false,
        Style::Chinese => w.read.len == 1 && w.kind == NumeralKind::Plain,
        Style::Positional => w.read.len < 3 && w.kind == NumeralKind::Plain,
    };
    let overlaps = taken.iter().any(|r| r.start < w.end && start < r.end);
    // 千万 alone in a sentence is the adverb "by all means" far more often than ten million.
    let adverb = w.kind == NumeralKind::Plain && w.read.len == 2 && w.read.value == 1e7;
    !noisy && !overlaps && !adverb && w.read.value.is_finite() && w.read.value <= MAX_VALUE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> f64 {
        match parse_number(text) {
            Ok(n) => n.value,
            Err(e) => panic!("{text}: {e}"),
        }
    }

    #[test]
    fn chinese_numerals() {
        for (text, expected) in [
            ("三", 3.0),
            ("十", 10.0),
            ("十一", 11.0),
            ("二十", 20.0),
            ("二十五", 25.0),
            ("一百零二", 102.0),
            ("一千零五十", 1050.0),
            ("三千五", 3500.0),
            ("一万二", 12000.0),
            ("两百", 200.0),
            ("两百五", 250.0),
            ("一亿五", 150_000_000.0),
            ("一亿二千万", 120_000_000.0),
            ("一万亿", 1e12),
            ("五百万", 5_000_000.0),
            ("壹佰贰拾叁", 123.0),
            ("玖仟捌佰", 9800.0),
            ("兩萬", 20000.0),
            ("〇", 0.0),
            ("二零二五", 2025.0),
            ("三点五", 3.5),
            ("十二万三千四百五十六", 123_456.0),
        ] {
            assert_eq!(value(text), expected, "{text}");
        }
    }

    #[test]
    fn arabic_and_mixed() {
        for (text, expected) in [
            ("3,000", 3000.0),
            ("1,234,567", 1_234_567.0),
            ("1.5", 1.5),
            ("1.5万", 15000.0),
            ("3千", 3000.0),
            ("2亿", 2e8),
            ("１２３", 123.0),
            ("-5", -5.0),
            ("0", 0.0),
        ] {
            assert_eq!(value(text), expected, "{text}");
        }
    }

    #[test]
    fn wrappers() {
        for (text, expected, kind) in [
            ("前五", 5.0, NumeralKind::TopN),
            ("前十名", 10.0, NumeralKind::TopN),
            ("top 5", 5.0, NumeralKind::TopN),
            ("TOP10", 10.0, NumeralKind::TopN),
            ("五个", 5.0, NumeralKind::Count),
            ("十五条", 15.0, NumeralKind::Count),
            ("前20", 20.0, NumeralKind::TopN),
            ("两个", 2.0, NumeralKind::Count),
            ("兩個", 2.0, NumeralKind::Count),
            ("第三", 3.0, NumeralKind::Ordinal),
            ("百分之五十", 50.0, NumeralKind::Percent),
            ("5%", 5.0, NumeralKind::Percent),
        ] {
            let n = parse_number(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!((n.value, n.kind), (expected, kind), "{text}");
        }
    }

    #[test]
    fn errors() {
        assert_eq!(parse_number(""), Err(NumberError::Empty));
        assert_eq!(parse_number("   "), Err(NumberError::Empty));
        for text in ["abc", "万", "千万个好", "三月", "12abc", "前", "top", "1.2.3", "十十"] {
            assert!(matches!(parse_number(text), Err(NumberError::NotANumber(_))), "{text}");
        }
        for text in ["一亿亿亿亿亿", "99999999999999999", "1亿亿亿"] {
            assert!(matches!(parse_number(text), Err(NumberError::TooLarge(_))), "{text}");
        }
        assert!(parse_number("99999999999999999999999").is_err());
    }

    #[test]
    fn scans_sentences() {
        let text = "销售排名前五的产品，每个卖了3,000件，查一下两个地区";
        let spans = scan_numbers(text);
        let got: Vec<(&str, f64, NumeralKind)> = spans
            .iter()
            .map(|s| (&text[s.range.clone()], s.value, s.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                ("前五", 5.0, NumeralKind::TopN),
                ("3,000件", 3000.0, NumeralKind::Count),
                ("两个", 2.0, NumeralKind::Count),
            ]
        );
    }

    #[test]
    fn scan_skips_identifiers_and_noise() {
        let spans = scan_numbers("ord_123 一起 一下 统一 x5");
        assert!(spans.is_empty(), "{spans:?}");
        let spans = scan_numbers("给我top5和三千五");
        let values: Vec<f64> = spans.iter().map(|s| s.value).collect();
        assert_eq!(values, vec![5.0, 3500.0]);
    }

    #[test]
    fn integers() {
        assert_eq!(
            Number {
                value: 3.0,
                kind: NumeralKind::Plain
            }
            .as_integer(),
            Some(3)
        );
        assert_eq!(
            Number {
                value: 1.5,
                kind: NumeralKind::Plain
            }
            .as_integer(),
            None
        );
    }
}

#[cfg(test)]
mod family_tests {
    use super::*;

    fn value(text: &str) -> Result<f64, String> {
        parse_number(text).map(|n| n.value).map_err(|e| e.to_string())
    }

    fn check(cases: &[(&str, f64)]) {
        let failures: Vec<String> = cases
            .iter()
            .filter(|(text, expected)| value(text) != Ok(*expected))
            .map(|(text, expected)| format!("{text}: expected {expected}, got {:?}", value(text)))
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn exact_decimals() {
        check(&[
            ("16.4亿", 1_640_000_000.0),
            ("1.2万亿", 1_200_000_000_000.0),
            ("0.07万", 700.0),
            ("3.3万", 33_000.0),
            ("1.15亿", 115_000_000.0),
            ("2.675", 2.675),
            ("十二点五万", 125_000.0),
            ("三点一五", 3.15),
            ("1,234.56", 1234.56),
        ]);
    }

    #[test]
    fn mixed_digits_and_units() {
        check(&[
            ("5万4千6百", 54_600.0),
            ("3万4000", 34_000.0),
            ("3万4", 34_000.0),
            ("15万", 150_000.0),
            ("2千万", 20_000_000.0),
            ("1亿3000万", 130_000_000.0),
            ("3千5", 3500.0),
        ]);
    }

    #[test]
    fn colloquial() {
        check(&[
            ("千三", 1300.0),
            ("万五", 15_000.0),
            ("百二", 120.0),
            ("廿", 20.0),
            ("廿三", 23.0),
            ("卅", 30.0),
            ("卅一", 31.0),
            ("卌", 40.0),
            ("两万", 20_000.0),
            ("两千两百", 2200.0),
            ("仨", 3.0),
            ("俩", 2.0),
            ("一万零五百", 10_500.0),
            ("一千零五", 1005.0),
        ]);
        check(&[
            ("百万", 1e6),
            ("千万", 1e7),
            ("百亿", 1e10),
            ("万亿", 1e12),
            ("百分之百", 100.0),
        ]);
        assert!(scan_numbers("千万不要忘记").is_empty());
        for text in ["千", "千三百五", "万万", "亿亿"] {
            assert!(parse_number(text).is_err(), "{text}");
        }
    }

    #[test]
    fn fractions_and_shares() {
        check(&[
            ("三分之一", 1.0 / 3.0),
            ("二分之一", 0.5),
            ("四分之三", 0.75),
            ("3/4", 0.75),
            ("一半", 0.5),
            ("百分之三十五", 35.0),
            ("百分之三十五点五", 35.5),
            ("千分之五", 0.5),
            ("5‰", 0.5),
        ]);
        assert_eq!(parse_number("百分之三十五").map(|n| n.kind), Ok(NumeralKind::Percent));
        assert!(parse_number("零分之一").is_err());
        assert!(parse_number("3/0").is_err());
    }

    #[test]
    fn mixed_fractions_and_halves() {
        check(&[
            ("二百又4分之1", 200.25),
            ("三份一", 1.0 / 3.0),
            ("2半", 2.5),
            ("两个半", 2.5),
            ("半箱", 0.5),
            ("半千", 500.0),
            ("百三万", 1_300_000.0),
            ("三千五万", 35_000_000.0),
            ("零点45", 0.45),
            ("贰分", 0.02),
        ]);
        for text in ["三份一样", "半年", "十点30分", "3分之"] {
            assert!(parse_number(text).is_err(), "{text}");
        }
        assert_eq!(parse_number("3分"), Err(NumberError::NotANumber("3分".into())));
    }

    #[test]
    fn digits_one_by_one() {
        check(&[
            ("一一", 11.0),
            ("一七二零", 1720.0),
            ("一七二零点一三四", 1720.134),
            ("零点零一", 0.01),
            ("十亿零一万零一", 1_000_010_001.0),
            ("一千零一亿一千零一万一千零一", 100_110_011_001.0),
        ]);
    }

    #[test]
    fn money() {
        check(&[
            ("壹拾壹元整", 11.0),
            ("三元五角", 3.5),
            ("十块八毛", 10.8),
            ("三块五", 3.5),
            ("两元三角五分", 2.35),
            ("五毛", 0.5),
            ("壹佰元", 100.0),
            ("叁仟伍佰元正", 3500.0),
            ("三毛五", 0.35),
            ("十元零五分", 10.05),
            ("人民币一百元", 100.0),
            ("¥100", 100.0),
            ("82，225.00元", 82225.0),
            ("25481港元", 25481.0),
            ("45564.44美元", 45564.44),
            ("六十四万零一百四十三元一角七分", 640_143.17),
            ("肆佰叁拾萬圆整", 4_300_000.0),
            ("两个亿卢布", 200_000_000.0),
            ("一百三十五块六角七分钱", 135.67),
            ("港币两千九百六十元", 2960.0),
            ("3千万亿日元", 3e15),
            ("3块5毛", 3.5),
        ]);
    }

    #[test]
    fn approximate_counts_are_refused() {
        for text in [
            "几十",
            "十几",
            "三十多",
            "100多",
            "几个",
            "一百余",
            "两千多万",
            "七八个",
            "一两个",
            "三四十",
        ] {
            assert!(parse_number(text).is_err(), "{text} was guessed");
        }
        let spans = scan_numbers("三十多个客户和十几家门店");
        assert!(spans.is_empty(), "{spans:?}");
    }
}
