// The code-mode compiler and RE2 bundles (npm run build:codemode) as Text modules. wrangler uploads them as modules
// of their own (wrangler.toml: find_additional_modules with the Text rule) and leaves these imports in place; the
// runtime resolves them against the bundle's root module (index.js), which is why this file sits beside src/index.ts
// (from src/codemode/ the same import names a module that does not exist).
import COMPILER_SOURCE from './codemode/generated/compiler.txt';
import RE2_SOURCE from './codemode/generated/re2.txt';

export { COMPILER_SOURCE, RE2_SOURCE };
