// Unit tests of the pieces shared by the Worker and the CLI: key format, rates, matching, sealing, redaction.
import { describe, expect, it } from 'vitest';
import {
  decryptSecret,
  encryptSecret,
  generateKey,
  importEncryptionKey,
  isKeyRecord,
  isWellFormedKey,
  matchKeys,
  metadataOf,
  newKey,
  parseRate,
} from '../../src/auth/keys-core.ts';
import { redactSecrets } from '../../src/auth/redact.ts';
import { bytesToBase64 } from '../../src/lib/bytes.ts';

describe('keys-core', () => {
  it('generates well-formed, distinct keys with about 238 bits', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateKey('mcp_live_')));
    expect(keys.size).toBe(200);
    for (const k of keys) {
      expect(k).toMatch(/^mcp_live_[A-Za-z0-9]{40}$/);
      expect(isWellFormedKey(k)).toBe(true);
    }
    // Every base62 character shows up: rejection sampling is not stuck on a subset.
    expect(new Set([...keys].map((k) => k.slice('mcp_live_'.length)).join('')).size).toBe(62);
  });

  it('rejects malformed keys', () => {
    for (const bad of ['', 'mcp_live_', 'mcp_live_short', 'mcp_prod_' + 'a'.repeat(40), 'mcp_live_' + 'a'.repeat(31), 'mcp_live_' + 'a'.repeat(39) + '!', 'MCP_LIVE_' + 'a'.repeat(40)]) {
      expect(isWellFormedKey(bad)).toBe(false);
    }
  });

  it('parses rates and explains bad ones', () => {
    expect(parseRate('100/min')).toEqual({ limit: 100, period: 'minute' });
    expect(parseRate('5000/hour')).toEqual({ limit: 5000, period: 'hour' });
    expect(parseRate('3 / s')).toEqual({ limit: 3, period: 'second' });
    for (const bad of ['0/min', '-1/min', '1.5/min', '10/day', 'lots']) expect(() => parseRate(bad)).toThrow(/100\/min/);
  });

  it('records round-trip the validator and carry no key', async () => {
    const { key, record } = await newKey({ prefix: 'mcp_test_', customer: { id: 'c', name: 'C' }, toolsets: ['a'], readOnly: true, rate: { limit: 1, period: 'hour' } });
    expect(isKeyRecord(JSON.parse(JSON.stringify(record)))).toBe(true);
    expect(JSON.stringify(record)).not.toContain(key.slice(13));
    expect(metadataOf(record)).toMatchObject({ id: record.id, rate: '1/hour', scope: 'toolsets=a readonly' });
    expect(isKeyRecord({ ...record, hash: 'nothex' })).toBe(false);
  });

  it('matches an exact id first, then unique prefixes and hints', () => {
    const e = [
      { name: 'key:aaaa11', metadata: { id: 'aaaa11', hint: 'mcp_live_XyZ1' } },
      { name: 'key:aaaa1122', metadata: { id: 'aaaa1122', hint: 'mcp_live_Qwer' } },
    ];
    expect(matchKeys(e, 'aaaa11')).toEqual(['key:aaaa11']);
    expect(matchKeys(e, 'aaaa')).toHaveLength(2);
    expect(matchKeys(e, 'mcp_live_Qw')).toEqual(['key:aaaa1122']);
    expect(matchKeys(e, 'bbbb')).toEqual([]);
  });

  it('seals credentials to one record', async () => {
    const k = await importEncryptionKey(bytesToBase64(crypto.getRandomValues(new Uint8Array(32))));
    const h1 = 'a'.repeat(64);
    const sealed = await encryptSecret(k, 'secret-value', h1);
    expect(await decryptSecret(k, sealed, h1)).toBe('secret-value');
    await expect(decryptSecret(k, sealed, 'b'.repeat(64))).rejects.toThrow();
    await expect(importEncryptionKey(bytesToBase64(new Uint8Array(16)))).rejects.toThrow(/32 bytes/);
  });

  it('redacts secrets anywhere in a result, keys included', () => {
    const out = redactSecrets({ content: [{ type: 'text', text: 'auth: Bearer s3cr3t-token!' }], structuredContent: { 's3cr3t-token': ['x s3cr3t-token'] } }, ['s3cr3t-token', 'short']);
    expect(JSON.stringify(out)).not.toContain('s3cr3t-token');
    expect(JSON.stringify(out)).toContain('[redacted]');
    // Short strings are not redacted (too likely to be ordinary text).
    expect(redactSecrets('short', ['short'])).toBe('short');
  });
});
