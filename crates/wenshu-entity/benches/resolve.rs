//! `resolve`: name → ID over 1,000,000 generated titles. Builds the index once (build time printed), benchmarks
//! `resolve` per kind of query with criterion, times 2,000 mixed lookups one by one for p50/p99, and compares
//! with a plain `LIKE '%…%'` scan over the same names in an in-memory SQLite database.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::json;
use sqlx::{Connection, Row, SqliteConnection};
use wenshu_entity::{Entity, EntityIndex, Resolution};

const NAMES: usize = 1_000_000;
const TIMED_LOOKUPS: usize = 2_000;
const SQLITE_LOOKUPS: usize = 60;
const SQLITE_BATCH: usize = 400;
/// Generated words, and the CJK characters (from U+4E00) they are drawn from.
const GENERATED_WORDS: usize = 20_000;
const GENERATED_CHARS: usize = 3_500;

/// Two-character words that title-like names are made of.
const WORDS: &[&str] = &[
    "流浪", "地球", "长津", "星辰", "大海", "风云", "英雄", "少年", "江湖", "传奇", "天空", "战火", "西岐", "朝歌",
    "飞驰", "人生", "热辣", "滚烫", "误杀", "孤注", "消失", "八角", "笼中", "唐人", "街头", "探案", "魔童", "降世",
    "闹海", "满江", "红尘", "青春", "岁月", "无间", "道义", "城市", "猎人", "追光", "时代", "边境", "奇迹", "秘密",
    "花园", "月光", "雪山", "草原", "沙漠", "长安", "洛阳", "金陵", "故乡", "归途", "远方", "黎明", "黄昏", "深海",
    "雷霆", "烈火", "钢铁", "巨龙", "神话", "功夫", "熊猫", "侠客", "剑客", "刺客", "将军", "公主", "王子", "夫人",
    "先生", "小姐", "老师", "同学", "兄弟", "姐妹", "父亲", "母亲", "孩子", "爱情", "友谊", "战争", "和平", "梦想",
    "未来", "过去", "记忆", "密码", "迷宫", "危机", "救援", "行动", "任务", "计划", "逃亡", "追踪", "守护", "重生",
    "觉醒", "崛起", "归来", "终结", "开端", "序章", "番外", "宇宙", "银河", "星球", "机器", "人类", "怪兽", "天使",
    "魔鬼", "幽灵", "妖怪", "神探", "狄公", "包公", "西游", "东游", "南征", "北战", "春天", "夏日", "秋风", "冬雪",
    "山河", "日月", "乾坤", "龙门", "飞狐", "白蛇", "青蛇", "红楼", "水浒", "三国", "封神", "哪吒", "悟空", "八戒",
];
/// Connectors placed between words now and then.
const JOINERS: &[&str] = &["之", "的", "与", "：", "和"];

/// A xorshift64* generator: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// A vocabulary of two-character words: the common title words above plus generated ones from the CJK block,
/// so that, as in a real catalog, most characters are not shared by a large share of the names.
fn vocabulary(rng: &mut Rng) -> Vec<String> {
    let mut words: Vec<String> = WORDS.iter().map(|w| w.to_string()).collect();
    let cjk = |rng: &mut Rng| char::from_u32(0x4E00 + rng.below(GENERATED_CHARS) as u32).unwrap_or('之');
    words.extend((0..GENERATED_WORDS).map(|_| [cjk(rng), cjk(rng)].iter().collect::<String>()));
    words
}

/// One word: a common title word a third of the time, otherwise one from the whole vocabulary.
fn word<'a>(rng: &mut Rng, vocabulary: &'a [String]) -> &'a str {
    if rng.below(3) == 0 {
        WORDS[rng.below(WORDS.len())]
    } else {
        vocabulary[rng.below(vocabulary.len())].as_str()
    }
}

/// One title: 1–5 words, sometimes a connector, sometimes a sequel number; 2–12 characters.
fn title(rng: &mut Rng, vocabulary: &[String]) -> String {
    let words = 1 + rng.below(5);
    let mut name = String::new();
    for i in 0..words {
        if i > 0 && words <= 4 && rng.below(4) == 0 {
            name.push_str(rng.pick(JOINERS));
        }
        name.push_str(word(rng, vocabulary));
    }
    if name.chars().count() < 12 && rng.below(5) == 0 {
        name.push_str(&(2 + rng.below(8)).to_string());
    }
    name
}

fn names() -> Vec<String> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let vocabulary = vocabulary(&mut rng);
    (0..NAMES).map(|_| title(&mut rng, &vocabulary)).collect()
}

/// Kinds of query, each made from the generated names.
const KINDS: &[&str] = &[
    "exact",
    "prefix",
    "substring",
    "subsequence",
    "typo",
    "unknown_chars",
    "random_words",
];

fn make_query(kind: &str, names: &[String], rng: &mut Rng) -> String {
    let chars: Vec<char> = names[rng.below(names.len())].chars().collect();
    let n = chars.len();
    match kind {
        "exact" => chars.iter().collect(),
        "prefix" => chars.iter().take(n.clamp(2, 4)).collect(),
        "substring" => {
            let start = rng.below(n.saturating_sub(2).max(1));
            chars.iter().skip(start).take(3).collect()
        }
        "subsequence" => chars
            .iter()
            .enumerate()
            .filter(|(i, _)| *i == 0 || i % 3 != 1)
            .map(|(_, c)| *c)
            .collect(),
        "typo" => {
            let mut typo = chars.clone();
            let at = rng.below(n);
            typo[at] = rng.pick(WORDS).chars().next().unwrap_or('错');
            typo.iter().collect()
        }
        "unknown_chars" => ["战狼3", "阿凡达", "泰坦尼克号", "复仇者联盟4", "速度与激情9"][rng.below(5)].to_string(),
        _ => format!("{}{}", rng.pick(WORDS), rng.pick(WORDS).chars().next().unwrap_or('之')),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or_default()
}

fn status(resolution: &Resolution) -> &'static str {
    match resolution {
        Resolution::Exact { .. } => "exact",
        Resolution::Fuzzy { .. } => "fuzzy",
        Resolution::Ambiguous { .. } => "ambiguous",
        Resolution::NotFound => "not_found",
    }
}

/// Times lookups one by one; prints p50/p99 per kind and overall; returns (queries, overall p50).
fn time_lookups(index: &EntityIndex, names: &[String]) -> (Vec<String>, Duration) {
    let mut rng = Rng(42);
    let mut all = Vec::with_capacity(TIMED_LOOKUPS);
    let mut queries = Vec::with_capacity(TIMED_LOOKUPS);
    println!(
        "per-lookup timing over {TIMED_LOOKUPS} lookups ({} per kind):",
        TIMED_LOOKUPS / KINDS.len()
    );
    for kind in KINDS {
        let mut times = Vec::new();
        let mut outcomes = std::collections::BTreeMap::<&str, usize>::new();
        for _ in 0..TIMED_LOOKUPS / KINDS.len() {
            let query = make_query(kind, names, &mut rng);
            let start = Instant::now();
            let resolution = index.resolve(black_box(&query), 5);
            let elapsed = start.elapsed();
            *outcomes.entry(status(&resolution)).or_default() += 1;
            times.push(elapsed);
            queries.push(query);
        }
        all.extend_from_slice(&times);
        times.sort();
        println!(
            "  {kind:<14} p50 {:>9.1?}  p99 {:>9.1?}  max {:>9.1?}  outcomes {outcomes:?}",
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            times.last().copied().unwrap_or_default()
        );
    }
    all.sort();
    let p50 = percentile(&all, 0.5);
    println!(
        "  {:<14} p50 {:>9.1?}  p99 {:>9.1?}  (target p99 < 5ms)",
        "ALL",
        p50,
        percentile(&all, 0.99)
    );
    (queries, p50)
}

/// Loads the names into in-memory SQLite and times `LIKE '%…%' LIMIT 5` scans for a sample of the queries.
fn compare_sqlite(names: &[String], queries: &[String], ours_p50: Duration, ours_mean: Duration) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let mut conn = SqliteConnection::connect("sqlite::memory:").await.expect("sqlite");
        sqlx::query("CREATE TABLE entities (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            .execute(&mut conn)
            .await
            .expect("create");
        let start = Instant::now();
        let mut tx = conn.begin().await.expect("begin");
        let row = "(?, ?)";
        for (batch_number, batch) in names.chunks(SQLITE_BATCH).enumerate() {
            let sql = format!(
                "INSERT INTO entities (id, name) VALUES {}",
                vec![row; batch.len()].join(", ")
            );
            // Only placeholders are spliced in; the names are bound.
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
            for (i, name) in batch.iter().enumerate() {
                query = query.bind((batch_number * SQLITE_BATCH + i) as i64).bind(name.as_str());
            }
            query.execute(&mut *tx).await.expect("insert");
        }
        tx.commit().await.expect("commit");
        println!("sqlite: loaded {} names in {:.2?}", names.len(), start.elapsed());

        let step = (queries.len() / SQLITE_LOOKUPS).max(1);
        let mut times = Vec::new();
        for query in queries.iter().step_by(step).take(SQLITE_LOOKUPS) {
            let start = Instant::now();
            let rows = sqlx::query("SELECT id, name FROM entities WHERE name LIKE '%' || ? || '%' LIMIT 5")
                .bind(query.as_str())
                .fetch_all(&mut conn)
                .await
                .expect("select");
            times.push(start.elapsed());
            black_box(rows.iter().map(|r| r.get::<i64, _>(0)).sum::<i64>());
        }
        let mean = times.iter().sum::<Duration>() / times.len().max(1) as u32;
        times.sort();
        let p50 = percentile(&times, 0.5);
        println!(
            "sqlite LIKE scan over {} lookups (same query mix): p50 {:.2?}  p99 {:.2?}  mean {:.2?}",
            times.len(),
            p50,
            percentile(&times, 0.99),
            mean
        );
        println!(
            "ratio sqlite/index: p50 {:.0}x, mean {:.0}x",
            p50.as_secs_f64() / ours_p50.as_secs_f64().max(1e-9),
            mean.as_secs_f64() / ours_mean.as_secs_f64().max(1e-9)
        );
    });
}

fn main() {
    let names = names();
    let start = Instant::now();
    let entities: Vec<Entity> = names
        .iter()
        .enumerate()
        .map(|(i, name)| Entity::new(i as u64, name.as_str()).with_attribute("year", json!(1990 + i % 36)))
        .collect();
    let index = EntityIndex::new(entities);
    println!("index: built over {} names in {:.2?}", index.len(), start.elapsed());

    let (queries, p50) = time_lookups(&index, &names);
    let start = Instant::now();
    for query in &queries {
        black_box(index.resolve(black_box(query), 5));
    }
    let mean = start.elapsed() / queries.len().max(1) as u32;
    println!("index mean per lookup: {mean:.1?}");
    compare_sqlite(&names, &queries, p50, mean);

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("resolve");
    for kind in KINDS {
        let mut rng = Rng(7);
        let batch: Vec<String> = (0..256).map(|_| make_query(kind, &names, &mut rng)).collect();
        let mut next = batch.iter().cycle();
        group.bench_function(*kind, |b| {
            b.iter(|| index.resolve(black_box(next.next().map_or("", String::as_str)), 5))
        });
    }
    let sentences: Vec<String> = names
        .iter()
        .take(256)
        .map(|n| format!("《{n}》最近7天的每日票房"))
        .collect();
    let mut next = sentences.iter().cycle();
    group.bench_function("find_mentions", |b| {
        b.iter(|| index.find_mentions(black_box(next.next().map_or("", String::as_str))))
    });
    group.finish();
    criterion.final_summary();
}
