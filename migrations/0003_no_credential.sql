-- Calls of a tool whose security scheme has no credential on this server, or whose token could not be obtained
-- (src/auth/upstream-security.ts): an isError result naming the scheme, and nothing sent upstream.
ALTER TABLE usage ADD COLUMN no_credential INTEGER NOT NULL DEFAULT 0;
