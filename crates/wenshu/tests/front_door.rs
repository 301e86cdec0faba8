//! The engine's front door: the binary, the server and the MCP crate import only the items the engine's crate root
//! re-exports, never a path through one of its modules (`wenshu_engine::metric::…`). Read from the sources, so a new
//! import through a module fails here with the file and the path.

use std::path::{Path, PathBuf};

/// The engine's public modules (and the modules it re-exports from other crates), read from its `lib.rs`.
fn engine_modules(lib: &str) -> Vec<String> {
    let mut modules: Vec<String> = lib
        .lines()
        .filter_map(|line| line.trim().strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches(';').trim().to_string())
        .collect();
    for line in lib
        .lines()
        .filter(|l| l.trim_start().starts_with("pub use wenshu_sql::{"))
    {
        let inner = line.split('{').nth(1).unwrap_or("").split('}').next().unwrap_or("");
        for item in inner.split(',') {
            let name = item.split(" as ").last().unwrap_or("").trim();
            if !name.is_empty() {
                modules.push(name.to_string());
            }
        }
    }
    modules
}

/// Every path into the engine in `source` that goes through one of `modules`, as written.
fn paths_through_modules(source: &str, modules: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(at) = rest.find("wenshu_engine::") {
        let after = &rest[at + "wenshu_engine::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for item in inner.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                let first = item.split("::").next().unwrap_or("").trim();
                if item.contains("::") || modules.iter().any(|m| m == first) {
                    found.push(format!("wenshu_engine::{{{item}}}"));
                }
            }
        } else {
            let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if modules.contains(&name) {
                found.push(format!("wenshu_engine::{name}"));
            }
        }
        rest = after;
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_doors_and_the_binary_import_only_the_engines_root_items() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lib = std::fs::read_to_string(crates.join("wenshu-engine/src/lib.rs")).expect("the engine's lib.rs");
    let modules = engine_modules(&lib);
    assert!(
        modules.iter().any(|m| m == "pipeline") && modules.iter().any(|m| m == "sql_guard"),
        "{modules:?}"
    );
    let mut files = Vec::new();
    for door in ["wenshu/src", "wenshu-server/src", "wenshu-mcp/src"] {
        rust_files(&crates.join(door), &mut files);
    }
    assert!(files.len() > 20, "the sources were found: {files:?}");
    let mut through = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).expect("a source file");
        for path in paths_through_modules(&source, &modules) {
            through.push(format!("{}: {path}", file.display()));
        }
    }
    assert!(
        through.is_empty(),
        "imports through the engine's modules, not its front door:\n{}",
        through.join("\n")
    );
}

#[test]
fn a_path_through_a_module_is_found_in_every_form() {
    let modules: Vec<String> = ["metric", "db", "sql_guard"].iter().map(|m| m.to_string()).collect();
    let source = "use wenshu_engine::metric::MetricExecutor;\nuse wenshu_engine::{Engine, metric::build_query};\n\
                  let x = wenshu_engine::db::redact(u);\nuse wenshu_engine::sql_guard;\nuse wenshu_engine::{Answer, Trace};\n\
                  let q = wenshu_engine::query_params(&q);";
    assert_eq!(
        paths_through_modules(source, &modules),
        vec![
            "wenshu_engine::metric",
            "wenshu_engine::{metric::build_query}",
            "wenshu_engine::db",
            "wenshu_engine::sql_guard"
        ]
    );
}
