//! `wenshu parse`: run the language knowledge on a piece of text and print what it finds.

use std::process::ExitCode;

/// What `wenshu parse` can parse.
#[derive(Debug, clap::Subcommand)]
pub enum ParseCommand {
    /// Parse a number: `wenshu parse number 三千五`.
    Number {
        /// The text holding one numeral.
        text: String,
    },
}

/// Runs one `wenshu parse` subcommand.
pub fn run(command: ParseCommand) -> anyhow::Result<ExitCode> {
    match command {
        ParseCommand::Number { text } => anyhow::bail!("not yet: {text}"),
    }
}
