-- wenshu-store, PostgreSQL, migration 5: the audit log. One entry per question answered (or not): who asked (the
-- principal's id — a key fingerprint or a token's subject, never a key —, name and role), through which door, the
-- conversation and turn (none for an ask that keeps no turn), the tool, the bound call, the SQL with its binds, the
-- row count and the outcome. No foreign keys: deleting a conversation or purging its turns keeps its entries, which
-- have a retention of their own.
CREATE TABLE IF NOT EXISTS audit_log (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at      TEXT NOT NULL,
    principal_id    TEXT,
    principal_name  TEXT,
    principal_role  TEXT NOT NULL,
    door            TEXT NOT NULL,
    conversation_id TEXT,
    turn_id         TEXT,
    question        TEXT NOT NULL,
    tool            TEXT,
    params          JSONB NOT NULL,
    statements      JSONB NOT NULL,
    row_count       BIGINT,
    outcome         TEXT NOT NULL,
    step            TEXT
);
CREATE INDEX IF NOT EXISTS audit_log_created ON audit_log (created_at);
CREATE INDEX IF NOT EXISTS audit_log_principal ON audit_log (principal_id, seq);
