//! `wenshu eval`: run evaluation cases from JSONL files and report failures.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `wenshu eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// JSONL files of cases (dates.jsonl, numbers.jsonl, ...).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Runs every case of every file and prints `N passed, M failed`.
pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("not yet: {:?}", args.files)
}
