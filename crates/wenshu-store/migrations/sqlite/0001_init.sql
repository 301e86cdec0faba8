-- wenshu-store, SQLite, migration 1: conversations, turns, traces, tool states, entity catalogs.
-- JSON is stored as TEXT; times are RFC 3339 TEXT.
CREATE TABLE IF NOT EXISTS conversations (
    id         TEXT PRIMARY KEY NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS turns (
    id                 TEXT PRIMARY KEY NOT NULL,
    conversation_id    TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq                INTEGER NOT NULL,
    question           TEXT NOT NULL,
    rewritten_question TEXT NOT NULL,
    kind               TEXT NOT NULL,
    tool               TEXT,
    outcome            TEXT NOT NULL,
    conclusion         TEXT NOT NULL,
    trace_id           TEXT NOT NULL,
    created_at         TEXT NOT NULL
);

CREATE UNIQUE INDEX IF NOT EXISTS turns_conversation_seq ON turns (conversation_id, seq);

CREATE TABLE IF NOT EXISTS traces (
    id         TEXT PRIMARY KEY NOT NULL,
    turn_id    TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS traces_turn ON traces (turn_id);

CREATE TABLE IF NOT EXISTS tool_states (
    name       TEXT PRIMARY KEY NOT NULL,
    enabled    INTEGER NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS entity_catalogs (
    entity_type TEXT PRIMARY KEY NOT NULL,
    body        TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
