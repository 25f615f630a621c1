// A vitest reporter that prints every test file's wall time at the end of a run, longest first, so a slow or newly
// slow file shows in CI's log (.ci/run passes it beside the default reporter). A file's time is what it held a worker
// for: preparing and importing it, its hooks and its tests.
import type { Reporter, TestModule } from 'vitest/node';

interface Row {
  file: string;
  project: string;
  ms: number;
  importMs: number;
  tests: number;
  state: string;
}

export default class DurationsReporter implements Reporter {
  private readonly rows: Row[] = [];
  private started = 0;

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    this.rows.push({
      file: module.relativeModuleId,
      project: module.project.name,
      ms: d.prepareDuration + d.collectDuration + d.setupDuration + d.duration,
      importMs: d.collectDuration,
      tests: [...module.children.allTests()].length,
      state: module.state(),
    });
  }

  onTestRunEnd(): void {
    if (!this.rows.length) return;
    const wall = performance.now() - this.started;
    const sum = this.rows.reduce((n, r) => n + r.ms, 0);
    const s = (ms: number) => (ms / 1000).toFixed(1).padStart(6);
    const lines = [...this.rows].sort((a, b) => b.ms - a.ms).map((r) => `${s(r.ms)} s  ${r.file} (${r.project}, ${r.tests} tests, import ${(r.importMs / 1000).toFixed(1)} s)${r.state === 'passed' ? '' : `  ${r.state.toUpperCase()}`}`);
    console.log(`\nPer-file durations, longest first (${this.rows.length} files; ${(sum / 1000).toFixed(0)} s of file time in ${(wall / 1000).toFixed(0)} s of wall time):\n${lines.join('\n')}`);
  }
}
