// The client profiles' rules against the generator's: one name budget (docs/naming.md), and the fixed rule that picks
// a hybrid list's typed tools (src/discovery/hybrid-order.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_NAME_RULES, NAME_BUDGET, SERVER_NAME_ALLOWANCE as GENERATOR_ALLOWANCE } from '../../scripts/catalog/name-budget.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { hybridListing } from '../../src/discovery/hybrid.ts';
import { importanceOrder } from '../../src/discovery/hybrid-order.ts';
import { PROFILES, SERVER_NAME_ALLOWANCE, type ProfileId } from '../../src/profiles/profiles.ts';

const loaded = loadCatalogue(readFileSync(new URL('../../catalog/catalog.txt', import.meta.url), 'utf8'));

describe('name budgets: the profiles agree with docs/naming.md', () => {
  it('same server-name allowance (16), and each profile budget is that client\'s rule; the tightest is 41', () => {
    expect(SERVER_NAME_ALLOWANCE).toBe(16);
    expect(GENERATOR_ALLOWANCE).toBe(SERVER_NAME_ALLOWANCE);
    const rule = (client: string) => CLIENT_NAME_RULES.find((r) => r.client === client)!.maxTool(SERVER_NAME_ALLOWANCE);
    const pairs: Array<[ProfileId, string]> = [['cursor', 'Cursor'], ['claude', 'Claude'], ['gemini', 'Gemini'], ['openai', 'OpenAI'], ['vscode', 'VS Code']];
    for (const [id, client] of pairs) expect(PROFILES[id].maxName, id).toBe(rule(client));
    expect(Math.min(...Object.values(PROFILES).map((p) => p.maxName))).toBe(41);
    expect(NAME_BUDGET).toBe(41);
  });

  it('every GitHub tool name fits every profile, so no profile needs a name of its own', () => {
    const longest = Math.max(...loaded.names().map((n) => n.length));
    for (const p of Object.values(PROFILES)) expect(longest, p.id).toBeLessThanOrEqual(p.maxName);
  });
});

describe('hybrid lists: which typed tools are kept', () => {
  const defaults = sliceOf(loaded, { toolsets: loaded.catalogue.defaultToolsets });

  it('reads before writes, destructive writes last; every tool of the slice exactly once', () => {
    const order = importanceOrder(loaded, defaults);
    expect(order.map((t) => t.name).sort()).toEqual(defaults.tools.map((i) => loaded.name(i)).sort());
    const kinds = order.map((t) => (t.annotations.readOnlyHint ? 0 : t.annotations.destructiveHint ? 2 : 1));
    expect(kinds).toEqual([...kinds].sort());
  });

  it('every toolset of the slice is represented, the curated default toolsets taking the first turns', () => {
    const first = importanceOrder(loaded, defaults).slice(0, 37);
    for (const ts of loaded.catalogue.defaultToolsets!) expect(first.some((t) => t.toolsets.includes(ts)), ts).toBe(true);
    const all = importanceOrder(loaded, sliceOf(loaded, {})).slice(0, 125);
    expect(new Set(all.flatMap((t) => t.toolsets)).size).toBeGreaterThan(40);
    expect(all[0]!.toolsets).toContain(loaded.catalogue.defaultToolsets![0]);
  });

  it('within a toolset, entry points (fewest required arguments) come first', () => {
    const issues = importanceOrder(loaded, sliceOf(loaded, { toolsets: ['issues_core'] }));
    expect(issues[0]!.name).toBe('issues_list_for_authenticated_user');
    const required = issues.filter((t) => t.annotations.readOnlyHint).map((t) => ((t.inputSchema.required as string[] | undefined) ?? []).length);
    expect(required).toEqual([...required].sort((a, b) => a - b));
  });

  it('Cursor\'s hybrid for bare /mcp: the trio plus the first 37, within 40; deterministic', () => {
    const h = hybridListing(loaded, defaults, PROFILES.cursor);
    expect(h.tools.slice(0, 3).map((t) => t.name)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
    expect(h.tools).toHaveLength(40);
    expect(new Set(h.tools.slice(3).map((t) => t.name))).toEqual(new Set(importanceOrder(loaded, defaults).slice(0, 37).map((t) => t.name)));
    expect(h.instructions).toMatch(/Cursor uses at most 40 tools/);
    expect(h.instructions).toContain('mode=tools');
  });
});
