//! Executors: run a bound call of a tool (SQL template, HTTP endpoint, MCP server) behind one trait.
