//! `wenshu extract`: the parameters a question states for one tool, as an outcome with its trace.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use jiff::civil::Date;
use serde_json::json;
use wenshu_engine::LexiconExtractor;
use wenshu_engine::QuestionFacts;
use wenshu_engine::{ExtractOutcome, ExtractRequest, Extraction, ModelExtractor, extract_messages};
use wenshu_engine::{date_params, question_range, subject_param};
use wenshu_entity::EntityCatalogs;
use wenshu_llm::prompt::PromptTemplates;

use crate::catalog_arg::{CatalogArg, find_tool};
use crate::config::{Config, ModelFlags};

/// Which engine extracts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// A chat model (OpenAI-compatible).
    Model,
    /// The catalog, entity catalogs and language knowledge alone.
    Lexicon,
}

/// Arguments of `wenshu extract`.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    #[command(flatten)]
    catalog: CatalogArg,
    /// The tool to fill.
    #[arg(long)]
    tool: String,
    /// The engine that extracts.
    #[arg(long, value_enum, default_value = "model")]
    engine: Engine,
    /// The day the question is asked (YYYY-MM-DD); default: today in the time zone.
    #[arg(long)]
    today: Option<String>,
    /// The IANA time zone (default: the config's, else Asia/Shanghai).
    #[arg(long)]
    tz: Option<String>,
    /// An entity catalog JSON file for the lexicon engine (default: the demo's).
    #[arg(long, value_name = "FILE")]
    entities: Option<std::path::PathBuf>,
    /// The subject's entity ID, when already resolved (fills the tool's `x-subject` parameter).
    #[arg(long)]
    subject_id: Option<String>,
    /// Print the prompt that would be sent (messages, size, estimated tokens) without calling a model.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    model: ModelFlags,
    /// The question, in the user's own words.
    question: String,
}

/// Runs `wenshu extract`: exit 0 with an outcome (`ok`, `missing`, `unsupported`), 1 when extraction failed.
pub fn run(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    let config = Config::load(&args.model)?;
    let catalog = args.catalog.load()?;
    let tool = find_tool(&catalog, &args.tool)?;
    let timezone = args.tz.clone().unwrap_or_else(|| config.timezone().to_string());
    let today = resolve_today(args.today.as_deref(), &timezone)?;
    let facts = QuestionFacts::new(&args.question, today);
    let mut fixed = date_params(tool, question_range(tool, &facts)?);
    if let Some(id) = &args.subject_id {
        fixed.extend(subject_param(tool, id)?);
    }
    let request = ExtractRequest {
        tool,
        question: &args.question,
        today,
        timezone: &timezone,
        fixed,
    };
    if args.engine == Engine::Lexicon {
        let entities = match &args.entities {
            Some(path) => {
                let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
                EntityCatalogs::from_json_str(&text)?
            }
            None => EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON)?,
        };
        let extraction = LexiconExtractor::new(Arc::new(entities)).extract_now(&request);
        return print_extraction(tool.name(), &extraction);
    }
    if args.dry_run {
        let messages = extract_messages(&prompts(&config)?, &request).map_err(anyhow::Error::msg)?;
        let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
        let output = json!({"messages": messages, "chars": chars, "estimated_tokens": (chars as f64 / 1.5).round()});
        println!("{}", serde_json::to_string_pretty(&output)?);
        return Ok(ExitCode::SUCCESS);
    }
    let extractor = model_extractor(&config, &args.model)?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let extraction = runtime.block_on(extractor.extract(&request));
    print_extraction(tool.name(), &extraction)
}

fn print_extraction(tool: &str, extraction: &Extraction) -> anyhow::Result<ExitCode> {
    let failed = matches!(extraction.outcome, ExtractOutcome::Failed { .. });
    let output = json!({"tool": tool, "outcome": extraction.outcome, "trace": extraction.trace});
    println!("{}", serde_json::to_string_pretty(&output)?);
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The model extractor the configuration describes.
pub fn model_extractor(config: &Config, flags: &ModelFlags) -> anyhow::Result<ModelExtractor> {
    let Some(client) = config.chat_client(flags)? else {
        bail!(
            "no chat model is configured: set --llm-base-url and --llm-model (or WENSHU_LLM_BASE_URL and WENSHU_LLM_MODEL), or [[llm.providers]] in wenshu.toml"
        );
    };
    Ok(ModelExtractor::new(
        client,
        Arc::new(prompts(config)?),
        config.strict_schema(),
    ))
}

/// The prompt templates: shipped, or overridden from the config's `prompts_dir`.
pub fn prompts(config: &Config) -> anyhow::Result<PromptTemplates> {
    match &config.llm.prompts_dir {
        Some(dir) => PromptTemplates::with_overrides(dir).with_context(|| format!("prompts in {}", dir.display())),
        None => Ok(PromptTemplates::embedded()),
    }
}

/// `--today`, or today in the time zone.
pub fn resolve_today(today: Option<&str>, timezone: &str) -> anyhow::Result<Date> {
    match today {
        Some(text) => text
            .parse()
            .with_context(|| format!("--today `{text}` is not a date like 2026-11-29")),
        None => Ok(wenshu_lexicon::time::today_in(timezone)?),
    }
}
