// A hand-written test catalogue as the Worker reads it: catalogue format 2, written by the generator's own writer.
import { writeCatalogue } from '../../scripts/catalog/write-catalogue.ts';
import type { Catalogue } from '../../src/catalogue/types.ts';

export async function encodeCatalogue(catalogue: Catalogue): Promise<string> {
  return (await writeCatalogue(catalogue)).text;
}
