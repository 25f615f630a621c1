// node:util parseArgs with a suggestion for a mistyped option ("--reprot" → "Did you mean --report?").
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from '../../src/lib/nearest.ts';

/** Thrown for an unknown or malformed option; the message names what is valid. */
export class ArgsError extends Error {}

export function parseArgsWithHints<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    const message = (e as Error).message;
    const unknown = /^Unknown option '(--?[^']+)'/.exec(message)?.[1];
    if (unknown && config.options) {
      const flags = Object.keys(config.options).map((k) => `--${k}`);
      const hint = didYouMean(unknown, flags);
      throw new ArgsError(`unknown option ${unknown}.${hint || ` Valid options: ${flags.join(', ')}.`}`);
    }
    throw new ArgsError(message);
  }
}
