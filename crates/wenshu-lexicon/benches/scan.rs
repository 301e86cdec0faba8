//! Scanning one ~40-character question for numerals, time expressions and enum synonyms.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use jiff::civil::date;
use wenshu_lexicon::synonym::SynonymMatcher;

/// The sales_query enum synonyms of eval/catalog.json.
const SYNONYMS: &[(&str, &[&str])] = &[
    ("华东", &["华东区", "华东地区", "东部", "East China"]),
    ("华南", &["华南区", "华南地区", "南部", "South China"]),
    ("华北", &["华北区", "华北地区", "North China"]),
    ("西南", &["西南区", "西南地区", "Southwest"]),
    ("西北", &["西北区", "西北地区", "Northwest"]),
    ("企业版", &["enterprise", "enterprise edition", "企业"]),
    ("专业版", &["professional", "pro", "professional edition"]),
    ("基础版", &["basic", "basic edition", "基础"]),
    ("summary", &["汇总", "总额", "销售额", "多少", "total"]),
    ("ranking", &["排名", "排行", "排行榜", "卖得最多", "top", "前几名"]),
    ("detail", &["明细", "详情", "清单", "列表", "detail", "details"]),
    ("trend", &["趋势", "走势", "变化", "trend"]),
];

fn bench_scan(c: &mut Criterion) {
    let matcher = SynonymMatcher::new(
        SYNONYMS
            .iter()
            .map(|(v, s)| (v.to_string(), s.iter().map(|x| x.to_string()).collect())),
    );
    let today = date(2026, 11, 29);
    let question = "华东区上个季度企业版销售额排名前五的销售是谁，和去年同期比如何";
    c.bench_function("scan_question", |b| {
        b.iter(|| {
            let spans = wenshu_lexicon::scan(black_box(question), today);
            let hits = matcher.find_all(black_box(question));
            black_box((spans, hits))
        })
    });
}

criterion_group!(benches, bench_scan);
criterion_main!(benches);
