// MCP over loopback Streamable HTTP (`--headless --http 127.0.0.1:0 --sandbox`): the official v1
// SDK client and the v2 client (@modelcontextprotocol/client 2.4.0) with the bearer token, and
// the transport's refusals (token, Origin, Host, sessions) on raw requests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import * as v2 from '@modelcontextprotocol/client';
import { BIN, baseEnv } from './lib.mjs';
import { answerForms, proposeAndConfirm } from './mrtr-v2.mjs';

let proc; let url; let token; let stderr = '';

// Starts the broker with --http on a free port; the URL comes from its stderr line.
async function startHttpBroker(extraArgs = []) {
  const env = baseEnv();
  const child = spawn(BIN, ['--headless', '--http', '127.0.0.1:0', '--sandbox', ...extraArgs],
    { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d.toString(); });
  const deadline = Date.now() + 15000;
  const re = /MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/;
  while (!re.test(err)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no HTTP endpoint: ${err}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const tokenFile = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token');
  const st = fs.statSync(tokenFile);
  return {
    proc: child, url: re.exec(err)[1], token: fs.readFileSync(tokenFile, 'utf8').trim(),
    mode: st.mode & 0o777, get stderr() { return err; },
  };
}

before(async () => {
  const b = await startHttpBroker(['--toolsets', 'read,mutate']);
  proc = b.proc; url = b.url; token = b.token;
  Object.defineProperty(globalThis, '__fbHttpStderr', { get: () => b.stderr, configurable: true });
  assert.equal(b.mode, 0o600, 'the token file is private');
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
});

after(async () => {
  proc.kill('SIGTERM');
  if (proc.exitCode === null) await once(proc, 'exit');
  stderr = globalThis.__fbHttpStderr ?? '';
  assert.ok(!stderr.includes(token), 'the bearer token never reaches the log');
});

const auth = () => ({ Authorization: `Bearer ${token}` });

async function post(body, headers = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

test('v1 SDK client over Streamable HTTP with the bearer token', async () => {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth() } });
  const client = new Client({ name: 'http-e2e-v1', version: '1.0.0' });
  await client.connect(transport);
  assert.ok(transport.sessionId, 'initialize issued a session id');
  assert.equal(client.getServerVersion().name, 'fabric-broker');
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'fabric_list_metros'));
  const r = await client.callTool({ name: 'fabric_list_metros', arguments: {} }, CallToolResultSchema);
  assert.ok(!r.isError, JSON.stringify(r).slice(0, 500));
  assert.ok(JSON.stringify(r.structuredContent ?? r.content).includes('SV'));
  await client.ping();
  await transport.terminateSession();
  // The session is gone: its id is refused.
  const gone = await post({ jsonrpc: '2.0', id: 9, method: 'ping' }, { ...auth(), 'mcp-session-id': transport.sessionId ?? 'x' });
  assert.ok([400, 404].includes(gone.status));
  await client.close();
});

// The v2 client probes server/discover over HTTP and picks 2026-07-28: stateless requests (no
// Mcp-Session-Id) with MCP-Protocol-Version, Mcp-Method and Mcp-Name, all served by one Session.
for (const [label, versionNegotiation] of [['mode auto', { mode: 'auto' }], ['pin 2026-07-28', { mode: { pin: '2026-07-28' } }]]) {
  test(`v2 client (${label}) over HTTP negotiates 2026-07-28: tools/list and a catalog call`, async () => {
    const transport = new v2.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth() } });
    const client = new v2.Client({ name: 'http-e2e-v2', version: '2.4.0' }, { capabilities: {}, versionNegotiation });
    await client.connect(transport);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.equal(transport.sessionId, undefined, 'the modern era is stateless over HTTP');
      assert.equal(client.getServerVersion()?.name, 'fabric-broker');
      assert.ok(client.getDiscoverResult().supportedVersions.includes('2026-07-28'));
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'fabric_list_metros'));
      const r = await client.callTool({ name: 'fabric_list_metros', arguments: {} });
      assert.notEqual(r.isError, true, JSON.stringify(r).slice(0, 500));
      assert.ok(Array.isArray(r.structuredContent.data) && r.structuredContent.data.length > 0);
    } finally { await client.close(); }
  });
}

test('v2 client with the default legacy negotiation still gets a 2025 session over HTTP', async () => {
  const transport = new v2.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth() } });
  const client = new v2.Client({ name: 'http-e2e-v2-legacy', version: '2.4.0' });
  await client.connect(transport);
  try {
    assert.match(transport.sessionId ?? '', /^[0-9a-f]{32}$/);
    assert.notEqual(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const r = await client.callTool({ name: 'fabric_list_metros', arguments: {} });
    assert.notEqual(r.isError, true, JSON.stringify(r).slice(0, 500));
  } finally { await client.close(); }
});

test('requests without the bearer token are refused with 401 and WWW-Authenticate', async () => {
  let r = await post(initialize);
  assert.equal(r.status, 401);
  assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer/);
  r = await post(initialize, { Authorization: 'Bearer not-the-token-not-the-token-not-the-token' });
  assert.equal(r.status, 401);
  // The v1 client without the header cannot connect.
  const client = new Client({ name: 'no-token', version: '1' });
  await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(url))));
});

test('a foreign Origin or Host is refused with 403, and no CORS is granted', async () => {
  let r = await post(initialize, { ...auth(), origin: 'http://evil.example' });
  assert.equal(r.status, 403);
  const port = new URL(url).port;
  r = await post(initialize, { ...auth(), origin: `http://localhost:${port}` });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('access-control-allow-origin'), null);
  const pre = await fetch(url, { method: 'OPTIONS', headers: { ...auth(), origin: 'http://evil.example', 'access-control-request-method': 'POST' } });
  assert.equal(pre.status, 403);
  assert.equal(pre.headers.get('access-control-allow-origin'), null);
});

test('2025 session rules: id issued at initialize, required after, DELETE ends it', async () => {
  const init = await post(initialize, auth());
  assert.equal(init.status, 200);
  const sid = init.headers.get('mcp-session-id');
  assert.match(sid, /^[0-9a-f]{32}$/);
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
  assert.equal((await post(list, auth())).status, 400);
  assert.equal((await post(list, { ...auth(), 'mcp-session-id': '0'.repeat(32) })).status, 404);
  const ok = await post(list, { ...auth(), 'mcp-session-id': sid });
  assert.equal(ok.status, 200);
  assert.equal(ok.json.id, 2);
  const del = await fetch(url, { method: 'DELETE', headers: { ...auth(), 'mcp-session-id': sid } });
  assert.equal(del.status, 200);
  assert.equal((await post(list, { ...auth(), 'mcp-session-id': sid })).status, 404);
  // Strict JSON and the body bound.
  assert.equal((await post('{"jsonrpc":', auth())).status, 400);
  const big = await post({ jsonrpc: '2.0', id: 3, method: 'ping', params: { pad: 'x'.repeat(9 * 1024 * 1024) } }, auth()).catch(() => ({ status: 413 }));
  assert.equal(big.status, 413);
});

test('2026-07-28 requests need the standard headers to agree with the body', async () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const body = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'fabric_list_metros', arguments: {}, _meta: meta } };
  let r = await post(body, { ...auth(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' });
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, -32020);
  assert.equal(r.json.id, 5);
  r = await post(body, { ...auth(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', 'mcp-name': 'fabric_list_metros' });
  assert.equal(r.json.error.code, -32020);
  r = await post({ jsonrpc: '2.0', id: 6, method: 'ping' }, { ...auth(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'ping' });
  assert.equal(r.status, 400);
  assert.equal(r.json.error.code, -32602);
  // Headers in agreement: served without a session, with the modern result shape.
  r = await post({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: { _meta: meta } },
    { ...auth(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('mcp-session-id'), null);
  assert.equal(r.json.id, 'list');
  assert.equal(r.json.result.resultType, 'complete');
  assert.ok(r.json.result.tools.length > 0);
  // An envelope error from the Session comes back on the same POST.
  r = await post({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } },
    { ...auth(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
  assert.equal(r.json.id, 7);
  assert.equal(r.json.error.code, -32602);
});

// The confirm as a multi-round-trip over HTTP: the v2 client auto-fulfils input_required through
// its elicitation handler and retries with requestState; the retry reaches the same Session.
for (const [action, status, executed] of [['accept', 'accepted', true], ['decline', 'declined', false]]) {
  test(`v2 client over HTTP: MRTR confirm, ${action} through auto-fulfilment of input_required`, async () => {
    const transport = new v2.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth() } });
    const client = new v2.Client({ name: 'http-mrtr-e2e', version: '2.4.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
    const asked = answerForms(client, action);
    await client.connect(transport);
    try {
      await proposeAndConfirm(client, asked, status, executed);
    } finally { await client.close(); }
  });
}
