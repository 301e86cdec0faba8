//! Defence in depth behind the SQL guard, on real SQLite: the authorizer of a scoped connection refuses what the
//! guard would (so a guard bug cannot read a secret), and the fallback runs only the guard's rewrite.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use jiff::civil::date;
use serde_json::json;
use wenshu_engine::db::{Database, DbOptions, QueryLimits};
use wenshu_engine::fallback::{SqlFallback, read_scope};
use wenshu_engine::sql_guard::GuardPolicy;
use wenshu_llm::client::ChatClient;
use wenshu_llm::config::{BreakerConfig, ProviderConfig, RetryConfig};
use wenshu_llm::prompt::PromptTemplates;
use wenshu_testkit::{Reply, ScriptedChatServer};

const SECRET: &str = "S3CRET-ROW";

/// A SQLite file with an allowed `sales` table and a secret `users` table.
struct Shop {
    path: PathBuf,
}

impl Shop {
    async fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("wenshu-guard-{name}-{}.sqlite", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let db = Database::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        db.execute_batch(&format!(
            "CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT, amount REAL);
             INSERT INTO sales VALUES (1, 'north', 10), (2, 'south', 20), (3, 'north', 30), (4, 'east', 5),
                                      (5, 'west', 7);
             CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, password TEXT);
             INSERT INTO users VALUES (1, 'root', '{SECRET}');
             CREATE VIEW user_view AS SELECT * FROM users;"
        ))
        .await
        .unwrap();
        db.close().await;
        Self { path }
    }

    fn url(&self) -> String {
        format!("sqlite://{}", self.path.display())
    }

    async fn scoped(&self, policy: &GuardPolicy) -> Database {
        let options = DbOptions {
            read_only: true,
            scope: Some(read_scope(policy, wenshu_engine::db::Dialect::Sqlite)),
            ..DbOptions::default()
        };
        Database::connect_with(&self.url(), &options).await.unwrap()
    }
}

impl Drop for Shop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn policy() -> GuardPolicy {
    GuardPolicy::new(&["sales"])
}

/// Statements that read the secret table, a system table or call a function off the list: SQL the guard refuses,
/// run here straight on the connection as if the guard had a bug.
const PAST_THE_GUARD: &[&str] = &[
    "SELECT * FROM users",
    "SELECT password FROM users WHERE id = 1",
    "WITH users AS (SELECT * FROM users) SELECT * FROM users",
    "SELECT region FROM sales UNION SELECT password FROM users",
    "SELECT (SELECT password FROM users) FROM sales",
    "SELECT * FROM sales WHERE id IN (SELECT id FROM users)",
    "SELECT * FROM user_view",
    "SELECT * FROM sqlite_master",
    "SELECT * FROM pragma_table_info('users')",
    "SELECT sqlite_version()",
    "SELECT hex(randomblob(8)) FROM sales",
    "PRAGMA table_info(users)",
];

#[tokio::test]
async fn the_authorizer_denies_what_the_scope_does_not_allow() {
    let shop = Shop::new("authorizer").await;
    let plain = Database::connect_read_only(&shop.url()).await.unwrap();
    let scoped = shop.scoped(&policy()).await;
    for sql in PAST_THE_GUARD {
        let result = scoped.query(sql, &[], QueryLimits::default()).await;
        assert!(result.is_err(), "the authorizer let through {sql}: {result:?}");
        let text = result.unwrap_err().to_string();
        assert!(!text.contains(SECRET), "{text}");
    }
    // Without the authorizer the same connection reads the secret: the assertions above hold because of it.
    let rows = plain
        .query("SELECT password FROM users", &[], QueryLimits::default())
        .await
        .unwrap();
    assert_eq!(rows.rows[0][0], json!(SECRET));
    // What the scope allows still runs: reads of the allowed table, allowed functions, operators, CTEs.
    for sql in [
        "SELECT region, SUM(amount) FROM sales GROUP BY region ORDER BY region",
        "WITH s AS (SELECT * FROM sales WHERE region LIKE 'n%') SELECT COUNT(*), ROUND(AVG(amount), 1) FROM s",
        "SELECT UPPER(region), COALESCE(amount, 0) FROM sales WHERE id IN (SELECT id FROM sales WHERE amount > 5)",
        "SELECT j.value FROM sales, json_each('[1, 2]') j WHERE sales.id = 1",
    ] {
        let rows = scoped.query(sql, &[], QueryLimits::default()).await;
        assert!(rows.as_ref().is_ok_and(|r| !r.rows.is_empty()), "{sql}: {rows:?}");
    }
    scoped.close().await;
    plain.close().await;
}

fn client(server: &ScriptedChatServer) -> Arc<ChatClient> {
    let provider = ProviderConfig::new("scripted", server.base_url(), "m").with_timeout(Duration::from_millis(800));
    let retry = RetryConfig {
        max_retries: 0,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(1),
    };
    Arc::new(ChatClient::new(vec![provider], retry, BreakerConfig::default()).unwrap())
}

fn sql(text: &str) -> Reply {
    Reply::content(json!({"sql": text, "explanation": "查询"}).to_string())
}

/// The fallback runs the guard's rewrite, never the model's text: the model asks for 5 rows, the policy caps them
/// at 2 while the database would return up to 10, and a statement with an executable comment never runs.
#[tokio::test]
async fn the_fallback_runs_only_the_guards_rewrite() {
    let shop = Shop::new("rewrite").await;
    let mut policy = policy();
    policy.max_rows = 2;
    let server = ScriptedChatServer::start(vec![
        sql("SELECT id FROM sales ORDER BY id LIMIT 5 -- five rows"),
        sql("SELECT id FROM sales /*M! UNION SELECT password FROM users */"),
        sql("SELECT id FROM sales /*! UNION SELECT password FROM users */"),
    ])
    .await;
    let db = Arc::new(shop.scoped(&policy).await);
    let fallback = SqlFallback::new(
        client(&server),
        Arc::new(PromptTemplates::embedded()),
        db,
        policy,
        "表 sales(id, region, amount)".into(),
    )
    .with_limits(QueryLimits {
        row_cap: 10,
        ..QueryLimits::default()
    });
    let run = fallback.run("前几笔销售", date(2026, 11, 29)).await;
    let rows = run.rows.expect("the rewrite ran");
    assert_eq!(rows.rows.len(), 2, "{rows:?}");
    assert_eq!(
        run.final_sql.as_deref(),
        Some("SELECT id FROM sales ORDER BY id LIMIT 2")
    );
    let run = fallback.run("销售和用户", date(2026, 11, 29)).await;
    assert!(run.rows.is_none(), "{run:?}");
    assert_eq!(run.reasons.len(), 2, "{:?}", run.reasons);
    assert!(
        run.reasons.iter().all(|r| r.contains("executable comment")),
        "{:?}",
        run.reasons
    );
    assert!(!format!("{run:?}").contains(SECRET));
}
