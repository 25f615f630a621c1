// The text of the notes a shaped result carries: how many items were shown and the exact call for the rest, the
// page size chosen for the caller, and projection paths no item had. Kept short: a note is paid for in tokens too.
import type { Continuation } from './paging.ts';

const ARG = (next: Record<string, string | number>) => JSON.stringify(next);

export function cutNote(o: { tool: string; shown: number; total: number; budgetTokens: number; cont: Continuation; fieldsArg: string; fieldHint: string[] }): string {
  const parts = [`Showing ${o.shown} of ${o.total} items: the whole list is over the ~${o.budgetTokens}-token result budget.`];
  const { next, then, viaCursor } = o.cont;
  if (o.shown === 0) parts.push('Not even the first item fits.');
  else if (next && viaCursor) parts.push(`For the rest, call ${o.tool} again with the same arguments plus ${ARG(next)} (the same first ${o.shown} items) and continue with the ${viaCursor} that response gives.`);
  else if (next) parts.push(`For the rest, call ${o.tool} again with the same arguments plus ${ARG(next)}${then ? ` (then "${then}": ${Number(next[then]) + 1}, …)` : ''}.`);
  else parts.push(`This operation has no paging argument that continues after item ${o.shown}.`);
  parts.push(`To fit more items in one call, ask for fewer fields with ${o.fieldsArg}${o.fieldHint.length ? `, e.g. "${o.fieldHint.join(',')}"` : ''}.`);
  return parts.join(' ');
}

/** A full page of the size chosen for the caller: more may follow. */
export function fittedNote(o: { sizeArg: string; size: number; apiDefault?: number; budgetTokens: number; cont: Continuation }): string {
  let text = `${o.sizeArg}=${o.size} was chosen to fit the ~${o.budgetTokens}-token result budget${o.apiDefault !== undefined ? ` (the API's default is ${o.apiDefault})` : ''}; pass ${o.sizeArg} to choose.`;
  if (o.cont.viaCursor) text += ` More may follow: continue with the ${o.cont.viaCursor} this response gives.`;
  else if (o.cont.next) text += ` More may follow: add ${ARG(o.cont.next)}.`;
  return text;
}

export function missingFieldsNote(missing: string[], fields: string[]): string {
  return `No item has ${missing.join(', ')}.${fields.length ? ` Its fields are: ${fields.slice(0, 40).join(', ')}${fields.length > 40 ? ', …' : ''}.` : ''}`;
}

/** Up to `n` field names of an item to suggest for a projection: identifying and human fields first. */
export function fieldHint(item: unknown, n = 3): string[] {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return [];
  const keys = Object.keys(item).filter((k) => {
    const v = (item as Record<string, unknown>)[k];
    return v === null || typeof v !== 'object';
  });
  const preferred = ['id', 'uuid', 'number', 'key', 'name', 'full_name', 'title', 'subject', 'login', 'state', 'status'].filter((k) => keys.includes(k));
  return [...preferred, ...keys.filter((k) => !preferred.includes(k))].slice(0, n);
}

/** Nested API resources were shortened: which, and how to get more of them (kept short: it rides on many results). */
export function embeddedNote(paths: string[], fieldsArg: string, hint: string[]): string {
  const shown = paths.slice(0, 3).join(', ') + (paths.length > 3 ? ', …' : '');
  return `Shortened to identifying fields: ${shown}. More: ${fieldsArg}="${[...hint, paths[0]].join(',')}", or "*" for all.`;
}
