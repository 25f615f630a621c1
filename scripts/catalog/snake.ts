// snake_case words of an identifier, shared by tool naming and name shortening.
import { wordRank } from './name-words.ts';

/**
 * "repos/list-for-org" -> "repos_list_for_org", "GetAccountsAccount" -> "get_accounts_account". A plural acronym
 * stays one word: "floatingIPs" -> "floating_ips", "getAPIsForUser" -> "get_apis_for_user"; a possessive goes
 * ("Get an organization's value" -> "get_an_organization_value").
 */
export function snake(s: string): string {
  return foldLatin(s)
    .replace(/['’]s\b/g, '')
    .replace(/([A-Z]{2,})s(?![a-z])/g, '$1S')
    // A lone capital before a capitalised word is one word with it ("OAuth2", "ETag"), but not the words "A" and "I".
    .replace(/(?<![A-Z])([B-HJ-Z])([A-Z])(?=[a-z])/g, (_m, a: string, b: string) => a + b.toLowerCase())
    // Capitals run into a lower-case word ("POSTquery", "APIkey"): the capitals are one word when the rest is a
    // known word and the last capital with it is not ("HTMLParser" stays "html_parser").
    .replace(/([A-Z]{2,})([a-z]{2,})/g, (m, caps: string, low: string) => (wordRank(low) < Infinity && wordRank(caps.slice(-1).toLowerCase() + low) === Infinity ? `${caps}_${low}` : m))
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
