//! `wenshu tools check CATALOG`: lint a catalog as a reviewer would, with the lexicon engine's own scores —
//! pairs of tools between which routing their examples is a coin toss, examples that route to another tool,
//! tools without examples, enum values without labels, and parameters no example exercises; for metric tools,
//! names that are the start of another or read as a period ([`names`]); with `--config`, on the configured
//! database, examples answered by another tool or not at all and joins that change row counts ([`data`]).

mod data;
mod names;

pub use data::data_findings;

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::sync::Arc;

use wenshu_contract::{Catalog, Tool};
use wenshu_engine::LexiconExtractor;
use wenshu_engine::ToolIndex;
use wenshu_engine::{ExtractOutcome, ExtractRequest, Extractor};
use wenshu_engine::{ToolChoice, choose_tool};
use wenshu_entity::EntityCatalogs;

use crate::catalog_arg::CatalogArg;

/// The runner-up's share of the winner's score at which an example's routing counts as a coin toss.
pub const COIN_TOSS: f64 = 0.8;

/// `wenshu tools check` options.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The catalog JSON file; the built-in demo catalog when absent.
    pub catalog: Option<std::path::PathBuf>,
    /// An entity catalog JSON file (names the questions may use); the demo's with the demo catalog, else none.
    #[arg(long, value_name = "FILE")]
    pub entities: Option<std::path::PathBuf>,
    /// The day examples are read on (`YYYY-MM-DD`; default today in UTC).
    #[arg(long)]
    pub today: Option<String>,
    /// A `wenshu.toml` whose database the catalog reads: every example is then asked end to end (lexicon
    /// engine) and every metric join counted.
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
}

/// One thing a reviewer would flag.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The tool (or `a + b` for a pair).
    pub subject: String,
    /// The kind: `confusable`, `misrouted`, `no-examples`, `enum-labels`, `unexercised`, `prefix`, `time-word`,
    /// `join`.
    pub kind: &'static str,
    /// What and why, in words.
    pub message: String,
    /// The example it is about (`misrouted`), when one.
    pub example: Option<String>,
}

/// Runs `wenshu tools check`: prints each finding; exit 1 when there are any.
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let catalog = CatalogArg {
        catalog: args.catalog.clone(),
    }
    .load()?;
    // The entity file: the flag's, else the one the config names.
    let entities_path = match (&args.entities, &args.config) {
        (Some(path), _) => Some(path.clone()),
        (None, Some(config)) => {
            crate::config::Config::load(&crate::config::ModelFlags {
                config: Some(config.clone()),
                ..crate::config::ModelFlags::default()
            })?
            .entities
        }
        (None, None) => None,
    };
    let entities = match (&entities_path, &args.catalog) {
        (Some(path), _) => EntityCatalogs::from_json_str(&std::fs::read_to_string(path)?)?,
        (None, None) => EntityCatalogs::from_json_str(wenshu_demo::ENTITIES_JSON)?,
        (None, Some(_)) => EntityCatalogs::new(),
    };
    let today = crate::extract_cmd::resolve_today(args.today.as_deref(), "UTC")?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut findings = runtime.block_on(check(&catalog, Arc::new(entities), today));
    if let Some(config) = &args.config {
        findings.extend(runtime.block_on(data::data_findings(
            args.catalog.as_deref(),
            entities_path.as_deref(),
            &catalog,
            config,
            today,
        ))?);
    }
    for f in &findings {
        println!("{:<12} {}: {}", f.kind, f.subject, f.message);
    }
    println!("{} tools checked, {} findings", catalog.len(), findings.len());
    Ok(if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Every finding for `catalog`.
pub async fn check(catalog: &Catalog, entities: Arc<EntityCatalogs>, today: jiff::civil::Date) -> Vec<Finding> {
    let fallback = catalog.fallback().map(Tool::name);
    let routed: Vec<&Tool> = catalog
        .tools()
        .iter()
        .filter(|t| Some(t.name()) != fallback && t.extensions().metrics.is_none())
        .collect();
    let index = ToolIndex::build(&routed, &entities, today);
    let mut findings = Vec::new();
    // (a, b) → (examples of either whose routing between them is a coin toss or crosses, examples of both)
    let mut pairs: BTreeMap<(String, String), (usize, Vec<String>)> = BTreeMap::new();
    let extractor = LexiconExtractor::new(entities.clone());
    for tool in catalog.tools().iter().filter(|t| Some(t.name()) != fallback) {
        if tool.extensions().metrics.is_none() {
            // A metric tool's enums are its model's own names (measures, grains), read by the language knowledge.
            findings.extend(enum_labels(tool));
        } else {
            findings.extend(names::metric_names(tool, today));
        }
        let examples = &tool.extensions().examples;
        if examples.is_empty() {
            findings.push(finding(
                tool.name(),
                "no-examples",
                "no x-examples: add questions people ask of it".into(),
            ));
            continue;
        }
        if tool.extensions().metrics.is_some() {
            continue; // chosen by coverage of its model, not by words; `wenshu init` builds and runs its examples
        }
        let mut exercised: BTreeSet<String> = BTreeSet::new();
        for example in examples {
            let choice = choose_tool(&routed, &index, &entities, example, today);
            if let Some(message) = misrouted(tool, example, &choice) {
                findings.push(misrouted_example(tool.name(), example, message));
            }
            if let Some(other) = coin_toss(tool, &choice) {
                let key = ordered(tool.name(), &other);
                pairs.entry(key).or_default().1.push(example.clone());
            }
            exercised.extend(exercised_params(&extractor, tool, example, today).await);
        }
        findings.extend(unexercised(tool, &exercised));
    }
    for tool in &routed {
        let n = tool.extensions().examples.len();
        for ((a, b), entry) in pairs.iter_mut() {
            if a == tool.name() || b == tool.name() {
                entry.0 += n;
            }
        }
    }
    for ((a, b), (total, close)) in pairs {
        if close.len() * 2 >= total.max(1) {
            findings.push(finding(
                &format!("{a} + {b}"),
                "confusable",
                format!(
                    "{} of their {total} examples score within {:.0}% of each other (e.g. `{}`): routing between \
                     them is a coin toss — give each words of its own (title, description, synonyms)",
                    close.len(),
                    (1.0 - COIN_TOSS) * 100.0,
                    close[0]
                ),
            ));
        }
    }
    findings
}

fn finding(subject: &str, kind: &'static str, message: String) -> Finding {
    Finding {
        subject: subject.to_string(),
        kind,
        message,
        example: None,
    }
}

/// A `misrouted` finding about `example` of `tool`.
fn misrouted_example(tool: &str, example: &str, message: String) -> Finding {
    Finding {
        example: Some(example.to_string()),
        ..finding(tool, "misrouted", message)
    }
}

fn ordered(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// An example the lexicon engine sends elsewhere (or nowhere).
fn misrouted(tool: &Tool, example: &str, choice: &ToolChoice) -> Option<String> {
    match choice.chosen.as_deref() {
        Some(chosen) if chosen == tool.name() => None,
        Some(chosen) => Some(format!(
            "example `{example}` routes to `{chosen}` ({:.2} against {:.2})",
            choice.score_of(chosen),
            choice.score_of(tool.name())
        )),
        None => Some(format!(
            "example `{example}` routes to no tool (best {:.2}, below the threshold)",
            choice.scores.first().map_or(0.0, |s| s.total)
        )),
    }
}

/// The other tool whose score for one of `tool`'s examples comes within [`COIN_TOSS`] of the better of the two.
fn coin_toss(tool: &Tool, choice: &ToolChoice) -> Option<String> {
    let own = choice.score_of(tool.name());
    choice
        .scores
        .iter()
        .filter(|s| s.tool != tool.name() && s.excluded.is_none())
        .find(|s| {
            let (hi, lo) = if s.total > own { (s.total, own) } else { (own, s.total) };
            hi > 0.0 && lo / hi >= COIN_TOSS
        })
        .map(|s| s.tool.clone())
}

/// The enum values of a tool that have no label or synonym (a code like `pending` no one says).
fn enum_labels(tool: &Tool) -> Vec<Finding> {
    let mut out = Vec::new();
    for spec in tool.params().iter() {
        let synonyms = tool.extensions().synonyms_of(&spec.name);
        let bare: Vec<&str> = spec
            .enum_strings()
            .filter(|v| v.is_ascii() && !synonyms.iter().any(|s| s.value == *v && !s.synonyms.is_empty()))
            .collect();
        if !bare.is_empty() {
            out.push(finding(
                tool.name(),
                "enum-labels",
                format!(
                    "`{}`: values without labels ({}): add x-enum-synonyms with the words people use",
                    spec.name,
                    bare.join(", ")
                ),
            ));
        }
    }
    out
}

/// The parameters an example gives: those the lexicon extractor fills (a default counts only when the example
/// says it), and the `x-date-range` pair when the example names a time (code fills those, as the planner does).
async fn exercised_params(
    extractor: &LexiconExtractor,
    tool: &Tool,
    example: &str,
    today: jiff::civil::Date,
) -> Vec<String> {
    let mut fixed = serde_json::Map::new();
    let mut out = Vec::new();
    if let Some(range) = &tool.extensions().date_range {
        let facts = wenshu_engine::QuestionFacts::new(example, today);
        if let Some(span) = facts.times.first() {
            fixed.insert(range.start.clone(), span.date_range.start.to_string().into());
            fixed.insert(range.end.clone(), span.date_range.end.to_string().into());
            out.extend([range.start.clone(), range.end.clone()]);
        }
    }
    if let Some(subject) = &tool.extensions().subject {
        let placeholder = match tool.params().get(&subject.param).map(|s| s.ty) {
            Some(wenshu_contract::ParamType::Integer | wenshu_contract::ParamType::Number) => serde_json::json!(1),
            _ => serde_json::json!("1"),
        };
        fixed.insert(subject.param.clone(), placeholder);
    }
    let request = ExtractRequest {
        tool,
        question: example,
        today,
        timezone: "UTC",
        fixed: fixed.clone(),
    };
    let extraction = Extractor::extract(extractor, &request).await;
    if let ExtractOutcome::Ok { params } = extraction.outcome {
        let said = |(name, value): &(String, serde_json::Value)| {
            !fixed.contains_key(name)
                && tool
                    .params()
                    .get(name)
                    .is_none_or(|s| s.default.as_ref() != Some(value))
        };
        out.extend(params.into_iter().filter(said).map(|(name, _)| name));
    }
    out
}

/// Parameters that no example fills (the subject ID is filled by code and not counted).
fn unexercised(tool: &Tool, exercised: &BTreeSet<String>) -> Option<Finding> {
    let subject = tool.extensions().subject.as_ref().map(|s| s.param.as_str());
    let missing: Vec<&str> = tool
        .params()
        .iter()
        .map(|s| s.name.as_str())
        .filter(|n| !exercised.contains(*n) && Some(*n) != subject)
        .collect();
    (!missing.is_empty()).then(|| {
        finding(
            tool.name(),
            "unexercised",
            format!(
                "no example gives {}: add one that does, or the tool is untested there",
                missing.join(", ")
            ),
        )
    })
}
