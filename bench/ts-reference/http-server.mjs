// Reference MCP server on the official TypeScript SDK over Streamable HTTP, for the side-by-side
// HTTP benchmarks of `fabric-broker --http` (bench/run). The same tools as server.mjs
// (reference-tools.mjs), served the way the SDK documents a stateful Streamable HTTP server: one
// StreamableHTTPServerTransport + Server per session (Mcp-Session-Id), JSON responses
// (enableJsonResponse, as fabric-broker answers), the SDK's DNS-rebinding protection (allowed
// Host), and the same bearer-token check and 8 MiB body bound fabric-broker does, so both servers
// do the same work per request.
//
//   node http-server.mjs TOOLS_LIST_RESULT.json PORT     (token in FB_BENCH_HTTP_TOKEN)
import fs from 'node:fs';
import http from 'node:http';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createServer } from './reference-tools.mjs';

const [toolsFile, portArg] = process.argv.slice(2);
const token = process.env.FB_BENCH_HTTP_TOKEN || '';
if (!toolsFile || portArg === undefined || !token) {
  process.stderr.write('usage: FB_BENCH_HTTP_TOKEN=... node http-server.mjs TOOLS_LIST_RESULT.json PORT\n');
  process.exit(2);
}
const { tools } = JSON.parse(fs.readFileSync(toolsFile, 'utf8'));
const expected = Buffer.from(`Bearer ${token}`);
const maxBody = 8 * 1024 * 1024;
const transports = new Map();

function reject(res, status, message, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }));
}

const httpServer = http.createServer((req, res) => {
  const auth = Buffer.from(req.headers.authorization ?? '');
  if (auth.length !== expected.length || !timingSafeEqual(auth, expected)) {
    reject(res, 401, 'Unauthorized', { 'www-authenticate': 'Bearer realm="ts-reference"' });
    return;
  }
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size > maxBody) { reject(res, 413, 'Content Too Large'); req.destroy(); return; }
    chunks.push(c);
  });
  req.on('end', async () => {
    if (size > maxBody) return;
    let body;
    if (req.method === 'POST') {
      try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { reject(res, 400, 'Parse error'); return; }
    }
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid || req.method !== 'POST' || !isInitializeRequest(body)) {
        reject(res, sid ? 404 : 400, sid ? 'Session not found' : 'Mcp-Session-Id header is required');
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        enableDnsRebindingProtection: true,
        allowedHosts: [`127.0.0.1:${httpServer.address().port}`],
        onsessioninitialized: (id) => { transports.set(id, transport); },
      });
      transport.onclose = () => { if (transport.sessionId) transports.delete(transport.sessionId); };
      await createServer(tools).connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
});
httpServer.keepAliveTimeout = 60000;
httpServer.listen(Number(portArg), '127.0.0.1', () => {
  process.stderr.write(`ts-reference: MCP over HTTP at http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
process.on('SIGTERM', () => process.exit(0));
