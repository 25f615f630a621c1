// The request scope: everything one MCP request may see and use, decided by the pipeline (src/pipeline) before
// any tool runs. The stdio server builds one per process. Plain data apart from the catalogue and the usage meter,
// so a scope can be rebuilt elsewhere from a caller, a slice spec, a profile id and `meterFor` (src/usage/isolate.ts).
import type { Caller } from '../auth/bearer.ts';
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { Config } from '../config.ts';
import type { Profile } from '../profiles/profiles.ts';
import type { UsageMeter } from '../usage/isolate.ts';

/** tools: the slice's own tools. discover: the three discovery meta-tools over the slice (src/discovery). */
export type EndpointMode = 'tools' | 'discover';

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
  /** Where each tool call is counted (src/usage); absent when metering is off or unbound (and in the stdio server). */
  meter?: UsageMeter;
}
