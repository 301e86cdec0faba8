//! The drafted `wenshu.toml`: the database (a password is never written), the catalog, the fallback's tables and
//! the entity queries of the dimension tables' name columns.

use wenshu_sql::db::redact;

use super::draft::Draft;

/// The text of `wenshu.toml` for a draft read from `url`, whose catalog is the file `catalog`.
pub fn config_text(url: &str, catalog: &str, draft: &Draft) -> String {
    let mut out =
        String::from("# Drafted by `wenshu init`: read it, edit it, then `wenshu serve --config wenshu.toml`.\n");
    let url = absolute_sqlite(url);
    let shown = redact(&url);
    if shown != url {
        out.push_str("# The password of the URL is not written here: put it back, or better use an account that can only read.\n");
    }
    out.push_str(&format!("database_url = {}\n", quoted(&shown)));
    out.push_str(&format!("catalog = {}\n", quoted(catalog)));
    out.push_str("# The tables the Text-to-SQL fallback may read (the metric tools' tables).\n");
    let tables: Vec<String> = draft.fallback_tables.iter().map(|t| quoted(t)).collect();
    out.push_str(&format!("fallback_tables = [{}]\n", tables.join(", ")));
    for query in &draft.entity_queries {
        out.push_str(&format!(
            "\n# Names of `{}`, so a question may name one.\n[[entity_queries]]\ntype = {}\nquery = {}\n",
            query.entity_type,
            quoted(&query.entity_type),
            quoted(&query.query)
        ));
    }
    out
}

/// The URL with a relative SQLite file path made absolute (from the current folder), so the drafted configuration
/// works from any folder; other URLs, `:memory:` and absolute paths as they are.
fn absolute_sqlite(url: &str) -> String {
    let trimmed = url.trim();
    let Some(head) = trimmed.get(..7).filter(|h| h.eq_ignore_ascii_case("sqlite:")) else {
        return url.to_string();
    };
    let rest = &trimmed[7..];
    let path_and_query = rest.strip_prefix("//").unwrap_or(rest);
    let (path, query) = match path_and_query.find('?') {
        Some(at) => path_and_query.split_at(at),
        None => (path_and_query, ""),
    };
    if path.is_empty() || path.starts_with(':') || std::path::Path::new(path).is_absolute() {
        return url.to_string();
    }
    match std::path::absolute(path) {
        Ok(absolute) => format!("{head}{}{query}", absolute.display()),
        Err(_) => url.to_string(),
    }
}

/// A TOML basic string.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::{absolute_sqlite, quoted};

    #[test]
    fn strings_are_escaped_for_toml() {
        assert_eq!(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
        let parsed: toml::Table = toml::from_str(&format!("k = {}", quoted("SELECT \"id\"\n"))).unwrap();
        assert_eq!(parsed["k"].as_str(), Some("SELECT \"id\"\n"));
    }

    #[test]
    fn a_relative_sqlite_path_is_written_absolute_and_other_urls_as_they_are() {
        let cwd = std::env::current_dir().unwrap();
        let expected = format!("sqlite:{}?mode=ro", cwd.join("data/shop.db").display());
        assert_eq!(absolute_sqlite("sqlite:data/shop.db?mode=ro"), expected);
        assert_eq!(absolute_sqlite("sqlite://data/shop.db?mode=ro"), expected);
        for same in [
            "sqlite:///tmp/x.db",
            "sqlite:/tmp/x.db",
            "sqlite::memory:",
            "postgres://u@h/db",
            "mysql://r@h/t",
        ] {
            assert_eq!(absolute_sqlite(same), same);
        }
    }
}
