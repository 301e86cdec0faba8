//! `wenshu bind`: raw parameters or a raw HTTP request → one validated call (exit 0) or the error body (exit 1).

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;
use serde_json::{Map, Value, json};
use wenshu_contract::bind::{BindError, bind};
use wenshu_contract::http::{BodyLimits, RawRequest, bind_request, build_request};
use wenshu_contract::{ErrorBody, ErrorDetail, Tool};

use crate::catalog_arg::CatalogArg;

/// Arguments of `wenshu bind`.
#[derive(Debug, clap::Args)]
pub struct BindArgs {
    #[command(flatten)]
    catalog: CatalogArg,
    /// The tool to call.
    #[arg(long)]
    tool: String,
    /// The raw parameters as a JSON object.
    #[arg(long, conflicts_with = "request", required_unless_present = "request")]
    params: Option<String>,
    /// A raw request line, e.g. `POST /orders/ord_1?status=shipped` (HTTP tools).
    #[arg(long)]
    request: Option<String>,
    /// The request body: JSON text, `@FILE`, or `@-` for standard input.
    #[arg(long, requires = "request")]
    body: Option<String>,
    /// Also print each location's raw values before the merge.
    #[arg(long, requires = "request")]
    dump: bool,
    /// The largest request body accepted, in bytes.
    #[arg(long, default_value_t = BodyLimits::default().max_bytes)]
    max_body_bytes: usize,
    /// The deepest body nesting accepted.
    #[arg(long, default_value_t = BodyLimits::default().max_depth)]
    max_depth: usize,
    /// Base URL for the request built from the call (HTTP tools).
    #[arg(long, default_value = "")]
    base_url: String,
}

/// Runs `wenshu bind`.
pub fn run(args: BindArgs) -> anyhow::Result<ExitCode> {
    let catalog = args.catalog.load()?;
    let Some(tool) = catalog.get(&args.tool) else {
        let known = catalog.names().into_iter().map(str::to_string).collect();
        return Ok(fail(
            &BindError::UnknownTool {
                tool: args.tool.clone(),
                known,
            }
            .to_body(),
        ));
    };
    let outcome = match &args.request {
        Some(line) => bind_raw_request(tool, line, &args)?,
        None => bind_params(tool, args.params.as_deref().unwrap_or("{}")),
    };
    match outcome {
        Ok(output) => {
            println!("{}", serde_json::to_string_pretty(&output)?);
            Ok(ExitCode::SUCCESS)
        }
        Err(body) => Ok(fail(&body)),
    }
}

fn bind_params(tool: &Tool, params: &str) -> Result<Value, Box<ErrorBody>> {
    let raw: Map<String, Value> = match serde_json::from_str::<Value>(params) {
        Ok(Value::Object(map)) => map,
        Ok(other) => {
            return Err(malformed(
                "params_not_object",
                format!("--params must be a JSON object, got {other}"),
            ));
        }
        Err(e) => {
            return Err(malformed("malformed_json", format!("--params is not valid JSON: {e}")));
        }
    };
    let call = bind(tool, &raw).map_err(|e| Box::new(e.to_body()))?;
    let mut output = serde_json::to_value(&call).map_err(|e| malformed("internal", e.to_string()))?;
    if tool.route().is_some() {
        let request = build_request(tool, &call, "").map_err(|e| Box::new(e.to_body()))?;
        output["request"] = json!(request);
    }
    Ok(output)
}

fn bind_raw_request(tool: &Tool, line: &str, args: &BindArgs) -> anyhow::Result<Result<Value, Box<ErrorBody>>> {
    let body = args.body.as_deref().map(read_body_arg).transpose()?;
    let limits = BodyLimits {
        max_bytes: args.max_body_bytes,
        max_depth: args.max_depth,
    };
    let bound = RawRequest::parse_line(line, body).and_then(|request| bind_request(tool, &request, limits));
    let (call, dump) = match bound {
        Ok(pair) => pair,
        Err(e) => return Ok(Err(Box::new(e.to_body()))),
    };
    let mut output = serde_json::to_value(&call)?;
    output["request"] = json!(build_request(tool, &call, &args.base_url).map_err(|e| anyhow::anyhow!(e))?);
    if args.dump {
        output["dump"] = json!(dump);
    }
    Ok(Ok(output))
}

/// Reads `--body`: text as is, `@FILE` from a file, `@-` from standard input (bytes, so invalid UTF-8 is seen).
fn read_body_arg(arg: &str) -> anyhow::Result<Vec<u8>> {
    match arg.strip_prefix('@') {
        Some("-") => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("cannot read the body from standard input")?;
            Ok(bytes)
        }
        Some(path) => std::fs::read(path).with_context(|| format!("cannot read the body file {path}")),
        None => Ok(arg.as_bytes().to_vec()),
    }
}

fn malformed(code: &'static str, message: String) -> Box<ErrorBody> {
    Box::new(ErrorBody {
        error: ErrorDetail::new(code, message),
    })
}

fn fail(body: &ErrorBody) -> ExitCode {
    println!(
        "{}",
        serde_json::to_string_pretty(body).unwrap_or_else(|_| body.error.message.clone())
    );
    ExitCode::from(1)
}
