//! The data folder: the demo database and conversation histories (`WENSHU_DATA_DIR`, else the platform's).

use std::path::PathBuf;

use anyhow::Context;
use jiff::civil::Date;
use wenshu_engine::Turn;

/// The data folder: `WENSHU_DATA_DIR`, else `$XDG_DATA_HOME/wenshu`, else `~/.local/share/wenshu`.
pub fn data_dir() -> PathBuf {
    if let Some(dir) = crate::config::env_var("WENSHU_DATA_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = crate::config::env_var("XDG_DATA_HOME") {
        return PathBuf::from(dir).join("wenshu");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".local").join("share").join("wenshu")
}

/// The URL of the demo database for `today`, made (deterministically) on first use.
pub async fn demo_database(today: Date) -> anyhow::Result<String> {
    let dir = data_dir();
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create the data folder {}", dir.display()))?;
    let path = dir.join(format!("demo-{today}.sqlite"));
    let url = format!("sqlite://{}", path.display());
    if !path.exists() {
        let partial = dir.join(format!("demo-{today}.sqlite.part"));
        let _ = std::fs::remove_file(&partial);
        let partial_url = format!("sqlite://{}?mode=rwc", partial.display());
        wenshu_demo::create_at(&partial_url, today).await?;
        std::fs::rename(&partial, &path)
            .with_context(|| format!("cannot move the demo database to {}", path.display()))?;
    }
    Ok(url)
}

/// A conversation's history, oldest first (empty when new).
pub fn load_history(conversation: &str) -> anyhow::Result<Vec<Turn>> {
    let path = conversation_path(conversation)?;
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("conversation file {}", path.display()))
}

/// Appends a round to a conversation's history.
pub fn append_history(conversation: &str, turn: Turn) -> anyhow::Result<()> {
    let mut history = load_history(conversation)?;
    history.push(turn);
    let path = conversation_path(conversation)?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&path, serde_json::to_string_pretty(&history)?)
        .with_context(|| format!("cannot write {}", path.display()))
}

fn conversation_path(conversation: &str) -> anyhow::Result<PathBuf> {
    let valid = !conversation.is_empty()
        && conversation.len() <= 64
        && conversation
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        anyhow::bail!("--conversation `{conversation}`: use 1 to 64 ASCII letters, digits, `-` or `_`");
    }
    Ok(data_dir().join("conversations").join(format!("{conversation}.json")))
}
