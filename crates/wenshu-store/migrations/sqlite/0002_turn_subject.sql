-- wenshu-store, SQLite, migration 2: the subject a turn was about, resolved to its ID, so a follow-up keeps the
-- user's choice. The ID is its JSON text (21, "A-1"); all three are NULL for a turn without a subject.
ALTER TABLE turns ADD COLUMN subject_type TEXT;
ALTER TABLE turns ADD COLUMN subject_id TEXT;
ALTER TABLE turns ADD COLUMN subject_name TEXT;
