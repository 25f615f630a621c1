// What the fast paths (src/protocol/dispatch.ts) may answer without the SDK: a plain JSON-RPC request of one method,
// exactly as the real clients send it in one protocol era, and the exact headers and envelope of the SDK's answer
// in that era. Anything else (extra members, another version, progress tokens, a header that disagrees) is left to
// the SDK; what is answered is still proven against the SDK's own bytes before a fast path uses it.

export type Era = '2025' | '2026';

const LEGACY_VERSIONS = new Set(['2025-11-25', '2025-06-18', '2025-03-26']);
const MODERN_VERSION = '2026-07-28';
const META_PROTOCOL = 'io.modelcontextprotocol/protocolVersion';
const META_CLIENT = 'io.modelcontextprotocol/clientInfo';
const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const META_SERVER = 'io.modelcontextprotocol/serverInfo';

/** The SDK's response headers per era: SSE for the stateless 2025 era, JSON for 2026-07-28. */
export const ERA_HEADERS: Record<Era, Array<[string, string]>> = {
  '2025': [
    ['cache-control', 'no-cache, no-transform'],
    ['connection', 'keep-alive'],
    ['content-type', 'text/event-stream'],
    ['x-accel-buffering', 'no'],
  ],
  '2026': [['content-type', 'application/json']],
};

export const isObj = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

export interface PlainRequest {
  era: Era;
  /** The negotiated protocol version (proofs are kept per version). */
  version: string;
  id: string | number;
  /** The params without the 2026-07-28 per-request envelope (`_meta`). */
  params: Record<string, unknown>;
  /** 2026-07-28: the envelope's capabilities declare elicitation, so a call may be answered with a question instead. */
  canElicit?: boolean;
}

/** A plain `method` request in either era, or undefined (the SDK answers). */
export function plainRequest(req: Request, message: unknown, method: string): PlainRequest | undefined {
  if (req.method !== 'POST' || !isObj(message)) return undefined;
  if (message.jsonrpc !== '2.0' || message.method !== method) return undefined;
  const id = message.id;
  if (typeof id !== 'number' && typeof id !== 'string') return undefined;
  if (Object.keys(message).some((k) => k !== 'jsonrpc' && k !== 'id' && k !== 'method' && k !== 'params')) return undefined;
  const accept = req.headers.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!(req.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) return undefined;
  const version = req.headers.get('mcp-protocol-version') ?? '';
  const params = message.params ?? {};
  if (!isObj(params)) return undefined;
  if (LEGACY_VERSIONS.has(version)) {
    // Per-request headers and _meta (progress tokens, …) belong to requests the SDK answers itself.
    if (req.headers.has('mcp-method') || req.headers.has('mcp-name') || '_meta' in params) return undefined;
    return { era: '2025', version, id, params };
  }
  if (version === MODERN_VERSION) {
    if (req.headers.get('mcp-method') !== method) return undefined;
    const { _meta: meta, ...rest } = params;
    if (!isObj(meta) || Object.keys(meta).length !== 3 || meta[META_PROTOCOL] !== MODERN_VERSION || !isObj(meta[META_CAPS])) return undefined;
    const info = meta[META_CLIENT];
    if (!isObj(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return undefined;
    return { era: '2026', version, id, params: rest, canElicit: 'elicitation' in (meta[META_CAPS] as object) };
  }
  return undefined;
}

/** The SDK's JSON-RPC success envelope around a result's JSON, as bytes. */
export function envelope(era: Era, resultJson: string, id: string | number): string {
  const message = `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
  return era === '2025' ? `event: message\ndata: ${message}\n\n` : message;
}

export function sameHeaders(x: Headers, y: Headers): boolean {
  const norm = (h: Headers) => {
    const pairs: string[] = [];
    h.forEach((value, name) => pairs.push(`${name}: ${value}`));
    return pairs.sort().join('\n');
  };
  return norm(x) === norm(y);
}
