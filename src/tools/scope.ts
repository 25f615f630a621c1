// The request scope: everything one MCP request may see and use, decided by the pipeline (src/pipeline) before
// any tool runs, and passed explicitly from there to every call it makes. The stdio server builds one per process.
// Plain data apart from the catalogue, the usage meter, the signal and the Worker's hooks, so a scope can be rebuilt
// elsewhere from a caller, a slice spec, a profile id and `meterFor` (src/usage/isolate.ts).
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Caller } from '../auth/bearer.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { Config } from '../config.ts';
import type { Profile } from '../profiles/profiles.ts';
import type { SchemaHealthReporter } from '../schema-health/health.ts';
import type { UsageMeter } from '../usage/isolate.ts';

/**
 * tools: the slice's own tools. discover: the three discovery meta-tools over the slice (src/discovery). hybrid: the
 * meta-tools plus the slice's most important tools, for a client whose tool budget the slice exceeds (an automatic
 * form of tools). code: search and execute over the slice (src/codemode).
 */
export type EndpointMode = 'tools' | 'discover' | 'hybrid' | 'code';

/**
 * The modes a URL asks for with ?mode= (or a route such as /mcp/code). Not hybrid: the pipeline turns tools mode into
 * it for a client over its tool budget, and ?mode=tools keeps the full list; code is never turned into it.
 */
export const URL_MODES: readonly EndpointMode[] = ['tools', 'discover', 'code'];

/** What code mode needs from the Worker beyond the scope's data (src/codemode/host.ts). Absent on stdio. */
export interface CodeModeHost {
  /** The served catalogue's declarations document (catalog/declarations.txt); empty when none was built. */
  declarations: string;
  /** Reads a static asset (ASSETS): where a sharded catalogue's declarations live, read on the first search. */
  readAsset?: (file: string) => Promise<string>;
  /** Runs a program in a fresh sandbox whose `api.<tool>()` calls run with this scope. Never throws. */
  execute(program: string, scope: RequestScope): Promise<CallToolResult>;
}

/**
 * What a 2026-07-28 tools/call carries beyond its name and arguments (src/tools/confirm.ts reads it): whether the
 * client can ask the person, and a retried call's answers with the state the server sealed. Absent for 2025-era
 * requests, which have no in-band input.
 */
export interface CallExchange {
  /** The request's `_meta` capabilities declare elicitation (form mode): the client can ask the person. */
  canElicit: boolean;
  /** A retry's answers, keyed as the server asked; untrusted client input. */
  inputResponses?: Record<string, unknown>;
  /** The state a retry echoes; untrusted until opened. */
  requestState?: string;
}

/** Records used confirmations, so each answers one call (src/tools/confirm-ledger.ts). */
export interface ConfirmLedger {
  /** True the first time `nonce` is presented before `expiresAt` (ms); false when it was used already. May throw. */
  consume(binding: string, nonce: string, expiresAt: number): Promise<boolean>;
}

export interface RequestScope {
  /** The catalogue as served: the runtime schema drop list applied (src/schema-health/drops.ts). */
  catalogue: LoadedCatalogue;
  config: Config;
  caller: Caller;
  /** The tools this request may see and call (URL slice ∩ key scope). */
  slice: Slice;
  /** The client's rules for tool lists and results (src/profiles). */
  profile: Profile;
  /** Which surface serves the request (src/protocol/mcp-server.ts); nothing below the surfaces reads it. */
  mode: EndpointMode;
  /** Aborts when the client goes away: every upstream call the request makes is cancelled with it. */
  signal?: AbortSignal;
  /**
   * Where tool calls report output-schema mismatches (towards the automatic drop) and sample the full schema
   * (src/schema-health). Set by the Worker's pipeline, which has the bindings; absent on stdio.
   */
  health?: SchemaHealthReporter;
  /** Set in code mode. */
  code?: CodeModeHost;
  /** Where each tool call is counted (src/usage); absent when metering is off or unbound (and in the stdio server). */
  meter?: UsageMeter;
  /** Set for one tools/call of the 2026-07-28 era (src/protocol/mcp-server.ts). */
  exchange?: CallExchange;
  /** Where used confirmations are recorded across isolates (the CONFIRM_LEDGER Durable Object); absent: per isolate. */
  confirmations?: ConfirmLedger;
}
