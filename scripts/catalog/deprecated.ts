// Whether a spec deprecates an operation: OpenAPI's own flag, or one of the vendor extensions specs use instead.
import type { Operation } from './operations.ts';

/**
 * OpenAPI's `deprecated: true`, or a vendor extension saying the same: `x-deprecated: true`, or a release status of
 * "deprecated" (`x-release-status: DEPRECATED` in Square's spec, `x-stability-level`, `x-lifecycle`, `x-status`).
 */
export function isDeprecated(op: Operation['op']): boolean {
  if (op.deprecated === true) return true;
  for (const [key, value] of Object.entries(op)) {
    if (!key.startsWith('x-')) continue;
    if (/deprecat/i.test(key) && value === true) return true;
    if (/status|stability|lifecycle|maturity/i.test(key) && typeof value === 'string' && /^deprecated$/i.test(value.trim())) return true;
  }
  return false;
}
