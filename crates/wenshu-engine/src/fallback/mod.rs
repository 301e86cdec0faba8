//! Degrade once (seed 003 §四): when no fixed tool can answer, one Text-to-SQL call writes a query, the SQL guard
//! checks it, and it runs on a read-only connection with a timeout, a row cap and byte caps. An execution error or a
//! guard refusal goes back to the model once, with the error; the corrected SQL passes the guard again; then stop.
//! A statement stopped at the timeout or a byte cap is not corrected: the run stops there.
//! Under a viewer's row scope ([`SqlFallback::run_scoped`]) the guard's rewrite reads every scoped table through a
//! scoped subquery, and the scope's values are bound when it runs: whatever the model writes, it sees only the
//! viewer's rows.
//! Before it runs, the guarded SQL is checked against the user's own words (`verify`): a range, a filter value, a
//! measure or a count of people other than the question's is a mismatch, named in the one correction; a corrected
//! statement that still mismatches stops, naming it.

pub mod schema;
pub mod verify;

use std::sync::Arc;
use std::time::Instant;

use jiff::civil::Date;
use serde::Serialize;
use serde_json::Value;
use wenshu_llm::answer::extract_json_object;
use wenshu_llm::client::{ChatClient, ChatRequest, Message};
use wenshu_llm::prompt::{PromptTemplates, SqlContext};

use self::schema::{SchemaSource, ScopedSchema};
use self::verify::{Mismatch, verify};
use crate::executed::SentSql;
use crate::facts::QuestionFacts;
use crate::model_call::{ModelCall, chinese_weekday};
use crate::scope::BoundScope;
use wenshu_sql::db::{Database, DbError, Dialect, QueryLimits, ReadScope, Rows};
use wenshu_sql::guard::{GuardPolicy, GuardVerdict, check_sql_scoped, default_table_functions};

/// How many SQL statements the fallback writes at most: the first and one correction.
pub const MAX_SQL_ATTEMPTS: usize = 2;

/// One written statement: what the model said, what the guard said, what the database said.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SqlAttempt {
    /// The model call.
    pub call: ModelCall,
    /// The SQL as the model wrote it.
    pub sql: Option<String>,
    /// The model's one-line explanation.
    pub explanation: Option<String>,
    /// The guard's verdict (with the final SQL when allowed).
    pub verdict: Option<GuardVerdict>,
    /// Why this attempt failed, if it did.
    pub error: Option<String>,
    /// The same in Chinese, as the user reads it (the guard's and the database's own words stay in `error`).
    #[serde(skip)]
    pub error_zh: Option<String>,
    /// How the guarded SQL differs from the user's question (it did not run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mismatches: Vec<Mismatch>,
    /// The statement ran past a limit (the timeout, a byte cap): no correction is asked for, since another
    /// statement for the same question would most likely do the same.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub over_limit: bool,
}

impl SqlAttempt {
    /// Records why this attempt failed: `en` as the trace keeps it, `zh` as a Chinese reader is told.
    fn fail(&mut self, en: String, zh: impl Into<String>) {
        self.error = Some(en);
        self.error_zh = Some(zh.into());
    }

    /// Why this attempt failed, in both languages (none when it did not).
    pub fn failure(&self) -> Option<crate::message::Message> {
        let en = self.error.as_deref()?;
        let zh = self.error_zh.as_deref().unwrap_or(en);
        Some(crate::message::Message::fallback_failed_in(zh, en))
    }
}

/// The whole fallback run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FallbackRun {
    /// Each attempt, in order (at most [`MAX_SQL_ATTEMPTS`]).
    pub attempts: Vec<SqlAttempt>,
    /// The rows, when a statement ran.
    pub rows: Option<Rows>,
    /// The SQL that ran.
    pub final_sql: Option<String>,
    /// Why it stopped without rows: one reason per failed attempt.
    pub reasons: Vec<String>,
    /// Wall time, in milliseconds.
    pub duration_ms: f64,
    /// When the SQL read a table the viewer's row scope denies: that refusal (the run stops there, uncorrected).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_refusal: Option<crate::scope::ScopeRefusal>,
}

impl FallbackRun {
    /// The SQL of the run, typed: the statement that ran with the binds of the attempt whose guarded SQL it is
    /// (a row scope's), or else every attempt that wrote SQL, not run, with why.
    pub fn sent_sql(&self) -> Vec<SentSql> {
        if let Some(ran) = &self.final_sql {
            let binds = self
                .attempts
                .iter()
                .filter_map(|a| a.verdict.as_ref())
                .filter(|v| v.sql.as_deref() == Some(ran.as_str()))
                .map(|v| v.binds.clone())
                .next_back()
                .unwrap_or_default();
            return vec![SentSql::ran(ran.clone(), binds, None)];
        }
        self.attempts
            .iter()
            .filter_map(|a| {
                a.sql
                    .as_ref()
                    .map(|written| SentSql::not_run(written.clone(), a.error.clone()))
            })
            .collect()
    }
}

/// The Text-to-SQL fallback over one read-only database.
pub struct SqlFallback {
    client: Arc<ChatClient>,
    prompts: Arc<PromptTemplates>,
    db: Arc<Database>,
    policy: GuardPolicy,
    schema: SchemaSource,
    timezone: String,
    limits: QueryLimits,
}

impl SqlFallback {
    /// A fallback asking `client`, running on `db` (which must be read-only), reading only `policy`'s tables,
    /// described to the model by `schema`.
    pub fn new(
        client: Arc<ChatClient>,
        prompts: Arc<PromptTemplates>,
        db: Arc<Database>,
        policy: GuardPolicy,
        schema: String,
    ) -> Self {
        let limits = QueryLimits {
            row_cap: policy.max_rows as usize,
            ..QueryLimits::default()
        };
        Self {
            client,
            prompts,
            db,
            policy,
            schema: SchemaSource::fixed(schema),
            timezone: "Asia/Shanghai".into(),
            limits,
        }
    }

    /// Describes the schema to each viewer as its row scope sees it (sample values of its rows only).
    pub fn with_scoped_schema(mut self, schema: ScopedSchema) -> Self {
        self.schema = SchemaSource::Scoped(schema);
        self
    }

    /// Reckons dates in this time zone.
    pub fn with_timezone(mut self, timezone: impl Into<String>) -> Self {
        self.timezone = timezone.into();
        self
    }

    /// Sets the statement timeout, the row cap and the byte caps.
    pub fn with_limits(mut self, limits: QueryLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The dialect the SQL is written and guarded in.
    pub fn dialect(&self) -> Dialect {
        self.db.dialect()
    }

    /// Answers `question` with at most one correction, for a viewer who sees every row.
    pub async fn run(&self, question: &str, today: Date) -> FallbackRun {
        self.run_scoped(question, today, &BoundScope::unscoped()).await
    }

    /// Answers `question` with at most one correction under `scope`: the SQL runs only as the guard's scoped
    /// rewrite, with the scope's values bound; it is checked against `question` itself.
    pub async fn run_scoped(&self, question: &str, today: Date, scope: &BoundScope) -> FallbackRun {
        self.run_asked(question, question, today, scope).await
    }

    /// Answers `question` (the question as the model understood it) like [`SqlFallback::run_scoped`], checking
    /// each guarded statement against `asked`, the user's own words, before it runs: a mismatch is corrected once,
    /// then stops.
    pub async fn run_asked(&self, question: &str, asked: &str, today: Date, scope: &BoundScope) -> FallbackRun {
        let started = Instant::now();
        let facts = QuestionFacts::shared(asked, today);
        let mut run = FallbackRun::default();
        let mut previous: Option<(String, String)> = None;
        for _ in 0..MAX_SQL_ATTEMPTS {
            let (attempt, rows) = self.attempt(question, today, previous.as_ref(), scope, &facts).await;
            if rows.is_some() {
                run.rows = rows;
            }
            let failed = attempt.error.clone();
            let sql = attempt.sql.clone();
            let final_failure = attempt.call.service_failed() || attempt.over_limit;
            let denied = attempt.verdict.as_ref().and_then(|v| v.scope_refusal.clone());
            run.attempts.push(attempt);
            if denied.is_some() {
                run.reasons.extend(failed);
                run.scope_refusal = denied;
                break;
            }
            match failed {
                None => break,
                Some(reason) => {
                    run.reasons.push(reason.clone());
                    if final_failure {
                        break;
                    }
                    previous = Some((sql.unwrap_or_default(), reason));
                }
            }
        }
        if let Some(last) = run.attempts.last()
            && last.error.is_none()
        {
            run.final_sql = last.verdict.as_ref().and_then(|v| v.sql.clone());
            run.reasons.clear();
        }
        run.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        run
    }

    /// One statement: written, guarded, run; the rows when it ran.
    async fn attempt(
        &self,
        question: &str,
        today: Date,
        previous: Option<&(String, String)>,
        scope: &BoundScope,
        facts: &QuestionFacts,
    ) -> (SqlAttempt, Option<Rows>) {
        let mut attempt = SqlAttempt::default();
        let described = match self.schema.describe(scope).await {
            Ok(described) => described,
            Err(e) => {
                attempt.fail(format!("the schema could not be read: {e}"), "读取数据库结构失败");
                return (attempt, None);
            }
        };
        let context = SqlContext {
            today: today.to_string(),
            weekday: chinese_weekday(today).to_string(),
            timezone: self.timezone.clone(),
            dialect: self.dialect().name().to_string(),
            schema: described.text.clone(),
            max_rows: self.policy.max_rows,
            question: question.to_string(),
            previous_sql: previous.map(|(sql, _)| sql.clone()),
            error: previous.map(|(_, error)| error.clone()),
        };
        let messages = match (self.prompts.sql_system(&context), self.prompts.sql_user(&context)) {
            (Ok(system), Ok(user)) => vec![Message::system(system), Message::user(user)],
            (Err(e), _) | (_, Err(e)) => {
                attempt.fail(e.to_string(), "准备提问时出错");
                return (attempt, None);
            }
        };
        let (call, text) = self.ask(messages).await;
        attempt.call = call;
        let text = match text {
            Ok(text) => text,
            Err(error) => {
                attempt.fail(error, "模型服务没有回答");
                return (attempt, None);
            }
        };
        let (sql, explanation) = read_answer(&text);
        attempt.explanation = explanation;
        let Some(sql) = sql else {
            // A model that writes no SQL usually says why (数据库里没有天气数据): that is the user's answer.
            let (en, zh) = match &attempt.explanation {
                Some(said) => (format!("no SQL was written: {said}"), format!("没有写出 SQL：{said}")),
                None => (
                    "the answer holds no SQL statement".to_string(),
                    "回答里没有 SQL 语句".to_string(),
                ),
            };
            attempt.fail(en, zh);
            return (attempt, None);
        };
        attempt.sql = Some(sql.clone());
        let verdict = check_sql_scoped(&sql, self.dialect(), &self.policy, scope);
        attempt.verdict = Some(verdict.clone());
        let Some(guarded) = verdict.sql.filter(|_| verdict.allowed) else {
            attempt.fail(
                format!("the SQL guard refused it: {}", verdict.reasons.join("; ")),
                "写出的 SQL 没有通过安全检查，没有执行",
            );
            return (attempt, None);
        };
        let mismatches = verify(&guarded, self.dialect(), facts, &described.columns);
        if !mismatches.is_empty() {
            let reasons: Vec<String> = mismatches.iter().map(ToString::to_string).collect();
            attempt.fail(
                format!("the SQL does not match the question: {}", reasons.join("; ")),
                format!("SQL 与问题不符：{}", reasons.join("；")),
            );
            attempt.mismatches = mismatches;
            return (attempt, None);
        }
        match self.db.query(&guarded, &verdict.binds, self.limits).await {
            Ok(rows) => (attempt, Some(rows)),
            Err(e) => {
                attempt.over_limit = matches!(e, DbError::Timeout { .. } | DbError::TooLarge { .. });
                let zh = match e {
                    DbError::TooLarge { .. } => "结果超过了大小上限，已停止",
                    DbError::Timeout { .. } => "查询超时，已停止",
                    _ => "数据库没能执行写出的 SQL",
                };
                let en = match e {
                    DbError::TooLarge { .. } => e.to_string(),
                    _ => format!("the database refused it: {e}"),
                };
                attempt.fail(en, zh);
                (attempt, None)
            }
        }
    }

    async fn ask(&self, messages: Vec<Message>) -> (ModelCall, Result<String, String>) {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"sql": {"type": "string"}, "explanation": {"type": "string"}},
            "required": ["sql", "explanation"],
            "additionalProperties": false
        });
        let chat = ChatRequest {
            messages,
            schema: Some(("sql".into(), schema)),
        };
        ModelCall::send(&self.client, &chat, "the Text-to-SQL call").await
    }
}

/// What the fallback's connection may read and call, from the guard's policy: the allowed tables and the dialect's
/// table functions, the function lists. SQLite enforces it with an authorizer (a second wall behind the guard).
pub fn read_scope(policy: &GuardPolicy, dialect: Dialect) -> ReadScope {
    let mut tables = policy.allowed_tables.clone();
    match &policy.table_functions {
        Some(functions) => tables.extend(functions.iter().cloned()),
        None => tables.extend(default_table_functions(dialect).iter().map(|f| f.to_string())),
    }
    ReadScope {
        tables,
        allowed_functions: policy.allowed_functions.clone(),
        denied_functions: policy.denied_functions.clone(),
    }
}

/// The SQL and explanation of an answer: a `{sql, explanation}` object, or bare SQL (fences stripped).
fn read_answer(text: &str) -> (Option<String>, Option<String>) {
    if let Ok(object) = extract_json_object(text) {
        let field = |k: &str| {
            object
                .get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        return (field("sql"), field("explanation"));
    }
    let bare = text
        .trim()
        .trim_start_matches("```sql")
        .trim_start_matches("```")
        .trim_end_matches("```")
        .trim();
    ((!bare.is_empty()).then(|| bare.to_string()), None)
}

#[cfg(test)]
mod sent_tests {
    use serde_json::json;

    use super::*;

    fn verdict(allowed: bool, sql: Option<&str>, binds: Vec<Value>) -> GuardVerdict {
        GuardVerdict {
            allowed,
            reasons: Vec::new(),
            sql: sql.map(str::to_string),
            tables: Vec::new(),
            functions: Vec::new(),
            limit: None,
            resolved: Vec::new(),
            binds,
            bind_attributes: Vec::new(),
            scope_refusal: None,
        }
    }

    #[test]
    fn the_sql_that_ran_carries_the_binds_of_the_attempt_whose_rewrite_it_is() {
        let scoped = "SELECT region FROM (SELECT * FROM sales AS s WHERE s.region = ?) AS sales LIMIT 100";
        let run = FallbackRun {
            attempts: vec![
                SqlAttempt {
                    sql: Some("SELECT * FROM secrets".to_string()),
                    verdict: Some(verdict(false, None, Vec::new())),
                    ..SqlAttempt::default()
                },
                SqlAttempt {
                    sql: Some("SELECT region FROM sales".to_string()),
                    verdict: Some(verdict(true, Some(scoped), vec![json!("华东")])),
                    ..SqlAttempt::default()
                },
            ],
            final_sql: Some(scoped.to_string()),
            ..FallbackRun::default()
        };
        let sent = run.sent_sql();
        assert_eq!(sent.len(), 1);
        assert_eq!(
            (sent[0].sql.as_str(), &sent[0].binds, sent[0].ran),
            (scoped, &vec![json!("华东")], true)
        );
    }
}
