// Turns a model's program (an async function body, TypeScript or JavaScript) into the sandbox's program module:
// sucrase strips the types (it keeps every line where it was, so error lines match the model's code), acorn
// parses the result, and the walk refuses imports and reserved names and instruments every loop body, function
// body and spread with guard calls: local workerd enforces no CPU or memory limit (docs/code-mode.md).
// execute.ts imports this module lazily: the compiler costs nothing at startup or to requests that run no code.
import { parse, type AnyNode, type Program, type Token } from 'acorn';
import { full } from 'acorn-walk';
import { transform } from 'sucrase';

export const PROGRAM_MODULE = 'program.js';
/** Names the program must not use: the guards live in the program's scope under this prefix. */
export const RESERVED_PREFIX = '__cm';
const GUARD = '__cm_g';
const SPREAD = '__cm_s';
// The user's first line shares line 1 with this head, so line N of the module is line N of the program.
// (A head made of arrow functions would hide `arguments`, but sucrase then misplaces syntax error lines; the
// guards reachable through `arguments` can only be called, which costs the program steps, never disabled.)
const HEAD = `export default async function (api, ${GUARD}, ${SPREAD}) {`;
const TAIL = '\n}\n';

export interface CodeError {
  kind: 'syntax' | 'forbidden' | 'too_long';
  message: string;
  /** 1-based line in the model's code, when known. */
  line?: number;
}

export type CompileResult = { ok: true; module: string } | { ok: false; error: CodeError };

interface Insertion {
  pos: number;
  text: string;
  /** Order at one position: closers before openers; inner closers first, outer openers first. */
  rank: [number, number];
}

export function compileProgram(code: string, maxChars: number): CompileResult {
  if (code.length > maxChars) {
    return fail('too_long', `The program is ${code.length} characters long; the limit is ${maxChars}. Send a shorter program.`);
  }
  const lines = code.split('\n').length;
  const clampLine = (line: number | undefined) => (line === undefined ? undefined : Math.max(1, Math.min(line, lines)));
  let js: string;
  try {
    // keepUnusedImports: an import must reach the parser and be refused, not vanish because it is unused.
    js = transform(`${HEAD}${code}${TAIL}`, { transforms: ['typescript'], disableESTransforms: true, keepUnusedImports: true }).code;
  } catch (error) {
    return syntaxError(error, clampLine);
  }

  const reserved: Array<{ name: string; line: number | undefined }> = [];
  let ast: Program;
  try {
    ast = parse(js, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      locations: true,
      onToken: (t: Token & { value?: unknown }) => {
        // The value, not the source text: \u escapes in a name must not hide the prefix.
        const name = String(t.value);
        if (t.type.label === 'name' && t.start >= HEAD.length && name.startsWith(RESERVED_PREFIX)) reserved.push({ name, line: t.loc?.start.line });
      },
    });
  } catch (error) {
    // `let __cm_g` fails as a redeclaration; the reserved name is the better message.
    return reservedName(reserved[0], clampLine) ?? syntaxError(error, clampLine);
  }
  const named = reservedName(reserved[0], clampLine);
  if (named) return named;

  // The user's code must stay inside the function: a stray `}` would otherwise add module-level code.
  const decl = ast.body[0];
  const main = decl?.type === 'ExportDefaultDeclaration' ? decl.declaration : undefined;
  if (ast.body.length !== 1 || main?.type !== 'FunctionDeclaration') {
    return fail('syntax', 'The program closes its function body early: check that every { has a matching }.');
  }

  const edits: Insertion[] = [];
  let refused: CodeError | undefined;
  const open = (pos: number, text: string, node: AnyNode) => edits.push({ pos, text, rank: [1, -node.end] });
  const close = (pos: number, text: string, node: AnyNode) => edits.push({ pos, text, rank: [0, -node.start] });
  const guardBody = (body: AnyNode) => {
    if (body.type === 'BlockStatement') open(body.start + 1, `${GUARD}();`, body);
    else {
      open(body.start, `{${GUARD}();`, body);
      close(body.end, '}', body);
    }
  };
  full(main.body, (node) => {
    if (refused) return;
    switch (node.type) {
      case 'WhileStatement':
      case 'DoWhileStatement':
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement':
        guardBody(node.body);
        break;
      case 'FunctionDeclaration':
      case 'FunctionExpression':
        if (node !== main) guardBody(node.body);
        break;
      case 'ArrowFunctionExpression':
        if (node.body.type === 'BlockStatement') guardBody(node.body);
        else {
          open(node.body.start, `(${GUARD}(), `, node.body);
          close(node.body.end, ')', node.body);
        }
        break;
      case 'SpreadElement':
        open(node.argument.start, `${SPREAD}(`, node.argument);
        close(node.argument.end, ')', node.argument);
        break;
      case 'ImportExpression':
        refused = forbiddenImport(node.loc?.start.line);
        break;
      case 'MetaProperty':
        if (node.meta.name === 'import') refused = forbiddenImport(node.loc?.start.line);
        break;
    }
  });
  if (refused) return { ok: false, error: { ...refused, line: clampLine(refused.line) } };
  return { ok: true, module: applyEdits(js, edits) };
}

function applyEdits(text: string, edits: Insertion[]): string {
  edits.sort((a, b) => a.pos - b.pos || a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1]);
  const parts: string[] = [];
  let at = 0;
  for (const e of edits) {
    parts.push(text.slice(at, e.pos), e.text);
    at = e.pos;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

function reservedName(token: { name: string; line: number | undefined } | undefined, clampLine: (line: number | undefined) => number | undefined): CompileResult | undefined {
  if (!token) return undefined;
  return fail('forbidden', `Names starting with ${RESERVED_PREFIX} are reserved; rename ${token.name}.`, clampLine(token.line));
}

function forbiddenImport(line: number | undefined): CodeError {
  return { kind: 'forbidden', message: 'import is not available in execute: the program has no modules and no network; call the API with api.<operation>(args).', line };
}

function syntaxError(error: unknown, clampLine: (line: number | undefined) => number | undefined): CompileResult {
  const raw = error instanceof Error ? error.message : String(error);
  // acorn and sucrase both end their messages with "(line:column)".
  const at = /\((\d+):(\d+)\)\s*$/.exec(raw);
  const loc = (error as { loc?: { line?: number } }).loc;
  const line = clampLine(loc?.line ?? (at ? Number(at[1]) : undefined));
  const message = raw.replace(/\s*\(\d+:\d+\)\s*$/, '');
  if (/'import' and 'export' may (only )?appear/.test(message) || /^Unexpected keyword 'import'/.test(message)) {
    return { ok: false, error: { ...forbiddenImport(line), kind: 'forbidden' } };
  }
  return { ok: false, error: { kind: 'syntax', message: `SyntaxError: ${message}`, ...(line ? { line } : {}) } };
}

function fail(kind: CodeError['kind'], message: string, line?: number): CompileResult {
  return { ok: false, error: { kind, message, ...(line ? { line } : {}) } };
}
