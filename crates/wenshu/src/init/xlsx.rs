//! An `.xlsx` workbook as tables of text: every sheet's cells in rows (shared and inline strings, numbers,
//! booleans; a number in a date format as its day `2025-03-04`, or its time `2025-03-04 10:30:00`), read with a
//! small XML scanner over the archive's parts ([`super::zip`]).

use std::collections::HashMap;

use anyhow::Context;

use super::zip::Archive;

/// One sheet: its name and its rows of cell text (empty cells as empty text).
pub struct Sheet {
    /// The sheet's name.
    pub name: String,
    /// Its rows, the first one the header.
    pub rows: Vec<Vec<String>>,
}

/// Every sheet of the workbook in `bytes`, in the workbook's order.
pub fn sheets(bytes: &[u8]) -> anyhow::Result<Vec<Sheet>> {
    let archive = Archive::new(bytes)?;
    let text = |name: &str| -> anyhow::Result<Option<String>> {
        Ok(archive.read(name)?.map(|b| String::from_utf8_lossy(&b).into_owned()))
    };
    let workbook = text("xl/workbook.xml")?.context("not a workbook (no xl/workbook.xml)")?;
    let relations = text("xl/_rels/workbook.xml.rels")?.unwrap_or_default();
    let targets: HashMap<String, String> = elements(&relations)
        .into_iter()
        .filter(|e| e.name == "Relationship" && !e.end)
        .filter_map(|e| Some((e.attr("Id")?.to_string(), e.attr("Target")?.to_string())))
        .collect();
    let shared = text("xl/sharedStrings.xml")?.map_or_else(Vec::new, |s| shared_strings(&s));
    let date_styles = text("xl/styles.xml")?.map_or_else(Vec::new, |s| date_styles(&s));
    let mut out = Vec::new();
    for (i, sheet) in elements(&workbook)
        .into_iter()
        .filter(|e| e.name == "sheet" && !e.end)
        .enumerate()
    {
        let name = sheet.attr("name").unwrap_or("sheet").to_string();
        let target = sheet
            .attr("r:id")
            .or_else(|| sheet.attr("id"))
            .and_then(|id| targets.get(id))
            .map_or_else(|| format!("worksheets/sheet{}.xml", i + 1), String::clone);
        let path = match target.strip_prefix('/') {
            Some(absolute) => absolute.to_string(),
            None => format!("xl/{target}"),
        };
        let xml = text(&path)?.with_context(|| format!("sheet {name}: no part {path}"))?;
        out.push(Sheet {
            name,
            rows: sheet_rows(&xml, &shared, &date_styles),
        });
    }
    Ok(out)
}

/// One XML element's start (or a run of text, with the name `#text`).
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    /// For text: the text; for a start tag: whether it closes itself.
    text: String,
    /// An end tag.
    end: bool,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// The tags and texts of an XML document, in order (names without their namespace prefix, except in attributes;
/// comments, declarations and processing instructions skipped).
fn elements(xml: &str) -> Vec<Element> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(open) = rest.find('<') {
        if open > 0 {
            out.push(Element {
                name: "#text".into(),
                attrs: Vec::new(),
                text: unescape(&rest[..open]),
                end: false,
            });
        }
        rest = &rest[open..];
        let close_marker = if rest.starts_with("<!--") {
            "-->"
        } else if rest.starts_with("<![CDATA[") {
            "]]>"
        } else {
            ">"
        };
        let Some(close) = rest.find(close_marker) else { break };
        let tag = &rest[1..close];
        rest = &rest[close + close_marker.len()..];
        if let Some(data) = tag.strip_prefix("![CDATA[") {
            out.push(Element {
                name: "#text".into(),
                attrs: Vec::new(),
                text: data.to_string(),
                end: false,
            });
            continue;
        }
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        let end = tag.starts_with('/');
        let body = tag.trim_start_matches('/');
        let self_closing = body.ends_with('/');
        let body = body.trim_end_matches('/');
        let (name, attrs) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
        let local = name.rsplit(':').next().unwrap_or(name).to_string();
        out.push(Element {
            name: local.clone(),
            attrs: attributes(attrs),
            text: if self_closing { "/".into() } else { String::new() },
            end,
        });
        if self_closing {
            out.push(Element {
                name: local,
                attrs: Vec::new(),
                text: String::new(),
                end: true,
            });
        }
    }
    out
}

/// `a="1" b='2'` as pairs.
fn attributes(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().to_string();
        let after = rest[eq + 1..].trim_start();
        let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            break;
        };
        let Some(end) = after[1..].find(quote) else { break };
        out.push((key, unescape(&after[1..1 + end])));
        rest = after[end + 2..].trim_start();
    }
    out
}

/// XML entities replaced (`&amp;`, `&#20013;`, `&#x4E2D;`).
fn unescape(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest.find(';').filter(|s| *s <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| entity.strip_prefix('#').map(str::parse))
                .and_then(Result::ok)
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The shared strings: each `<si>`'s text, rich runs joined (phonetic runs left out).
fn shared_strings(xml: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let mut in_text = false;
    let mut phonetic = false;
    for e in elements(xml) {
        match (e.name.as_str(), e.end) {
            ("si", false) => current = Some(String::new()),
            ("si", true) => out.extend(current.take()),
            ("rPh", end) => phonetic = !end,
            ("t", end) => in_text = !end && e.text != "/",
            ("#text", _) if in_text && !phonetic => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&e.text);
                }
            }
            _ => {}
        }
    }
    out
}

/// Per cell style (`s="N"`), whether its number format shows a date: built-in formats 14–22 and 45–47, or a
/// custom format with a year, a day or an hour outside quotes.
fn date_styles(xml: &str) -> Vec<bool> {
    let all = elements(xml);
    let custom: HashMap<String, bool> = all
        .iter()
        .filter(|e| e.name == "numFmt" && !e.end)
        .filter_map(|e| {
            let code = e.attr("formatCode")?;
            let unquoted: String = code.split('"').step_by(2).collect::<String>().to_ascii_lowercase();
            let unquoted: String = unquoted
                .split('[')
                .map(|p| p.rsplit(']').next().unwrap_or(""))
                .collect();
            Some((
                e.attr("numFmtId")?.to_string(),
                unquoted.contains('y') || unquoted.contains('d') || unquoted.contains('h'),
            ))
        })
        .collect();
    let mut out = Vec::new();
    let mut in_cell_xfs = false;
    for e in &all {
        match (e.name.as_str(), e.end) {
            ("cellXfs", end) => in_cell_xfs = !end,
            ("xf", false) if in_cell_xfs => {
                let id = e.attr("numFmtId").unwrap_or("0");
                let builtin = id
                    .parse::<u32>()
                    .is_ok_and(|n| (14..=22).contains(&n) || (45..=47).contains(&n));
                out.push(builtin || custom.get(id).copied().unwrap_or(false));
            }
            _ => {}
        }
    }
    out
}

/// The rows of a sheet: cells placed by their reference (`C3`), gaps as empty text.
fn sheet_rows(xml: &str, shared: &[String], date_styles: &[bool]) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut row: Option<Vec<String>> = None;
    // The cell being read: its column, type, style; and its value's text.
    let mut cell: Option<(usize, String, usize)> = None;
    let mut value = String::new();
    let mut reading = false;
    for e in elements(xml) {
        match (e.name.as_str(), e.end) {
            ("row", false) => row = Some(Vec::new()),
            ("row", true) => {
                if let Some(mut r) = row.take() {
                    while r.last().is_some_and(String::is_empty) {
                        r.pop();
                    }
                    if !r.is_empty() {
                        rows.push(r);
                    }
                }
            }
            ("c", false) => {
                let column = e.attr("r").map_or_else(|| row.as_ref().map_or(0, Vec::len), column_of);
                let ty = e.attr("t").unwrap_or("n").to_string();
                let style = e.attr("s").and_then(|s| s.parse().ok()).unwrap_or(0);
                cell = Some((column, ty, style));
                value.clear();
            }
            ("c", true) => {
                if let (Some((column, ty, style)), Some(r)) = (cell.take(), row.as_mut()) {
                    let text = cell_text(&value, &ty, date_styles.get(style).copied().unwrap_or(false), shared);
                    if column < 16_384 {
                        if r.len() <= column {
                            r.resize(column + 1, String::new());
                        }
                        r[column] = text;
                    }
                }
            }
            ("v" | "t", end) => reading = !end && e.text != "/",
            ("#text", _) if reading && cell.is_some() => value.push_str(&e.text),
            _ => {}
        }
    }
    rows
}

/// The zero-based column of a reference (`A1` → 0, `AB7` → 27).
fn column_of(reference: &str) -> usize {
    reference
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .fold(0usize, |n, c| {
            n.saturating_mul(26)
                .saturating_add(usize::from(c.to_ascii_uppercase() as u8 - b'A') + 1)
        })
        .saturating_sub(1)
}

/// A cell's text from its value and type: a shared string by index, a boolean as TRUE/FALSE, a number in a date
/// style as its day (or day and time).
fn cell_text(value: &str, ty: &str, dated: bool, shared: &[String]) -> String {
    match ty {
        "s" => value
            .trim()
            .parse::<usize>()
            .ok()
            .and_then(|i| shared.get(i).cloned())
            .unwrap_or_default(),
        "b" => if value.trim() == "1" { "TRUE" } else { "FALSE" }.to_string(),
        "n" if dated => serial_day(value.trim()).unwrap_or_else(|| value.to_string()),
        _ => value.to_string(),
    }
}

/// A spreadsheet serial number (days since 1899-12-30) as `YYYY-MM-DD`, with ` HH:MM:SS` when it has a time.
fn serial_day(value: &str) -> Option<String> {
    let serial: f64 = value.parse().ok()?;
    if !(1.0..2_958_466.0).contains(&serial) {
        return None;
    }
    let days = serial.floor();
    let seconds = ((serial - days) * 86_400.0).round() as i64;
    let day = jiff::civil::date(1899, 12, 30)
        .checked_add(jiff::Span::new().days(days as i64))
        .ok()?;
    if seconds == 0 || seconds == 86_400 {
        return Some(day.to_string());
    }
    Some(format!(
        "{day} {:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_placed_typed_and_dated() {
        let sheet = r#"<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="inlineStr"><is><t>a &amp; b</t></is></c></row>
            <row r="2"><c r="A2" s="1"><v>45717</v></c><c r="B2"><v>12.5</v></c><c r="C2" t="b"><v>1</v></c></row></sheetData></worksheet>"#;
        let rows = sheet_rows(sheet, &["day".to_string()], &[false, true]);
        assert_eq!(rows[0], vec!["day", "", "a & b"]);
        assert_eq!(rows[1], vec!["2025-03-01", "12.5", "TRUE"]);
        assert_eq!(column_of("AB7"), 27);
        assert_eq!(serial_day("45717.4375").as_deref(), Some("2025-03-01 10:30:00"));
        assert_eq!(unescape("&#20013;&#x6587;&lt;"), "中文<");
    }

    #[test]
    fn shared_strings_and_date_styles_are_read() {
        let strings = shared_strings("<sst><si><t>北京</t></si><si><r><t>Sh</t></r><r><t>anghai</t></r></si></sst>");
        assert_eq!(strings, vec!["北京", "Shanghai"]);
        let styles = date_styles(
            r#"<styleSheet><numFmts><numFmt numFmtId="164" formatCode="yyyy/mm/dd"/><numFmt numFmtId="165" formatCode="&quot;d&quot;0.00"/></numFmts>
            <cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/></cellXfs></styleSheet>"#,
        );
        assert_eq!(styles, vec![false, true, true, false]);
    }
}
