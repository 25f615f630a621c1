// Whether each tool of a built catalogue can be called at all: the sweep's argument generator (scripts/sweep/args.ts)
// makes the required-only and the every-property argument sets, and the Worker's own validator checks them. A set
// that no retry makes valid points at an inputSchema that refuses every value (an enum against its type, allOf parts
// closed to each other), or at a limit of the generator; the corpus check lists them for a look (docs/sweep.md).
import { readCatalogueDir } from '../catalog/catalogue-files.ts';
import { generateArgs } from '../sweep/args.ts';
import { validate } from '../../src/catalogue/validator.ts';

/** `tool (required only|every property): first errors` for each argument set that did not validate. */
export async function argumentProblems(dir: string): Promise<string[]> {
  const catalogue = await readCatalogueDir(dir);
  const problems: string[] = [];
  for (const t of catalogue.tools) {
    const check = (a: unknown) => validate(t.inputSchema as never, a);
    for (const [variant, label] of [[0, 'required only'], [1, 'every property']] as const) {
      const errors = check(generateArgs(t.inputSchema, variant, (a) => check(a).valid)).errors;
      if (errors.length) {
        problems.push(`${t.name} (${label}): ${errors.slice(0, 2).join('; ').slice(0, 200)}`);
        break;
      }
    }
  }
  return problems;
}
