// Micro-benchmark of the usage hot path, run by hand: `node scripts/bench/usage-record.ts`.
// What one metered tools/call adds on the call path: UsageAggregator.track() (record plus flushSoon while a flush
// is already scheduled, the common case). Measured in Node's V8 (the engine workerd runs), because workerd's clocks
// only advance at I/O. The tools/call p50 with usage on and off belongs in `npm run bench`.
import { UsageAggregator } from '../../src/usage/aggregator.ts';
import type { UsageEvent } from '../../src/usage/rows.ts';

const N = 2_000_000;
const ROUNDS = 5;

function nsPerOp(label: string, setup: () => (i: number) => void): void {
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const op = setup();
    for (let i = 0; i < 20_000; i++) op(i); // warm-up
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) op(i);
    times.push(Number(process.hrtime.bigint() - t0) / N);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(60)} median ${times[2]!.toFixed(0).padStart(4)} ns/call  (min ${times[0]!.toFixed(0)}, max ${times[4]!.toFixed(0)})`);
}

const tools = Array.from({ length: 50 }, (_, i) => `tool_${i}`);
const keys = Array.from({ length: 200 }, (_, i) => `key:${i.toString(16).padStart(12, '0')}`);
const outcomes = ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'invalid_arguments', 'upstream_4xx', 'upstream_5xx'] as const;
const event = (i: number): UsageEvent => ({ keyId: keys[i % keys.length]!, tool: tools[(i * 7) % tools.length]!, outcome: outcomes[i % outcomes.length]!, latencyMs: 5 + (i % 997), resultBytes: 1000 + (i % 5000) });
const noWait = () => undefined;

// Reference points: building the event object alone, and the per-call JSON log line the executor already writes.
nsPerOp('baseline: build the event object', () => {
  let sink = 0;
  return (i) => {
    sink += event(i).latencyMs!;
    if (sink < 0) console.log(sink);
  };
});
nsPerOp('reference: JSON.stringify of a tool_call log line', () => {
  let sink = 0;
  return (i) => {
    sink += JSON.stringify({ event: 'tool_call', tool: tools[i % 50], method: 'GET', keyId: keys[i % 200], path: '/repos/{owner}/{repo}', status: 200, outcome: 'ok', validation: 'valid', isError: false, latencyMs: i % 997, resultBytes: 1234 }).length;
    if (sink < 0) console.log(sink);
  };
});
nsPerOp('record(): one key, one tool (hot cell)', () => {
  const agg = new UsageAggregator();
  return (i) => agg.record({ keyId: 'key:0123456789ab', tool: 'repos_get', outcome: 'ok', latencyMs: 5 + (i % 997), resultBytes: 1200 });
});
nsPerOp('record(): 200 keys x 50 tools (10,000 cells)', () => {
  const agg = new UsageAggregator();
  return (i) => agg.record(event(i));
});
nsPerOp('track() (record + flushSoon), a flush already scheduled', () => {
  const agg = new UsageAggregator({ flushDelayMs: 20_000 });
  return (i) => agg.track(event(i), noWait);
});
nsPerOp('reference: one Date.now()', () => {
  let sink = 0;
  return () => {
    sink += Date.now();
    if (sink < 0) console.log(sink);
  };
});
nsPerOp('record(), memory full (store down long: counted as lost)', () => {
  const agg = new UsageAggregator({ maxCells: 10 });
  return (i) => agg.record(event(i));
});
