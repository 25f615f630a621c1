// What a client may register about itself (RFC 7591), and how its name is shown. Anyone who knows the URL can
// register, and the consent page shows the name, so names are short and free of characters that hide or reorder
// text (a right-to-left override can make "evil.com" read as "moc.live"); every stored field has a size limit,
// so registrations cannot fill storage. The library's clientRegistrationCallback runs checkClientMetadata.

/** Longest client_name accepted, in characters (code points). */
export const MAX_CLIENT_NAME = 100;
/** The whole registration request body. Real clients send well under 2 KiB. */
export const MAX_REGISTRATION_BYTES = 16 * 1024;
export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_LENGTH = 2000;
export const MAX_CONTACTS = 10;
const MAX_CONTACT_LENGTH = 254;
/** Any other string field (software_id, software_version, scope, …) and any array of short strings. */
const MAX_OTHER_STRING = 512;
const MAX_OTHER_ITEMS = 16;

// Controls (C0, DEL, C1), format characters (bidi embeddings, overrides and isolates, marks, zero-width and other
// invisible characters, which include the language tags), line and paragraph separators, private-use and
// noncharacters: nothing a name needs, and each can make one name look like another.
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\u{FFF9}-\u{FFFB}\u{FDD0}-\u{FDEF}\u{FFFE}\u{FFFF}]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');
const URI_FIELDS = ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri', 'jwks_uri'];

export interface MetadataRefusal {
  code: 'invalid_client_metadata' | 'invalid_redirect_uri';
  description: string;
}

/** Why this registration is refused, or undefined when it may be stored. */
export function checkClientMetadata(metadata: Record<string, unknown>): MetadataRefusal | undefined {
  for (const [field, value] of Object.entries(metadata)) {
    const base = field.split('#')[0]!;
    // Language-tagged variants (client_name#ja) are stored and shown like the field they translate.
    if (base === 'client_name') {
      const problem = nameProblem(value, field);
      if (problem) return { code: 'invalid_client_metadata', description: problem };
    } else if (base === 'redirect_uris') {
      if (Array.isArray(value) && value.length > MAX_REDIRECT_URIS) return { code: 'invalid_redirect_uri', description: `redirect_uris may list at most ${MAX_REDIRECT_URIS} URIs; got ${value.length}.` };
      if (Array.isArray(value) && value.some((u) => typeof u === 'string' && u.length > MAX_URI_LENGTH)) return { code: 'invalid_redirect_uri', description: `Each redirect URI may be at most ${MAX_URI_LENGTH} characters.` };
    } else if (URI_FIELDS.includes(base)) {
      if (typeof value === 'string' && value.length > MAX_URI_LENGTH) return { code: 'invalid_client_metadata', description: `${field} may be at most ${MAX_URI_LENGTH} characters.` };
    } else if (base === 'contacts') {
      if (Array.isArray(value) && (value.length > MAX_CONTACTS || value.some((c) => typeof c === 'string' && c.length > MAX_CONTACT_LENGTH))) {
        return { code: 'invalid_client_metadata', description: `contacts may list at most ${MAX_CONTACTS} addresses of at most ${MAX_CONTACT_LENGTH} characters.` };
      }
    } else if (typeof value === 'string' && value.length > MAX_OTHER_STRING) {
      return { code: 'invalid_client_metadata', description: `${field} may be at most ${MAX_OTHER_STRING} characters.` };
    } else if (Array.isArray(value) && (value.length > MAX_OTHER_ITEMS || value.some((v) => typeof v === 'string' && v.length > MAX_OTHER_STRING))) {
      return { code: 'invalid_client_metadata', description: `${field} may list at most ${MAX_OTHER_ITEMS} values of at most ${MAX_OTHER_STRING} characters.` };
    }
  }
  return undefined;
}

function nameProblem(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return `${field} must be a string.`;
  if (HIDDEN.test(value)) return `${field} may not contain control, formatting or bidirectional characters.`;
  const length = [...value].length;
  if (length > MAX_CLIENT_NAME) return `${field} may be at most ${MAX_CLIENT_NAME} characters; got ${length}.`;
  return undefined;
}

/**
 * A client name as the consent page shows it: hidden characters removed, whitespace collapsed, at most
 * MAX_CLIENT_NAME characters. Registration already refuses such names; a Client ID Metadata Document is fetched
 * from its publisher, so its name is only cleaned here.
 */
export function displayName(name: string): string {
  const clean = name.replace(HIDDEN_ALL, '').replace(/\s+/gu, ' ').trim();
  const chars = [...clean];
  const shown = chars.length > MAX_CLIENT_NAME ? `${chars.slice(0, MAX_CLIENT_NAME - 1).join('')}…` : clean;
  return shown || 'An unnamed app';
}
