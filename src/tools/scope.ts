// The request scope: everything one MCP request may see and use, decided by the pipeline (src/pipeline) before
// any tool runs. The stdio server builds one per process. Plain data apart from the catalogue, so a scope can be
// rebuilt elsewhere from a caller, a slice spec and a profile id.
import type { Caller } from '../auth/bearer.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { Config } from '../config.ts';
import type { Profile } from '../profiles/profiles.ts';

/**
 * tools: the slice's own tools. discover: the three discovery meta-tools over the slice (src/discovery). hybrid: the
 * meta-tools plus the slice's most important tools, for a client whose tool budget the slice exceeds.
 */
export type EndpointMode = 'tools' | 'discover' | 'hybrid';

export interface RequestScope {
  /** The catalogue as served: the runtime schema drop list applied (src/catalogue/schema-drops.ts). */
  catalogue: LoadedCatalogue;
  config: Config;
  caller: Caller;
  /** The tools this request may see and call (URL slice ∩ key scope). */
  slice: Slice;
  /** The client's rules for tool lists and results (src/profiles). */
  profile: Profile;
  mode: EndpointMode;
  /**
   * Counts a tool's output-schema mismatch towards its automatic drop (src/catalogue/schema-autodrop.ts). Set by the
   * Worker's pipeline, which has the bindings; absent where there is no drop list (stdio).
   */
  reportSchemaMismatch?: (tool: string, errors: readonly string[]) => Promise<void>;
}
