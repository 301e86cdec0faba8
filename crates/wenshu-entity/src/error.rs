//! Errors of loading entity catalogs.

/// Why an entity catalog could not be loaded. Every entity-level error names the type, the index and the field.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The catalog text is not valid JSON.
    #[error("entity catalog is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The catalog is valid JSON but not an object of entity type → array of entities.
    #[error("entity catalog must be a JSON object mapping entity types to arrays of entities")]
    NotAnObject,
    /// An element of an entity array is not a JSON object.
    #[error("{entity_type}[{index}]: an entity must be a JSON object")]
    EntityNotObject {
        /// The entity type (the catalog key).
        entity_type: String,
        /// The position of the entity in its array.
        index: usize,
    },
    /// A required field (`id`, `name`) is absent.
    #[error("{entity_type}[{index}]: missing field `{field}`")]
    MissingField {
        /// The entity type (the catalog key).
        entity_type: String,
        /// The position of the entity in its array.
        index: usize,
        /// The missing field.
        field: &'static str,
    },
    /// A field has the wrong type or an empty value.
    #[error("{entity_type}[{index}]: field `{field}` {problem}")]
    InvalidField {
        /// The entity type (the catalog key).
        entity_type: String,
        /// The position of the entity in its array.
        index: usize,
        /// The offending field.
        field: &'static str,
        /// What is wrong with it, e.g. "must be an integer or a non-empty string".
        problem: &'static str,
    },
    /// The SQL query that loads an entity type failed.
    #[error("entity catalog `{entity_type}`: the query failed: {message}")]
    Query {
        /// The entity type the query loads.
        entity_type: String,
        /// What the database said.
        message: String,
    },
}
