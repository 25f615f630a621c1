// snake_case words of an identifier, shared by tool naming and name shortening.

/**
 * "repos/list-for-org" -> "repos_list_for_org", "GetAccountsAccount" -> "get_accounts_account". A plural acronym
 * stays one word: "floatingIPs" -> "floating_ips", "getAPIsForUser" -> "get_apis_for_user"; a possessive goes
 * ("Get an organization's value" -> "get_an_organization_value").
 */
export function snake(s: string): string {
  return foldLatin(s)
    .replace(/['’]s\b/g, '')
    .replace(/([A-Z]{2,})s(?![a-z])/g, '$1S')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

// Latin letters outside ASCII keep their base letter ("détails" -> "details", not "d_tails"): NFKD splits off the
// accents, and the few letters it leaves whole are spelled out.
const SPELLED: Record<string, string> = { ß: 'ss', æ: 'ae', Æ: 'Ae', œ: 'oe', Œ: 'Oe', ø: 'o', Ø: 'O', ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', þ: 'th', Þ: 'Th' };

function foldLatin(s: string): string {
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  return s.normalize('NFKD').replace(/\p{M}+/gu, '').replace(/[ßæÆœŒøØłŁđĐþÞ]/g, (c) => SPELLED[c]!);
}
