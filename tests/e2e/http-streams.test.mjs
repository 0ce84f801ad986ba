// The event streams of MCP over loopback HTTP (`--headless --http 127.0.0.1:0 --sandbox`):
//  - the official v1 SDK client confirms a change through an elicitation that arrives on the
//    tools/call's text/event-stream response (client-channel approval over SSE);
//  - a raw client loses the stream while the elicitation waits, reconnects with GET +
//    Last-Event-ID and gets the missed events once and only once, then the response;
//  - the v2 client (2026-07-28) opens subscriptions/listen and gets the acknowledgement.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as v2 from '@modelcontextprotocol/client';
import { BIN, baseEnv, connectionSpec } from './lib.mjs';

let proc; let url; let token; let stderr = '';

before(async () => {
  const env = baseEnv();
  proc = spawn(BIN, ['--headless', '--http', '127.0.0.1:0', '--sandbox', '--toolsets', 'read,mutate'],
    { env, stdio: ['ignore', 'ignore', 'pipe'] });
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  const re = /MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/;
  const deadline = Date.now() + 15000;
  while (!re.test(stderr)) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`no HTTP endpoint: ${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  url = re.exec(stderr)[1];
  token = fs.readFileSync(path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token'), 'utf8').trim();
});

after(async () => {
  proc.kill('SIGTERM');
  if (proc.exitCode === null) await once(proc, 'exit');
  assert.ok(!stderr.includes(token), 'the bearer token never reaches the log');
});

const auth = () => ({ Authorization: `Bearer ${token}` });

test('v1 SDK client over HTTP: the confirm elicitation arrives on the event stream and is answered', async () => {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth() } });
  const client = new Client({ name: 'http-sse-e2e', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  let asked;
  client.setRequestHandler(ElicitRequestSchema, async (req) => { asked = req.params; return { action: 'accept', content: { confirm: true } }; });
  await client.connect(transport);
  try {
    const spec = connectionSpec();
    const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
    assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 800));
    const c = await client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } }, CallToolResultSchema);
    const s = c.structuredContent;
    assert.ok(asked, 'the client was asked');
    assert.ok(asked.message.includes(p.structuredContent.request_sha256));
    assert.deepEqual({ status: s.human_confirmation.status, channel: s.human_confirmation.channel }, { status: 'accepted', channel: 'client' });
    assert.equal(s.executed, true);
    assert.equal(s.execution.outcome, 'created');
  } finally { await client.close(); }
});

// Minimal SSE reader over fetch: events as they arrive; stop() drops the connection.
function sse(res) {
  const events = []; let buf = ''; let ended = false; const waiters = [];
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const wake = () => { for (const w of waiters.splice(0)) w(); };
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i); buf = buf.slice(i + 2);
          const e = { data: '' };
          for (const line of block.split('\n')) {
            const [k, ...rest] = line.split(': ');
            if (k === 'id') e.id = rest.join(': ');
            else if (k === 'retry') e.retry = Number(rest.join(': '));
            else if (k === 'data') e.data += (e.data ? '\n' : '') + rest.join(': ');
          }
          e.json = e.data ? JSON.parse(e.data) : undefined;
          events.push(e); wake();
        }
      }
    } catch { /* stopped */ }
    ended = true; wake();
  })();
  return {
    events, get ended() { return ended; },
    async until(pred, ms = 20000, what = 'an event') {
      const deadline = Date.now() + ms;
      while (!pred(events)) {
        if (ended) throw new Error(`the stream ended before ${what}: ${JSON.stringify(events)}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(events)}`);
        await new Promise((r) => { waiters.push(r); setTimeout(r, 200); });
      }
      return events;
    },
    async untilEnd(ms = 20000) {
      const deadline = Date.now() + ms;
      while (!ended) {
        if (Date.now() > deadline) throw new Error(`the stream did not end: ${JSON.stringify(events)}`);
        await new Promise((r) => { waiters.push(r); setTimeout(r, 200); });
      }
      return events;
    },
    stop() { reader.cancel().catch(() => {}); },
  };
}

test('a stream lost while the elicitation waits: GET with Last-Event-ID replays the missed events once, then the response', async () => {
  const headers = { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const rpc = async (body, sid, extra = {}) => fetch(url, { method: 'POST', headers: { ...headers, ...(sid ? { 'mcp-session-id': sid } : {}), ...extra }, body: JSON.stringify(body) });
  const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } }, clientInfo: { name: 'raw-sse', version: '1' } } });
  const sid = init.headers.get('mcp-session-id');
  await init.text();
  assert.equal((await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid)).status, 202);
  // The propose is a tools/call: an event stream whose last event is the response.
  const proposeRes = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec: connectionSpec() } } }, sid);
  assert.equal(proposeRes.headers.get('content-type'), 'text/event-stream');
  const proposed = (await sse(proposeRes).untilEnd()).find((e) => e.json?.id === 2).json.result.structuredContent;
  // The confirm: priming event, then the elicitation request; the client drops the connection.
  const confirmRes = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fabric_confirm_change', arguments: { confirm_token: proposed.confirm_token } } }, sid);
  const first = sse(confirmRes);
  await first.until((ev) => ev.some((e) => e.json?.method === 'elicitation/create'), 20000, 'the elicitation');
  const priming = first.events[0];
  assert.equal(priming.data, '', 'the priming event has no data');
  assert.ok(priming.id && priming.retry > 0, 'the priming event has an id and retry');
  const elicitation = first.events.find((e) => e.json?.method === 'elicitation/create');
  first.stop();
  await new Promise((r) => setTimeout(r, 300));
  // Reconnect after the priming event: the elicitation again, once, with the same event id.
  const resume = () => fetch(url, { method: 'GET', headers: { ...auth(), accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25', 'last-event-id': priming.id } });
  const res = await resume();
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const second = sse(res);
  await second.until((ev) => ev.length >= 1, 10000, 'the replay');
  assert.equal(second.events[0].id, elicitation.id);
  assert.equal(second.events[0].json.id, elicitation.json.id);
  // The answer is a POST; the response ends the resumed stream.
  const answer = await rpc({ jsonrpc: '2.0', id: elicitation.json.id, result: { action: 'accept', content: { confirm: true } } }, sid);
  assert.equal(answer.status, 202);
  const events = await second.untilEnd(30000);
  const ids = events.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, `no event twice: ${ids}`);
  assert.equal(events.filter((e) => e.json?.method === 'elicitation/create').length, 1);
  const responses = events.filter((e) => e.json?.id === 3);
  assert.equal(responses.length, 1);
  const s = responses[0].json.result.structuredContent;
  assert.deepEqual({ status: s.human_confirmation.status, channel: s.human_confirmation.channel }, { status: 'accepted', channel: 'client' });
  assert.equal(s.execution.outcome, 'created');
  // Resuming from the same point again replays the same events, each once; the response is
  // not executed again (it is the recorded event, not a new call).
  const again = await sse(await resume()).untilEnd();
  assert.deepEqual(again.map((e) => e.id), ids);
  // An id of no stream of this session: 409.
  const bad = await fetch(url, { method: 'GET', headers: { ...auth(), accept: 'text/event-stream', 'mcp-session-id': sid, 'last-event-id': 'p999.1' } });
  assert.equal(bad.status, 409);
  await bad.text();
  await fetch(url, { method: 'DELETE', headers: { ...auth(), 'mcp-session-id': sid } });
});

test('v2 client (2026-07-28) over HTTP: subscriptions/listen is acknowledged for tool list changes', async () => {
  const transport = new v2.StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth() } });
  const client = new v2.Client({ name: 'http-listen-e2e', version: '2.4.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport);
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);
    const sub = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    assert.deepEqual(sub.honoredFilter, { toolsListChanged: true });
    await sub.close();
    // The session serves on after the subscription ended.
    const { tools } = await client.listTools();
    assert.ok(tools.length > 0);
  } finally { await client.close(); }
});
