//! `wenshu parse`: run the language knowledge on a piece of text and print what it finds.

use std::process::ExitCode;

use jiff::civil::Date;
use serde_json::{Value, json};
use wenshu_lexicon::numeral::{integer_of, parse_number};
use wenshu_lexicon::time::{parse_date_range, today_in};

/// The time zone "today" is computed in when `--today` is not given.
const DEFAULT_TZ: &str = "Asia/Shanghai";

/// What `wenshu parse` can parse.
#[derive(Debug, clap::Subcommand)]
pub enum ParseCommand {
    /// Parse a number: `wenshu parse number 三千五` → `{"value":3500}`.
    Number {
        /// The text holding one numeral.
        text: String,
    },
    /// Parse a time expression: `wenshu parse date --today 2026-11-29 上个月` → `{"start":…,"end":…}`.
    Date {
        /// Today's date (YYYY-MM-DD); computed in `--tz` when absent.
        #[arg(long)]
        today: Option<String>,
        /// The IANA time zone today is computed in.
        #[arg(long, default_value = DEFAULT_TZ)]
        tz: String,
        /// The time expression.
        text: String,
    },
    /// The comparison range of a period: `wenshu parse compare --today 2026-11-29 本月 同比` →
    /// `{"base":…,"compare":{"start":"2025-11-01","end":"2025-11-30"},"basis":"year_over_year"}`.
    Compare {
        /// Today's date (YYYY-MM-DD); computed in `--tz` when absent.
        #[arg(long)]
        today: Option<String>,
        /// The IANA time zone today is computed in.
        #[arg(long, default_value = DEFAULT_TZ)]
        tz: String,
        /// The base period (本月, 最近7天, 2025年3月 …).
        base: String,
        /// The comparison word: 同比, 去年同期, 上年同期, 环比, 上期, yoy, mom.
        basis: String,
    },
    /// Find every numeral and time expression of a sentence: prints a JSON array of spans.
    Scan {
        /// Today's date (YYYY-MM-DD); computed in `--tz` when absent.
        #[arg(long)]
        today: Option<String>,
        /// The IANA time zone today is computed in.
        #[arg(long, default_value = DEFAULT_TZ)]
        tz: String,
        /// The sentence.
        text: String,
    },
}

/// Prints an error body `{"error":{"code":…,"message":…}}` and returns exit code 1.
fn fail(code: &str, message: String) -> ExitCode {
    println!("{}", json!({ "error": { "code": code, "message": message } }));
    ExitCode::from(1)
}

/// Today from `--today`, or computed in the time zone; Err holds the error exit.
fn resolve_today(today: Option<&str>, tz: &str) -> Result<Date, ExitCode> {
    match today {
        Some(t) => t
            .parse()
            .map_err(|_| fail("bad_today", format!("--today is not a YYYY-MM-DD date: {t}"))),
        None => today_in(tz).map_err(|e| fail(e.code(), e.to_string())),
    }
}

/// A number as JSON: an integer when it is one.
pub(crate) fn number_json(value: f64) -> Value {
    match integer_of(value) {
        Some(i) => json!(i),
        None => json!(value),
    }
}

/// Runs one `wenshu parse` subcommand.
pub fn run(command: ParseCommand) -> anyhow::Result<ExitCode> {
    Ok(match command {
        ParseCommand::Number { text } => match parse_number(&text) {
            Ok(n) => {
                println!("{}", json!({ "value": number_json(n.value) }));
                ExitCode::SUCCESS
            }
            Err(e) => fail(e.code(), e.to_string()),
        },
        ParseCommand::Date { today, tz, text } => {
            let today = match resolve_today(today.as_deref(), &tz) {
                Ok(d) => d,
                Err(code) => return Ok(code),
            };
            match parse_date_range(&text, today) {
                Ok(range) => {
                    println!("{}", serde_json::to_string(&range)?);
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e.code(), e.to_string()),
            }
        }
        ParseCommand::Compare { today, tz, base, basis } => {
            let today = match resolve_today(today.as_deref(), &tz) {
                Ok(d) => d,
                Err(code) => return Ok(code),
            };
            match wenshu_lexicon::compare::compare(&base, &basis, today) {
                Ok(c) => {
                    println!("{}", serde_json::to_string(&c)?);
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e.code(), e.to_string()),
            }
        }
        ParseCommand::Scan { today, tz, text } => {
            let today = match resolve_today(today.as_deref(), &tz) {
                Ok(d) => d,
                Err(code) => return Ok(code),
            };
            println!("{}", serde_json::to_string(&wenshu_lexicon::scan(&text, today))?);
            ExitCode::SUCCESS
        }
    })
}
