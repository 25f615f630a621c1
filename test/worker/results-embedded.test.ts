// Embedded API resources shortened to identifying fields by default (docs/results.md), through the real worker app,
// both strict clients in both protocol eras (each validates structuredContent against the outputSchema it listed),
// and the spec-driven loopback upstream: GitHub's own example payloads, and a small non-GitHub spec (uuid
// identities, `self` links, a HAL `_links` object, one nested resource that lives on another origin).
import catalogueText from 'catalog-data';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { env as bindings } from 'cloudflare:workers';
import { describe, expect, inject, it } from 'vitest';
import { CLIENTS, harness, jsonText, KEY, type CallResult } from './fixtures/results.ts';

const gh = harness(catalogueText, 'github');
const ghRaw = harness(catalogueText, 'github', { COMPACT_RESULTS: 'off' });
const tickets = harness(inject('resultCatalogues').tickets!, 'tickets');
const ticketsRaw = harness(inject('resultCatalogues').tickets!, 'tickets', { COMPACT_RESULTS: 'off' });
const GH_TOOLS = ['pulls_list', 'repos_get'];
const TICKET_TOOLS = ['list_tickets', 'get_ticket'];

type Obj = Record<string, unknown>;
const data = (r: CallResult) => {
  expect(r.isError, JSON.stringify(r.content).slice(0, 500)).toBeFalsy();
  return jsonText(r) as Obj;
};
const noteOf = (d: Obj) => String(d.note ?? d.truncated ?? '');
const keys = (o: unknown) => Object.keys(o as object).sort();

describe.each(CLIENTS)('GitHub embedded resources, %s', (kind) => {
  it('shortens nested users and repositories of each pull request, and says how to get more', async () => {
    const c = await gh.connect(kind, GH_TOOLS);
    const d = data(await c.call('pulls_list', { owner: 'octocat', repo: 'embedded' }));
    const prs = d.result as Obj[];
    // Shortened items are small enough that GitHub's default page of 30 fits the budget: no page size is chosen.
    expect(prs).toHaveLength(30);
    for (const pr of prs) {
      expect(pr.title).toBe('Amazing new feature'); // the item's own fields stay
      expect(pr.body).toBeTruthy();
      expect(keys(pr.user)).toEqual(['html_url', 'id', 'login']);
      const head = pr.head as Obj;
      expect(head.ref).toBe('new-topic'); // head is not a resource (no self link): only its nested ones shrink
      expect(keys(head.repo)).toEqual(['full_name', 'html_url', 'id', 'name']);
      expect(keys(head.user)).toEqual(['html_url', 'id', 'login']);
      for (const l of pr.labels as Obj[]) expect(keys(l)).toEqual(['id', 'name']);
      expect(keys(pr.milestone)).toEqual(['html_url', 'id', 'number', 'state', 'title']);
    }
    const note = noteOf(d);
    expect(note).toMatch(/^Shortened to identifying fields: assignee, assignees, base\.repo, …\. More: _fields="id,number,assignee", or "\*" for all\.$/);

    // Named nested paths survive whole (compacted): the projection decides, shortening steps aside.
    const p = data(await c.call('pulls_list', { owner: 'octocat', repo: 'embedded-fields', _fields: 'number,head.repo,user' }));
    for (const pr of p.result as Obj[]) {
      expect(keys(pr)).toEqual(['head', 'number', 'user']);
      const repo = (pr.head as Obj).repo as Obj;
      expect(repo.description).toBe('This your first repo!');
      expect(keys(repo.owner)).toContain('avatar_url');
      expect((pr.user as Obj).type).toBe('User');
    }
    expect(noteOf(p)).toBe('');

    // "*" is everything, untouched.
    const all = data(await c.call('pulls_list', { owner: 'octocat', repo: 'embedded-all', _fields: '*', per_page: 2 }));
    expect(((all.result as Obj[])[0]!.user as Obj).url).toBe('https://api.github.com/users/octocat');
    expect((((all.result as Obj[])[0]!.head as Obj).repo as Obj).forks_url).toBeTruthy();
    await c.close();
  });

  it('shortens the repositories and owners inside one repository; COMPACT_RESULTS=off keeps them whole', async () => {
    const c = await gh.connect(kind, GH_TOOLS);
    const repo = data(await c.call('repos_get', { owner: 'octocat', repo: 'embedded' }));
    expect(repo.full_name).toBe('octocat/Hello-World');
    expect(repo.description).toBe('This your first repo!');
    expect(keys(repo.owner)).toEqual(['html_url', 'id', 'login']);
    expect(keys(repo.license)).toEqual(['key', 'name']);
    expect(keys(repo.template_repository)).toEqual(['full_name', 'html_url', 'id', 'name']);
    expect(noteOf(repo)).toBe('Shortened to identifying fields: license, organization, owner, …. More: _fields="id,name,license", or "*" for all.');
    await c.close();
    const off = await ghRaw.connect(kind, GH_TOOLS);
    const whole = data(await off.call('repos_get', { owner: 'octocat', repo: 'embedded' }));
    expect((whole.owner as Obj).avatar_url).toBeTruthy();
    expect((whole.license as Obj).spdx_id).toBe('MIT');
    expect(noteOf(whole)).toBe('');
    await off.close();
  });
});

describe.each(CLIENTS)('Embedded resources on a non-GitHub spec, %s', (kind) => {
  it('shortens resources with a self link into the API, and keeps one that lives elsewhere whole', async () => {
    const c = await tickets.connect(kind, TICKET_TOOLS);
    const t = data(await c.call('get_ticket', { ticket_id: 't-1' }));
    expect(t.subject).toBe('Printer on fire');
    expect(t.description).toBeTruthy();
    expect(t).not.toHaveProperty('self'); // the ticket's own API link: compaction
    expect(t.assignee).toEqual({ uuid: 'u-2', username: 'grace', display_name: 'Grace Hopper' });
    expect(t.watchers).toEqual([
      { uuid: 'u-3', username: 'alan', display_name: 'Alan Turing' },
      { uuid: 'u-4', username: 'edsger', display_name: 'Edsger Dijkstra' },
    ]);
    expect(t.queue).toEqual({ key: 'FAC', name: 'Facilities' }); // a HAL _links object marks a resource too
    // The schema calls it a resource, but its self link points at a CDN, not the API: the run-time check keeps it.
    expect(t.attachment).toEqual({ uuid: 'a-1', filename: 'fire.jpg', content_type: 'image/jpeg', size: 48213, self: 'https://cdn.tickets.example/files/a-1' });
    expect(noteOf(t)).toBe('Shortened to identifying fields: assignee, queue, reporter, …. More: _fields="uuid,subject,assignee", or "*" for all.');

    const asked = data(await c.call('get_ticket', { ticket_id: 't-1', _fields: 'subject,assignee.email,queue' }));
    expect(asked).toEqual({ subject: 'Printer on fire', assignee: { email: 'grace@example.com' }, queue: { key: 'FAC', name: 'Facilities', description: 'Buildings, furniture and printers.', sla_hours: 24 } });

    const list = data(await c.call('list_tickets', {}));
    expect(list.total).toBe(1); // the envelope's own fields are kept as sent
    const items = list.items as Obj[];
    expect(items).toHaveLength(30); // the test upstream's page when no size is sent
    for (const it of items) expect(it.reporter).toEqual({ uuid: 'u-1', username: 'ada', display_name: 'Ada Lovelace' });
    expect(noteOf(list)).toMatch(/^Shortened to identifying fields: assignee, queue, reporter, …\./);
    await c.close();
  });

  it('"*" and COMPACT_RESULTS=off keep every nested resource whole', async () => {
    const c = await tickets.connect(kind, TICKET_TOOLS);
    const all = data(await c.call('get_ticket', { ticket_id: 't-1', _fields: '*' }));
    expect((all.assignee as Obj).phone).toBe('+1 555 0100');
    expect((all.assignee as Obj).self).toBe('https://api.tickets.example/v2/users/u-2');
    await c.close();
    const off = await ticketsRaw.connect(kind, TICKET_TOOLS);
    const t = data(await off.call('get_ticket', { ticket_id: 't-1' }));
    expect(keys(t.reporter)).toEqual(['avatar', 'display_name', 'email', 'phone', 'self', 'timezone', 'username', 'uuid']);
    expect((t.queue as Obj)._links).toEqual({ self: { href: 'https://api.tickets.example/v2/queues/FAC' } });
    await off.close();
  });
});

describe('code mode', () => {
  it("an api call's result keeps nested resources whole: programs are typed by the full declarations", async () => {
    const code = harness(catalogueText, 'github', { LOADER: bindings.LOADER });
    const client = new ClientV2({ name: 'results-code', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new TransportV2(new URL('http://127.0.0.1:8787/mcp/code'), { fetch: code.fetch, requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
    try {
      const r = (await client.callTool({
        name: 'execute',
        arguments: { code: "const prs = await api.pulls_list({ owner: 'octocat', repo: 'code-mode', per_page: 2 }); return { repo: Object.keys(prs[0].head.repo), user: Object.keys(prs[0].user) };" },
      })) as CallResult;
      expect(r.isError, JSON.stringify(r.content).slice(0, 500)).toBeFalsy();
      const out = jsonText(r) as { result?: { repo: string[]; user: string[] }; repo?: string[]; user?: string[] };
      const value = out.result ?? out;
      // Compacted (no API links, no node_id) but not shortened: far more than the four identifying fields.
      expect(value.repo!.length).toBeGreaterThan(20);
      expect(value.repo).toContain('description');
      expect(value.user).toContain('avatar_url');
    } finally {
      await client.close();
    }
  });
});
