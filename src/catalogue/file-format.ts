// Catalogue file format 2: the layout the generator writes (scripts/catalog/write-catalogue.ts) and the Worker reads
// (src/catalogue/catalogue-text.ts). One ASCII-only text (non-ASCII escaped as \uXXXX), so character offsets are
// byte offsets and V8 keeps it as a one-byte string:
//
//   line 0          header: {"format":2, …} with the counts and the byte length of every index line (parsed at startup)
//   lines 1..9      index: toolsets, names, aliases, titles, flags, toolset membership, entry offsets, entry files,
//                   search (each parsed only when first needed; a file without the last line has no search index)
//   table lines     subtrees that occur at least twice, each stored once; {"$t":n} anywhere stands for entry n
//   record lines    one per tool, in name order: every field of the tool except those the index holds
//
// A sharded catalogue keeps the header, the index and the shared table entries in this text and moves the records
// (with the table entries only their shard uses) into shard files, served as static assets (docs/catalogue-format.md).
import type { Catalogue, CatalogueSecurity, ResultRules } from './types.ts';

export const FORMAT = 2;
/** Every format-2 text starts with these bytes, so the format is known before anything is parsed. */
export const PREFIX = '{"format":2,';
/** The key of a table reference, {"$t": <entry number>}; the generator refuses tools that use it as a key. */
export const REF_KEY = '$t';

/** Index lines, in file order after the header. */
export const INDEX_LINES = ['toolsets', 'names', 'aliases', 'titles', 'flags', 'sets', 'offsets', 'files', 'search'] as const;
/** Index lines a file must have; `search` came later, and a file without it is searched from its records. */
export const REQUIRED_INDEX_LINES = 8;
export type IndexLine = (typeof INDEX_LINES)[number];

export interface Header {
  format: 2;
  source: Catalogue['source'];
  defaultUpstream: string;
  defaultToolsets?: string[];
  /** The catalogue's result rules (src/results), absent when the generator wrote none. */
  results?: ResultRules;
  /** The spec's security schemes and default requirement, absent when the spec declares none. */
  security?: CatalogueSecurity;
  /** 32 hex: SHA-256 of the header's other fields and every line after it (shard files included, in order). */
  hash: string;
  /** Tools. */
  count: number;
  /** Table entries (shared subtrees). */
  table: number;
  /** Byte length of each index line, newline excluded, in INDEX_LINES order. */
  index: number[];
  /** Shard file names (relative to the shards directory); absent when every entry is in this text. */
  shards?: string[];
}

/** Per-tool flag bits, one base-32 character per tool in the `flags` line. */
export const FLAG = { readOnly: 1, destructive: 2, idempotent: 4, openWorld: 8, outputSchema: 16 } as const;
export const FLAG_DIGITS = '0123456789abcdefghijklmnopqrstuv';

/** Width of one entry's offset (hex) in the `offsets` line, and of its file number (base 36) in the `files` line. */
export const OFFSET_WIDTH = 8;
export const FILE_WIDTH = 2;
export const MAX_FILES = 36 ** FILE_WIDTH;

/** The annotations a tool gets from its title and flags when its record carries none of its own. */
export function annotationsFrom(title: string, flags: number): { destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean; readOnlyHint: boolean; title: string } {
  return {
    destructiveHint: (flags & FLAG.destructive) !== 0,
    idempotentHint: (flags & FLAG.idempotent) !== 0,
    openWorldHint: (flags & FLAG.openWorld) !== 0,
    readOnlyHint: (flags & FLAG.readOnly) !== 0,
    title,
  };
}

/**
 * Keywords whose meaning depends on where a subschema sits. A shared (table) subtree is one object for every tool that
 * uses it, and the validator records its location on it once, so no table entry may carry them as strings.
 */
export const POSITIONAL_KEYWORDS: ReadonlySet<string> = new Set(['$ref', '$id', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef']);
