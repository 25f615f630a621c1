// The naming pass of a build on its own (docs/naming.md): every operation's tool name and title. The build uses it,
// and so does the name-quality check of the corpus (name-quality-corpus.ts), which needs no schemas.
import { nameTools, type NameAssignment, type NameCandidate } from './naming.ts';
import type { Operation } from './operations.ts';
import { toolTitle } from './titles.ts';

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** Name candidates of the operations, exactly as the build names them. */
export function nameCandidates(ops: Operation[]): NameCandidate[] {
  return ops.map((o) => ({
    key: o.key,
    operationId: text(o.op.operationId),
    method: o.method,
    path: o.path,
    tags: Array.isArray(o.op.tags) ? o.op.tags.filter((t: unknown) => typeof t === 'string') : [],
    summary: text(o.op.summary),
    description: text(o.op.description),
    hasBody: o.op.requestBody !== undefined,
  }));
}

export interface NamedOperations {
  naming: NameAssignment;
  /** "METHOD path" -> title. */
  titles: Map<string, string>;
}

export function nameOperations(ops: Operation[], maxName: number): NamedOperations {
  const naming = nameTools(nameCandidates(ops), maxName);
  const titles = new Map(ops.map((o) => [o.key, toolTitle(o.op, o.method, o.path, naming.derived.get(o.key))]));
  return { naming, titles };
}
