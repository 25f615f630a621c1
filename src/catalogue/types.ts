// The catalogue contract between the generator (scripts/catalog) and the worker (src/): what a catalogue holds.
// The generator writes it to catalog/catalog.txt in catalogue format 2 (src/catalogue/file-format.ts); the worker imports
// that file as a Text module and reads it lazily (src/catalogue/loaded-catalogue.ts).

/** A JSON Schema object as it appears on the wire (draft-07 / 2020-12 common subset). */
export type JsonSchema = { [key: string]: unknown };

export interface Catalogue {
  /** The file format it is written in (src/catalogue/file-format.ts); bumped when the file layout changes incompatibly. */
  format: 2;
  /** Where the catalogue came from. Never contains secrets (spec auth headers are not recorded). */
  source: {
    title: string;
    version: string;
    /** File name or URL of the spec, as given to the generator (query string stripped). */
    spec: string;
    /** The spec's own OpenAPI/Swagger version string, e.g. "3.0.3" or "2.0". */
    openapi: string;
    /**
     * sha256 (first 16 hex) of the spec document, keys sorted. With `version` it is the spec's identity, which
     * decides how long deprecated aliases live (docs/naming.md). Absent in catalogues written before it existed.
     */
    digest?: string;
  };
  /** Upstream base URL taken from the spec's servers (variables filled with defaults); UPSTREAM_URL overrides it. */
  defaultUpstream: string;
  /**
   * Content hash written by the generator: first 32 hex chars of SHA-256 over the catalogue file after its header
   * (src/catalogue/file-format.ts). Stable across identical builds; usable as an ETag / cache key. Set once written.
   */
  hash?: string;
  /** Toolset name -> description. Names match ^[a-z][a-z0-9_]*$. Sorted by name. */
  toolsets: Record<string, { description: string }>;
  /**
   * Toolsets served at bare /mcp (from the overrides' `defaultToolsets`). Absent: the whole catalogue.
   * The DEFAULT_TOOLSETS var overrides it per deployment. They live with the catalogue because they name its toolsets.
   */
  defaultToolsets?: string[];
  /** One entry per operation (hidden ones removed), sorted by name. */
  tools: CatalogueTool[];
  /** How JSON results are compacted (src/results, docs/results.md). Absent: built-in rules, API origin = the upstream. */
  results?: ResultRules;
  /**
   * The spec's security schemes and its global requirement (docs/upstream-auth.md). Absent: the spec declares no
   * scheme, and the upstream gets the deployment's one credential as before (UPSTREAM_AUTH_HEADER).
   */
  security?: CatalogueSecurity;
}

/** What the upstream accepts as credentials, read from the spec by the generator (scripts/catalog/security.ts). */
export interface CatalogueSecurity {
  /** Every scheme the spec declares (or a requirement names), by its name in the spec. Sorted by name. */
  schemes: Record<string, SecurityScheme>;
  /**
   * Every distinct list of requirements the operations have, numbered: a tool names one by its index, so a list is
   * written once however many tools share it. A list is OR of requirements; `[]` is "none needed".
   */
  sets: SecurityRequirement[][];
  /**
   * The set (index into `sets`) of a tool without its own `security`: the most common one. When the spec declares
   * schemes but no operation or global requirement names any, each scheme alone or none (`{}`). Absent: none needed.
   */
  default?: number;
}

/**
 * One way to authenticate: every scheme it names, sent together (AND), each with the OAuth scopes it needs (empty for
 * other schemes). A tool's requirements are alternatives (OR); `{}` is "no credential", `[]` "none needed".
 */
export type SecurityRequirement = Record<string, string[]>;

/** A security scheme as the Worker needs it: where its credential goes, or how a token is obtained for it. */
export type SecurityScheme =
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string }
  /** `scheme`: the HTTP auth scheme, lower case: bearer, basic, or another sent as "Authorization: <Scheme> <value>". */
  | { type: 'http'; scheme: string }
  | { type: 'oauth2'; flows: OAuthFlows }
  | { type: 'openIdConnect'; openIdConnectUrl: string }
  /** A scheme this server cannot send (mutualTLS, HTTP Digest, an unknown type): `declared` is the spec's own type. */
  | { type: 'unsupported'; declared: string; reason: string };

/** The OAuth 2 flows a scheme declares, URLs only (scope descriptions are left out: requirements name the scopes). */
export interface OAuthFlows {
  clientCredentials?: { tokenUrl: string };
  authorizationCode?: { authorizationUrl: string; tokenUrl: string; refreshUrl?: string };
  implicit?: { authorizationUrl: string };
  password?: { tokenUrl: string };
}

/** Catalogue-wide compaction rules, decided at build time from the spec and catalog/overrides.json. */
export interface ResultRules {
  /** Origins (scheme://host[:port]) of the spec's own servers: links to them (or to the upstream) are hypermedia. */
  origins: string[];
  /** Output property names the spec declares as URIs (format uri, url, iri, uri-template …) beyond the built-in link names. */
  linkFields?: string[];
  /** Field patterns compaction never removes (overrides `results.keep`): `name`, `*_url`, `owner.login`. */
  keep?: string[];
  /** Field patterns compaction always removes, unless the call asks for them by projection (overrides `results.drop`). */
  drop?: string[];
}

/**
 * One tool. The catalogue file carries every field of it, including fields added later: anything that is plain JSON
 * is stored and read back unchanged (name, title, aliases and toolsets in the index; the rest in the tool's record).
 */
export interface CatalogueTool {
  /** ^[a-z][a-z0-9_]*$, at most 41 chars by default (docs/naming.md), unique. */
  name: string;
  title: string;
  description: string;
  /** Root is always {type:"object", properties:{...}}; no root composition or $ref. */
  inputSchema: JsonSchema;
  /** Absent when the operation has no JSON success response, or the schema was dropped. Root is type:object, open. */
  outputSchema?: JsonSchema;
  /** True when the upstream JSON is not an object at the root, so structuredContent is {result: <json>}. */
  outputWrapped?: boolean;
  /** Why outputSchema is absent although the operation returns JSON (override or sweep). */
  outputSchemaDropped?: string;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /**
   * Confirmation before a call (docs/confirmation.md), set by catalog/overrides.json: true asks every time, false
   * never; absent, the deployment's CONFIRM_WRITES decides from the annotations.
   */
  confirm?: boolean;
  toolsets: string[];
  /** Old names that still resolve to this tool (renames from overrides). */
  aliases?: string[];
  http: HttpBinding;
  /** The operation's security requirements, an index into `Catalogue.security.sets`, when not the default's. */
  security?: number;
  /** Present when the operation returns JSON: the projection argument, where a list keeps its items, its paging. */
  result?: ResultShape;
}

/** How one tool's JSON results are projected and paged (src/results); written by the generator. */
export interface ResultShape {
  /** The projection argument in inputSchema: `_fields`, or the first of `_mcp_fields`, `_mcp_fields_2`, … the operation does not use. */
  fields: string;
  /** Where a list result keeps its items: `result` for a wrapped root array, else the root property holding them. Absent: not a list. */
  items?: string;
  /** The operation's own paging arguments (inputSchema property names), detected at build time. Only for lists. */
  paging?: PagingArgs;
  /** Dotted paths (relative to one item, through arrays) of nested API resources, shortened by default (src/results/embedded-resources.ts). */
  embedded?: string[];
}

export interface PagingArgs {
  /** Page number (1-based). */
  page?: string;
  /** Page size (per_page, limit, page_size …). */
  size?: string;
  /** Item offset. */
  offset?: string;
  /** Opaque cursor handed out by a previous response. */
  cursor?: string;
  /** Cursor that takes the last seen item's id (starting_after, an integer since …). */
  after?: string;
  /** Typical estimated tokens (src/lib/tokens.ts) of one compacted item, from the spec's response example: sizes the default page. */
  itemTokens?: number;
}

export type ParamLocation = 'path' | 'query' | 'header' | 'cookie';
export type ParamStyle = 'simple' | 'label' | 'matrix' | 'form' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject';

export interface HttpBinding {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE';
  /** Path template exactly as in the spec, e.g. "/repos/{owner}/{repo}". Relative to the upstream base URL. */
  path: string;
  params: ParamBinding[];
  body?: BodyBinding;
  /** Media types of the success responses, in spec order, e.g. ["application/json"] or ["image/png"]. Empty for no content. */
  accept: string[];
}

export interface ParamBinding {
  /** Property name in inputSchema (sanitised: ^[a-zA-Z0-9_.-]{1,64}$). */
  arg: string;
  /** Name on the wire (may contain [], dashes, etc). */
  name: string;
  in: ParamLocation;
  style: ParamStyle;
  explode: boolean;
  required: boolean;
  allowReserved?: boolean;
}

export interface BodyBinding {
  /** The media type to send, e.g. application/json, application/x-www-form-urlencoded, multipart/form-data, application/octet-stream. */
  mediaType: string;
  required: boolean;
  /**
   * merged: the body is an object whose properties were merged into the input root; `props` maps arg name -> body property name.
   * wrapped: the whole body is one argument named `arg` (non-object bodies, raw/binary bodies).
   */
  mode: 'merged' | 'wrapped';
  props?: Record<string, string>;
  arg?: string;
  /** For wrapped binary bodies: the argument is a base64 string. */
  binary?: boolean;
  /** Form/multipart per-property encoding (keys are body property names). */
  encoding?: Record<string, { style?: ParamStyle; explode?: boolean; contentType?: string }>;
  /** Multipart properties that are files: the argument is {data: base64, filename?: string, contentType?: string}. */
  fileFields?: string[];
}
