// Upstream credentials by security scheme name from a command line (docs/upstream-auth.md): `--credential NAME=VALUE`
// (repeatable) and `--credential-env NAME=VAR` (the value read from an environment variable, so it stays out of the
// shell history and `ps`), checked against the catalogue's schemes before anything starts. `npm run serve`,
// `npm start` and `npm run keys -- create` share it. The values leave only through a file (wrangler's .dev.vars) or
// an encrypted key record, never another process's command line.
import { writeFile } from 'node:fs/promises';
import { credentialProblem, parseCredentialArg } from '../../src/auth/upstream-schemes.ts';
import type { CatalogueSecurity } from '../../src/catalogue/types.ts';

/** A --credential that cannot be used: the message names the scheme, never the value. */
export class CredentialArgError extends Error {}

/** The credentials the options give, by scheme name; a later one for the same name wins. */
export function credentialsFromArgs(values: readonly string[] = [], fromEnv: readonly string[] = [], env: Record<string, string | undefined> = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const arg of values) {
    const parsed = parseCredentialArg(arg);
    if ('error' in parsed) throw new CredentialArgError(parsed.error);
    out[parsed.name] = parsed.value;
  }
  for (const arg of fromEnv) {
    const parsed = parseCredentialArg(arg);
    if ('error' in parsed) throw new CredentialArgError(parsed.error.replace('--credential takes NAME=VALUE', '--credential-env takes NAME=VAR'));
    const value = env[parsed.value];
    if (!value) throw new CredentialArgError(`--credential-env ${parsed.name}=${parsed.value}: the environment variable ${parsed.value} is empty or unset`);
    out[parsed.name] = value;
  }
  return out;
}

/** Every problem of `credentials` against the catalogue's schemes, one line each ("--credential basic: …"). */
export function credentialProblems(security: CatalogueSecurity | undefined, credentials: Record<string, string>, owner: 'operator' | 'key' = 'operator'): string[] {
  return Object.entries(credentials).flatMap(([name, value]) => {
    const problem = credentialProblem(security, name, value, owner);
    return problem ? [`--credential ${name}: ${problem}`] : [];
  });
}

/**
 * One `NAME='value'` line of a dotenv file (wrangler's .dev.vars) holding a JSON value. Single quotes keep dotenv from
 * reading escapes; the characters that could still end the quote or start an expansion (', $, `) only occur inside
 * JSON strings, where they are written as \uXXXX, so the line parses back to exactly the same JSON value.
 */
export function dotenvJsonLine(name: string, value: unknown): string {
  const json = JSON.stringify(value).replace(/['$`]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${name}='${json}'`;
}

/** Writes a dotenv file readable only by its owner. */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
}
