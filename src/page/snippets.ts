// Copy-paste client configurations, filled in with a deployment's endpoint and a placeholder key.
// The catalogue page shows them; README's "Connect your client" section carries the same text.

export const KEY_PLACEHOLDER = 'YOUR_API_KEY';
/** Server name used in configs: short, so `mcp__<server>__<tool>` and Cursor's 60-char budget hold. */
const CONFIG_NAME = 'catalogue';
/** The bridge version the tests exercise (test/e2e/clients.test.ts). */
export const MCP_REMOTE = 'mcp-remote@0.15.1';

interface Snippet {
  id: string;
  client: string;
  /** Where the text goes (file or place in the UI). */
  where: string;
  text: string;
  note?: string;
}

interface Deployment {
  oauth?: boolean;
  /** A read-only tool of bare /mcp that takes no arguments, for the SDK snippet's example call. */
  exampleTool?: string;
}

export function snippets(endpoint: string, key = KEY_PLACEHOLDER, deployment: Deployment = {}): Snippet[] {
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  const bearer = `Bearer ${key}`;
  return [
    {
      id: 'claude-desktop',
      client: 'Claude Desktop (mcp-remote bridge)',
      where: 'claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop',
      text: json({
        mcpServers: {
          [CONFIG_NAME]: {
            command: 'npx',
            args: ['-y', MCP_REMOTE, endpoint, '--header', 'Authorization:${AUTH_HEADER}'],
            env: { AUTH_HEADER: bearer },
          },
        },
      }),
      note: 'The header value lives in env because some clients mangle spaces inside args. Needs Node.js (for npx) on the machine.',
    },
    {
      id: 'claude-connector',
      client: 'Claude Desktop / claude.ai (remote connector)',
      where: 'Settings → Connectors → Add custom connector',
      text: `Name: ${CONFIG_NAME}\nRemote MCP server URL: ${endpoint}`,
      note: deployment.oauth
        ? 'Custom connectors sign in with OAuth: on the page that opens, paste your API key, choose the toolsets to allow, and approve. ChatGPT connectors and Claude Code without a header do the same.'
        : 'Custom connectors authenticate with OAuth only and cannot send an API-key header, so with API keys they get 401. Use the mcp-remote configuration above until this deployment offers OAuth.',
    },
    {
      id: 'claude-code',
      client: 'Claude Code',
      where: 'terminal',
      text: `claude mcp add --transport http ${CONFIG_NAME} ${endpoint} --header "Authorization: ${bearer}"`,
    },
    {
      id: 'cursor',
      client: 'Cursor',
      where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
      text: json({ mcpServers: { [CONFIG_NAME]: { url: endpoint, headers: { Authorization: bearer } } } }),
      note: 'Cursor uses only about the first 40 tools: a bigger endpoint lists its most used tools plus search_tools, describe_tool and call_tool, which reach the rest. A slice such as /mcp/x/<toolset> (see Toolsets) lists its tools directly.',
    },
    {
      id: 'vscode',
      client: 'VS Code (Copilot)',
      where: '.vscode/mcp.json',
      text: json({
        inputs: [{ type: 'promptString', id: 'catalogue-key', description: 'API key for the MCP catalogue', password: true }],
        servers: { [CONFIG_NAME]: { type: 'http', url: endpoint, headers: { Authorization: 'Bearer ${input:catalogue-key}' } } },
      }),
      note: 'VS Code asks for the key once and stores it securely, so the file can be committed. At most 128 tools: use a slice URL for big toolsets.',
    },
    {
      id: 'sdk-v2',
      client: 'TypeScript SDK v2 (@modelcontextprotocol/client)',
      where: 'your code',
      text: [
        "import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';",
        '',
        "const client = new Client({ name: 'my-app', version: '1.0.0' });",
        'await client.connect(',
        `  new StreamableHTTPClientTransport(new URL('${endpoint}'), {`,
        `    requestInit: { headers: { Authorization: '${bearer}' } },`,
        '  }),',
        ');',
        'const { tools } = await client.listTools();',
        ...(deployment.exampleTool
          ? [
              `// ${deployment.exampleTool} reads only and takes no arguments; other tools take what their inputSchema describes.`,
              `const result = await client.callTool({ name: '${deployment.exampleTool}', arguments: {} });`,
              'console.log(result.structuredContent ?? result.content);',
            ]
          : ["// Call a tool with the arguments its inputSchema describes: client.callTool({ name: tools[0].name, arguments: { … } })."]),
      ].join('\n'),
    },
    {
      id: 'sdk-v1',
      client: 'TypeScript SDK v1 (@modelcontextprotocol/sdk)',
      where: 'your code',
      text: [
        "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
        "import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';",
        '',
        "const client = new Client({ name: 'my-app', version: '1.0.0' });",
        'await client.connect(',
        `  new StreamableHTTPClientTransport(new URL('${endpoint}'), {`,
        `    requestInit: { headers: { Authorization: '${bearer}' } },`,
        '  }),',
        ');',
        'const { tools } = await client.listTools();',
      ].join('\n'),
      note: 'The v1 client compiles every outputSchema on each listTools (seconds for 1,000 tools); connect to a slice for speed.',
    },
  ];
}
