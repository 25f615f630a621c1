// Shared subtrees stored once: the table of catalogue format 2 (src/catalogue/file-format.ts).
//
// Every object and array of the records is hash-consed: two subtrees with the same content (keys sorted) get the same
// node id, whether or not they are the same object. The generator's converter already shares schema objects per $ref,
// so this walks each distinct object once and never expands the DAG into per-tool trees (that expansion is what made
// the format-1 writer need 1.9 GB for Microsoft Graph).
//
// A subtree goes into the table when its JSON is at least `minChars` long and it would be written at least twice
// inline. Counting the writes, not the occurrences in the expanded trees, keeps the children of an interned subtree
// inline when the parent is their only user (they are written once, inside the parent's table line).
import { POSITIONAL_KEYWORDS, REF_KEY } from '../../src/catalogue/file-format.ts';

export interface InternedLines {
  /** Table lines (JSON with {"$t":n} references), numbered by first use in record order. */
  table: string[];
  /** One line per record, in the order given. */
  records: string[];
  /** The table entries each table line references directly. */
  tableRefs: number[][];
  /** The table entries each record line references directly. */
  recordRefs: number[][];
}

/** A child in the node store: a node id (object or array), or the JSON text of a scalar. */
type Child = number | string;

class NodeStore {
  readonly keys: (string[] | null)[] = [];
  readonly children: Child[][] = [];
  /** Length of the node's JSON when fully expanded. */
  readonly sizes: number[] = [];
  private readonly byContent = new Map<string, number>();
  private readonly byObject = new WeakMap<object, number>();

  /** The id of `value`'s content; scalars are returned as JSON text. */
  child(value: unknown, path: string): Child {
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
    const known = this.byObject.get(value);
    if (known !== undefined) return known;
    let id: number;
    if (Array.isArray(value)) id = this.array(value, path);
    else id = this.object(value as Record<string, unknown>, path);
    this.byObject.set(value, id);
    return id;
  }

  /** Children of a record (the record itself is never shared): sorted keys, values as children. */
  record(value: Record<string, unknown>, path: string): { keys: string[]; children: Child[] } {
    const keys = definedKeys(value, path);
    return { keys, children: keys.map((k) => this.child(value[k], `${path}.${k}`)) };
  }

  size(c: Child): number {
    return typeof c === 'number' ? this.sizes[c]! : c.length;
  }

  private object(value: Record<string, unknown>, path: string): number {
    const keys = definedKeys(value, path);
    const children = keys.map((k) => this.child(value[k], `${path}.${k}`));
    let content = '{';
    let size = 1;
    keys.forEach((k, i) => {
      const key = JSON.stringify(k);
      const c = children[i]!;
      content += `${i ? ',' : ''}${key}:${typeof c === 'number' ? `#${c}` : c}`;
      size += key.length + 1 + this.size(c) + (i ? 1 : 0);
    });
    return this.intern(`${content}}`, keys, children, size + 1);
  }

  private array(value: unknown[], path: string): number {
    const children = value.map((v, i) => this.child(v, `${path}[${i}]`));
    let content = '[';
    let size = 1;
    children.forEach((c, i) => {
      content += `${i ? ',' : ''}${typeof c === 'number' ? `#${c}` : c}`;
      size += this.size(c) + (i ? 1 : 0);
    });
    return this.intern(`${content}]`, null, children, size + 1);
  }

  private intern(content: string, keys: string[] | null, children: Child[], size: number): number {
    const hit = this.byContent.get(content);
    if (hit !== undefined) return hit;
    // Ids are handed out after the children's, so a parent's id is always larger than its children's.
    const id = this.sizes.length;
    this.keys.push(keys);
    this.children.push(children);
    this.sizes.push(size);
    this.byContent.set(content, id);
    return id;
  }
}

function definedKeys(value: Record<string, unknown>, path: string): string[] {
  const keys = Object.keys(value).filter((k) => value[k] !== undefined);
  if (keys.includes(REF_KEY)) throw new Error(`catalogue: ${path} has a key "${REF_KEY}", which catalogue format 2 reserves for table references`);
  return keys.sort();
}

/** Interns the records' shared subtrees and writes every table and record line. */
export function internRecords(records: Array<{ name: string; record: Record<string, unknown> }>, minChars: number): InternedLines {
  const store = new NodeStore();
  const roots = records.map(({ name, record }) => store.record(record, name));

  // How often each node would be written: parents first (larger ids), each passing on its own count, or 1 when the
  // parent itself goes into the table.
  const n = store.sizes.length;
  const writes = new Float64Array(n);
  for (const r of roots) for (const c of r.children) if (typeof c === 'number') writes[c]!++;
  const shared = new Uint8Array(n);
  for (let id = n - 1; id >= 0; id--) {
    shared[id] = store.sizes[id]! >= minChars && writes[id]! >= 2 ? 1 : 0;
    const times = shared[id] ? 1 : writes[id]!;
    for (const c of store.children[id]!) if (typeof c === 'number') writes[c]! += times;
  }

  const table: string[] = [];
  const tableRefs: number[][] = [];
  const entryOf = new Int32Array(n).fill(-1);
  const inline = new Map<number, { text: string; refs: number[] }>();

  const ref = (id: number, refs: number[]): string => {
    let no = entryOf[id]!;
    if (no < 0) {
      no = entryOf[id] = table.length;
      table.push('');
      tableRefs.push([]);
      const own: number[] = [];
      table[no] = body(id, own);
      tableRefs[no] = own;
      checkPositional(store, shared, id, no);
    }
    refs.push(no);
    return `{"${REF_KEY}":${no}}`;
  };
  const childText = (c: Child, refs: number[]): string => {
    if (typeof c === 'string') return c;
    if (shared[c]) return ref(c, refs);
    const cached = inline.get(c);
    if (cached) {
      refs.push(...cached.refs);
      return cached.text;
    }
    const own: number[] = [];
    const text = body(c, own);
    if (writes[c]! > 1) inline.set(c, { text, refs: own });
    refs.push(...own);
    return text;
  };
  const body = (id: number, refs: number[]): string => {
    const keys = store.keys[id];
    const children = store.children[id]!;
    if (!keys) return `[${children.map((c) => childText(c, refs)).join(',')}]`;
    return `{${keys.map((k, i) => `${JSON.stringify(k)}:${childText(children[i]!, refs)}`).join(',')}}`;
  };

  const recordRefs: number[][] = [];
  const lines = roots.map((r) => {
    const refs: number[] = [];
    const text = `{${r.keys.map((k, i) => `${JSON.stringify(k)}:${childText(r.children[i]!, refs)}`).join(',')}}`;
    recordRefs.push(refs);
    return text;
  });
  return { table: table.map(ascii), records: lines.map(ascii), tableRefs: tableRefs.map(unique), recordRefs: recordRefs.map(unique) };
}

/** A table entry is one object for every tool that uses it: nothing in it may depend on its position. */
function checkPositional(store: NodeStore, shared: Uint8Array, id: number, entry: number): void {
  const seen = new Set<number>();
  const walk = (node: number): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const keys = store.keys[node];
    store.children[node]!.forEach((c, i) => {
      if (keys && typeof c === 'string' && POSITIONAL_KEYWORDS.has(keys[i]!) && c.startsWith('"')) {
        throw new Error(`catalogue: shared subtree ${entry} has "${keys[i]}": ${c}; inline $ref/$id before writing the catalogue`);
      }
      // Nested table entries are checked as entries of their own.
      if (typeof c === 'number' && !shared[c]) walk(c);
    });
  };
  walk(id);
}

function unique(xs: number[]): number[] {
  return [...new Set(xs)].sort((a, b) => a - b);
}

/** JSON with every non-ASCII character escaped, so the text stays one byte per character. */
export function ascii(json: string): string {
  return json.replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
