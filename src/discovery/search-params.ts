// The ranker's numbers in one place: BM25's, and how much each rule of search.ts and search-fit.ts weighs. Fitted by
// a small grid search over the tuning halves of test/search-eval/ (`npm run eval:search:fast -- --fit`), checked by
// leaving each spec out in turn; general weights, never per query.
export const PARAMS = {
  /** BM25 term-frequency saturation and length normalisation. */
  k1: 2.4,
  b: 0.375,
  /** What a tool matching none of the query's words keeps of its score (coverage: matching all keeps all). */
  coverage: 0.25,
  /** A tool acting on what the query asks for (a clause's head noun, or what the thing a clause changes belongs
   * to: "the priority of an issue") wins over one merely mentioning it. */
  head: 1.7,
  /** "who …" asks for people: tools acting on people (members, stargazers, collaborators) win close calls. */
  people: 4.4,
  /** The query's verb is the tool's own (title verb or path action: "merge" / Merge a pull request). */
  verb: 1.73,
  /** Everyday operations (the catalogue's default toolsets) win close calls. */
  everyday: 1.15,
  /** An operation the spec deprecates. */
  deprecated: 0.7,
  /** A tool that reads when the query asks to change something (or the other way round). */
  modeMismatch: 0.2,
  /** A tool that writes otherwise than the query's verb class says (creates when asked to delete). */
  writeMismatch: 0.5,
  /** A tool that deletes, replaces, resets or impersonates when the query's verb asks for none of that (search-risk.ts). */
  destructive: 0.5,
  /** One item read when the query asks for many, or many when it asks for one. */
  readMismatch: 0.9,
  /** Each noun of the tool's path the query does not mention ("pullrequests" in …/pullrequests/{id}/commits). */
  pathExtra: 0.8,
  /** The noun a tool's path acts on, common in the catalogue's paths, that the query does not mention. */
  targetExtra: 0.7,
  /** Path nouns in more than this share of the catalogue's paths say nothing (`repos`, `accounts`). */
  commonNoun: 0.15,
};
