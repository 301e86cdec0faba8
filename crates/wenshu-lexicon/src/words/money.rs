//! Words asking for an amount of money, and units of money.

/// Words asking for an amount of money (多少钱, how much money): general language.
pub const MONEY_WORDS: &[&str] = &["多少钱", "几块钱", "how much money"];
/// Units of money: general language.
pub const CURRENCY_UNITS: &[&str] = &[
    "元", "万元", "亿元", "千元", "块", "美元", "欧元", "$", "usd", "cny", "rmb", "yuan", "dollars",
];
