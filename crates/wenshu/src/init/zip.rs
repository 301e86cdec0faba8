//! Reading the entries of a ZIP archive (an `.xlsx` file): the central directory, stored and deflated entries
//! (inflated with `miniz_oxide`, each bounded), nothing else — no encryption, no ZIP64.

use anyhow::{Context, bail};

/// The most bytes one entry may inflate to (a spreadsheet's sheet; a larger one is refused, never read whole).
const ENTRY_LIMIT: usize = 256 * 1024 * 1024;

/// One file of an archive: its name and where its data lies.
struct Entry {
    name: String,
    method: u16,
    compressed: usize,
    offset: usize,
}

/// An archive read from bytes.
pub struct Archive<'a> {
    bytes: &'a [u8],
    entries: Vec<Entry>,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *b.get(at)?,
        *b.get(at + 1)?,
        *b.get(at + 2)?,
        *b.get(at + 3)?,
    ]))
}

impl<'a> Archive<'a> {
    /// Reads the central directory of `bytes`.
    pub fn new(bytes: &'a [u8]) -> anyhow::Result<Self> {
        // The end-of-central-directory record: within the last 64 KiB + 22 bytes.
        let from = bytes.len().saturating_sub(65_557);
        let end = (from..bytes.len().saturating_sub(21))
            .rev()
            .find(|&i| u32_at(bytes, i) == Some(0x0605_4b50))
            .context("not a ZIP archive (no end of central directory)")?;
        let count = usize::from(u16_at(bytes, end + 10).context("a truncated archive")?);
        let mut at = u32_at(bytes, end + 16).context("a truncated archive")? as usize;
        let mut entries = Vec::with_capacity(count);
        for _ in 0..count {
            if u32_at(bytes, at) != Some(0x0201_4b50) {
                bail!("a damaged central directory");
            }
            let field = |off: usize| u16_at(bytes, at + off).map(usize::from);
            let (Some(method), Some(name_len), Some(extra_len), Some(comment_len)) =
                (u16_at(bytes, at + 10), field(28), field(30), field(32))
            else {
                bail!("a truncated central directory");
            };
            let compressed = u32_at(bytes, at + 20).context("a truncated central directory")? as usize;
            let offset = u32_at(bytes, at + 42).context("a truncated central directory")? as usize;
            let name = bytes
                .get(at + 46..at + 46 + name_len)
                .context("a truncated central directory")?;
            entries.push(Entry {
                name: String::from_utf8_lossy(name).into_owned(),
                method,
                compressed,
                offset,
            });
            at += 46 + name_len + extra_len + comment_len;
        }
        Ok(Self { bytes, entries })
    }

    /// The content of the entry `name`, when the archive has it.
    pub fn read(&self, name: &str) -> anyhow::Result<Option<Vec<u8>>> {
        let Some(entry) = self.entries.iter().find(|e| e.name == name) else {
            return Ok(None);
        };
        let b = self.bytes;
        if u32_at(b, entry.offset) != Some(0x0403_4b50) {
            bail!("{name}: a damaged local header");
        }
        let (Some(name_len), Some(extra_len)) = (u16_at(b, entry.offset + 26), u16_at(b, entry.offset + 28)) else {
            bail!("{name}: a truncated local header");
        };
        let start = entry.offset + 30 + usize::from(name_len) + usize::from(extra_len);
        let data = b
            .get(start..start + entry.compressed)
            .with_context(|| format!("{name}: truncated data"))?;
        match entry.method {
            0 => Ok(Some(data.to_vec())),
            8 => miniz_oxide::inflate::decompress_to_vec_with_limit(data, ENTRY_LIMIT)
                .map(Some)
                .map_err(|e| anyhow::anyhow!("{name}: cannot inflate ({:?})", e.status)),
            other => bail!("{name}: compression method {other} is not read"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_no_archive_are_refused() {
        assert!(Archive::new(b"not a zip").is_err());
        assert!(Archive::new(&[]).is_err());
        let mut fake = vec![0u8; 30];
        fake.extend_from_slice(&[0x50, 0x4b, 0x05, 0x06]);
        fake.extend_from_slice(&[0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0]);
        assert!(Archive::new(&fake).is_err(), "a directory pointing outside is refused");
    }
}
