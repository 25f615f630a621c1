// The catalogue page at `/`: server-rendered HTML, rendered once per isolate per origin and cached.
// The tool list carries only names, titles and flags; each tool's schemas come from
// /catalogue/tools/<name>.json when its row is opened, so the page stays small at 1,000+ tools.
// Shows nothing secret: no keys, no upstream URL, no configuration beyond the credential mode.
import type { LoadedCatalogue } from '../catalogue/loaded-catalogue.ts';
import type { CatalogueSecurity, CatalogueTool, JsonSchema } from '../catalogue/types.ts';
import type { ResultCatalogue } from '../results/options.ts';
import { isJsonMediaType } from '../lib/media-type.ts';
import { VERSION } from '../version.ts';
import { esc } from './escape.ts';
import { markdownToHtml } from './markdown.ts';
import { resultSummary } from './result-summary.ts';
import { PAGE_SCRIPT } from './script.ts';
import { KEY_PLACEHOLDER, snippets } from './snippets.ts';
import { toolAuth, upstreamAuthSection, type SchemeStatuses } from './upstream-auth.ts';

interface PageInput {
  /** Scheme + host of the request, e.g. https://mcp.example.com. */
  origin: string;
  /** The worker's CREDENTIAL_MODE; only `passthrough` changes what the page says about keys. */
  credentialMode: string;
  /** COMPACT_RESULTS (default on). */
  compactResults?: boolean;
  /** Whether the OAuth front door is on: connectors then sign in with a key on the consent page. */
  oauth?: boolean;
  /** Each upstream security scheme's status on this deployment (src/page/upstream-auth.ts); absent without schemes. */
  schemes?: SchemeStatuses;
}

interface OutputStatus {
  on: boolean;
  reason: string;
}

function outputStatus(tool: CatalogueTool): OutputStatus {
  if (tool.outputSchema) {
    return {
      on: true,
      reason: tool.outputWrapped
        ? 'the API answers with JSON that is not an object, so structuredContent is {"result": …}'
        : 'results carry structuredContent matching this schema, plus the same JSON as text',
    };
  }
  if (tool.outputSchemaDropped) return { on: false, reason: tool.outputSchemaDropped };
  const accept = tool.http.accept;
  if (!accept.length) return { on: false, reason: 'the operation returns no content' };
  if (!accept.some(isJsonMediaType)) return { on: false, reason: `the operation returns ${accept.join(', ')}, not JSON` };
  return { on: false, reason: 'the spec declares no usable schema for the JSON response' };
}

/** What /catalogue/tools/<name>.json serves: the public description of one tool. */
export function toolDetail(tool: CatalogueTool, catalogue?: ResultCatalogue & { security?: CatalogueSecurity }, compactResults = true, schemes?: SchemeStatuses): Record<string, unknown> {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    /** The description's safe Markdown subset as HTML (src/page/markdown.ts), which the page shows. */
    descriptionHtml: markdownToHtml(tool.description ?? ''),
    toolsets: tool.toolsets,
    annotations: tool.annotations,
    aliases: tool.aliases ?? [],
    http: { method: tool.http.method, path: tool.http.path },
    inputSchema: tool.inputSchema,
    outputSchema: (tool.outputSchema ?? null) as JsonSchema | null,
    output: outputStatus(tool),
    result: catalogue ? resultSummary(tool, catalogue, compactResults) : null,
    /** Which upstream credential the tool needs, and whether this deployment has it; null for a spec without schemes. */
    auth: toolAuth(tool, catalogue?.security, schemes),
  };
}

const RESULTS_NOTE = (compact: boolean) =>
  `<p>JSON results are ${compact ? '<b>compacted</b>: null values, empty values and links back into the API are left out' : '<b>not compacted</b> on this deployment'}. Every tool with a JSON result takes a projection argument, <code>_fields</code> unless the API has a parameter of that name (for example <code>"_fields": "number,title,user.login"</code>), to return only those fields, or <code>"*"</code> for the full result. A list over the result budget returns the whole items that fit and says how to get the rest. Open a tool to see its rules.</p>`;


/**
 * The first read-only tool of the default toolsets (what bare /mcp lists) whose arguments are all optional: a call
 * the SDK snippet can make as it stands. Undefined for a sharded catalogue, whose schemas are not loaded here.
 */
function argumentFreeReader(loaded: LoadedCatalogue): string | undefined {
  if (loaded.sharded) return undefined;
  const defaults = new Set(loaded.catalogue.defaultToolsets ?? []);
  for (let i = 0; i < loaded.count; i++) {
    if (!loaded.readOnly(i) || (defaults.size && !loaded.toolsetsOf(i).some((s) => defaults.has(s)))) continue;
    const required = loaded.tool(i).inputSchema.required;
    if (!Array.isArray(required) || !required.length) return loaded.name(i);
  }
  return undefined;
}

export function renderPage(loaded: LoadedCatalogue, input: PageInput, hash: string): string {
  const { catalogue } = loaded;
  const endpoint = `${input.origin}/mcp`;
  // Index data only (names, titles, toolsets, flags): the page never materialises a tool's schemas.
  const tools = Array.from({ length: loaded.count }, (_, i) => i);
  const withOutput = tools.filter((i) => loaded.hasOutputSchema(i)).length;
  const counts = new Map<string, number>();
  for (const i of tools) for (const s of loaded.toolsetsOf(i)) counts.set(s, (counts.get(s) ?? 0) + 1);
  const setNames = Object.keys(catalogue.toolsets);
  const defaults = catalogue.defaultToolsets ?? [];
  const atBare = defaults.length ? tools.filter((i) => loaded.toolsetsOf(i).some((s) => defaults.includes(s))).length : tools.length;

  const keyNote =
    input.credentialMode === 'passthrough'
      ? `This deployment forwards your bearer token to the API: replace <code>${KEY_PLACEHOLDER}</code> with your own ${esc(catalogue.source.title)} token.`
      : `Replace <code>${KEY_PLACEHOLDER}</code> with the API key you were given. Keys are never shown on this page.`;

  const snippetHtml = snippets(endpoint, undefined, { oauth: Boolean(input.oauth), exampleTool: argumentFreeReader(loaded) })
    .map(
      (s, i) =>
        `<details class="snip"${i === 0 ? ' open' : ''}><summary>${esc(s.client)}</summary>` +
        `<p class="where">${esc(s.where)}</p><div class="code"><button type="button" data-copy="${esc(s.id)}">Copy</button>` +
        `<pre data-snippet="${esc(s.id)}">${esc(s.text)}</pre></div>` +
        (s.note ? `<p class="note">${esc(s.note)}</p>` : '') +
        `</details>`,
    )
    .join('');

  const setRows = setNames
    .map((n) => {
      const d = catalogue.toolsets[n]!.description;
      return `<tr><td><a href="#search" data-set="${esc(n)}">${esc(n)}</a></td><td class="n">${counts.get(n) ?? 0}</td><td>${esc(d)}</td><td><code>${esc(`${endpoint}/x/${n}`)}</code></td></tr>`;
    })
    .join('');

  // One compact row per tool; flags: r = read-only, d = destructive, o = has outputSchema.
  const toolRows = tools
    .map((i) => {
      const name = loaded.name(i);
      const flags =
        (loaded.readOnly(i) ? '<i class="r">read-only</i>' : loaded.destructive(i) ? '<i class="d">destructive</i>' : '') +
        (loaded.hasOutputSchema(i) ? '<i class="o">output</i>' : '');
      const t = loaded.title(i);
      const title = t && t !== name ? ` ${esc(t)}` : '';
      return `<li data-t="${esc(loaded.toolsetsOf(i).join(' '))}"><details><summary><code>${esc(name)}</code>${title}${flags}</summary></details></li>`;
    })
    .join('\n');

  const title = esc(catalogue.source.title);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} — MCP tools</title><meta name="robots" content="noindex"><link rel="icon" href="data:,">
<style>${CSS}</style></head>
<body><header><h1>${title}</h1>
<p>MCP server: <b>${tools.length}</b> tools in <b>${setNames.length}</b> toolsets · API version ${esc(catalogue.source.version)} · catalogue <code>${esc(hash.slice(0, 12))}</code> · server ${esc(VERSION)}</p></header>
<main>
<section id="connect"><h2>Connect your client</h2>
<p>Endpoint: <code class="endpoint">${esc(endpoint)}</code> (Streamable HTTP, header <code>Authorization: Bearer …</code>). ${keyNote}</p>
<p>${defaults.length ? `<code>${esc(endpoint)}</code> serves the <b>${atBare}</b> tools of the default toolsets (${defaults.map((d) => `<code>${esc(d)}</code>`).join(', ')}); <code>${esc(endpoint)}/x/all</code> serves all ${tools.length}.` : `<code>${esc(endpoint)}</code> serves all <b>${tools.length}</b> tools.`} Clients with a tool limit (Cursor about 40, VS Code and OpenAI 128) get a shorter list that still reaches every tool.</p>
<p>Serve fewer tools with a slice: <code>${esc(endpoint)}/x/&lt;toolset&gt;+&lt;toolset&gt;</code>, <code>?tools=a,b</code>, <code>?readonly=1</code>.</p>
<p>Or the whole API in a few tools: <code>${esc(endpoint)}/discover</code> (discovery: <code>search_tools</code>, <code>describe_tool</code>, <code>call_tool</code>), or <code>${esc(endpoint)}/code</code> (code mode: the model writes a short program that calls the API's operations in a sandbox).</p>
${snippetHtml}
</section>
<section id="output"><h2>Structured output</h2>
<p><b>${withOutput}</b> of ${tools.length} tools declare an <code>outputSchema</code> (marked <i class="o">output</i>): their results carry <code>structuredContent</code> that matches it, plus the same JSON as text. The others return content blocks only; open a tool to see why.</p>
${withOutput > 0 ? RESULTS_NOTE(input.compactResults !== false) : ''}</section>
${upstreamAuthSection(catalogue.security, input.schemes)}
<section id="toolsets"><h2>Toolsets</h2><table><thead><tr><th>Toolset</th><th>Tools</th><th>About</th><th>Slice endpoint</th></tr></thead><tbody>${setRows}</tbody></table></section>
<section id="search"><h2>Tools</h2>
<div class="bar"><input id="q" type="search" placeholder="Search tools: what do you want to do?" aria-label="Search tools" autocomplete="off">
<select id="ts" aria-label="Toolset"><option value="">All toolsets</option>${setNames.map((n) => `<option>${esc(n)}</option>`).join('')}</select>
<span id="count">${tools.length} tools</span></div>
<ul id="tools">
${toolRows}
</ul></section>
</main>
<script>${PAGE_SCRIPT}</script>
</body></html>`;
}

const CSS = `
:root{color-scheme:light dark;--mut:#6b7280;--bd:#d1d5db;--bg2:#f3f4f6}
@media (prefers-color-scheme:dark){:root{--bd:#374151;--bg2:#1f2937;--mut:#9ca3af}}
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:0 1rem 3rem}
header p{color:var(--mut);margin-top:0}
code,pre{font:13px/1.4 ui-monospace,monospace}
pre{background:var(--bg2);padding:.75rem;overflow:auto;margin:.25rem 0;white-space:pre-wrap;word-break:break-all}
.code{position:relative}.code button{position:absolute;right:.4rem;top:.4rem}
.snip{border:1px solid var(--bd);border-radius:6px;padding:.4rem .75rem;margin:.4rem 0}
.snip summary{font-weight:600;cursor:pointer}.where,.note{margin:.25rem 0;color:var(--mut);font-size:13px}
table{border-collapse:collapse;width:100%;font-size:14px}td,th{border-bottom:1px solid var(--bd);padding:.25rem .5rem;text-align:left;vertical-align:top}
td.n{text-align:right}
.bar{display:flex;gap:.5rem;align-items:center;position:sticky;top:0;background:Canvas;padding:.5rem 0}
#q{flex:1;font-size:16px;padding:.35rem .5rem}#count{color:var(--mut);font-size:13px}
#tools{list-style:none;padding:0;margin:0}#tools li{border-bottom:1px solid var(--bd)}
#tools summary{cursor:pointer;padding:.3rem 0}#tools summary code{font-weight:600;margin-right:.5rem}
i{font-style:normal;font-size:11px;border-radius:3px;padding:0 .3rem;margin-left:.4rem;border:1px solid var(--bd)}
i.r{color:#047857}i.d{color:#b91c1c}i.o{color:#1d4ed8}
.body{padding:.25rem 0 .75rem 1rem}.http{font-family:ui-monospace,monospace}.tdesc p{margin:.3rem 0}.tdesc pre{white-space:pre-wrap}
.out.on b{color:#1d4ed8}.out.off b{color:var(--mut)}
.sch{list-style:none;padding-left:1rem;border-left:2px solid var(--bd);margin:.2rem 0}
.pn{font-weight:600}.req{color:#b91c1c;font-size:11px;margin-left:.4rem}.ty{color:#7c3aed;margin-left:.5rem;font-size:13px}
.desc,.enum{color:var(--mut);font-size:13px;white-space:pre-wrap}.muted{color:var(--mut)}
h4{margin:.5rem 0 .2rem}.raw summary{cursor:pointer;font-size:13px;color:var(--mut)}
`;
