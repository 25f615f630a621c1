// The safety net: every converted schema is checked with Ajv configured like the v1 SDK client (draft-07,
// strict:false, formats). An output schema that fails is dropped; an input property that fails is loosened.
import type { CatalogueTool, JsonSchema } from '../../src/catalogue/types.ts';
import type { Warn } from './schema-converter.ts';
import { trimText } from './trim-text.ts';

export class SchemaSweep {
  private ajv: any;
  private full: boolean;
  private constructor(ajv: any, full: boolean) {
    this.ajv = ajv;
    this.full = full;
  }

  /** `full`: compile every schema (about +3 s on GitHub) instead of validating it against the meta-schema. */
  static async create(full: boolean): Promise<SchemaSweep | undefined> {
    try {
      const { default: Ajv } = (await import('ajv')) as any;
      const { default: addFormats } = (await import('ajv-formats')) as any;
      const ajv = new Ajv({ strict: false, validateFormats: true, allErrors: false, logger: false, code: { optimize: false } });
      addFormats(ajv);
      return new SchemaSweep(ajv, full);
    } catch {
      return undefined; // Ajv is a dev dependency; the sweep is skipped where it is not installed.
    }
  }

  private ok(schema: JsonSchema): string | undefined {
    if (!this.full) {
      // Cheap path: draft-07 meta-schema validation (no code generation). The converter already
      // guarantees the rest (patterns compile with 'u', no $ref). `sweep: 'full'` compiles for real.
      if (this.ajv.validateSchema(schema)) return undefined;
      return this.ajv.errorsText(this.ajv.errors);
    }
    try {
      this.ajv.compile(schema);
      return undefined;
    } catch (e) {
      return (e as Error).message.split('\n')[0];
    } finally {
      this.ajv.removeSchema();
    }
  }

  check(tool: CatalogueTool, warn: Warn): void {
    if (tool.outputSchema) {
      const err = this.ok(tool.outputSchema);
      if (err) {
        delete tool.outputSchema;
        delete tool.outputWrapped;
        tool.outputSchemaDropped = `sweep: Ajv (draft-07) rejected the converted schema: ${trimText(err, 200)}`;
        warn('output-dropped', `${tool.name}: ${err}`);
      }
    }
    const err = this.ok(tool.inputSchema);
    if (err) {
      const props = tool.inputSchema.properties as Record<string, JsonSchema>;
      for (const [k, v] of Object.entries(props)) {
        const e2 = this.ok({ type: 'object', properties: { [k]: v } });
        if (e2) {
          props[k] = typeof v.description === 'string' ? { description: v.description } : {};
          warn('input-property-loosened', `${tool.name}.${k}: ${e2}`);
        }
      }
    }
  }
}
