// Tool, toolset and argument naming. All pure functions of the spec so names are stable.
import { createHash } from 'node:crypto';

export const TOOL_NAME_RE = /^[a-z][a-z0-9_]*$/;

export function shortHash(s: string, len = 6): string {
  return createHash('sha256').update(s).digest('hex').slice(0, len);
}

/** "repos/list-for-org" -> "repos_list_for_org", "GetAccountsAccount" -> "get_accounts_account". */
export function snake(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

export function toIdentifier(s: string, fallbackPrefix: string): string {
  let n = snake(s);
  if (!n) return fallbackPrefix;
  if (!/^[a-z]/.test(n)) n = `${fallbackPrefix}_${n}`;
  return n;
}

/** Shorten deterministically: a prefix plus a hash of the full name. */
export function fitName(name: string, max: number, hashOf = name): string {
  if (name.length <= max) return name;
  return `${prefixAtWord(name, max - 7)}_${shortHash(hashOf)}`;
}

/** At most `keep` chars of `name`, cut at a word (underscore) boundary when that keeps most of it. */
function prefixAtWord(name: string, keep: number): string {
  keep = Math.max(1, keep);
  if (name.length <= keep) return name.replace(/_+$/, '');
  let cut = name.slice(0, keep);
  if (name[keep] !== '_') {
    const u = cut.lastIndexOf('_');
    if (u >= keep * 0.6) cut = cut.slice(0, u);
  }
  return cut.replace(/_+$/, '');
}

export function baseToolName(operationId: string | undefined, method: string, path: string): string {
  if (operationId && snake(operationId)) return toIdentifier(operationId, 'op');
  const segs = path
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/^\{(.*)\}$/, 'by_$1'));
  return toIdentifier([method.toLowerCase(), ...segs].join('_'), 'op');
}

export interface NameCandidate {
  key: string; // "GET /path"
  operationId?: string;
  method: string;
  path: string;
}

/**
 * Assign unique names. Within a group of operations whose base names collide, the winner keeps the
 * plain name: operations with an operationId beat derived ones, then an operationId that is already
 * exactly the name, then the lexically smallest "METHOD path". The others get a hash of their
 * "METHOD path" as suffix, so names do not depend on which other operations exist unless they collide.
 */
export function assignToolNames(cands: NameCandidate[], max: number): Map<string, string> {
  const base = new Map<string, string>();
  for (const c of cands) base.set(c.key, fitName(baseToolName(c.operationId, c.method, c.path), max));
  const groups = new Map<string, NameCandidate[]>();
  for (const c of cands) {
    const b = base.get(c.key)!;
    const g = groups.get(b);
    if (g) g.push(c);
    else groups.set(b, [c]);
  }
  const out = new Map<string, string>();
  const taken = new Set<string>(groups.keys());
  const rank = (c: NameCandidate, b: string) => [c.operationId ? 0 : 1, c.operationId === b ? 0 : 1, c.key] as const;
  for (const [b, g] of [...groups.entries()].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))) {
    g.sort((x, y) => {
      const rx = rank(x, b);
      const ry = rank(y, b);
      for (let i = 0; i < 3; i++) if (rx[i] !== ry[i]) return rx[i]! < ry[i]! ? -1 : 1;
      return 0;
    });
    out.set(g[0]!.key, b);
    for (const c of g.slice(1)) {
      let n = '';
      for (let i = 0; ; i++) {
        const h = shortHash(i ? `${c.key}#${i}` : c.key);
        n = `${prefixAtWord(b, max - h.length - 1)}_${h}`;
        if (!taken.has(n)) break;
      }
      taken.add(n);
      out.set(c.key, n);
    }
  }
  return out;
}

/** Sanitise an argument (input property) name to ^[a-zA-Z0-9_.-]{1,64}$. "expand[]" -> "expand", "filter[name]" -> "filter_name". */
export function argName(wire: string): string {
  let n = wire.replace(/\[\]$/, '').replace(/[^a-zA-Z0-9_.-]+/g, '_').replace(/^_+(?=.)|_+$/g, '');
  if (!n) n = 'arg';
  if (n.length > 64) n = `${n.slice(0, 57)}_${shortHash(wire)}`;
  return n;
}
