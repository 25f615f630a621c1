// A customer key's upstream credentials (CREDENTIAL_MODE=customer, docs/keys.md and docs/upstream-auth.md): the one
// credential of --upstream-credential-env, and credentials by security scheme name from --credential NAME=VALUE and
// --credential-env NAME=VAR, checked against the catalogue's schemes, then sealed with CREDENTIAL_ENCRYPTION_KEY.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importEncryptionKey } from '../../src/auth/keys-core.ts';
import { loadCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import type { CatalogueSecurity } from '../../src/catalogue/types.ts';
import { securityOfSpec } from '../catalog/security.ts';
import { credentialProblems, credentialsFromArgs } from '../lib/credential-args.ts';
import { repoRoot } from '../lib/proc.ts';

export interface CredentialOptions {
  'upstream-credential-env'?: string;
  credential?: string[];
  'credential-env'?: string[];
  catalogue?: string;
  spec?: string;
}

export interface KeyCredentials {
  upstreamCredential?: string;
  upstreamCredentials?: Record<string, string>;
  encryptionKey?: CryptoKey;
}

/** Thrown with a message for the operator; keys.ts prints it as a usage error. */
export class CredentialOptionError extends Error {}

export async function keyCredentials(o: CredentialOptions, remote: boolean): Promise<KeyCredentials> {
  const out: KeyCredentials = {};
  const credVar = o['upstream-credential-env'];
  if (credVar) {
    out.upstreamCredential = process.env[credVar];
    if (!out.upstreamCredential) throw new CredentialOptionError(`environment variable ${credVar} is empty or unset`);
  }
  if (o.credential?.length || o['credential-env']?.length) {
    let named: Record<string, string>;
    try {
      named = credentialsFromArgs(o.credential, o['credential-env']);
    } catch (e) {
      throw new CredentialOptionError((e as Error).message);
    }
    const problems = credentialProblems(await schemesOf(o), named, 'key');
    if (problems.length) throw new CredentialOptionError(problems.join('\n'));
    out.upstreamCredentials = named;
  }
  if (out.upstreamCredential === undefined && !out.upstreamCredentials) return out;
  const secret = process.env.CREDENTIAL_ENCRYPTION_KEY ?? (remote ? undefined : devVar('CREDENTIAL_ENCRYPTION_KEY'));
  if (!secret) {
    throw new CredentialOptionError(`an upstream credential needs CREDENTIAL_ENCRYPTION_KEY (the same value as the Worker secret) in the environment${remote ? '' : ' or in .dev.vars'}`);
  }
  try {
    out.encryptionKey = await importEncryptionKey(secret);
  } catch (e) {
    throw new CredentialOptionError((e as Error).message);
  }
  return out;
}

/** The security schemes the key's server serves: the --spec of `npm run serve`, else the catalogue file. */
async function schemesOf(o: CredentialOptions): Promise<CatalogueSecurity | undefined> {
  if (o.spec && !o.catalogue) return securityOfSpec(o.spec);
  const file = o.catalogue ?? join(repoRoot, 'catalog', 'catalog.txt');
  if (!existsSync(file)) throw new CredentialOptionError(`catalogue ${file} not found; pass --catalogue <file> to check the credentials' scheme names`);
  return loadCatalogue(readFileSync(file, 'utf8')).catalogue.security;
}

/** A value from .dev.vars (the file wrangler dev reads local secrets from). */
export function devVar(name: string): string | undefined {
  const file = join(repoRoot, '.dev.vars');
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (m && m[1] === name) return m[2]!.replace(/^(["'])(.*)\1$/, '$2');
  }
  return undefined;
}
