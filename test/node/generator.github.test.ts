import { corpusSuite } from './fixtures/corpus-suite.ts';

corpusSuite('GitHub (@octokit/openapi 23.0.2)', new URL('../../node_modules/@octokit/openapi/generated/api.github.com.json', import.meta.url).pathname, 1223, 0);
