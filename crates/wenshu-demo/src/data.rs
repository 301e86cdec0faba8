//! The demo's rows, made deterministically: a xorshift generator with a fixed seed, so the same `today` always
//! gives the same data.

use jiff::Span;
use jiff::civil::{Date, Weekday};
use serde_json::{Value, json};

use crate::entities::DemoEntities;

/// The regions of the `sales` table (the enum of `sales_query.region`).
pub const REGIONS: [&str; 5] = ["华东", "华南", "华北", "西南", "西北"];
/// The products of the `sales` table, with their list price in 元.
pub const PRODUCTS: [(&str, i64); 3] = [("企业版", 49_800), ("专业版", 19_800), ("基础版", 4_980)];
/// How many days of box office, up to today.
pub const BOX_OFFICE_DAYS: i64 = 400;
/// How many days of sales, up to today (two years).
pub const SALES_DAYS: i64 = 730;
/// The generator's seed.
const SEED: u64 = 0x5745_4E53_4855_2026;

/// A tiny xorshift64* generator: deterministic, no dependencies, not for anything secret.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// A generator from `seed` (a zero seed is replaced, xorshift never leaves zero).
    pub fn new(seed: u64) -> Self {
        Self(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A float in `[low, high)`.
    pub fn range(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.unit()
    }

    /// An integer in `[0, n)` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }
}

/// Every row of the demo tables, in insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DemoRows {
    /// `movies(id, name, year, genre)`.
    pub movies: Vec<Vec<Value>>,
    /// `box_office(movie_id, day, revenue)`, revenue in 万元.
    pub box_office: Vec<Vec<Value>>,
    /// `ratings(movie_id, score, votes)`.
    pub ratings: Vec<Vec<Value>>,
    /// `sales_people(id, name)`.
    pub sales_people: Vec<Vec<Value>>,
    /// `sales(id, day, region, product, sales_person, amount, quantity)`, amount in 元.
    pub sales: Vec<Vec<Value>>,
}

/// Makes every demo row for `today`.
pub fn demo_rows(entities: &DemoEntities, today: Date) -> DemoRows {
    let mut rng = XorShift::new(SEED);
    let mut rows = DemoRows::default();
    for movie in &entities.movie {
        rows.movies.push(vec![
            json!(movie.id),
            json!(movie.name),
            json!(movie.year),
            json!(movie.genre),
        ]);
        box_office_of(&mut rng, movie.id, today, &mut rows.box_office);
        let score = round_to(rng.range(6.0, 9.6), 1);
        let votes = 50_000 + rng.below(2_950_000);
        rows.ratings.push(vec![json!(movie.id), json!(score), json!(votes)]);
    }
    for person in &entities.sales_person {
        rows.sales_people.push(vec![json!(person.id), json!(person.name)]);
    }
    let names: Vec<&str> = entities.sales_person.iter().map(|p| p.name.as_str()).collect();
    sales_of(&mut rng, &names, today, &mut rows.sales);
    rows
}

/// Daily revenue of one movie: a release peak decaying over weeks, higher on weekends, never below a small
/// floor of late screenings.
fn box_office_of(rng: &mut XorShift, movie_id: i64, today: Date, out: &mut Vec<Vec<Value>>) {
    let release_ago = i64::try_from(rng.below(380)).unwrap_or(0);
    let peak = rng.range(3_000.0, 40_000.0);
    let decay_days = rng.range(8.0, 25.0);
    let floor = rng.range(0.5, 5.0);
    for ago in (0..BOX_OFFICE_DAYS).rev() {
        let Some(day) = days_before(today, ago) else {
            continue;
        };
        let age = release_ago - ago;
        let base = if age < 0 {
            floor * 0.2
        } else {
            peak * (-(age as f64) / decay_days).exp() + floor
        };
        let revenue = base * weekday_factor(day.weekday()) * rng.range(0.85, 1.15);
        out.push(vec![
            json!(movie_id),
            json!(day.to_string()),
            json!(round_to(revenue, 2)),
        ]);
    }
}

/// Sales deals: a few per region each day (fewer at weekends), products from cheap to dear, by the sales people.
fn sales_of(rng: &mut XorShift, people: &[&str], today: Date, out: &mut Vec<Vec<Value>>) {
    let mut id: i64 = 0;
    for ago in (0..SALES_DAYS).rev() {
        let Some(day) = days_before(today, ago) else {
            continue;
        };
        let weekend = matches!(day.weekday(), Weekday::Saturday | Weekday::Sunday);
        for region in REGIONS {
            let deals = if weekend { 1 + rng.below(2) } else { 2 + rng.below(3) };
            for _ in 0..deals {
                let pick = rng.unit();
                let (product, price) = match pick {
                    p if p < 0.15 => PRODUCTS[0],
                    p if p < 0.50 => PRODUCTS[1],
                    _ => PRODUCTS[2],
                };
                let max_quantity = if product == PRODUCTS[0].0 { 3 } else { 5 };
                let quantity = 1 + i64::try_from(rng.below(max_quantity)).unwrap_or(0);
                let discount = rng.range(0.85, 1.0);
                let amount = ((price * quantity) as f64 * discount).round() as i64;
                let person = people
                    .get(usize::try_from(rng.below(people.len() as u64)).unwrap_or(0))
                    .copied()
                    .unwrap_or("");
                id += 1;
                out.push(vec![
                    json!(id),
                    json!(day.to_string()),
                    json!(region),
                    json!(product),
                    json!(person),
                    json!(amount),
                    json!(quantity),
                ]);
            }
        }
    }
}

fn days_before(today: Date, days: i64) -> Option<Date> {
    let span = Span::new().try_days(days).ok()?;
    today.checked_sub(span).ok()
}

fn weekday_factor(weekday: Weekday) -> f64 {
    match weekday {
        Weekday::Friday => 1.2,
        Weekday::Saturday => 1.6,
        Weekday::Sunday => 1.5,
        _ => 1.0,
    }
}

fn round_to(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entities::demo_entities;

    #[test]
    fn same_day_same_data() {
        let entities = demo_entities().unwrap();
        let today = jiff::civil::date(2026, 11, 29);
        let a = demo_rows(&entities, today);
        let b = demo_rows(&entities, today);
        assert_eq!(a, b);
        assert_eq!(a.movies.len(), 22);
        assert_eq!(a.box_office.len(), 22 * 400);
        assert_eq!(a.sales_people.len(), 8);
        assert!(a.sales.len() > 5 * 730);
        assert_eq!(a.box_office[399][1], json!("2026-11-29"));
        assert_eq!(a.sales.last().unwrap()[1], json!("2026-11-29"));
    }

    #[test]
    fn xorshift_ranges() {
        let mut rng = XorShift::new(1);
        for _ in 0..1000 {
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
            assert!(rng.below(7) < 7);
        }
        assert_eq!(XorShift::new(0).below(0), 0);
    }
}
