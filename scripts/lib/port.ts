// The port `npm start` / `npm run serve` listen on: a TCP port that MCP clients can actually reach.

/**
 * Ports that fetch() refuses to connect to (the WHATWG Fetch standard's "bad ports"): Node's fetch, browsers and
 * most MCP clients built on them fail with a bare "bad port" there, so a server on one is unreachable.
 */
const FETCH_BLOCKED = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123,
  135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995,
  1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The port number `raw` names, or a sentence saying why it cannot be used (`label` names the setting). */
export function parsePort(raw: string, label: string): number | string {
  const port = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(port) || port <= 0 || port > 65535) {
    return `${label} must be a TCP port number from 1 to 65535, not ${JSON.stringify(raw)}`;
  }
  if (FETCH_BLOCKED.has(port)) {
    return `${label} ${port} is one of the ports fetch() refuses to connect to (the Fetch standard's "bad ports"), so MCP clients could not reach the server there; choose another, such as 8787`;
  }
  return port;
}
