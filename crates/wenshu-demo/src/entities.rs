//! The demo's entities (movies, sales people): a copy of `eval/entities.json` shipped in the binary.

use serde::Deserialize;

/// The entity catalog text, as shipped (equal to `eval/entities.json`).
pub const ENTITIES_JSON: &str = include_str!("../data/entities.json");

/// One movie of the demo.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Movie {
    /// Its ID.
    pub id: i64,
    /// Its title.
    pub name: String,
    /// The year it came out.
    pub year: i64,
    /// Its genre.
    pub genre: String,
}

/// One sales person of the demo.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SalesPerson {
    /// Its ID.
    pub id: i64,
    /// Its name (what the `sales` table holds).
    pub name: String,
}

/// The entities the demo data is made from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DemoEntities {
    /// The `movie` catalog.
    pub movie: Vec<Movie>,
    /// The `salesPerson` catalog.
    #[serde(rename = "salesPerson")]
    pub sales_person: Vec<SalesPerson>,
}

/// Reads the shipped entity catalog.
pub fn demo_entities() -> Result<DemoEntities, serde_json::Error> {
    serde_json::from_str(ENTITIES_JSON)
}
