//! `wenshu ask` over a catalog imported from an OpenAPI document: the binary calls the imported HTTP tools on a
//! real loopback server — under the catalog's `x-openapi.baseUrl`, or the config's `[http] base_url` with the
//! catalog named only in `wenshu.toml` — and tools that change things are not called from a question.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::routing::any;
use serde_json::{Value, json};

type Log = Arc<Mutex<Vec<String>>>;

/// Records `METHOD uri` (and ` authorization: VALUE` when the header came) and answers two rows in the status the
/// query asked for.
async fn record(State(log): State<Log>, method: Method, uri: Uri, headers: HeaderMap) -> Json<Value> {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok());
    let auth = auth.map(|v| format!(" authorization: {v}")).unwrap_or_default();
    log.lock().unwrap().push(format!("{method} {uri}{auth}"));
    let status = uri
        .query()
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix("status="))
        .unwrap_or("unknown")
        .to_string();
    Json(json!([
        {"id": "p1", "name": "Rex", "status": status},
        {"id": "p2", "name": "Tom", "status": status},
    ]))
}

/// A loopback server on its own runtime thread; its base URL and what it received.
fn serve() -> (String, Log) {
    let log: Log = Arc::default();
    let app = Router::new().route("/{*rest}", any(record)).with_state(log.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let _ = axum::serve(listener, app).await;
        });
    });
    (format!("http://{}", rx.recv().unwrap()), log)
}

/// A scratch folder for one test: the imported catalog, the config and the data folder.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("wenshu-http-tools-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// Imports a spec of tests/data/openapi with the binary (extra flags such as `--base-url`); the catalog's path.
    fn import(&self, spec: &str, extra: &[&str]) -> PathBuf {
        let spec = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/openapi")
            .join(spec);
        let out = self.0.join("catalog.json");
        let run = Command::new(env!("CARGO_BIN_EXE_wenshu"))
            .args([
                "tools",
                "import",
                "openapi",
                spec.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        out
    }

    fn ask(&self, args: &[&str]) -> Output {
        self.ask_with_env(args, &[])
    }

    fn ask_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_wenshu"))
            .args(["ask", "--today", "2026-11-29", "--engine", "lexicon", "--json"])
            .args(args)
            .env("WENSHU_DATA_DIR", self.0.join("data"))
            .env_remove("WENSHU_LLM_BASE_URL")
            .env_remove("WENSHU_LLM_MODEL")
            .env_remove("WENSHU_CONFIG")
            .envs(env.iter().copied())
            .output()
            .expect("wenshu runs")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn answer_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The question routed to `listPets` with `status=sold`: the request the server got and its rows in the answer.
fn assert_sold_pets_listed(out: &Output, log: &Log, prefix: &str) {
    let answer = answer_of(out);
    assert_eq!(out.status.code(), Some(0), "{answer}");
    assert_eq!(answer["kind"], "answered", "{answer}");
    assert_eq!(answer["tool"], "listPets");
    assert_eq!(answer["params"]["status"], "sold");
    assert_eq!(
        *log.lock().unwrap(),
        vec![format!("GET {prefix}/pets?limit=20&status=sold")]
    );
    assert_eq!(answer["outcome"]["columns"], json!(["id", "name", "status"]));
    assert_eq!(
        answer["outcome"]["rows"],
        json!([["p1", "Rex", "sold"], ["p2", "Tom", "sold"]])
    );
}

#[test]
fn ask_calls_an_imported_tool_under_the_catalogs_base_url() {
    let (server, log) = serve();
    let scratch = Scratch::new("catalog");
    let catalog = scratch.import("petstore.yaml", &["--base-url", &format!("{server}/v1")]);
    let out = scratch.ask(&["--catalog", catalog.to_str().unwrap(), "list the sold pets"]);
    assert_sold_pets_listed(&out, &log, "/v1");
}

#[test]
fn the_catalog_named_in_the_config_is_asked_and_its_http_base_url_wins() {
    let (server, log) = serve();
    let scratch = Scratch::new("config");
    // No --base-url: the catalog keeps the spec's server (petstore.example.com), which the config replaces.
    let catalog = scratch.import("petstore.yaml", &[]);
    let text = std::fs::read_to_string(&catalog).unwrap();
    assert!(text.contains("petstore.example.com"), "{text}");
    let config = scratch.0.join("wenshu.toml");
    std::fs::write(
        &config,
        format!(
            "catalog = {:?}\n\n[http]\nbase_url = \"{server}/api\"\n",
            catalog.to_str().unwrap()
        ),
    )
    .unwrap();
    let out = scratch.ask(&["--config", config.to_str().unwrap(), "list the sold pets"]);
    assert_sold_pets_listed(&out, &log, "/api");
}

#[test]
fn a_tool_that_changes_things_is_not_called_unless_the_config_allows_writes() {
    let (server, log) = serve();
    let scratch = Scratch::new("writes");
    let catalog = scratch.import("petstore.yaml", &["--base-url", &server]);
    let out = scratch.ask(&["--catalog", catalog.to_str().unwrap(), "delete pet p1"]);
    let answer = answer_of(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(answer["kind"], "answered", "{answer}");
    assert!(log.lock().unwrap().is_empty(), "{:?}", log.lock().unwrap());
    assert!(
        stderr.contains("allow_writes") && stderr.contains("deletePet"),
        "{stderr}"
    );

    let config = scratch.0.join("wenshu.toml");
    std::fs::write(&config, "[http]\nallow_writes = true\n").unwrap();
    let out = scratch.ask(&[
        "--config",
        config.to_str().unwrap(),
        "--catalog",
        catalog.to_str().unwrap(),
        "delete pet p1",
    ]);
    let answer = answer_of(&out);
    assert_eq!(answer["tool"], "deletePet", "{answer}");
    assert_eq!(*log.lock().unwrap(), vec!["DELETE /pets/p1".to_string()]);
}

#[test]
fn credentials_come_from_the_environment_and_never_show_in_the_answer_or_the_trace() {
    let (server, log) = serve();
    let scratch = Scratch::new("auth");
    let catalog = scratch.import("orders.json", &["--base-url", &server]);
    let secret = format!("tok-{}", std::process::id());
    let out = scratch.ask_with_env(
        &["--catalog", catalog.to_str().unwrap(), "list shipped orders"],
        &[("SHOP_ORDERS_BEARER_AUTH", &secret)],
    );
    let answer = answer_of(&out);
    assert_eq!(answer["tool"], "listOrders", "{answer}");
    assert_eq!(answer["params"]["status"], "shipped");
    assert_eq!(
        *log.lock().unwrap(),
        vec![format!(
            "GET /orders?page=1&status=shipped authorization: Bearer {secret}"
        )]
    );
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!printed.contains(&secret), "the secret is printed: {printed}");

    let out = scratch.ask(&["--catalog", catalog.to_str().unwrap(), "list shipped orders"]);
    let answer = answer_of(&out);
    assert_ne!(answer["kind"], "answered", "{answer}");
    assert!(
        answer.to_string().contains("SHOP_ORDERS_BEARER_AUTH"),
        "names the missing variable: {answer}"
    );
    assert_eq!(log.lock().unwrap().len(), 1, "no request without the credential");
}
