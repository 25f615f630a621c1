// A tool's MCP annotations from its operation (docs/confirmation.md, "Which tools are destructive"). The HTTP method
// says what an operation may do; its own words say what it does (effects.ts), and decide where the method cannot:
//   GET, HEAD, OPTIONS   read-only, unless its summary opens by removing, ending or acting as someone
//   DELETE               destructive, always
//   PUT, PATCH           destructive unless its words only add or flip a state ("Star", "Lock", "Add a member");
//                        destructive when nothing says
//   POST                 not destructive unless its words remove, end, overwrite or act as someone ("Cancel",
//                        "Revoke", "Reset", "Impersonate", "Update" on Stripe-style APIs); not when nothing says
// What is read, strongest first: an explicit MCP hint in the spec (`x-speakeasy-mcp`), an action-valued vendor
// extension (`x-kubernetes-action: patch`, `x-linode-cli-action`), the title and summary's leading verbs (else the
// path's action segment, `/cancel`), a scope named for deleting (`x-atlassian-connect-scope: DELETE`), and a
// description that says the effect is permanent. catalog/overrides.json sets any hint per tool after all of this.
import type { CatalogueTool } from '../../src/catalogue/types.ts';
import { isObj } from '../lib/is-object.ts';
import { DESTRUCTIVE, effectOfVerbs, identifierWords, knownVerb, leadingVerbs, verbEffect, worse, type Effect } from './effects.ts';
import type { Operation } from './operations.ts';
import { wordnet, type WordNet } from './wordnet.ts';

export type Annotations = CatalogueTool['annotations'];
type Hint = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';
const HINTS: Hint[] = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

export interface Annotated {
  annotations: Annotations;
  /** What the operation does to what exists, as read; undefined when nothing said (the method decided). */
  effect?: Effect;
  /** What decided destructiveHint, for the build report: "verb delete", "method PUT", "x-speakeasy-mcp" … */
  basis: string;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
/** Writes HTTP makes idempotent (the hint means nothing for a read, and reads keep it false). */
const IDEMPOTENT_METHODS = new Set(['PUT', 'DELETE']);
/** What a description says when the effect cannot be taken back. */
const PERMANENT = /\b(?:can ?not|can't|cannot) be (?:undone|reversed|recovered|restored)|\birreversibl[ey]\b|\bpermanently (?:delete|remove|destroy|erase|purge)|\bis permanent\b/i;

export function annotate(o: Operation, title: string, wn: WordNet | null = wordnet()): Annotated {
  const method = o.method.toUpperCase();
  const op = o.op;
  const said = effectSaid(o, title, wn);
  let { effect } = said;
  let basis = said.basis;
  const summaryEffect = typeof op.summary === 'string' ? effectOfVerbs(leadingVerbs(op.summary, wn), wn) : undefined;

  let readOnly = READ_METHODS.has(method);
  let destructive: boolean;
  if (readOnly) {
    // A read that its own summary says removes, ends or acts as someone ("GET /logout", "GET …/delete").
    destructive = summaryEffect === 'remove' || summaryEffect === 'end' || summaryEffect === 'act_as';
    if (destructive) [readOnly, effect, basis] = [false, summaryEffect, `summary of a ${method}`];
  } else if (method === 'DELETE') {
    destructive = true;
    basis = 'method DELETE';
  } else {
    if (!(effect && DESTRUCTIVE.has(effect)) && PERMANENT.test(`${op.summary ?? ''} ${String(op.description ?? '').slice(0, 2000)}`)) {
      [effect, basis] = ['remove', 'description: permanent'];
    }
    destructive = effect ? DESTRUCTIVE.has(effect) : method !== 'POST';
    if (!effect) basis = `method ${method}`;
  }
  const annotations: Annotations = {
    title,
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: !readOnly && IDEMPOTENT_METHODS.has(method),
    openWorldHint: true,
  };
  const explicit = explicitHints(op);
  if (explicit) {
    for (const h of HINTS) if (explicit[h] !== undefined) annotations[h] = explicit[h]!;
    // A read-only tool destroys nothing, whatever else was said.
    if (annotations.readOnlyHint) annotations.destructiveHint = false;
    basis = 'x-speakeasy-mcp';
  }
  return { annotations, ...(effect ? { effect } : {}), basis };
}

/** The effect the operation's own words and extensions say, strongest source first. */
function effectSaid(o: Operation, title: string, wn: WordNet | null): { effect?: Effect; basis: string } {
  const op = o.op;
  const action = actionExtension(op);
  if (action) return action;
  const verbs = leadingVerbs(title, wn);
  if (typeof op.summary === 'string') verbs.push(...leadingVerbs(op.summary, wn));
  // The path's action (`/cancel`) when the words say none: a title that has a verb already took it from there, and
  // a segment beside a verb is a noun ("Create a remove token" on `/remove-token`).
  const segment = verbs.length ? undefined : pathAction(o.path);
  if (segment) verbs.push(segment);
  let effect = effectOfVerbs(verbs, wn);
  let basis = effect ? `verb ${verbs.find((v) => verbEffect(v, wn) === effect)}` : '';
  if (scopeSaysDelete(op)) [effect, basis] = [worse(effect, 'remove'), 'scope names deleting'];
  return effect ? { effect, basis } : { basis };
}

/**
 * A vendor extension naming the operation's action (`x-kubernetes-action: deletecollection`,
 * `x-linode-cli-action: rebuild`, `x-client-action: update`): generators label CRUD precisely there.
 */
function actionExtension(op: Record<string, unknown>): { effect: Effect; basis: string } | undefined {
  for (const [k, v] of Object.entries(op).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!/^x-.*-action$/i.test(k) || typeof v !== 'string') continue;
    const verb = firstVerb(identifierWords(v));
    const effect = verb ? verbEffect(verb, null) : undefined;
    if (effect) return { effect, basis: `${k}: ${v}` };
  }
  return undefined;
}

/** The path's last static segment when it names an action: `/cancel`, `/lifecycle/reset_password`, `/archiveAllCards`. */
function pathAction(path: string): string | undefined {
  const segs = path.split('/').filter(Boolean);
  const last = segs[segs.length - 1];
  if (!last || last.startsWith('{') || /^v\d/.test(last)) return undefined;
  return firstVerb(identifierWords(last).slice(0, 1));
}

/** The first word that is a verb the lexicon knows, or begins with one ("deletecollection"). */
function firstVerb(words: string[]): string | undefined {
  for (const w of words) {
    if (knownVerb(w)) return w;
    for (let n = w.length - 1; n >= 4; n--) if (knownVerb(w.slice(0, n))) return w.slice(0, n);
  }
  return undefined;
}

/** An authorization scope the operation requires that is named for deleting (`DELETE`, `delete_repo`). */
function scopeSaysDelete(op: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(op)) {
    if (!/^x-.*(scope|grant|permission)/i.test(k)) continue;
    const values = (Array.isArray(v) ? v : [v]).filter((s): s is string => typeof s === 'string');
    if (values.some((s) => identifierWords(s).some((w) => verbEffect(w, null) === 'remove'))) return true;
  }
  return false;
}

/** MCP hints the spec states itself: Speakeasy's `x-speakeasy-mcp` carries them flat or under `annotations`. */
function explicitHints(op: Record<string, unknown>): Partial<Record<Hint, boolean>> | undefined {
  const x = op['x-speakeasy-mcp'];
  if (!isObj(x)) return undefined;
  const out: Partial<Record<Hint, boolean>> = {};
  for (const source of [x, isObj(x.annotations) ? x.annotations : {}]) for (const h of HINTS) if (typeof source[h] === 'boolean') out[h] = source[h] as boolean;
  return Object.keys(out).length ? out : undefined;
}
