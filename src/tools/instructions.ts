// The server instructions of tools mode: what the endpoint serves, toolset by toolset with each one's purpose, how to
// reach the catalogue's other operations (other toolsets' paths, discovery and code mode, which search all of them),
// plus the profile view's warning when the slice is over the client's tool budget (?mode=tools). A client that
// defers loading tools (OpenAI's and Anthropic's tool search) may at first show its model only these instructions.
// Free of runtime dependencies, so the toolsnaps (scripts/catalog) write exactly what a client is served.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import { slicePart, type Slice } from '../catalogue/slices.ts';
import type { ProfileView } from '../profiles/view.ts';

/** Toolsets listed with their purpose; the rest of a large slice are named only. */
const LISTED_TOOLSETS = 16;
/** Other toolsets named in the pointer to them. */
const NAMED_OTHERS = 8;
const PURPOSE_CHARS = 110;

export function toolsInstructions(catalogue: LoadedCatalogue, slice: Slice, view: Pick<ProfileView, 'warning'>): string {
  const text = slicePart(slice, 'instructions', () => instructionsOf(catalogue, slice), (t) => 2 * t.length);
  return view.warning ? `${text}\n${view.warning}` : text;
}

function instructionsOf(catalogue: LoadedCatalogue, slice: Slice): string {
  const { source, toolsets } = catalogue.catalogue;
  // The toolsets asked for (the URL's, or the defaults of bare /mcp), else every toolset the slice's tools are in.
  const asked = slice.toolsets ? new Set(slice.toolsets) : undefined;
  const inSlice = new Map<string, number[]>();
  for (const i of slice.tools) {
    for (const s of catalogue.toolsetsOf(i)) if (!asked || asked.has(s)) (inSlice.get(s) ?? inSlice.set(s, []).get(s)!).push(i);
  }
  const names = [...inSlice.keys()].sort();
  const lines = [
    `Tools for ${source.title} (API version ${source.version}): ${slice.tools.length} operations of its REST API${names.length ? `, in ${names.length === 1 ? 'one toolset' : `${names.length} toolsets`}:` : '.'}`,
  ];
  for (const name of names.slice(0, LISTED_TOOLSETS)) {
    const description = Object.hasOwn(toolsets, name) ? toolsets[name]!.description : '';
    lines.push(`- ${name} (${inSlice.get(name)!.length}): ${purpose(description, inSlice.get(name)!.map((i) => catalogue.title(i)))}`);
  }
  if (names.length > LISTED_TOOLSETS) lines.push(`- and ${names.slice(LISTED_TOOLSETS).join(', ')}.`);
  lines.push('Each tool calls one HTTP operation; arguments are the operation\'s path, query, header and body parameters.');
  const rest = catalogue.count - slice.tools.length;
  if (rest > 0) {
    const others = Object.keys(toolsets)
      .filter((s) => !inSlice.has(s))
      .sort();
    const named = others.length ? ` (toolsets ${others.slice(0, NAMED_OTHERS).join(', ')}${others.length > NAMED_OTHERS ? `, and ${others.length - NAMED_OTHERS} more` : ''}: /mcp/x/<toolset>+<toolset> serves them)` : '';
    lines.push(
      `The catalogue has ${rest} more operations${named}. To search all of them instead of listing them: /mcp/discover (search_tools, describe_tool, call_tool) or /mcp/code (search, then execute a short program).`,
    );
  }
  return lines.join('\n');
}

/** A toolset's purpose in one line: its description's first sentence, or, for a generated one, titles of its tools. */
function purpose(description: string, titles: string[]): string {
  if (!description || /^(Operations tagged|Tools in) "/.test(description)) return clip(`e.g. ${[...new Set(titles)].slice(0, 3).join('; ')}.`);
  return clip(description.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s/)[0]!);
}

function clip(line: string): string {
  if (line.length <= PURPOSE_CHARS) return line;
  const cut = line.slice(0, PURPOSE_CHARS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), PURPOSE_CHARS / 2)).replace(/[\s,;:(-]+$/, '')}…`;
}
