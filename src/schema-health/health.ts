// Schema health of one served catalogue in one isolate: which outputSchemas the live API keeps to, and what is done
// when it does not. One object holds all of it (no module-level state): the runtime drop list as this isolate applies
// it (drops.ts), the automatic drop's fallback windows (autodrop.ts), the per-tool counts of responses that failed the
// schema the client was shown, and the sampled full-schema check's counts (sampling.ts). The app creates it once
// (src/app.ts) and hands it to the MCP pipeline, whose requests report through `reporter`, and to
// /admin/schema-health, which reads it.
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { CatalogueTool } from '../catalogue/types.ts';
import type { Env } from '../config.ts';
import { noteSchemaMismatch } from './autodrop.ts';
import { currentDrops, newDropState, withSchemaDrops, type DropState } from './drops.ts';
import type { Mismatch } from './mismatch-window.ts';
import { sampleFullSchema } from './sampling.ts';

/** What one request's tool calls report (RequestScope.health). */
export interface SchemaHealthReporter {
  /** A response failed the schema its client was shown: counted, and towards the automatic drop. Returns the tool's count. */
  mismatch(tool: string, errors: readonly string[]): Promise<number>;
  /** A result that passed `checked` (the schema the client was shown): sometimes also checked against the full one. */
  sample(tool: CatalogueTool, checked: unknown, result: CallToolResult): void;
}

export class SchemaHealth {
  readonly loaded: LoadedCatalogue;
  /** Per tool: upstream responses that failed the outputSchema their client was shown, since the isolate started. */
  readonly mismatches = new Map<string, number>();
  /** Per tool: calls seen and full-schema differences found by the sampled check. */
  readonly samples = { calls: new Map<string, number>(), drift: new Map<string, number>() };
  /** The runtime drop list as this isolate applies it, and the served view built from it. */
  readonly drops: DropState = newDropState();
  /** The automatic drop's per-isolate windows, when no counter Durable Object is bound. */
  readonly windows = new Map<string, Mismatch[]>();

  constructor(loaded: LoadedCatalogue) {
    this.loaded = loaded;
  }

  /** The catalogue as this isolate serves it: the drop list applied (re-read from KV after its TTL). */
  served(env: Env | undefined): Promise<LoadedCatalogue> {
    return withSchemaDrops(this.loaded, this.drops, env);
  }

  /** The drop list as this isolate sees it now (re-read after its TTL). */
  current(env: Env | undefined): Promise<DropState> {
    return currentDrops(this.drops, env);
  }

  /** How the tool calls of a request with these bindings report. */
  reporter(env: Env | undefined): SchemaHealthReporter {
    return {
      mismatch: async (tool, errors) => {
        const n = (this.mismatches.get(tool) ?? 0) + 1;
        this.mismatches.set(tool, n);
        await noteSchemaMismatch(this, env, tool, errors);
        return n;
      },
      sample: (tool, checked, result) => sampleFullSchema(this.samples, tool, checked, result),
    };
  }
}
