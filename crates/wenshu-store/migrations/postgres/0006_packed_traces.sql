-- wenshu-store, PostgreSQL, migration 6: a trace kept small. New rows hold the trace's JSON deflated in `packed` (a
-- one-byte format tag, then the stream) and JSON null in `body`; rows written before keep their JSON in `body`,
-- `packed` NULL, and are read as they are.
ALTER TABLE traces ADD COLUMN IF NOT EXISTS packed BYTEA;
