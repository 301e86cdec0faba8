-- wenshu-store, SQLite, migration 4: a conversation's title (set by a rename; NULL: its first question is shown),
-- the index the conversation list walks by owner, and one verdict per turn (👍 `up` / 👎 `down`, an optional note).
ALTER TABLE conversations ADD COLUMN title TEXT;
CREATE INDEX IF NOT EXISTS conversations_owner ON conversations (owner, created_at);
CREATE TABLE IF NOT EXISTS feedback (
    turn_id    TEXT PRIMARY KEY NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    verdict    TEXT NOT NULL,
    note       TEXT,
    created_at TEXT NOT NULL
);
