-- Calls of a catalogue tool outside the key's scope or the URL's slice, refused before any tool ran
-- (src/tools/scope-refusal.ts). Counted apart from calls, like rate_limited.
ALTER TABLE usage ADD COLUMN out_of_scope INTEGER NOT NULL DEFAULT 0;
