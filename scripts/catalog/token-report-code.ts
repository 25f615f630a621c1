// Code mode in the token report (npm run catalog -- --report): the two tool definitions for the whole catalogue,
// and what a search answer costs. Measures the exact entries and answers the worker serves
// (src/codemode/tools.ts, src/discovery/search.ts, src/codemode/declarations.ts).
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { toolsOf } from './catalogue-files.ts';
import type { LoadedCatalogue } from '../../src/catalogue/loaded-catalogue.ts';
import { sliceOf } from '../../src/catalogue/slices.ts';
import { assembleDeclarations, type DeclarationsDoc } from '../../src/codemode/declarations.ts';
import { codeModeTools, SEARCH_LIMIT } from '../../src/codemode/tools.ts';
import { searchTools } from '../../src/discovery/search.ts';
import { DEFAULT_CODE_LIMITS } from '../../src/limit-defaults.ts';

/** Whole-catalogue code mode: both tool definitions together. */
export const CODE_DEFINITIONS_TARGET = 1_000;
/** Search answers sampled: the titles of this many tools spread evenly through the catalogue, as queries. */
const SAMPLES = 25;

export interface SearchAnswer {
  query: string;
  tools: number;
  sharedTypes: number;
  tokens: number;
}

export interface CodeModeReport {
  definitions: { tools: number; bytes: number; tokens: number };
  /** Answers to SAMPLES queries at the default limit, sorted by tokens; empty without declarations. */
  answers: SearchAnswer[];
}

export function codeModeReport(loaded: LoadedCatalogue, doc: DeclarationsDoc | undefined): CodeModeReport {
  const tools = codeModeTools(DEFAULT_CODE_LIMITS);
  const text = JSON.stringify({ tools });
  const definitions = { tools: tools.length, bytes: new TextEncoder().encode(text).length, tokens: encode(text).length };
  if (!doc) return { definitions, answers: [] };
  const all = sliceOf(loaded, {});
  const list = toolsOf(loaded);
  const step = Math.max(1, Math.floor(list.length / SAMPLES));
  const answers: SearchAnswer[] = [];
  for (let i = 0; i < list.length && answers.length < SAMPLES; i += step) {
    const query = list[i]!.title;
    const names = searchTools(loaded, all, query, { limit: SEARCH_LIMIT.default }).map((h) => h.name);
    const answer = assembleDeclarations(doc, names);
    answers.push({ query, tools: names.length, sharedTypes: (answer.match(/^interface /gm) ?? []).length, tokens: encode(answer).length });
  }
  answers.sort((a, b) => a.tokens - b.tokens || (a.query < b.query ? -1 : 1));
  return { definitions, answers };
}

export function formatCodeMode(r: CodeModeReport): string[] {
  const n = (x: number) => x.toLocaleString('en-US');
  const out = ['## Code mode (/mcp/code)', ''];
  out.push(`Tool definitions (search and execute, whole catalogue): ${n(r.definitions.bytes)} bytes, ${n(r.definitions.tokens)} tokens.`, '');
  if (!r.answers.length) {
    out.push('Search answers: no declarations.txt beside the catalogue (run `npm run catalog`).', '');
    return out;
  }
  const at = (q: number) => r.answers[Math.min(r.answers.length - 1, Math.floor(q * r.answers.length))]!;
  out.push(
    `Search answers (limit ${SEARCH_LIMIT.default}; queries: the titles of ${r.answers.length} tools spread through the catalogue): ` +
      `median ${n(at(0.5).tokens)} tokens, 90th percentile ${n(at(0.9).tokens)}, largest ${n(r.answers.at(-1)!.tokens)} ("${r.answers.at(-1)!.query}").`,
    '',
  );
  out.push('| query | operations | shared types | tokens |', '| --- | ---: | ---: | ---: |');
  for (const a of [r.answers[0]!, at(0.5), r.answers.at(-1)!]) out.push(`| ${a.query} | ${a.tools} | ${a.sharedTypes} | ${n(a.tokens)} |`);
  out.push('');
  return out;
}
