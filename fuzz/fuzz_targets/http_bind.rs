//! Fuzzes HTTP binding: arbitrary bytes become a request line and a body for the demo `query_order` tool.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wenshu_contract::demo_catalog;
use wenshu_contract::http::{BodyLimits, RawRequest, bind_request, build_request};

fuzz_target!(|data: &[u8]| {
    let Ok(catalog) = demo_catalog() else { return };
    let Some(tool) = catalog.get("query_order") else { return };
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let line = String::from_utf8_lossy(&data[..split]);
    let body = data.get(split + 1..).map(<[u8]>::to_vec);
    let Ok(request) = RawRequest::parse_line(&line, body) else { return };
    let limits = BodyLimits { max_bytes: 4096, max_depth: 8 };
    match bind_request(tool, &request, limits) {
        Ok((call, _)) => {
            let built = build_request(tool, &call, "");
            assert!(built.is_ok(), "a bound call always builds its request");
        }
        Err(e) => assert!(!e.to_body().error.message.is_empty()),
    }
});
