//! Issue #29, D23, against `wenshu serve` on loopback: asking outside the scope is refused, never answered empty,
//! when the tool's parameter reaches the scoped table through a join; a comparison naming a value outside the scope
//! refuses that value by name; a place the data cannot filter by is said, never dropped.
//!
//! - The demo (SQLite, and PostgreSQL/MariaDB when `WENSHU_TEST_POSTGRES_URL` / `WENSHU_TEST_MYSQL_URL` are set):
//!   alice sees 华东's sales and movies 1 and 2 (`ratings` and `box_office` scoped by `movie_id`). `movie_rating`
//!   compares `:movieId` with `movies.id`, which its JOIN equals to `ratings.movie_id`; `rating_metrics` filters by
//!   the movie's name, whose key its model joins to `ratings.movie_id`.
//! - A catalog of the test's own (workshops and their inspections), with the same shapes under other names: the
//!   refusal comes from the joins, not from a word of the demo.
//!
//! Every value within the scope is still answered, and an administrator is answered everything.

#[allow(dead_code)]
mod row_scope;

use std::path::{Path, PathBuf};

use jiff::civil::date;
use serde_json::{Value, json};
use wenshu_testkit::ScriptedChatServer;

use row_scope::databases::{self, Backend};
use row_scope::serve::{Launch, Served};

const TODAY: &str = "2026-11-29";
const ALICE: &str = "alice-key-d23";
const OPS: &str = "ops-key-d23";

/// The principals: alice (a user with a region and movies, or workshops) and ops (an admin).
const PRINCIPALS: &str = r#"
[[auth.principals]]
name = "alice"
key_env = "WENSHU_D23_KEY_ALICE"
role = "user"
attributes = { region = "华东", movies = [1, 2], workshops = [1, 2] }

[[auth.principals]]
name = "ops"
key_env = "WENSHU_D23_KEY_OPS"
role = "admin"
"#;

const DEMO_SCOPE: &str = r#"
[scope]
sales = "region = :user.region"
box_office = "movie_id IN :user.movies"
ratings = "movie_id IN :user.movies"
"#;

/// A folder of the test's own, removed on drop.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir = std::env::temp_dir().join(format!("wenshu-d23-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `wenshu serve` on `db_url` with `config` (principals and scope), the lexicon engine and an idle model.
fn serve(dir: &Path, config: String, db_url: &str, model: &ScriptedChatServer) -> Served {
    Served::start(Launch {
        dir,
        config,
        db_url,
        llm_base_url: model.base_url(),
        env: vec![
            ("WENSHU_D23_KEY_ALICE", ALICE.to_string()),
            ("WENSHU_D23_KEY_OPS", OPS.to_string()),
        ],
        today: TODAY,
    })
}

/// `POST /api/ask` with `body` as the holder of `key`: the answer's body (the status must be 200).
async fn ask(served: &Served, key: &str, body: Value) -> Value {
    let response = reqwest::Client::new()
        .post(format!("{}/api/ask", served.base))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status().as_u16(), 200, "{body}: {}", served.log_tail());
    response.json().await.unwrap()
}

/// Asks `question` as `key` and expects a `scope.outside` stop whose message names `asked` (and no rows).
async fn refused(served: &Served, key: &str, body: Value, asked: &str) {
    let answer = ask(served, key, body.clone()).await;
    let outcome = &answer["outcome"];
    assert_eq!(outcome["kind"], "stopped", "{body}: {outcome}");
    assert_eq!(outcome["code"], "scope.outside", "{body}: {outcome}");
    let message = &outcome["messages"][0];
    assert_eq!(message["params"]["asked"], asked, "{body}: {message}");
    for text in [&message["zh"], &message["en"]] {
        assert!(text.as_str().is_some_and(|t| t.contains(asked)), "{body}: {text}");
    }
    assert!(outcome["rows"].is_null(), "{body}: {outcome}");
}

/// Asks `question` as `key` and expects it answered with rows whose first cells are `names`, in any order.
async fn answered(served: &Served, key: &str, question: &str, names: &[&str]) {
    let answer = ask(served, key, json!({"question": question})).await;
    let outcome = &answer["outcome"];
    assert_eq!(outcome["kind"], "answered", "{question}: {outcome}");
    let mut firsts: Vec<&str> = outcome["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|row| row[0].as_str())
        .collect();
    firsts.sort_unstable();
    let mut names = names.to_vec();
    names.sort_unstable();
    assert_eq!(firsts, names, "{question}: {outcome}");
}

/// Asks `question` as `key` and expects an honest stop (not an answer) naming `word`.
async fn said(served: &Served, key: &str, question: &str, word: &str) {
    let answer = ask(served, key, json!({"question": question})).await;
    let outcome = &answer["outcome"];
    assert_eq!(outcome["kind"], "stopped", "{question}: {outcome}");
    assert!(
        outcome["messages"][0]["zh"].as_str().is_some_and(|t| t.contains(word)),
        "{question}: {outcome}"
    );
}

async fn demo_refusals_on(backend: &Backend) {
    let folder = Folder::new(backend.name);
    let model = ScriptedChatServer::start(Vec::new()).await;
    let config = format!("{PRINCIPALS}{DEMO_SCOPE}");
    let served = serve(&folder.0, config, &backend.url, &model);

    // movie_rating: `:movieId` is compared with movies.id, which the JOIN equals to the scoped ratings.movie_id; the
    // refusal names the movie as the user asked it, not its ID.
    refused(&served, ALICE, json!({"question": "满江红的评分"}), "满江红").await;
    refused(&served, ALICE, json!({"question": "满江红的票房"}), "满江红").await;
    refused(
        &served,
        ALICE,
        json!({"question": "它的评分呢", "subjectId": 3}),
        "满江红",
    )
    .await;
    answered(&served, ALICE, "流浪地球的评分", &["流浪地球"]).await;
    // A comparison refuses the movie outside the scope by its name, never leaving it out.
    refused(
        &served,
        ALICE,
        json!({"question": "满江红和流浪地球的评分对比"}),
        "满江红",
    )
    .await;
    refused(
        &served,
        ALICE,
        json!({"question": "流浪地球和满江红的票房对比"}),
        "满江红",
    )
    .await;
    answered(
        &served,
        ALICE,
        "流浪地球和流浪地球2的评分对比",
        &["流浪地球", "流浪地球2"],
    )
    .await;
    answered(&served, OPS, "满江红和流浪地球的评分对比", &["流浪地球", "满江红"]).await;
    answered(&served, OPS, "满江红的评分", &["满江红"]).await;
    // A place the data cannot filter by is said, never dropped for the viewer's own region's total.
    for (question, place) in [
        ("广州本月的销售额", "广州"),
        ("广东本月的销售额", "广东"),
        ("sales in Guangzhou this month", "Guangzhou"),
    ] {
        said(&served, ALICE, question, place).await;
    }
}

#[tokio::test]
async fn demo_values_outside_the_scope_through_a_join_are_refused_by_name() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let folder = Folder::new("sqlite-data");
    let today = date(2026, 11, 29);
    let mut backends = vec![databases::sqlite(&folder.0, today).await];
    for (var, name) in [
        ("WENSHU_TEST_POSTGRES_URL", "postgres"),
        ("WENSHU_TEST_MYSQL_URL", "mariadb"),
    ] {
        backends.extend(databases::server(var, name, today).await);
    }
    for backend in &backends {
        demo_refusals_on(backend).await;
    }
}

/// A catalog of the test's own: a workshop's inspection (a SQL template joining workshops to the scoped
/// inspections) and inspection metrics (a model joining them the same way, the workshop's name keyed by its ID).
const OWN_CATALOG: &str = r#"{"tools": [
 {"name": "workshop_grade", "title": "车间质检", "description": "查询某个车间的质检得分与检查次数",
  "inputSchema": {"type": "object", "properties": {"workshopId": {"type": "integer", "description": "车间 ID"}},
                  "required": ["workshopId"]},
  "x-subject": {"type": "workshop", "param": "workshopId"},
  "x-answers": {"shape": "totals", "measures": ["质检得分", "检查次数"]},
  "x-sql": {"query": "SELECT w.title, i.grade, i.checks FROM workshops w JOIN inspections i ON i.workshop_ref = w.id WHERE w.id = :workshopId"}},
 {"name": "inspection_metrics", "title": "质检指标分析",
  "description": "按指标分析车间质检：质检得分、检查次数，可按车间分组、排名",
  "x-metrics": {
   "from": [{"table": "inspections", "alias": "i", "columns": ["workshop_ref", "grade", "checks"]},
            {"table": "workshops", "alias": "w", "columns": ["id", "title"], "on": ["i.workshop_ref", "w.id"]}],
   "measures": [{"name": "grade", "label": "质检得分", "expr": "AVG(i.grade)", "unit": "分", "decimals": 2},
                {"name": "checks", "label": "检查次数", "expr": "SUM(i.checks)", "unit": "次", "decimals": 0}],
   "dimensions": [{"name": "workshop", "label": "车间", "column": "w.title", "key": "w.id",
                   "values": {"entity": "workshop"}}]}}
]}"#;

const OWN_ENTITIES: &str =
    r#"{"workshop": [{"id": 1, "name": "青松车间"}, {"id": 2, "name": "白杨车间"}, {"id": 3, "name": "红枫车间"}]}"#;

#[tokio::test]
async fn any_catalogs_values_outside_the_scope_through_a_join_are_refused_by_name() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let folder = Folder::new("own");
    let url = format!("sqlite://{}", folder.0.join("own.sqlite").display());
    let db = wenshu_engine::db::Database::connect(&url).await.unwrap();
    db.execute_batch(
        "CREATE TABLE workshops (id INTEGER, title TEXT);
         CREATE TABLE inspections (workshop_ref INTEGER, grade INTEGER, checks INTEGER);
         INSERT INTO workshops VALUES (1, '青松车间'), (2, '白杨车间'), (3, '红枫车间');
         INSERT INTO inspections VALUES (1, 88, 4), (2, 75, 6), (3, 93, 9);",
    )
    .await
    .unwrap();
    db.close().await;
    let (catalog, entities) = (folder.0.join("catalog.json"), folder.0.join("entities.json"));
    std::fs::write(&catalog, OWN_CATALOG).unwrap();
    std::fs::write(&entities, OWN_ENTITIES).unwrap();
    let config = format!(
        "catalog = {:?}\nentities = {:?}\n{PRINCIPALS}\n[scope]\ninspections = \"workshop_ref IN :user.workshops\"\n",
        catalog.display().to_string(),
        entities.display().to_string()
    );
    let model = ScriptedChatServer::start(Vec::new()).await;
    let served = serve(&folder.0, config, &url, &model);

    refused(&served, ALICE, json!({"question": "红枫车间的质检得分"}), "红枫车间").await;
    answered(&served, ALICE, "青松车间的质检得分", &["青松车间"]).await;
    refused(
        &served,
        ALICE,
        json!({"question": "红枫车间和青松车间的质检得分对比"}),
        "红枫车间",
    )
    .await;
    answered(
        &served,
        ALICE,
        "白杨车间和青松车间的质检得分对比",
        &["白杨车间", "青松车间"],
    )
    .await;
    answered(
        &served,
        OPS,
        "红枫车间和青松车间的质检得分对比",
        &["红枫车间", "青松车间"],
    )
    .await;
}
