// The `search` index line of a catalogue (docs/catalogue-format.md): what the generator writes for discovery's ranker
// (src/discovery/search-index.ts encodes and decodes it). Only its shape lives here, beside the file format.

export interface SearchIndexData {
  v: 1;
  /** Terms (word stems), sorted. */
  terms: string[];
  /** Per tool (catalogue order): its postings, (term number delta in base 36, weight letter) pairs. */
  docs: string[];
  /** Per tool: "p" when what it acts on are people, else "-". */
  kinds: string;
  /** Per tool: the term number of its resource (the path's last literal segment), -1 for none. */
  resources: number[];
  /** Query stem -> the terms it also means, as postings (weights in 26ths). */
  expand: Record<string, string>;
  /** Per tool, one letter for what it does: g get, l list, c create, u update, d delete, a an action of its own. */
  acts?: string;
  /** Per tool: the term number of its own action (`merge` in `/pulls/{n}/merge`), -1 for none. */
  actions?: number[];
  /** Per tool: the term numbers of the nouns its path names, as postings without weights (base-36 deltas, each followed by A). */
  nouns?: string[];
  /** The tools the spec deprecates (catalogue indexes). */
  deprecated?: number[];
  /** Per tool, what it may destroy (src/discovery/search-harm.ts): `-` nothing, `o` overwrite, `r` reset, `e` end,
   * `x` remove, `i` act as someone; a capital when only its method makes it destructive. */
  harms?: string;
}
