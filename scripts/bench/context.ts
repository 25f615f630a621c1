// What every bench section gets: the plan, where results go, the latency HTTP client and the progress log.
import type { HttpClient } from './http.ts';
import type { Plan } from './plan.ts';
import type { BenchResults } from './results.ts';

export interface BenchContext {
  plan: Plan;
  results: BenchResults;
  http: HttpClient;
  log: (line: string) => void;
  /** --baseline <git ref>: sections that compare against another commit serve its bench worker too. */
  baseline?: string;
}
