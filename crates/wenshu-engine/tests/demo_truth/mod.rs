//! The demo as truth: the demo data on an SQLite file of the test's own (where truth queries run), and the same
//! data on a PostgreSQL or MariaDB server named by an environment variable (where the engine's queries run).

use std::path::PathBuf;

use wenshu_engine::db::Database;

/// The day the demo is made for.
const TODAY: &str = "2026-11-29";

/// The demo on a fresh SQLite file under a folder named for `test` and `name`, opened read-only, and the folder.
pub async fn demo_sqlite(test: &str, name: &str) -> (Database, PathBuf) {
    let dir = std::env::temp_dir().join(format!("wenshu-{test}-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("demo.sqlite").display());
    wenshu_demo::create_at(&url, TODAY.parse().unwrap())
        .await
        .expect("demo data");
    (Database::connect_read_only(&url).await.unwrap(), dir)
}

/// The demo on the server `env` names, opened read-only, with the SQLite truth beside it and its folder; `None`
/// (the suite skipped, said on stderr) when `env` is not set.
pub async fn demo_on_server(test: &str, env: &str) -> Option<(Database, Database, PathBuf)> {
    let Ok(url) = std::env::var(env) else {
        eprintln!("{env} not set: skipped");
        return None;
    };
    let (truth, dir) = demo_sqlite(test, env).await;
    let writable = Database::connect(&url).await.expect("server database");
    wenshu_demo::create(&writable, TODAY.parse().unwrap())
        .await
        .expect("demo data on the server");
    writable.close().await;
    Some((Database::connect_read_only(&url).await.unwrap(), truth, dir))
}
