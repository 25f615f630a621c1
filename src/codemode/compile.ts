// Turns a model's program (an async function body, TypeScript or JavaScript) into the sandbox's program module:
// sucrase strips the types (it keeps every line where it was, so error lines match the model's code), acorn
// parses the result, and the walk refuses imports and reserved names and instruments the program:
//   - every loop body and function body starts with a step guard (`__cm_g`);
//   - every spread, the object of every for-in, every `+`, `+=` and template literal goes through a charge (`__cm_s`,
//     `__cm_c`), so the strings a program builds count against its memory even while V8 holds them as ropes, and a
//     copy is charged before it is made;
//   - every regular-expression literal becomes the sandbox's linear-time RegExp (`__cm_x`);
//   - every generator function is wrapped so each call is charged (`__cm_f`), and each catch charges the error it
//     may have caught.
// Local workerd enforces no CPU or memory limit, so these are the local guards (docs/code-mode.md).
// This module is bundled with sucrase and acorn into src/codemode/generated/compiler.txt (npm run build:codemode),
// which runs in its own Dynamic Worker: the Worker script itself carries no compiler.
import { parse, tokenizer, type AnyNode, type Program, type Token } from 'acorn';
import { ancestor, full, fullAncestor, simple } from 'acorn-walk';
import { transform } from 'sucrase';

export const PROGRAM_MODULE = 'program.js';
/** The module the program imports its guards from (the harness fills them in before the program runs). */
export const GUARDS_MODULE = 'guards.js';
/** Names the program must not use: the guards live in the program's scope under this prefix. */
export const RESERVED_PREFIX = '__cm';
const GUARD = '__cm_g';
const SPREAD = '__cm_s';
const CONCAT = '__cm_c';
const REGEX = '__cm_x';
const PER_CALL = '__cm_f';
// The user's first line shares line 1 with this head, so line N of the module is line N of the program. The guards
// are imports, not parameters: `arguments` must not hand them to the program.
const HEAD = `import { g as ${GUARD}, s as ${SPREAD}, c as ${CONCAT}, x as ${REGEX}, f as ${PER_CALL} } from "./${GUARDS_MODULE}"; export default async function (api) {`;
const TAIL = '\n}\n';

export interface CodeError {
  kind: 'syntax' | 'forbidden' | 'too_long';
  message: string;
  /** 1-based line in the model's code, when known. */
  line?: number;
}

/** `regex`: the program may use regular expressions, so the sandbox loads its RegExp engine (about 150 KiB). */
export type CompileResult = { ok: true; module: string; regex: boolean } | { ok: false; error: CodeError };

/** Names through which a program reaches a regular expression without a literal. */
const REGEX_NAMES = new Set(['RegExp', 'match', 'matchAll', 'search']);

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
  const wrapped = `${HEAD}${code}${TAIL}`;
  let js: string;
  try {
    // keepUnusedImports: an import must reach the parser and be refused, not vanish because it is unused.
    js = transform(wrapped, { transforms: ['typescript'], disableESTransforms: true, keepUnusedImports: true }).code;
  } catch (error) {
    return earlyClose(wrapped, clampLine) ?? syntaxError(error, clampLine);
  }

  const reserved: Array<{ name: string; line: number | undefined }> = [];
  // Any token that can lead to a regular expression: a literal, or RegExp, match, matchAll or search as a name,
  // a property or a string (`s['match']`).
  let regex = false;
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
        if (t.type.label === 'regexp' || ((t.type.label === 'name' || t.type.label === 'string') && REGEX_NAMES.has(name))) regex = true;
      },
    });
  } catch (error) {
    // `let __cm_g` fails as a redeclaration; the reserved name is the better message.
    return reservedName(reserved[0], clampLine) ?? earlyClose(js, clampLine) ?? syntaxError(error, clampLine);
  }
  const named = reservedName(reserved[0], clampLine);
  if (named) return named;

  // The user's code must stay inside the function: a stray `}` would otherwise add module-level code.
  const decl = ast.body[1];
  const main = decl?.type === 'ExportDefaultDeclaration' ? decl.declaration : undefined;
  if (ast.body.length !== 2 || main?.type !== 'FunctionDeclaration') {
    return earlyClose(js, clampLine) ?? fail('syntax', 'The program closes its function body early: check that every { has a matching }.');
  }
  return instrument(js, main, regex, clampLine);
}

function instrument(js: string, main: AnyNode, regex: boolean, clampLine: (line: number | undefined) => number | undefined): CompileResult {
  const edits: Insertion[] = [];
  let refused: CodeError | undefined;
  const open = (pos: number, text: string, node: AnyNode) => edits.push({ pos, text, rank: [1, -node.end] });
  const close = (pos: number, text: string, node: AnyNode) => edits.push({ pos, text, rank: [0, -node.start] });
  const wrap = (node: AnyNode, fn: string) => {
    open(node.start, `${fn}(`, node);
    close(node.end, ')', node);
  };
  const weights = allocationWeights(main);
  // A body that makes many objects, arrays or closures per run charges them with its step (see allocationWeights).
  const guardCall = (body: AnyNode) => {
    const w = weights.get(body) ?? 0;
    return w > 0 ? `${GUARD}(${w * BYTES_PER_ALLOCATION})` : `${GUARD}()`;
  };
  const guardBody = (body: AnyNode) => {
    if (body.type === 'BlockStatement') open(body.start + 1, `${guardCall(body)};`, body);
    else {
      open(body.start, `{${guardCall(body)};`, body);
      close(body.end, '}', body);
    }
  };
  // A tagged template hands its parts to the tag: it builds no string itself.
  const tagged = new Set<AnyNode>();
  // `{...x}` copies properties; `[...x]` and `f(...x)` iterate: the spread guard charges them differently.
  const propertySpreads = new Set<AnyNode>();
  // Methods keep their syntax: a generator method cannot be wrapped where it is written.
  const methods = new Set<AnyNode>();
  simple(main, {
    TaggedTemplateExpression: (node) => void tagged.add(node.quasi),
    ObjectExpression: (node) => {
      for (const p of node.properties) if (p.type === 'SpreadElement') propertySpreads.add(p);
    },
    Property: (node) => {
      if (node.method || node.kind !== 'init') methods.add(node.value);
    },
    MethodDefinition: (node) => void methods.add(node.value),
  });
  // A generator object is made by the call, before its body (and its guard) runs: generator functions are wrapped so
  // that each call is charged. A declaration keeps its hoisting: its name is rebound at the top of its block.
  ancestor(main, {
    FunctionDeclaration: (node, _state, ancestors) => {
      const parent = ancestors[ancestors.length - 2];
      if (!node.generator || !node.id || parent?.type !== 'BlockStatement') return;
      open(parent.start + 1, `${node.id.name} = ${PER_CALL}(${node.id.name});`, parent);
    },
  });
  full(main, (node) => {
    if (refused) return;
    switch (node.type) {
      case 'WhileStatement':
      case 'DoWhileStatement':
      case 'ForStatement':
      case 'ForOfStatement':
        guardBody(node.body);
        break;
      case 'ForInStatement':
        // for-in lists every key before its first iteration: a key string per character of a string.
        open(node.right.start, `${SPREAD}(`, node.right);
        close(node.right.end, ', 2)', node.right);
        guardBody(node.body);
        break;
      case 'FunctionDeclaration':
        if (node !== main) guardBody(node.body);
        break;
      case 'FunctionExpression':
        guardBody(node.body);
        if (node.generator && !methods.has(node)) wrap(node, PER_CALL);
        break;
      case 'CatchClause':
        // A caught error may be new, with its stack: charged when it is caught, not each time the try runs.
        open(node.body.start + 1, `${GUARD}(${CAUGHT_BYTES});`, node.body);
        break;
      case 'ArrowFunctionExpression':
        if (node.body.type === 'BlockStatement') guardBody(node.body);
        else {
          open(node.body.start, `(${guardCall(node.body)}, `, node.body);
          close(node.body.end, ')', node.body);
        }
        break;
      case 'SpreadElement':
        if (propertySpreads.has(node)) wrap(node.argument, SPREAD);
        else {
          open(node.argument.start, `${SPREAD}(`, node.argument);
          close(node.argument.end, ', 1)', node.argument);
        }
        break;
      case 'BinaryExpression':
        if (node.operator === '+') wrap(node, CONCAT);
        break;
      case 'AssignmentExpression':
        // The value of `a += b` is the new value of a: charging it needs no second evaluation of `a`.
        if (node.operator === '+=') wrap(node, CONCAT);
        break;
      case 'TemplateLiteral':
        if (node.expressions.length > 0 && !tagged.has(node)) wrap(node, CONCAT);
        break;
      case 'Literal':
        if (typeof node.bigint === 'string') {
          refused = { kind: 'forbidden', message: 'BigInt is not available in execute (arithmetic on huge BigInts cannot be interrupted): use Numbers, or strings for big ids.', line: node.loc?.start.line };
        } else if (node.regex) {
          open(node.start, `${REGEX}(${JSON.stringify(node.regex.pattern)}, ${JSON.stringify(node.regex.flags)}`, node);
          // The literal's own text is dropped: it is replaced, not wrapped.
          edits.push({ pos: node.start, text: '\u0000', rank: [2, 0] }, { pos: node.end, text: ')', rank: [0, -node.start] });
        }
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
  return { ok: true, module: applyEdits(js, edits), regex };
}

const BYTES_PER_ALLOCATION = 16;
const CAUGHT_BYTES = 256;
const LOOPS = new Set(['WhileStatement', 'DoWhileStatement', 'ForStatement', 'ForInStatement', 'ForOfStatement']);
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/**
 * For each loop or function body, what it may allocate each time it runs (nested bodies count for themselves): the
 * objects, arrays, elements, properties and closures of its literals, the property a computed assignment
 * (`o[k] = v`) may add, 16 bytes per call (a small string or object a built-in returns: `String(i)`, `s.slice(1)`,
 * `Symbol()`), and an async function's promise. Memory the program's own syntax allocates is invisible to the
 * built-in meters: a loop pushing a 30,000-element array literal would hold gigabytes within the step limit, and
 * 5 M iterations of `out.push({ i, s })` or `o["k" + i] = i` held more than a production isolate's 128 MB and crashed
 * workerd. Every such body is charged, however small: the step limit times a few dozen bytes is more than the
 * memory budget.
 */
function allocationWeights(main: AnyNode): Map<AnyNode, number> {
  const weights = new Map<AnyNode, number>();
  fullAncestor(main, (node, _state, ancestors) => {
    let w = 0;
    if (node.type === 'ArrayExpression') w = node.elements.length + 1;
    else if (node.type === 'ObjectExpression') w = node.properties.length + 1;
    else if (FUNCTIONS.has(node.type) || node.type === 'ClassExpression') w = 4;
    else if (node.type === 'NewExpression') w = 2;
    else if (node.type === 'CallExpression') w = 1;
    // A new property of a dictionary object: its entry and, for a string key, the key itself.
    else if (node.type === 'AssignmentExpression' && node.left.type === 'MemberExpression' && node.left.computed) w = 3;
    else if (node.type === 'UpdateExpression' && node.argument.type === 'MemberExpression' && node.argument.computed) w = 3;
    // An async function's call makes its promise before the first await: its own body pays for it.
    if (FUNCTIONS.has(node.type) && node !== main && (node as AnyNode & { async?: boolean }).async) {
      const body = (node as AnyNode & { body: AnyNode }).body;
      weights.set(body, (weights.get(body) ?? 0) + 4);
    }
    if (!w) return;
    for (let i = ancestors.length - 2; i > 0; i--) {
      const body = ancestors[i]!;
      const owner = ancestors[i - 1]! as AnyNode & { body?: AnyNode };
      if (owner.body === body && (LOOPS.has(owner.type) || (FUNCTIONS.has(owner.type) && owner !== main))) {
        weights.set(body, (weights.get(body) ?? 0) + w);
        return;
      }
    }
  });
  return weights;
}

/** Applies insertions; a '\u0000' insertion starts a cut that runs to the next insertion (a replaced literal). */
function applyEdits(text: string, edits: Insertion[]): string {
  edits.sort((a, b) => a.pos - b.pos || a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1]);
  const parts: string[] = [];
  let at = 0;
  let cutting = false;
  for (const e of edits) {
    if (!cutting) parts.push(text.slice(at, e.pos));
    at = e.pos;
    if (e.text === '\u0000') cutting = true;
    else {
      cutting = false;
      parts.push(e.text);
    }
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/**
 * The line of a `}` that closes the program's function before its end, found with acorn's tokenizer (which tells
 * braces in strings, templates and regular expressions apart). Parsers blame the code after it instead.
 */
function earlyClose(source: string, clampLine: (line: number | undefined) => number | undefined): CompileResult | undefined {
  const bodyStart = source.indexOf('export default async function (api) {');
  if (bodyStart < 0) return undefined;
  const end = source.length - TAIL.length;
  let depth = 0;
  try {
    for (const t of tokenizer(source.slice(bodyStart), { ecmaVersion: 'latest', sourceType: 'module', locations: true })) {
      const label = t.type.label;
      if (label === '{' || label === '${') depth++;
      else if (label === '}') {
        depth--;
        if (depth === 0 && bodyStart + t.start < end) {
          return fail('syntax', 'SyntaxError: Unexpected "}": it closes the program before its end. Check that every { has a matching }.', clampLine(t.loc?.start.line));
        }
      }
    }
  } catch {
    return undefined;
  }
  return undefined;
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
