//! Name → ID resolution over the evaluation's entity catalogs: exact, fuzzy, ambiguous, not found, mentions,
//! catalog errors, and no panics on arbitrary text.

use proptest::prelude::*;
use serde_json::{Value, json};
use wenshu_entity::{Entity, EntityCatalogs, EntityIndex, MatchMethod, Resolution, ResolveError};

const ENTITIES: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../eval/entities.json"));

fn catalogs() -> EntityCatalogs {
    match EntityCatalogs::from_json_str(ENTITIES) {
        Ok(catalogs) => catalogs,
        Err(e) => panic!("entities.json does not load: {e}"),
    }
}

fn movies() -> EntityIndex {
    catalogs().get("movie").cloned().unwrap_or_default()
}

fn people() -> EntityIndex {
    catalogs().get("salesPerson").cloned().unwrap_or_default()
}

/// The status and IDs of a resolution, e.g. ("exact", [2]).
fn outcome(resolution: &Resolution) -> (&'static str, Vec<Value>) {
    let status = match resolution {
        Resolution::Exact { .. } => "exact",
        Resolution::Fuzzy { .. } => "fuzzy",
        Resolution::Ambiguous { exact: true, .. } => "ambiguous_exact",
        Resolution::Ambiguous { exact: false, .. } => "ambiguous",
        Resolution::NotFound => "not_found",
    };
    (status, resolution.ids())
}

fn ids(list: &[i64]) -> Vec<Value> {
    list.iter().map(|&i| json!(i)).collect()
}

#[track_caller]
fn check(index: &EntityIndex, name: &str, status: &str, expected: &[i64]) {
    let resolution = index.resolve(name, 5);
    let (got, mut got_ids) = outcome(&resolution);
    if got.starts_with("ambiguous") {
        got_ids.sort_by(wenshu_entity::compare_ids);
    }
    assert_eq!((got, got_ids), (status, ids(expected)), "{name}: {resolution:?}");
}

#[test]
fn catalog_loads_both_types() {
    let catalogs = catalogs();
    assert_eq!(catalogs.types(), vec!["movie", "salesPerson"]);
    assert_eq!(catalogs.get("movie").map(EntityIndex::len), Some(22));
    assert_eq!(catalogs.get("salesPerson").map(EntityIndex::len), Some(8));
    assert!(catalogs.get("about").is_none());
    let movies = movies();
    let hero = movies.by_id(&json!(21)).map(|e| e.name.as_str());
    assert_eq!(hero, Some("英雄"));
    assert!(movies.by_id(&json!("21")).is_none());
    assert!(movies.by_id(&json!(999)).is_none());
}

#[test]
fn plan_cases() {
    let movies = movies();
    check(&movies, "哪吒", "ambiguous", &[7, 8]);
    check(&movies, "战狼3", "not_found", &[]);
    check(&movies, "英雄", "ambiguous_exact", &[21, 22]);
    check(&movies, "封神第二部", "fuzzy", &[13]);
    check(&movies, "《流浪地球2》", "exact", &[2]);
    check(&movies, "长津湖", "exact", &[4]);
    check(&movies, "满江红", "exact", &[3]);
    check(&movies, "热辣滚烫", "exact", &[10]);
}

#[test]
fn decorations_quotes_and_function_words_are_stripped() {
    let movies = movies();
    check(&movies, "《满江红》", "exact", &[3]);
    check(&movies, "“长津湖”", "exact", &[4]);
    check(&movies, "「流浪地球」的", "exact", &[1]);
    check(&movies, "满江红这部", "exact", &[3]);
    check(&movies, "《英雄》", "ambiguous_exact", &[21, 22]);
    check(&movies, "《》", "not_found", &[]);
    check(&movies, "   ", "not_found", &[]);
    check(&movies, "", "not_found", &[]);
}

#[test]
fn width_case_and_traditional_are_folded() {
    let movies = movies();
    check(&movies, "滿江紅", "exact", &[3]);
    check(&movies, "流浪地球２", "exact", &[2]);
    check(&movies, "《長津湖》", "exact", &[4]);
    check(&movies, "你好，李焕英", "exact", &[6]);
    check(&movies, "你好,李焕英", "exact", &[6]);
}

#[test]
fn fuzzy_unique_matches() {
    let movies = movies();
    check(&movies, "唐探3", "fuzzy", &[9]);
    check(&movies, "唐人街探案", "fuzzy", &[9]);
    check(&movies, "水门桥", "fuzzy", &[5]);
    check(&movies, "长津湖水门桥", "fuzzy", &[5]);
    check(&movies, "李焕英", "fuzzy", &[6]);
    check(&movies, "你好李焕英", "fuzzy", &[6]);
    check(&movies, "封神第一部", "fuzzy", &[12]);
    check(&movies, "流浪地求2", "fuzzy", &[2]);
    check(&movies, "孤注一置", "fuzzy", &[14]);
    check(&movies, "飞驰人生", "fuzzy", &[17]);
    match movies.resolve("封神第二部", 5) {
        Resolution::Fuzzy { method, score, entity } => {
            assert_eq!(method, MatchMethod::Prefix);
            assert!(score > 0.7 && score < 1.0, "{score}");
            assert_eq!(entity.attributes.get("year"), Some(&json!(2025)));
        }
        other => panic!("{other:?}"),
    }
    match movies.resolve("唐探3", 5) {
        Resolution::Fuzzy { method, .. } => assert_eq!(method, MatchMethod::Subsequence),
        other => panic!("{other:?}"),
    }
    match movies.resolve("流浪地求2", 5) {
        Resolution::Fuzzy { method, .. } => assert_eq!(method, MatchMethod::Pinyin),
        other => panic!("{other:?}"),
    }
}

#[test]
fn fuzzy_ambiguous_matches() {
    let movies = movies();
    check(&movies, "封神", "ambiguous", &[12, 13]);
    check(&movies, "流浪", "ambiguous", &[1, 2]);
    check(&movies, "魔童", "ambiguous", &[7, 8]);
    check(&movies, "长津", "ambiguous", &[4, 5]);
    check(&movies, "误", "ambiguous", &[18, 19, 20]);
    check(&movies, "英熊", "ambiguous", &[21, 22]);
}

#[test]
fn not_found_cases() {
    let movies = movies();
    check(&movies, "战狼", "not_found", &[]);
    check(&movies, "流浪地球3", "not_found", &[]);
    check(&movies, "误杀4", "not_found", &[]);
    check(&movies, "她", "not_found", &[]);
    check(&movies, "阿凡达", "not_found", &[]);
    check(&movies, "!!!", "not_found", &[]);
    check(&people(), "张三", "not_found", &[]);
}

#[test]
fn candidates_carry_distinguishing_attributes() {
    let movies = movies();
    let Resolution::Ambiguous {
        candidates,
        exact: true,
    } = movies.resolve("英雄", 5)
    else {
        panic!("英雄 should be ambiguous");
    };
    let shown: Vec<(Value, Option<Value>, Option<Value>)> = candidates
        .iter()
        .map(|c| {
            (
                c.entity.id.clone(),
                c.entity.attributes.get("year").cloned(),
                c.entity.attributes.get("genre").cloned(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            (json!(21), Some(json!(2002)), Some(json!("武侠"))),
            (json!(22), Some(json!(2022)), Some(json!("纪录片")))
        ]
    );
    assert!(
        candidates
            .iter()
            .all(|c| c.method == MatchMethod::Exact && c.score == 1.0)
    );
    let serialized = serde_json::to_value(movies.resolve("哪吒", 5)).unwrap_or_default();
    assert_eq!(serialized["status"], json!("ambiguous"));
    assert_eq!(serialized["exact"], json!(false));
    assert_eq!(
        serialized["candidates"][0]["entity"]["attributes"]["genre"],
        json!("动画")
    );
    assert_eq!(serialized["candidates"][0]["method"], json!("prefix"));
}

#[test]
fn candidates_are_ranked_and_capped() {
    let movies = movies();
    let Resolution::Ambiguous { candidates, .. } = movies.resolve("误", 2) else {
        panic!("误 should be ambiguous")
    };
    assert_eq!(candidates.len(), 2);
    assert_eq!(
        candidates.first().map(|c| c.entity.id.clone()),
        Some(json!(18)),
        "the shortest name ranks first"
    );
    assert!(candidates.windows(2).all(|w| w[0].score >= w[1].score));
    let Resolution::Ambiguous { candidates, .. } = movies.resolve("英雄", 1) else {
        panic!("英雄 should be ambiguous")
    };
    assert_eq!(
        candidates.len(),
        1,
        "exact duplicates are capped too, and still ambiguous"
    );
    let Resolution::Ambiguous { candidates, .. } = movies.resolve("误", 0) else {
        panic!("误 should be ambiguous")
    };
    assert_eq!(candidates.len(), 3, "limit 0 means the default cap");
}

#[test]
fn aliases_resolve_and_collide() {
    let index = EntityIndex::new(vec![
        Entity::new(1, "唐人街探案3")
            .with_alias("唐探3")
            .with_attribute("year", 2021),
        Entity::new(2, "哪吒之魔童降世").with_alias("哪吒1"),
        Entity::new(3, "哪吒之魔童闹海").with_alias("哪吒2"),
        Entity::new("x-4", "英雄本色").with_alias("英雄"),
        Entity::new("x-5", "英雄"),
    ]);
    match index.resolve("唐探３", 5) {
        Resolution::Exact { entity } => assert_eq!(entity.id, json!(1)),
        other => panic!("{other:?}"),
    }
    check(&index, "哪吒2", "exact", &[3]);
    let Resolution::Ambiguous {
        candidates,
        exact: true,
    } = index.resolve("英雄", 5)
    else {
        panic!("英雄 collides")
    };
    let methods: Vec<MatchMethod> = candidates.iter().map(|c| c.method).collect();
    assert_eq!(methods, vec![MatchMethod::Alias, MatchMethod::Exact]);
    assert_eq!(index.by_id(&json!("x-5")).map(|e| e.name.as_str()), Some("英雄"));
}

#[test]
fn pinyin_matches() {
    let people = people();
    check(&people, "zhangwei", "fuzzy", &[101]);
    check(&people, "Zhang Wei", "fuzzy", &[101]);
    check(&people, "张维", "fuzzy", &[101]);
    check(&people, "张伟", "exact", &[101]);
    let index = EntityIndex::new(vec![Entity::new(1, "张三"), Entity::new(2, "李四")]);
    check(&index, "张珊", "fuzzy", &[1]);
}

#[test]
fn string_ids_and_insert() {
    let mut catalogs = EntityCatalogs::new();
    catalogs.insert(
        "product",
        vec![Entity::new("P-1", "企业版"), Entity::new("P-2", "专业版")],
    );
    catalogs.insert("product", vec![Entity::new("P-3", "基础版")]);
    let products = catalogs.get("product").cloned().unwrap_or_default();
    assert_eq!(products.len(), 3);
    assert_eq!(outcome(&products.resolve("基础版", 5)), ("exact", vec![json!("P-3")]));
    assert_eq!(catalogs.types(), vec!["product"]);
}

#[test]
fn mentions_in_questions() {
    let movies = movies();
    let text = "《流浪地球2》最近7天的每日票房";
    let mentions = movies.find_mentions(text);
    assert_eq!(mentions.len(), 1, "{mentions:?}");
    let m = &mentions[0];
    assert_eq!(m.surface, "流浪地球2");
    assert_eq!(&text[m.range.clone()], "流浪地球2");
    assert_eq!(m.entity_ids, ids(&[2]));

    let mentions = movies.find_mentions("长津湖上个月的票房");
    assert_eq!(
        mentions
            .iter()
            .map(|m| (m.surface.as_str(), m.entity_ids.clone()))
            .collect::<Vec<_>>(),
        vec![("长津湖", ids(&[4]))]
    );
    let mentions = movies.find_mentions("长津湖之水门桥和满江红哪个好");
    let found: Vec<(&str, Vec<Value>)> = mentions
        .iter()
        .map(|m| (m.surface.as_str(), m.entity_ids.clone()))
        .collect();
    assert_eq!(found, vec![("长津湖之水门桥", ids(&[5])), ("满江红", ids(&[3]))]);

    let mentions = movies.find_mentions("英雄上周的票房");
    assert_eq!(mentions.len(), 1);
    assert_eq!(mentions[0].entity_ids, ids(&[21, 22]));
    assert_eq!(mentions[0].range, 0..6);

    let people = people();
    let mentions = people.find_mentions("张伟上个月的销售明细");
    assert_eq!(
        mentions
            .iter()
            .map(|m| (m.surface.as_str(), m.entity_ids.clone()))
            .collect::<Vec<_>>(),
        vec![("张伟", ids(&[101]))]
    );

    assert!(movies.find_mentions("哪吒最近三十天的票房").is_empty());
    assert!(movies.find_mentions("").is_empty());
}

#[test]
fn mention_ranges_survive_folding() {
    let movies = movies();
    let text = "ＡＢ《流浪地球２》與滿江紅";
    let mentions = movies.find_mentions(text);
    let found: Vec<(&str, Vec<Value>)> = mentions
        .iter()
        .map(|m| (&text[m.range.clone()], m.entity_ids.clone()))
        .collect();
    assert_eq!(found, vec![("流浪地球２", ids(&[2])), ("滿江紅", ids(&[3]))]);
    assert!(mentions.iter().all(|m| text[m.range.clone()] == m.surface));
}

#[test]
fn mentions_prefer_the_longest_and_respect_numbers() {
    let index = EntityIndex::new(vec![
        Entity::new(1, "AB"),
        Entity::new(2, "BCD"),
        Entity::new(3, "误杀"),
        Entity::new(4, "误杀2"),
    ]);
    let surfaces = |t: &str| {
        index
            .find_mentions(t)
            .into_iter()
            .map(|m| m.surface)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        surfaces("xABCDx"),
        Vec::<String>::new(),
        "ASCII names must not sit inside words"
    );
    assert_eq!(surfaces("票房 AB CD"), vec!["AB"]);
    let longest = EntityIndex::new(vec![Entity::new(1, "长津湖"), Entity::new(2, "湖之水门桥")]);
    let found: Vec<String> = longest
        .find_mentions("长津湖之水门桥")
        .into_iter()
        .map(|m| m.surface)
        .collect();
    assert_eq!(found, vec!["湖之水门桥"], "the longest match wins over the leftmost");
    assert_eq!(surfaces("误杀2的票房"), vec!["误杀2"]);
    assert_eq!(surfaces("误杀23的票房"), vec!["误杀"]);
}

fn error_of(text: &str) -> ResolveError {
    match EntityCatalogs::from_json_str(text) {
        Ok(_) => panic!("{text} should not load"),
        Err(e) => e,
    }
}

#[test]
fn malformed_catalogs_name_type_index_and_field() {
    let e = error_of(r#"{"movie": [{"id": 1, "name": "a"}, {"id": 2}]}"#);
    assert!(
        matches!(&e, ResolveError::MissingField { entity_type, index: 1, field: "name" } if entity_type == "movie")
    );
    assert_eq!(e.to_string(), "movie[1]: missing field `name`");

    let e = error_of(r#"{"movie": [{"id": 1.5, "name": "a"}]}"#);
    assert!(
        matches!(
            &e,
            ResolveError::InvalidField {
                index: 0,
                field: "id",
                ..
            }
        ),
        "{e}"
    );
    let e = error_of(r#"{"movie": [{"id": true, "name": "a"}]}"#);
    assert!(matches!(&e, ResolveError::InvalidField { field: "id", .. }), "{e}");
    let e = error_of(r#"{"salesPerson": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "  "}]}"#);
    assert!(
        matches!(&e, ResolveError::InvalidField { entity_type, index: 2, field: "name", .. } if entity_type == "salesPerson")
    );
    assert!(
        e.to_string().contains("salesPerson[2]") && e.to_string().contains("`name`"),
        "{e}"
    );
    let e = error_of(r#"{"movie": [{"name": "a"}]}"#);
    assert!(matches!(&e, ResolveError::MissingField { field: "id", .. }));
    let e = error_of(r#"{"movie": [{"id": 1, "name": 7}]}"#);
    assert!(matches!(&e, ResolveError::InvalidField { field: "name", .. }));
    let e = error_of(r#"{"movie": [{"id": 1, "name": "a", "aliases": ["b", 3]}]}"#);
    assert!(matches!(&e, ResolveError::InvalidField { field: "aliases", .. }));
    let e = error_of(r#"{"movie": [3]}"#);
    assert!(matches!(&e, ResolveError::EntityNotObject { index: 0, .. }));
    assert!(matches!(error_of("[1]"), ResolveError::NotAnObject));
    assert!(matches!(error_of("{"), ResolveError::Json(_)));

    let ok = EntityCatalogs::from_json_str(
        r#"{"about": "x", "n": 3, "movie": [{"id": "m1", "name": "a", "aliases": null, "year": 1}]}"#,
    );
    assert!(ok.is_ok_and(|c| c.types() == vec!["movie"]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC{0,24}", limit in 0usize..8) {
        let movies = movies();
        let resolution = movies.resolve(&text, limit);
        if let Resolution::Ambiguous { candidates, .. } = &resolution {
            prop_assert!(candidates.len() >= 2 || limit == 1);
            let cap = if limit == 0 { 5 } else { limit };
            prop_assert!(candidates.len() <= cap);
        }
        for mention in movies.find_mentions(&text) {
            prop_assert_eq!(text.get(mention.range.clone()), Some(mention.surface.as_str()));
            prop_assert!(!mention.entity_ids.is_empty());
        }
    }

    #[test]
    fn never_panics_on_names_near_the_catalog(
        prefix in "[《“ 　]{0,2}",
        name in proptest::sample::select(vec!["流浪地球", "英雄", "哪吒之魔童降世", "封神第二部：战火西岐", "张伟", "你好，李焕英"]),
        cut in 0usize..12,
        suffix in "[》”的 ２]{0,2}",
    ) {
        let text = format!("{prefix}{}{suffix}", name.chars().take(cut).collect::<String>());
        let _ = movies().resolve(&text, 3);
        let _ = people().resolve(&text, 3);
        let _ = movies().find_mentions(&text);
    }

    #[test]
    fn arbitrary_catalogs_never_panic(names in proptest::collection::vec("\\PC{0,6}", 0..12), query in "\\PC{0,8}") {
        let index = EntityIndex::new(names.iter().enumerate().map(|(i, n)| Entity::new(i, n.as_str())).collect());
        let _ = index.resolve(&query, 3);
        for mention in index.find_mentions(&query) {
            prop_assert_eq!(query.get(mention.range.clone()), Some(mention.surface.as_str()));
        }
    }
}
