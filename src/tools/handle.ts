// A tool resolved once per call into everything the call needs: the tool, the outputSchema the client was shown, the
// result options, how its arguments arrive, and the request's AbortSignal. The surfaces build handles (they know
// what they listed); callTool and everything below it read the handle and never the endpoint mode.
import type { CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import { resultOptions } from '../results/options.ts';
import type { UpstreamTarget } from '../upstream/upstream-call.ts';
import type { RequestScope } from './scope.ts';
import { cutQuote } from '../lib/cut-quote.ts';

export interface ToolHandle extends UpstreamTarget {
  /** Arguments arrive in OpenAI strict form (null = absent, JSON strings and pairs), mapped back before validation. */
  strictArguments: boolean;
  /**
   * The tool was listed with `outputSchema`: its result goes through the era's wire shaping against it. False for a
   * result passed through as another tool's (discovery's call_tool) or consumed by a program (code mode).
   */
  listed: boolean;
  /**
   * The call can answer "input required" and be retried (a tools/call or call_tool). False for code mode's api calls:
   * a program cannot stop to ask the person, so a call that needs confirmation is refused there (src/tools/confirm.ts).
   */
  confirmable: boolean;
}

/** The name is not a tool of this scope: unknown, or outside the slice or the key's scope (refused alike). */
export class UnknownToolError extends Error {
  constructor(toolName: string) {
    super(`Unknown tool: ${cutQuote(toolName)}`);
  }
}

/**
 * Runs `use` with the tool `name` (a catalogue name or alias) denotes in this scope; undefined when it denotes none.
 * A catalogue in one text has every tool at hand, so `use` runs at once: nothing waits between the request and the
 * upstream call. A sharded catalogue fetches the tool's shard first.
 */
export function usingTool<T>(scope: RequestScope, name: string, use: (tool: CatalogueTool, index: number) => Promise<T>): Promise<T> | undefined {
  const index = scope.catalogue.indexOf(name);
  if (index === undefined || !scope.slice.has(index)) return undefined;
  if (!scope.catalogue.sharded) return use(scope.catalogue.tool(index), index);
  return scope.catalogue.load([index]).then(() => use(scope.catalogue.tool(index), index));
}

/** The tool `name` (a catalogue name or alias; every profile lists the catalogue's names) denotes in this scope. */
export async function resolveTool(scope: RequestScope, name: string): Promise<{ index: number; tool: CatalogueTool } | undefined> {
  const index = scope.catalogue.indexOf(name);
  if (index === undefined || !scope.slice.has(index)) return undefined;
  // A sharded catalogue fetches the tool's shard first; a catalogue in one text has every tool at hand.
  if (scope.catalogue.sharded) await scope.catalogue.load([index]);
  return { index, tool: scope.catalogue.tool(index) };
}

/**
 * The handle of a tool a typed surface serves: results shaped to `outputSchema` (what the client was shown for it)
 * with the deployment's result options, arguments in the profile's form, cancelled with the request. `listed`: the
 * listing showed it (see ToolHandle).
 */
export function typedHandle(scope: RequestScope, tool: CatalogueTool, outputSchema: JsonSchema | undefined, listed: boolean): ToolHandle {
  const { config } = scope;
  return {
    tool,
    outputSchema,
    results: resultOptions(scope.catalogue.catalogue, config.upstreamUrl, config.compactResults),
    strictArguments: scope.profile.dialect === 'strict',
    listed,
    confirmable: true,
    ...(scope.signal ? { signal: scope.signal } : {}),
  };
}
