// Media types, one definition for the generator (scripts/catalog), the Worker and the catalogue page.
// Dependency-free so Node build tools, the stdio package and workerd can all import it.

/** "Application/JSON; charset=utf-8" -> "application/json". */
export function baseMediaType(mediaType: string | null | undefined): string {
  return ((mediaType ?? '').split(';')[0] ?? '').trim().toLowerCase();
}

/** `*\/*` and `type/*`: a spec that declares these says nothing about the format. */
export function isWildcardMediaType(mediaType: string): boolean {
  const t = baseMediaType(mediaType);
  return t === '*/*' || t.endsWith('/*');
}

/** Streams of JSON values (one per line or record) are not one JSON document. */
export function isJsonStreamMediaType(mediaType: string): boolean {
  return /(?:^|[/+.-])(?:nd|l|x-nd)json$|json-seq$/.test(baseMediaType(mediaType));
}

/**
 * One JSON document: application/json, text/json, any +json suffix, and vendor or x- types ending in json
 * (application/vnd.github.v3+json, application/vnd.api.json, application/x-json).
 * Wildcards are not JSON here; callers that treat an undeclared format as JSON say so with isWildcardMediaType.
 */
export function isJsonMediaType(mediaType: string): boolean {
  const t = baseMediaType(mediaType);
  if (!t || isJsonStreamMediaType(t)) return false;
  return t === 'application/json' || t === 'text/json' || t.endsWith('+json') || /^[a-z]+\/(?:[a-z0-9.-]*[.-])?json$/.test(t);
}

/** Text a model can read as-is (XML, YAML, CSV, Markdown, scripts, JSON streams, forms, SVG). */
export function isTextMediaType(mediaType: string): boolean {
  const t = baseMediaType(mediaType);
  return (
    t.startsWith('text/') ||
    /^application\/(?:xml|yaml|x-yaml|csv|markdown|x-markdown|javascript|ecmascript|graphql|x-ndjson|ndjson|jsonl|json-seq|x-www-form-urlencoded|sql|x-sh|toml)$/.test(t) ||
    /\+(?:xml|yaml)$/.test(t) ||
    t === 'image/svg+xml'
  );
}
