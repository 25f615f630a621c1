// The order test files start in when they run side by side (vitest.config.ts, maxWorkers): the end-to-end files
// first (each starts wrangler dev, Prism or npm start and waits on them, so they are the longest), then the rest
// longest first, whatever their project. A file that starts last should be a short one, or it alone sets the end.
// "Longest" is the duration vitest remembers from the last run here (node_modules/.vite); on a fresh clone, which
// remembers nothing, it is the file's size.
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const weight = new Map<TestSpecification, { e2e: boolean; duration?: number; size: number }>();
    for (const f of files) {
      const key = `${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`;
      weight.set(f, { e2e: f.moduleId.includes('/test/e2e/'), duration: cache.getFileTestResults(key)?.duration, size: statSync(f.moduleId).size });
    }
    return [...files].sort((a, b) => {
      const wa = weight.get(a)!;
      const wb = weight.get(b)!;
      if (wa.e2e !== wb.e2e) return wa.e2e ? -1 : 1;
      if (wa.duration !== undefined && wb.duration !== undefined) return wb.duration - wa.duration;
      return wb.size - wa.size;
    });
  }
}
