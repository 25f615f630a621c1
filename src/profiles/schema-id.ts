// A content-derived `$id` for every listed outputSchema. The SDK clients (v1 and v2) key their Ajv cache by `$id`
// (`getSchema($id) ?? compile(schema)`), so tools whose outputSchemas are identical (GitHub: 926 schemas, about 460
// distinct) are compiled once per client instead of once per tool. The id names only the content, so it means the
// same schema in every isolate, profile and deploy; it is a `urn:` with a namespace, which every client's URI parser
// takes (a bare `urn:x` fails Ajv). @noble/hashes because the digest is needed synchronously while a listing is built,
// and Web Crypto's is async.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { JsonSchema } from '../catalogue/types.ts';

export const OUTPUT_ID_PREFIX = 'urn:mcp-catalogue:output:';

/** The schema with `$id` first: the prefix and the first 128 bits of the SHA-256 of its JSON (without any `$id`). */
export function withContentId(schema: JsonSchema): JsonSchema {
  const { $id: _previous, ...rest } = schema;
  const digest = bytesToHex(sha256(utf8ToBytes(JSON.stringify(rest)))).slice(0, 32);
  return { $id: `${OUTPUT_ID_PREFIX}${digest}`, ...rest };
}
