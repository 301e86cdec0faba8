//! Traces kept small: a trace's JSON text deflated, behind a one-byte format tag, and the same JSON on the way
//! out. Rows written before packing (their JSON in `traces.body`) are read as they are.

use std::cell::RefCell;

use miniz_oxide::deflate::core::{
    CompressorOxide, TDEFLFlush, TDEFLStatus, compress, create_comp_flags_from_zip_params,
};
use serde_json::Value;

use crate::error::StoreError;

/// The tag of a deflated (RFC 1951) JSON text.
const DEFLATED_JSON: u8 = b'z';

/// The tag of a JSON text kept as it is (when deflating failed, never expected).
const PLAIN_JSON: u8 = b'j';

/// The deflate level: the default's ratio at a fraction of the best level's time.
const LEVEL: u8 = 6;

/// The largest JSON text a packed trace may unpack to, so a damaged row cannot take all memory.
const MAX_UNPACKED: usize = 256 * 1024 * 1024;

thread_local! {
    /// This thread's compressor, reset for each trace: making one allocates and clears a few hundred KB, which
    /// costs more than deflating a trace of a few KB.
    static COMPRESSOR: RefCell<Option<Box<CompressorOxide>>> = const { RefCell::new(None) };
}

/// A trace as stored: its JSON text deflated, after the format tag.
pub(crate) fn pack(trace: &Value) -> Vec<u8> {
    let text = trace.to_string();
    let mut packed = Vec::with_capacity(text.len() / 3 + 64);
    packed.push(DEFLATED_JSON);
    if deflate(text.as_bytes(), &mut packed) {
        return packed;
    }
    let mut plain = Vec::with_capacity(text.len() + 1);
    plain.push(PLAIN_JSON);
    plain.extend_from_slice(text.as_bytes());
    plain
}

/// Appends `input` deflated to `output`; `false` when the compressor reports a failure.
fn deflate(mut input: &[u8], output: &mut Vec<u8>) -> bool {
    COMPRESSOR.with_borrow_mut(|slot| {
        let compressor = slot.get_or_insert_with(|| {
            Box::new(CompressorOxide::new(create_comp_flags_from_zip_params(
                LEVEL.into(),
                0,
                0,
            )))
        });
        compressor.reset();
        let mut at = output.len();
        output.resize(at + input.len() / 2 + 64, 0);
        loop {
            let (status, read, written) = compress(compressor, input, &mut output[at..], TDEFLFlush::Finish);
            at += written;
            match status {
                TDEFLStatus::Done => {
                    output.truncate(at);
                    return true;
                }
                TDEFLStatus::Okay if read <= input.len() => {
                    input = &input[read..];
                    if output.len() - at < 64 {
                        output.resize(output.len() * 2, 0);
                    }
                }
                _ => return false,
            }
        }
    })
}

/// The trace a packed row holds; a tag this build does not know, a damaged stream or text that is not JSON is a
/// [`StoreError::Database`].
pub(crate) fn unpack(packed: &[u8]) -> Result<Value, StoreError> {
    let unreadable = |why: String| StoreError::Database {
        message: format!("stored traces.packed cannot be read: {why}"),
    };
    let text = match packed.split_first() {
        Some((&DEFLATED_JSON, deflated)) => miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_UNPACKED)
            .map_err(|error| unreadable(format!("the deflate stream is damaged ({:?})", error.status)))?,
        Some((&PLAIN_JSON, text)) => text.to_vec(),
        Some((tag, _)) => return Err(unreadable(format!("unknown format tag {tag}"))),
        None => return Err(unreadable("it is empty".to_string())),
    };
    serde_json::from_slice(&text).map_err(|error| unreadable(format!("it is not JSON ({error})")))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_trace_comes_back_as_it_went_in_and_smaller() {
        let trace = json!({"engine": "lexicon", "steps": (0..40).map(|n| json!({
            "step": "route", "decision": "tool sales_query", "input": {"question": "华东区本月的销售额是多少", "n": n},
            "output": {"scores": [{"tool": "sales_query", "total": 15.9}, {"tool": "movie_rating", "total": 0.0}]},
        })).collect::<Vec<_>>(), "z": null, "a": 1.5});
        let packed = pack(&trace);
        assert_eq!(unpack(&packed).expect("unpacks"), trace);
        assert!(packed.len() * 4 < trace.to_string().len(), "{} bytes", packed.len());
        let unpacked = unpack(&packed).expect("unpacks");
        let keys: Vec<&String> = unpacked.as_object().expect("object").keys().collect();
        assert_eq!(keys, ["engine", "steps", "z", "a"], "the order of keys is kept");
        // The compressor is reused: a second, different trace on the same thread comes back too, and as a fresh
        // compressor would make it.
        let other = json!({"steps": [{"step": "extract", "output": "x".repeat(100_000)}]});
        let packed = pack(&other);
        assert_eq!(unpack(&packed).expect("unpacks"), other);
        let fresh = miniz_oxide::deflate::compress_to_vec(other.to_string().as_bytes(), LEVEL);
        assert_eq!(packed[1..], fresh[..]);
        let plain = [&[PLAIN_JSON][..], other.to_string().as_bytes()].concat();
        assert_eq!(unpack(&plain).expect("plain JSON reads"), other);
    }

    #[test]
    fn damaged_rows_are_errors_not_panics() {
        let packed = pack(&json!({"steps": []}));
        for bad in [
            Vec::new(),
            vec![b'q', 1, 2, 3],
            vec![DEFLATED_JSON, 0xff, 0xff, 0xff],
            packed[..packed.len() / 2].to_vec(),
            [
                &[DEFLATED_JSON][..],
                &miniz_oxide::deflate::compress_to_vec(b"{not json", 6),
            ]
            .concat(),
        ] {
            assert!(matches!(unpack(&bad), Err(StoreError::Database { .. })), "{bad:?}");
        }
    }
}
