// The deploy bundle (`wrangler deploy --dry-run --outdir`, what `npm run build` makes): the OAuth library is a module
// of its own beside index.js, imported on the first OAuth request (src/oauth-library.ts), never a second copy
// inside the script (which any value import of the package elsewhere in src/ would add); code mode's compiler and
// RegExp engine are Text modules beside it (src/codemode/generated/, docs/code-mode.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binDir, childEnv, repoRoot } from '../../scripts/lib/proc.ts';

const outdir = mkdtempSync(join(tmpdir(), 'mcp-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the Worker bundle', () => {
  it('keeps the OAuth library out of index.js, as a module of its own that index.js imports lazily', () => {
    const r = spawnSync(join(binDir, 'wrangler'), ['deploy', '--dry-run', '--outdir', outdir], { cwd: repoRoot, env: childEnv(), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(outdir)).toContain('oauth-provider.js');
    const library = readFileSync(join(outdir, 'oauth-provider.js'), 'utf8');
    expect(library).toBe(readFileSync(join(repoRoot, 'node_modules/@cloudflare/workers-oauth-provider/dist/oauth-provider.js'), 'utf8'));
    const script = readFileSync(join(outdir, 'index.js'), 'utf8');
    expect(script).toContain('import("./oauth-provider.js")');
    for (const marker of ['workers-oauth-provider/dist', 'class OAuthAuthorizationServer', 'handleRefreshTokenGrant']) expect(script).not.toContain(marker);
    process.stdout.write(`index.js ${statSync(join(outdir, 'index.js')).size} bytes, oauth-provider.js ${library.length} bytes\n`);
  }, 120_000);

  it("keeps code mode's compiler and RegExp engine out of index.js, as Text modules beside it", () => {
    // Runs after the dry run above, on its output.
    const script = readFileSync(join(outdir, 'index.js'), 'utf8');
    for (const marker of ['node_modules/sucrase', 'node_modules/acorn', 'node_modules/re2js']) expect(script).not.toContain(marker);
    for (const name of ['compiler.txt', 're2.txt']) {
      expect(readFileSync(join(outdir, 'codemode', 'generated', name), 'utf8')).toBe(readFileSync(join(repoRoot, 'src', 'codemode', 'generated', name), 'utf8'));
    }
  });
});
