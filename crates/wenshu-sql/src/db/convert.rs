//! Column values to JSON where the driver gives raw bytes or text: decimals, PostgreSQL's binary numeric and
//! date/time values, MySQL's binary dates. Every conversion returns an error instead of panicking on bad data.

use jiff::SignedDuration;
use jiff::civil::{Date, DateTime, Time};
use serde_json::{Number, Value};

/// A decimal written as text: a JSON integer when it is one that fits, a JSON float when it has a fraction and
/// converts, else the text itself (so no digit is lost silently on huge values).
pub fn decimal_text_to_json(text: &str) -> Value {
    let text = text.trim();
    if let Ok(int) = text.parse::<i64>() {
        return Value::from(int);
    }
    if let Some((whole, fraction)) = text.split_once('.')
        && fraction.bytes().all(|b| b == b'0')
        && let Ok(int) = whole.parse::<i64>()
    {
        return Value::from(int);
    }
    let significant = text.bytes().filter(u8::is_ascii_digit).count();
    match text.parse::<f64>() {
        Ok(float) if float.is_finite() && significant <= 15 => {
            Number::from_f64(float).map_or_else(|| Value::String(text.to_string()), Value::Number)
        }
        _ => Value::String(text.to_string()),
    }
}

/// A float as JSON: a number when finite, else its text (`NaN`, `inf`).
pub fn float_to_json(float: f64) -> Value {
    Number::from_f64(float).map_or_else(|| Value::String(float.to_string()), Value::Number)
}

/// Bytes as a lower-case hex string (BLOB/BYTEA values).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// PostgreSQL's binary NUMERIC: `ndigits`, `weight`, `sign`, `dscale`, then base-10000 digits.
pub fn pg_numeric_to_text(bytes: &[u8]) -> Result<String, String> {
    let word = |i: usize| -> Result<u16, String> {
        bytes
            .get(i..i + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| format!("NUMERIC value of {} bytes is cut short", bytes.len()))
    };
    let ndigits = usize::from(word(0)?);
    let weight = i64::from(word(2)? as i16);
    let sign = word(4)?;
    let dscale = usize::from(word(6)?);
    match sign {
        0xC000 => return Ok("NaN".into()),
        0xD000 => return Ok("Infinity".into()),
        0xF000 => return Ok("-Infinity".into()),
        _ => {}
    }
    let digits: Vec<u16> = (0..ndigits).map(|k| word(8 + 2 * k)).collect::<Result<_, _>>()?;
    let digit_at = |k: i64| -> u16 {
        usize::try_from(k)
            .ok()
            .and_then(|k| digits.get(k))
            .copied()
            .unwrap_or(0)
    };
    let mut text = String::new();
    if sign == 0x4000 {
        text.push('-');
    }
    if weight < 0 {
        text.push('0');
    } else {
        for k in 0..=weight {
            if k == 0 {
                text.push_str(&digit_at(k).to_string());
            } else {
                text.push_str(&format!("{:04}", digit_at(k)));
            }
        }
    }
    if dscale > 0 {
        let mut fraction = String::new();
        let mut k = weight + 1;
        while fraction.len() < dscale {
            fraction.push_str(&format!("{:04}", digit_at(k)));
            k += 1;
        }
        fraction.truncate(dscale);
        text.push('.');
        text.push_str(&fraction);
    }
    Ok(text)
}

fn pg_epoch() -> DateTime {
    DateTime::constant(2000, 1, 1, 0, 0, 0, 0)
}

fn be_i32(bytes: &[u8]) -> Result<i32, String> {
    let array: [u8; 4] = bytes
        .try_into()
        .map_err(|_| format!("expected 4 bytes, got {}", bytes.len()))?;
    Ok(i32::from_be_bytes(array))
}

fn be_i64(bytes: &[u8]) -> Result<i64, String> {
    let array: [u8; 8] = bytes
        .try_into()
        .map_err(|_| format!("expected 8 bytes, got {}", bytes.len()))?;
    Ok(i64::from_be_bytes(array))
}

/// PostgreSQL's binary DATE (days since 2000-01-01) as `YYYY-MM-DD`.
pub fn pg_date_to_text(bytes: &[u8]) -> Result<String, String> {
    match be_i32(bytes)? {
        i32::MAX => Ok("infinity".into()),
        i32::MIN => Ok("-infinity".into()),
        days => pg_epoch()
            .date()
            .checked_add(SignedDuration::from_hours(i64::from(days) * 24))
            .map(|d: Date| d.to_string())
            .map_err(|e| e.to_string()),
    }
}

/// PostgreSQL's binary TIMESTAMP (microseconds since 2000-01-01) as an ISO date-time; with `utc`, a `Z` is added
/// (TIMESTAMPTZ values travel in UTC).
pub fn pg_timestamp_to_text(bytes: &[u8], utc: bool) -> Result<String, String> {
    match be_i64(bytes)? {
        i64::MAX => Ok("infinity".into()),
        i64::MIN => Ok("-infinity".into()),
        micros => pg_epoch()
            .checked_add(SignedDuration::from_micros(micros))
            .map(|t| if utc { format!("{t}Z") } else { t.to_string() })
            .map_err(|e| e.to_string()),
    }
}

/// PostgreSQL's binary TIME (microseconds since midnight) as `HH:MM:SS[.ffffff]`.
pub fn pg_time_to_text(bytes: &[u8]) -> Result<String, String> {
    let micros = be_i64(bytes)?;
    Time::midnight()
        .checked_add(SignedDuration::from_micros(micros))
        .map(|t| t.to_string())
        .map_err(|e| e.to_string())
}

/// MySQL's binary DATE/DATETIME/TIMESTAMP (a length byte, then year, month, day, and maybe the time) as ISO text.
pub fn mysql_datetime_to_text(bytes: &[u8], with_time: bool) -> Result<String, String> {
    let Some((&len, rest)) = bytes.split_first() else {
        return Err("empty date value".into());
    };
    let len = usize::from(len);
    if len == 0 {
        return Ok(if with_time { "0000-00-00T00:00:00" } else { "0000-00-00" }.into());
    }
    let rest = rest
        .get(..len)
        .ok_or_else(|| format!("date value of {} bytes is cut short", bytes.len()))?;
    if rest.len() < 4 {
        return Err(format!("expected at least 4 bytes for a date, got {}", rest.len()));
    }
    let year = u16::from_le_bytes([rest[0], rest[1]]);
    let date = format!("{year:04}-{:02}-{:02}", rest[2], rest[3]);
    if !with_time {
        return Ok(date);
    }
    let (hour, minute, second) = match rest.get(4..7) {
        Some(t) => (t[0], t[1], t[2]),
        None => (0, 0, 0),
    };
    let mut text = format!("{date}T{hour:02}:{minute:02}:{second:02}");
    if let Some(micros) = rest.get(7..11) {
        let micros = u32::from_le_bytes([micros[0], micros[1], micros[2], micros[3]]);
        if micros > 0 {
            text.push_str(&format!(".{micros:06}"));
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals() {
        assert_eq!(decimal_text_to_json("42"), Value::from(42));
        assert_eq!(decimal_text_to_json("42.000"), Value::from(42));
        assert_eq!(decimal_text_to_json("-1.25"), Value::from(-1.25));
        assert_eq!(
            decimal_text_to_json("123456789012345678901234.5"),
            Value::String("123456789012345678901234.5".into())
        );
    }

    fn numeric(ndigits: u16, weight: i16, sign: u16, dscale: u16, digits: &[u16]) -> Vec<u8> {
        let mut out = Vec::new();
        for w in [ndigits, weight as u16, sign, dscale] {
            out.extend_from_slice(&w.to_be_bytes());
        }
        for d in digits {
            out.extend_from_slice(&d.to_be_bytes());
        }
        out
    }

    #[test]
    fn pg_numerics() {
        // 12345.678 = [1, 2345, 6780], weight 1, dscale 3
        assert_eq!(
            pg_numeric_to_text(&numeric(3, 1, 0, 3, &[1, 2345, 6780])).unwrap(),
            "12345.678"
        );
        // -0.05 = [500], weight -1, dscale 2
        assert_eq!(pg_numeric_to_text(&numeric(1, -1, 0x4000, 2, &[500])).unwrap(), "-0.05");
        // 20000 = [2], weight 1, dscale 0
        assert_eq!(pg_numeric_to_text(&numeric(1, 1, 0, 0, &[2])).unwrap(), "20000");
        assert_eq!(pg_numeric_to_text(&numeric(0, 0, 0, 0, &[])).unwrap(), "0");
        assert!(pg_numeric_to_text(&[0, 1]).is_err());
    }

    #[test]
    fn pg_dates_and_times() {
        assert_eq!(pg_date_to_text(&0i32.to_be_bytes()).unwrap(), "2000-01-01");
        assert_eq!(pg_date_to_text(&(-1i32).to_be_bytes()).unwrap(), "1999-12-31");
        let micros: i64 = 86_400_000_000 + 3_600_000_000 + 500_000;
        assert_eq!(
            pg_timestamp_to_text(&micros.to_be_bytes(), false).unwrap(),
            "2000-01-02T01:00:00.5"
        );
        assert_eq!(
            pg_timestamp_to_text(&0i64.to_be_bytes(), true).unwrap(),
            "2000-01-01T00:00:00Z"
        );
        assert_eq!(pg_time_to_text(&3_600_000_000i64.to_be_bytes()).unwrap(), "01:00:00");
    }

    #[test]
    fn mysql_dates() {
        assert_eq!(
            mysql_datetime_to_text(&[4, 0xEA, 0x07, 11, 29], false).unwrap(),
            "2026-11-29"
        );
        assert_eq!(
            mysql_datetime_to_text(&[7, 0xEA, 0x07, 11, 29, 13, 5, 9], true).unwrap(),
            "2026-11-29T13:05:09"
        );
        assert_eq!(mysql_datetime_to_text(&[0], false).unwrap(), "0000-00-00");
        assert!(mysql_datetime_to_text(&[4, 1], false).is_err());
    }
}
