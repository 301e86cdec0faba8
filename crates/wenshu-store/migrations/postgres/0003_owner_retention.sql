-- wenshu-store, PostgreSQL, migration 3: who made a conversation (the fingerprint of the API key, never the key;
-- NULL when no keys were configured), and the indexes the retention purge walks by age.
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS owner TEXT;
CREATE INDEX IF NOT EXISTS turns_created ON turns (created_at);
CREATE INDEX IF NOT EXISTS conversations_created ON conversations (created_at);
