// Why a catalogue tool cannot be called in this request, in words a model (and the person behind it) can act on.
// The catalogue is public (the page at / lists every tool), so a refusal names the scope that refused the call
// rather than pretending the tool does not exist: the key's toolsets, tools and read-only flag, or the URL's slice.
import { sliceOf, type SliceSpec } from '../catalogue/slices.ts';
import { log } from '../lib/log.ts';
import { errorResult } from '../lib/tool-result.ts';
import type { ToolAnswer } from './call.ts';
import type { RequestScope } from './scope.ts';

/** Where the refusal is read, for the hint on what to do instead. */
export type RefusalSurface = 'tools' | 'discover' | 'code';

const FIND: Record<RefusalSurface, string> = {
  tools: 'Use one of the listed tools instead.',
  discover: 'Use search_tools to find an operation you can call.',
  code: 'Use search to find the operations you can call.',
};

/**
 * The refusal text when `name` is a catalogue tool (or alias) outside this request's slice; undefined when the
 * slice has it, or when no catalogue tool has that name (an unknown name, answered as such by the caller).
 */
export function scopeRefusal(scope: RequestScope, name: string, surface: RefusalSurface): string | undefined {
  const { catalogue, slice, caller } = scope;
  const i = catalogue.indexOf(name);
  if (i === undefined || slice.has(i)) return undefined;
  const tool = catalogue.name(i);
  const writes = !catalogue.readOnly(i);
  const key = caller.scope;
  if (!sliceOf(catalogue, key).has(i)) {
    const scopeText = describeScope(key);
    // Only the read-only flag stands in the way: say so, since a read operation may do what the model wanted.
    if (key.readOnly && writes && sliceOf(catalogue, { ...key, readOnly: false }).has(i)) {
      return `${tool} changes data, and this key is read-only (its scope: ${scopeText}). Only operations that change nothing can be called with it; ${FIND[surface].replace(/^Use/, 'use')}`;
    }
    return `${tool} is not available with this key: its scope is ${scopeText}. ${FIND[surface]} A wider scope needs another key from the API's operator.`;
  }
  // The key allows it; the URL narrowed the endpoint.
  if (slice.readOnly && writes) {
    return `${tool} changes data, and this endpoint is read-only (?readonly=1 in its URL). Only operations that change nothing can be called here; connect without ?readonly=1 to call it.`;
  }
  const home = catalogue.toolsetsOf(i);
  const where = slice.toolsets?.length ? `the toolsets ${slice.toolsets.join(', ')}` : 'the tools its URL names';
  return `${tool} is outside this endpoint, which serves ${where}. ${FIND[surface]}${home.length ? ` It belongs to the toolset ${home[0]}.` : ''}`;
}

/**
 * A call of a catalogue tool outside this scope: the refusal's text, logged as one tool_call line and counted in usage
 * as out_of_scope (no latency, no bytes: nothing ran). Undefined when no catalogue tool has the name.
 */
export function refusedCall(scope: RequestScope, name: string, surface: RefusalSurface): string | undefined {
  const text = scopeRefusal(scope, name, surface);
  if (text === undefined) return undefined;
  const tool = scope.catalogue.name(scope.catalogue.indexOf(name)!);
  log('tool_call', { tool, caller: scope.caller.id, outcome: 'out_of_scope', isError: true });
  scope.meter?.({ keyId: scope.caller.id, tool, outcome: 'out_of_scope' });
  return text;
}

/** refusedCall as a tools/call answer: an isError result, with no outputSchema to shape it to. */
export function refusedAnswer(scope: RequestScope, name: string, surface: RefusalSurface): Promise<ToolAnswer> | undefined {
  const text = refusedCall(scope, name, surface);
  return text === undefined ? undefined : Promise.resolve({ result: errorResult(text) });
}

/** "toolsets repos_core, pulls; read-only", "tools repos_get, repos_list_for_org", or "every tool; read-only". */
export function describeScope(spec: SliceSpec): string {
  const parts: string[] = [];
  const toolsets = spec.toolsets?.filter((t) => t !== 'all');
  if (toolsets?.length) parts.push(`toolsets ${toolsets.join(', ')}`);
  if (spec.tools?.length) parts.push(`tools ${spec.tools.slice(0, 8).join(', ')}${spec.tools.length > 8 ? ` and ${spec.tools.length - 8} more` : ''}`);
  if (!parts.length) parts.push('every tool');
  return parts.join(' and ') + (spec.readOnly ? ', read-only' : '');
}

/** For the server instructions: the key's scope when it has one ("" for a key that may use every tool). */
export function keyScopeNote(scope: RequestScope): string {
  const key = scope.caller.scope;
  if (!key.toolsets?.filter((t) => t !== 'all').length && !key.tools?.length && !key.readOnly) return '';
  return `\nThis key's scope is ${describeScope(key)}: calls of other tools are refused, saying so.`;
}
