// Successes without a body (204, 205, HEAD, empty 200) and content negotiation, against the loopback upstream inside
// workerd: an empty success is never isError when the schema takes the empty result, and JSON is asked for first.
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/catalogue/types.ts';
import { acceptHeader } from '../../src/upstream/accept.ts';
import { base, call, lastRecord, petSchema, text, tool } from './fixtures/execute-harness.ts';

const podSchema: JsonSchema = { type: 'object', properties: { kind: { type: ['string', 'null'] }, name: { type: ['string', 'null'] }, replicas: { type: ['integer', 'string', 'null'] } } };
const K8S = ['application/yaml', 'application/json', 'application/vnd.kubernetes.protobuf'];

async function upstreamAccept(path: string): Promise<string | undefined> {
  const seen = (await (await fetch(`${base}/__last?path=${encodeURIComponent(path)}`)).json()) as { headers: Record<string, string> };
  return seen.headers.accept;
}

describe('successes without a body', () => {
  it('204 for a wrapped tool: structuredContent {result: null}, not isError', async () => {
    const t = tool('delete_wrapped', { path: '/no-content', method: 'DELETE' }, {
      outputWrapped: true,
      outputSchema: { type: 'object', properties: { result: { type: ['array', 'null'], items: {} } }, required: ['result'] },
    });
    const r = await call(t);
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ result: null });
    expect(text(r)).toBe('HTTP 204 No Content: the upstream accepted DELETE /no-content and returned no content.');
    expect(lastRecord()).toMatchObject({ outcome: 'ok', validation: 'valid', kind: 'empty' });
  });

  it('204 under a schema that takes no empty result (a catalogue built otherwise): isError that says it succeeded, counted with the first path', async () => {
    const t = tool('delete_strict', { path: '/no-content', method: 'DELETE' }, { outputSchema: petSchema });
    const r = await call(t);
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('The operation succeeded: do not retry it.');
    expect(lastRecord()).toMatchObject({ outcome: 'schema_mismatch', kind: 'empty' });
    expect(lastRecord().schemaErrors?.[0]).toMatch(/^\/: /);
  });

  it('HEAD: no body is read; the headers-only answer is a short text, not an error', async () => {
    const t = tool('head_thing', { path: '/drift/things/{id}', method: 'HEAD', params: [{ arg: 'id', name: 'id', in: 'path', style: 'simple', explode: false, required: true }] });
    const r = await call(t, { id: 'abc' });
    expect(r).toEqual({ content: [{ type: 'text', text: 'HTTP 200 OK: the upstream accepted HEAD /drift/things/abc and returned no content.' }] });
  });
});

describe('content negotiation', () => {
  it('acceptHeader: JSON first at full weight, the rest in spec order with falling q, wildcards last', () => {
    expect(acceptHeader(K8S)).toBe('application/json, application/yaml;q=0.9, application/vnd.kubernetes.protobuf;q=0.8');
    expect(acceptHeader(['text/csv', '*/*', 'application/vnd.api+json', 'image/png'])).toBe('application/vnd.api+json, text/csv;q=0.9, image/png;q=0.8, */*;q=0.1');
    expect(acceptHeader(['application/json', 'application/json'])).toBe('application/json');
    // Without JSON the declared list goes as it is; without any, the default.
    expect(acceptHeader(['image/png', 'image/jpeg'])).toBe('image/png, image/jpeg');
    expect(acceptHeader([])).toBe('application/json, */*;q=0.8');
    const many = acceptHeader(['application/json', ...Array.from({ length: 12 }, (_, i) => `text/x-${i}`)]);
    expect(many.split(', ').slice(-2)).toEqual(['text/x-10;q=0.2', 'text/x-11;q=0.2']);
  });

  it('a server that honours q-values answers JSON although the spec lists YAML first', async () => {
    const t = tool('read_pod', { path: '/negotiate', accept: K8S }, { outputSchema: podSchema });
    const r = await call(t);
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ kind: 'Pod', name: 'web-1', replicas: 3 });
    expect(await upstreamAccept('/negotiate')).toBe('application/json, application/yaml;q=0.9, application/vnd.kubernetes.protobuf;q=0.8');
  });

  it('equal weights would have got YAML from the same server', async () => {
    const res = await fetch(`${base}/negotiate`, { headers: { accept: K8S.join(', ') } });
    expect(res.headers.get('content-type')).toBe('application/yaml');
    await res.body?.cancel();
  });

  it('when the answer is not JSON anyway it says so: a descriptor under an open schema or beside a wrapped one; isError only where no structured result fits', async () => {
    const params = [{ arg: 'ignore', name: 'ignore', in: 'query' as const, style: 'form' as const, explode: true, required: false }];
    const open = await call(tool('read_pod_yaml', { path: '/negotiate', accept: K8S, params }, { outputSchema: podSchema }), { ignore: '1' });
    expect(open.isError).toBeUndefined();
    expect(open.structuredContent).toMatchObject({ content_type: 'application/yaml', text: 'kind: Pod\nname: web-1\nreplicas: 3\n' });
    expect((open.structuredContent as { note: string }).note).toContain('application/yaml instead of JSON');
    const nullable = await call(
      tool('read_pods_yaml_drift', { path: '/negotiate', accept: K8S, params }, { outputWrapped: true, outputSchema: { type: 'object', properties: { result: { type: ['array', 'null'], items: {} } }, required: ['result'] } }),
      { ignore: '1' },
    );
    expect(nullable.isError).toBeUndefined();
    expect(nullable.structuredContent).toMatchObject({ result: null, content_type: 'application/yaml', text: 'kind: Pod\nname: web-1\nreplicas: 3\n' });
    // A wrapped schema whose result takes no null (a catalogue built otherwise).
    const wrapped = await call(
      tool('read_pods_yaml', { path: '/negotiate', accept: K8S, params }, { outputWrapped: true, outputSchema: { type: 'object', properties: { result: { type: 'array', items: {} } }, required: ['result'] } }),
      { ignore: '1' },
    );
    expect(wrapped.isError).toBe(true);
    expect(text(wrapped)).toContain('with application/yaml, not the JSON this tool declares');
    expect(text(wrapped)).toContain('The request itself succeeded');
    expect(lastRecord()).toMatchObject({ outcome: 'schema_mismatch', kind: 'text' });
    expect(lastRecord().schemaErrors?.[0]).toBe('/: application/yaml instead of JSON');
  });
});
