//! The engine's modules import one another in one direction: no import cycle spans two top-level modules (a stage
//! never imports a later one). Read from the sources (`crate::module` paths outside test code), so an upward import
//! fails here naming the cycle and the files that close it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its non-test code names as `crate::module`, with the files that do.
type Imports = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// The non-test part of a source file (everything before its first `#[cfg(test)]`), without comment lines.
fn code_of(source: &str) -> String {
    let code = source.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules named in `code` as `crate::name` or inside `crate::{…}`.
fn named_modules(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let inner = &group[..group.find("};").or_else(|| group.find('}')).unwrap_or(group.len())];
            for item in inner.split([',', '{', '}']) {
                let first: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if modules.contains(&first) {
                    found.insert(first);
                }
            }
        } else {
            let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if modules.contains(&name) {
                found.insert(name);
            }
        }
        rest = after;
    }
    found
}

fn imports_of(src: &Path) -> Imports {
    let modules: BTreeSet<String> = std::fs::read_dir(src)
        .expect("the engine's src")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let path = e.path();
            if path.is_dir() {
                Some(name)
            } else {
                name.strip_suffix(".rs").filter(|n| *n != "lib").map(str::to_string)
            }
        })
        .collect();
    let mut imports = Imports::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let relative = path.strip_prefix(src).expect("under src").to_string_lossy().to_string();
            let top = relative
                .split('/')
                .next()
                .unwrap_or("")
                .trim_end_matches(".rs")
                .to_string();
            if !modules.contains(&top) {
                continue;
            }
            let code = code_of(&std::fs::read_to_string(&path).expect("a source file"));
            for target in named_modules(&code, &modules) {
                if target != top {
                    imports
                        .entry(top.clone())
                        .or_default()
                        .entry(target)
                        .or_default()
                        .insert(relative.clone());
                }
            }
        }
    }
    imports
}

/// The strongly connected groups of more than one module (Tarjan).
fn cycles(imports: &Imports) -> Vec<Vec<String>> {
    struct Walk<'a> {
        imports: &'a Imports,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on_stack: BTreeSet<String>,
        out: Vec<Vec<String>>,
    }
    fn visit(walk: &mut Walk, node: &str) {
        let n = walk.index.len();
        walk.index.insert(node.to_string(), n);
        walk.low.insert(node.to_string(), n);
        walk.stack.push(node.to_string());
        walk.on_stack.insert(node.to_string());
        let targets: Vec<String> = walk
            .imports
            .get(node)
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default();
        for target in targets {
            if !walk.index.contains_key(&target) {
                visit(walk, &target);
                let low = walk.low[node].min(walk.low[&target]);
                walk.low.insert(node.to_string(), low);
            } else if walk.on_stack.contains(&target) {
                let low = walk.low[node].min(walk.index[&target]);
                walk.low.insert(node.to_string(), low);
            }
        }
        if walk.low[node] == walk.index[node] {
            let mut group = Vec::new();
            while let Some(top) = walk.stack.pop() {
                walk.on_stack.remove(&top);
                let done = top == node;
                group.push(top);
                if done {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                walk.out.push(group);
            }
        }
    }
    let mut walk = Walk {
        imports,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    let nodes: Vec<String> = imports.keys().cloned().collect();
    for node in nodes {
        if !walk.index.contains_key(&node) {
            visit(&mut walk, &node);
        }
    }
    walk.out
}

#[test]
fn no_import_cycle_spans_two_of_the_engines_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let imports = imports_of(&src);
    assert!(
        imports.get("pipeline").is_some_and(|t| t.contains_key("route")),
        "the imports were read: {imports:?}"
    );
    let found = cycles(&imports);
    let described: Vec<String> = found
        .iter()
        .map(|group| {
            let edges: Vec<String> = group
                .iter()
                .flat_map(|from| {
                    imports[from]
                        .iter()
                        .filter(|(to, _)| group.contains(to))
                        .map(move |(to, files)| {
                            format!(
                                "  {from} → {to} ({})",
                                files.iter().cloned().collect::<Vec<_>>().join(", ")
                            )
                        })
                })
                .collect();
            format!("{}\n{}", group.join(", "), edges.join("\n"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "import cycles between the engine's modules:\n{}",
        described.join("\n")
    );
}

#[test]
fn a_cycle_is_found_and_named() {
    let mut imports = Imports::new();
    for (from, to) in [
        ("route", "extract"),
        ("extract", "coverage"),
        ("coverage", "route"),
        ("answer", "route"),
    ] {
        imports
            .entry(from.to_string())
            .or_default()
            .entry(to.to_string())
            .or_default()
            .insert(format!("{from}.rs"));
    }
    assert_eq!(cycles(&imports), vec![vec!["coverage", "extract", "route"]]);
    let modules: BTreeSet<String> = ["offer", "scope", "metric"].iter().map(|m| m.to_string()).collect();
    let code = code_of("use crate::offer::Offer;\n// crate::metric in a comment\nuse crate::{scope::Viewer, x};\n");
    assert_eq!(
        named_modules(&code, &modules),
        ["offer", "scope"].iter().map(|m| m.to_string()).collect()
    );
}
