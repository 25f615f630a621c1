// One tool from one operation: its input arguments (parameters, then body), HTTP binding, outputSchema and
// annotations (annotations.ts). Name, title and description come from the caller (build.ts), where naming happens.
import type { CatalogueTool, HttpBinding, JsonSchema } from '../../src/catalogue/types.ts';
import type { Annotations } from './annotations.ts';
import { ArgNames } from './arg-names.ts';
import type { Operation } from './operations.ts';
import { parameterBindings } from './parameters.ts';
import { requestBodyBinding } from './request-body.ts';
import { responseBinding } from './responses.ts';
import type { SchemaConverter, Warn } from './schema-converter.ts';

export interface ToolText {
  title: string;
  description: string;
}

/**
 * `annotations`: the operation's hints (annotations.ts), read by the caller, which reports how they were decided.
 * `security`: the operation's own requirements (an index into the catalogue's sets; absent: the default) and the
 * API-key slots they fill.
 */
export function buildTool(conv: SchemaConverter, o: Operation, name: string, text: ToolText, warn: Warn, annotations: Annotations, security?: { requirements?: number; slots: ReadonlySet<string> }): CatalogueTool {
  const args = new ArgNames(o.key, warn);
  const params = parameterBindings(conv, o, args, warn, security?.slots);
  const body = requestBodyBinding(conv, o, args, warn);
  const response = responseBinding(conv, o, warn);

  const inputSchema: JsonSchema = { type: 'object', properties: { ...params.properties, ...body.properties } };
  const required = [...params.required, ...body.required];
  if (required.length) inputSchema.required = [...new Set(required)];

  const M = o.method.toUpperCase() as HttpBinding['method'];
  const tool: CatalogueTool = {
    name,
    title: text.title,
    description: text.description,
    inputSchema,
    annotations,
    toolsets: [],
    http: { method: M, path: o.path, params: params.params, accept: response.accept, ...(body.body ? { body: body.body } : {}) },
  };
  if (security?.requirements !== undefined) tool.security = security.requirements;
  if (response.outputSchema) {
    tool.outputSchema = response.outputSchema;
    if (response.outputWrapped) tool.outputWrapped = true;
  } else if (response.dropped) tool.outputSchemaDropped = response.dropped;
  return tool;
}
