// The main module of the compiler's Dynamic Worker (bundled with sucrase and acorn into generated/compiler.txt by
// `npm run build:codemode`): the Worker script carries the compiler as a Text module instead of code, so its
// ~330 KiB of parser never weigh on the isolate that serves every request. No bindings, no network: it turns a
// program's text into the sandbox's module text, nothing else.
import { WorkerEntrypoint } from 'cloudflare:workers';
import { compileProgram, type CompileResult } from './compile.ts';

export default class Compiler extends WorkerEntrypoint {
  compile(code: string, maxChars: number): CompileResult {
    return compileProgram(String(code), Number(maxChars));
  }
}
