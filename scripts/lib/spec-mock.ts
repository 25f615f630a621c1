// The offline upstream of `npm start` and `npm run serve`: Prism mocking the spec behind the examples-first proxy,
// or, when Prism does not start (it takes minutes on a spec like Stripe's, and refuses some specs outright), the
// sweep's built-in mock answering from the spec's own response schemas (scripts/sweep/drift.ts), so that any spec
// that builds is also served.
import { loadSpec } from '../catalog/spec-loader.ts';
import { startBuiltinMock } from '../sweep/drift.ts';
import { SpecIndex } from '../sweep/spec-index.ts';
import { readSpecDocument, startExamplesFirst } from './examples-first.ts';
import { mockableSpec, startPrism, type Running } from './prism.ts';

export interface SpecMock {
  url: string;
  /** Prism's process, when Prism answers (its log lines and an unexpected exit are watched). */
  prism?: Running;
  /** Which mock answers, for the banner. */
  label: string;
  stop(): Promise<void>;
}

export async function startSpecMock(spec: string, dir: string, log: (line: string) => void, prismTimeoutMs?: number): Promise<SpecMock> {
  let prism: Running | undefined;
  let doc: Record<string, any> | undefined;
  try {
    [prism, doc] = await Promise.all([startPrism({ spec: await mockableSpec(spec, dir), dynamic: false, ...(prismTimeoutMs ? { timeoutMs: prismTimeoutMs } : {}) }), readSpecDocument(spec)]);
  } catch (err) {
    const why = String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 200);
    log(`Prism did not start (${why}); the built-in mock answers instead, from the spec's response schemas (no examples, no request validation)`);
    const mock = await startBuiltinMock(new SpecIndex((await loadSpec(spec)).doc));
    return { url: mock.url, label: 'built-in mock: generated from the response schemas', stop: mock.close };
  }
  log(`Prism ready at ${prism.url} in ${(prism.startMs / 1000).toFixed(1)} s`);
  // Without a readable document (Prism read it, so rarely), every answer is Prism's static one.
  const front = doc ? await startExamplesFirst(prism.url, doc) : undefined;
  const running = prism;
  return {
    url: front?.url ?? prism.url,
    prism,
    label: "Prism mock: the spec's examples, generated data where it has none",
    stop: async () => {
      await front?.close();
      await running.stop();
    },
  };
}
