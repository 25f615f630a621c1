// Small corpus specs: Petstore 2.0/3.0/3.1 (@readme/oas-examples), Scalar Galaxy 3.1, Netlify (raw Swagger 2.0).
import { corpusSuite } from './fixtures/corpus-suite.ts';

const nm = (p: string) => new URL(`../../node_modules/${p}`, import.meta.url).pathname;

corpusSuite('Petstore 2.0', nm('@readme/oas-examples/2.0/json/petstore.json'));
corpusSuite('Petstore 3.0', nm('@readme/oas-examples/3.0/json/petstore.json'));
corpusSuite('Petstore 3.1', nm('@readme/oas-examples/3.1/json/petstore.json'));
corpusSuite('Galaxy 3.1', nm('@scalar/galaxy/dist/3.1.json'));
corpusSuite('Netlify 2.0', nm('@netlify/open-api/dist/swagger.json'));
