// The server instructions of tools mode: what the endpoint serves, plus the profile view's warning when the slice is
// over the client's tool budget (?mode=tools). Free of runtime dependencies, so the toolsnaps (scripts/catalog) write
// exactly what a client is served.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { Slice } from '../catalogue/slices.ts';
import type { ProfileView } from '../profiles/view.ts';

export function toolsInstructions(catalogue: LoadedCatalogue, slice: Slice, view: Pick<ProfileView, 'warning'>): string {
  const { source } = catalogue.catalogue;
  const text = `Tools for ${source.title} (API version ${source.version}): ${slice.tools.length} operations of its REST API. Each tool calls one HTTP operation; arguments are the operation's path, query, header and body parameters.`;
  return view.warning ? `${text}\n${view.warning}` : text;
}
