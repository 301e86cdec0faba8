//! Traces kept small: a trace's JSON text deflated, behind a one-byte format tag, and the same JSON on the way
//! out. Rows written before packing (their JSON in `traces.body`) are read as they are.

use serde_json::Value;

use crate::error::StoreError;

/// The tag of a deflated (RFC 1951) JSON text.
const DEFLATED_JSON: u8 = b'z';

/// The deflate level: the default's ratio at a fraction of the best level's time.
const LEVEL: u8 = 6;

/// The largest JSON text a packed trace may unpack to, so a damaged row cannot take all memory.
const MAX_UNPACKED: usize = 256 * 1024 * 1024;

/// A trace as stored: its JSON text deflated, after the format tag.
pub(crate) fn pack(trace: &Value) -> Vec<u8> {
    let text = trace.to_string();
    let deflated = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), LEVEL);
    let mut packed = Vec::with_capacity(deflated.len() + 1);
    packed.push(DEFLATED_JSON);
    packed.extend_from_slice(&deflated);
    packed
}

/// The trace a packed row holds; a tag this build does not know, a damaged stream or text that is not JSON is a
/// [`StoreError::Database`].
pub(crate) fn unpack(packed: &[u8]) -> Result<Value, StoreError> {
    let unreadable = |why: String| StoreError::Database {
        message: format!("stored traces.packed cannot be read: {why}"),
    };
    let Some((&tag, deflated)) = packed.split_first() else {
        return Err(unreadable("it is empty".to_string()));
    };
    if tag != DEFLATED_JSON {
        return Err(unreadable(format!("unknown format tag {tag}")));
    }
    let text = miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_UNPACKED)
        .map_err(|error| unreadable(format!("the deflate stream is damaged ({:?})", error.status)))?;
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
