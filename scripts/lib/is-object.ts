// The one test the build scripts apply before reading keys of a parsed spec or schema node.

/** A JSON object: not null, not an array. */
export const isObj = (x: unknown): x is Record<string, any> => !!x && typeof x === 'object' && !Array.isArray(x);
