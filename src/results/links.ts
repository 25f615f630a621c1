// Hypermedia: string fields that only link back into the API itself. A field is a link by name (url, *_url, href,
// *Link …, anything under `links`/`_links`) or because the spec declares it a URI (ResultRules.linkFields, decided at
// build time); its value is hypermedia when it is a URI template (`…/issues{/number}`) or its origin is one of the
// API's own (the spec's servers or the configured upstream: payloads keep naming the canonical host even behind a
// gateway, a proxy or a mock). Links a person would open (html_url to github.com) point elsewhere and stay.

const LINK_NAME = /(?:^|[_.-])(?:url|uri|href|link)s?$|[a-z0-9](?:Url|URL|Uri|URI|Href|Link)s?$/i;
/** Paging links are how a caller reaches the next page: never dropped. */
const PAGING_LINK = /^(?:next|prev|previous|first|last)(?:[_-]?page)?(?:[_-]?(?:url|uri|link|href))?$/i;
const LINK_PARENTS = new Set(['links', '_links']);
const TEMPLATE = /^(?:https?:\/\/|\/)\S*\{[^}\s]*\}/;

export interface LinkRules {
  /** Lower-case origins, e.g. https://api.github.com (default ports removed). */
  origins: ReadonlySet<string>;
  linkFields: ReadonlySet<string>;
}

/** scheme://host[:port], lower-case, default port removed; undefined when `value` is not an absolute http(s) URL. */
export function originOf(value: string): string | undefined {
  const head = value.slice(0, 8).toLowerCase();
  const start = head === 'https://' ? 8 : head.startsWith('http://') ? 7 : 0;
  if (!start) return undefined;
  let end = start;
  while (end < value.length) {
    const c = value.charCodeAt(end);
    if (c === 47 || c === 63 || c === 35) break; // / ? #
    end++;
  }
  let host = value.slice(start, end).toLowerCase();
  const at = host.lastIndexOf('@');
  if (at >= 0) host = host.slice(at + 1);
  if (!host) return undefined;
  if (start === 8 && host.endsWith(':443')) host = host.slice(0, -4);
  if (start === 7 && host.endsWith(':80')) host = host.slice(0, -3);
  return `${value.slice(0, start - 3).toLowerCase()}://${host}`;
}

export function isLinkField(key: string, parentKey: string | undefined, rules: LinkRules): boolean {
  if (PAGING_LINK.test(key)) return false;
  return LINK_NAME.test(key) || rules.linkFields.has(key) || (parentKey !== undefined && LINK_PARENTS.has(parentKey));
}

/** Whether the string `value` of field `key` (inside `parentKey`) is hypermedia that compaction drops. */
export function isHypermedia(key: string, parentKey: string | undefined, value: string, rules: LinkRules): boolean {
  if (value.length < 8 || !isLinkField(key, parentKey, rules)) return false;
  if (value.includes('{') && TEMPLATE.test(value)) return true;
  const origin = originOf(value);
  return origin !== undefined && rules.origins.has(origin);
}
