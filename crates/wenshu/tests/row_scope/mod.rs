//! Support of the row-scope matrix (`row_scope_matrix.rs`): the databases, the server under test, an MCP server
//! and client of the test's own, and JWTs.

pub mod databases;
pub mod mcp_client;
pub mod serve;
pub mod stock_mcp;
pub mod tokens;
