// tools/list settings shared by the catalogue server and the discovery server.

/**
 * Cache hints for 2026-07-28 clients (the SDK adds ttlMs/cacheScope to tools/list results). A slice's list only
 * changes with a deploy; the scope is private because a list depends on the caller's key scope.
 */
export const CACHE_HINTS = { 'tools/list': { ttlMs: 300_000, cacheScope: 'private' as const } };
