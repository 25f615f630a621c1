// Confirmation through a hybrid list's call_tool (docs/confirmation.md): a client over its tool budget gets the
// discovery trio beside its typed tools, and a destructive tool run by call_tool must be confirmed exactly as the
// typed tool is. The tools/call fast path (src/protocol/ready-tools-call.ts) must not answer such a call itself: it
// carries no capabilities, so the call would run unasked. The embedded GitHub catalogue, served to Cursor (40 tools).
import catalogueText from 'catalog-data';
import { describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { Env } from '../../src/config.ts';

const KEY = 'mcp_test_confirmhybrid000000000000000000';
const upstream = inject('upstreamUrl');
const env: Env = { API_KEY: KEY, UPSTREAM_URL: `${upstream}/echo`, CREDENTIAL_MODE: 'key', SESSION_SECRET: 'confirm-hybrid-secret-0123456789' };
const app = createApp(loadCatalogue(catalogueText));

const META = (capabilities: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'cursor', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

/** One plain 2026-07-28 tools/call, shaped exactly as the fast path takes it. */
async function plainCall(name: string, args: Record<string, unknown>, capabilities: Record<string, unknown>) {
  const res = await app.fetch(
    new Request('http://127.0.0.1:8787/mcp/x/all?client=cursor', {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: META(capabilities) } }),
    }),
    env,
  );
  return (await res.json()) as { result?: { resultType?: string; isError?: boolean }; error?: unknown };
}

const saw = async (owner: string) => (await (await fetch(`${upstream}/__requests?prefix=${encodeURIComponent(`/echo/repos/${owner}/`)}`)).json()) as unknown[];

describe("a hybrid list's call_tool", () => {
  it('asks an eliciting client before a destructive inner call, and sends nothing upstream', async () => {
    const owner = `hybrid-${crypto.randomUUID().slice(0, 8)}`;
    const answer = await plainCall('call_tool', { name: 'repos_delete', arguments: { owner, repo: 'r' } }, { elicitation: {} });
    expect(answer.result?.resultType).toBe('input_required');
    expect(await saw(owner)).toEqual([]);
  });

  it('still runs it for a client that cannot ask (no elicitation), as a typed tool does', async () => {
    const owner = `hybrid-old-${crypto.randomUUID().slice(0, 8)}`;
    const answer = await plainCall('call_tool', { name: 'repos_delete', arguments: { owner, repo: 'r' } }, {});
    expect(answer.result?.resultType).toBe('complete');
    expect(await saw(owner)).toHaveLength(1);
  });
});
