// Reference MCP server on the official TypeScript SDK (stdio), for the side-by-side benchmarks of
// fabric-broker (bench/run). It serves the same tool list as fabric-broker (names, descriptions,
// schemas: the tools/list result dumped from fabric-broker at the start of each benchmark run,
// passed as argv[2] or FB_BENCH_TOOLS) and implements fabric_list_metros like fabric-broker
// does: an OAuth2 client-credentials token from POST /oauth2/v1/token (cached until it expires),
// then a real HTTP GET /fabric/v4/metros?offset&limit on EQUINIX_API_ENDPOINT. Every other tool
// answers isError (the benchmark only calls fabric_list_metros).
//
// The SDK's low-level Server is used because the tool schemas are plain JSON Schema (McpServer
// wants zod shapes); that is the SDK's own documented path for raw schemas.
import fs from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createServer } from './reference-tools.mjs';

const toolsFile = process.argv[2] || process.env.FB_BENCH_TOOLS;
if (!toolsFile) {
  process.stderr.write('usage: node server.mjs TOOLS_LIST_RESULT.json\n');
  process.exit(2);
}
const { tools } = JSON.parse(fs.readFileSync(toolsFile, 'utf8'));

const server = createServer(tools);

const transport = new StdioServerTransport();
// End of input ends the session, as in fabric-broker (the SDK's transport does not watch 'end';
// without this an idle keep-alive socket could keep the process alive).
process.stdin.on('end', () => process.exit(0));
await server.connect(transport);
