//! `wenshu tools import openapi` on the documents in tests/data/openapi (a petstore-like YAML spec, and a JSON
//! spec with `$ref`s, `oneOf` and auth): the tools load, bind, and call a real loopback HTTP server — path,
//! query, body and credential headers as the spec says — and what could not be imported is named.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::routing::any;
use serde_json::{Map, Value, json};
use wenshu_contract::{Catalog, Location, ParamType, bind};
use wenshu_engine::execute::{ExecContext, ExecError, Executor, HttpExecutor};

/// One request as the server saw it: method, path with query, the two credential headers, body.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    uri: String,
    authorization: Option<String>,
    partner_key: Option<String>,
    body: Value,
}

type Log = Arc<Mutex<Vec<Seen>>>;

async fn record(State(log): State<Log>, method: Method, uri: Uri, headers: HeaderMap, body: String) -> Json<Value> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let seen = Seen {
        method: method.to_string(),
        uri: uri.to_string(),
        authorization: header("authorization"),
        partner_key: header("x-partner-key"),
        body: serde_json::from_str(&body).unwrap_or(Value::Null),
    };
    log.lock().unwrap().push(seen);
    Json(json!([{"id": "p1", "name": "Rex"}, {"id": "p2", "name": "Tom"}]))
}

async fn serve() -> (String, Log) {
    let log: Log = Arc::default();
    let app = Router::new().route("/{*rest}", any(record)).with_state(log.clone());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), log)
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/openapi")
        .join(name)
}

/// Imports `spec` with the binary; the catalog and the printed report.
fn import(spec: &str, extra: &[&str]) -> (Catalog, Value, String) {
    let out = std::env::temp_dir().join(format!(
        "wenshu-openapi19-{}-{spec}{}.json",
        std::process::id(),
        extra.join("-")
    ));
    let _ = std::fs::remove_file(&out);
    let spec_path = data(spec);
    let mut args = vec![
        "tools",
        "import",
        "openapi",
        spec_path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = Command::new(env!("CARGO_BIN_EXE_wenshu")).args(&args).output().unwrap();
    let report = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{report}{}", String::from_utf8_lossy(&run.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let again = Command::new(env!("CARGO_BIN_EXE_wenshu")).args(&args).output().unwrap();
    assert!(
        !again.status.success() && String::from_utf8_lossy(&again.stderr).contains("--force"),
        "never overwrites"
    );
    let _ = std::fs::remove_file(&out);
    (
        Catalog::from_json_str(&text).unwrap(),
        serde_json::from_str(&text).unwrap(),
        report,
    )
}

fn params(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

fn ctx() -> ExecContext {
    ExecContext::new(jiff::civil::date(2026, 6, 1))
}

#[tokio::test]
async fn petstore_yaml_imports_into_tools_that_call_the_server() {
    let (catalog, document, report) = import("petstore.yaml", &[]);
    assert_eq!(
        catalog.names(),
        vec!["listPets", "createPet", "showPetById", "deletePet"]
    );
    assert!(report.contains("HEAD /pets: not imported"), "{report}");
    assert!(report.contains("cookie parameter `session`"), "{report}");
    assert_eq!(
        document["x-openapi"]["baseUrl"], "http://petstore.example.com/v1",
        "server variables filled"
    );
    let list = catalog.get("listPets").unwrap();
    assert_eq!(list.title(), Some("List pets"));
    let limit = list.params().get("limit").unwrap();
    assert_eq!(
        (limit.ty, limit.default.clone(), limit.required),
        (ParamType::Integer, Some(json!(20)), false)
    );
    assert_eq!(list.location_of(limit), Some(Location::Query));
    assert_eq!(list.params().get("status").unwrap().enum_values.len(), 3);
    let create = catalog.get("createPet").unwrap();
    assert!(create.params().get("name").unwrap().required);
    assert_eq!(
        create.location_of(create.params().get("tag").unwrap()),
        Some(Location::Body)
    );

    let (base, log) = serve().await;
    let http = HttpExecutor::new(format!("{base}/v1")).unwrap();
    let call = bind(list, &params(json!({"status": "sold", "limit": 5}))).unwrap();
    let result = http.execute(list, &call, &ctx()).await.unwrap();
    assert_eq!(result.rows.len(), 2);
    let call = bind(create, &params(json!({"name": "Rex", "tag": null}))).unwrap();
    http.execute(create, &call, &ctx()).await.unwrap();
    let show = catalog.get("showPetById").unwrap();
    http.execute(show, &bind(show, &params(json!({"petId": "p 1"}))).unwrap(), &ctx())
        .await
        .unwrap();
    assert!(
        bind(list, &params(json!({"status": "lost"}))).is_err(),
        "an enum outside the spec is refused"
    );
    assert!(
        bind(list, &params(json!({"limit": 500}))).is_err(),
        "the spec's maximum holds"
    );
    let seen = log.lock().unwrap().clone();
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].uri, "/v1/pets?limit=5&status=sold");
    assert_eq!((seen[1].method.as_str(), seen[1].uri.as_str()), ("POST", "/v1/pets"));
    assert_eq!(
        seen[1].body,
        json!({"name": "Rex", "status": "available"}),
        "a null is no value; the default is sent"
    );
    assert_eq!(seen[2].uri, "/v1/pets/p%201");
    assert!(seen.iter().all(|s| s.authorization.is_none()), "no auth in this spec");
}

#[tokio::test]
async fn refs_one_of_and_auth_import_and_send_credentials_from_the_environment() {
    let (catalog, _, report) = import("orders.json", &[]);
    assert_eq!(catalog.names(), vec!["listOrders", "createOrder", "getOrder"]);
    for named in [
        "PATCH /orders/{orderId}: not imported — the request body is `oneOf`",
        "GET /categories: not imported",
        "header parameter `X-Trace-Id`",
        "$ref `#/components/schemas/Category` not inlined",
        "auth alternative `queryKey`",
    ] {
        assert!(report.contains(named), "`{named}` is named: {report}");
    }
    let list = catalog.get("listOrders").unwrap();
    assert_eq!(
        list.params().get("status").unwrap().enum_values.len(),
        3,
        "$ref'd enum inlined"
    );
    assert_eq!(list.params().get("status").unwrap().description, "Where the order is");
    let get = catalog.get("getOrder").unwrap();
    assert!(
        get.params().get("orderId").unwrap().required,
        "path-level $ref parameter"
    );
    assert!(
        bind(get, &params(json!({"orderId": "ORDER 1"}))).is_err(),
        "the $ref'd pattern holds"
    );
    let create = catalog.get("createOrder").unwrap();
    assert!(create.params().get("sku").unwrap().required, "allOf merged");
    assert!(
        bind(
            create,
            &params(json!({"sku": "a1", "payment": {"card": "4111", "iban": "DE1"}}))
        )
        .is_err(),
        "oneOf: not both"
    );
    assert!(
        bind(create, &params(json!({"sku": "a1", "payment": {"cash": 1}}))).is_err(),
        "oneOf: one of them"
    );

    let (base, log) = serve().await;
    let secrets = HashMap::from([
        ("SHOP_ORDERS_BEARER_AUTH".to_string(), "tok-123".to_string()),
        ("SHOP_ORDERS_PARTNER_KEY".to_string(), "pk-456".to_string()),
    ]);
    let http = HttpExecutor::new(format!("{base}/v2"))
        .unwrap()
        .with_credentials(secrets);
    let call = bind(create, &params(json!({"sku": "a1", "payment": {"iban": "DE1"}}))).unwrap();
    let result = http.execute(create, &call, &ctx()).await.unwrap();
    assert!(
        !result.detail.to_string().contains("tok-123"),
        "a credential is never shown"
    );
    let call = bind(list, &params(json!({"status": "shipped"}))).unwrap();
    http.execute(list, &call, &ctx()).await.unwrap();
    http.execute(get, &bind(get, &params(json!({"orderId": "ord_9"}))).unwrap(), &ctx())
        .await
        .unwrap();
    let seen = log.lock().unwrap().clone();
    assert_eq!((seen[0].method.as_str(), seen[0].uri.as_str()), ("POST", "/v2/orders"));
    assert_eq!(
        seen[0].body,
        json!({"sku": "a1", "quantity": 1, "payment": {"iban": "DE1"}})
    );
    assert_eq!(seen[0].authorization.as_deref(), Some("Bearer tok-123"));
    assert_eq!(seen[1].uri, "/v2/orders?page=1&status=shipped");
    assert_eq!(seen[1].authorization.as_deref(), Some("Bearer tok-123"));
    assert_eq!(seen[2].uri, "/v2/orders/ord_9");
    assert_eq!(
        (seen[2].partner_key.as_deref(), seen[2].authorization.as_deref()),
        (Some("pk-456"), None)
    );

    let bare = HttpExecutor::new(format!("{base}/v2"))
        .unwrap()
        .with_credentials(HashMap::new());
    let err = bare
        .execute(get, &bind(get, &params(json!({"orderId": "ord_9"}))).unwrap(), &ctx())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ExecError::Invalid { reason, .. } if reason.contains("SHOP_ORDERS_PARTNER_KEY")),
        "{err}"
    );
    assert_eq!(log.lock().unwrap().len(), 3, "nothing is sent without the credential");
}

#[test]
fn only_keeps_the_tags_asked_for_and_says_how_many_were_left_out() {
    let (catalog, _, report) = import("petstore.yaml", &["--only", "admin"]);
    assert_eq!(catalog.names(), vec!["deletePet"]);
    assert!(report.contains("3 operations left out by --only admin"), "{report}");
}

#[tokio::test]
async fn a_path_server_is_the_base_url_and_an_unexploded_query_array_one_comma_separated_value() {
    // One import of the file per test binary: imports of one spec write the same output file.
    let (catalog, document, report) = import("path_servers.json", &[]);
    assert_eq!(
        document["x-openapi"]["baseUrl"], "https://api.weather.example",
        "{report}"
    );
    assert_eq!(catalog.names(), vec!["forecast"], "{report}");
    assert!(
        report
            .contains("GET /v1/archive: not imported — its server https://archive.weather.example is not the base URL"),
        "{report}"
    );
    let forecast = catalog.get("forecast").expect("the forecast tool");
    assert!(forecast.params().get("daily").unwrap().comma_joined, "{report}");
    assert!(
        !forecast.params().get("hourly").unwrap().comma_joined,
        "explode defaults to true"
    );
    let (base, log) = serve().await;
    let http = HttpExecutor::new(base).unwrap();
    let call = bind(
        forecast,
        &params(json!({"city": "Oslo", "daily": ["temperature_max", "rain_sum"], "hourly": ["a b", "c"]})),
    )
    .unwrap();
    http.execute(forecast, &call, &ctx()).await.unwrap();
    let seen = log.lock().unwrap().clone();
    assert_eq!(
        seen[0].uri, "/v1/forecast?city=Oslo&hourly=a+b&hourly=c&daily=temperature_max,rain_sum",
        "{report}"
    );
}
