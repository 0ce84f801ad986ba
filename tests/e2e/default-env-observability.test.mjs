// Observability as a real client starts the server (issue #38): the official SDK's
// StdioClientTransport spawns `fabric-broker --stdio` with getDefaultEnvironment() only, so an
// OTEL_EXPORTER_OTLP_ENDPOINT in the user's shell never reaches it. The user's policy file
// (~/.config/fabric-broker/policy.json, found from HOME alone) names the collector instead:
//  1. the first spawned `--stdio` becomes the headless instance on the per-user socket and exports
//     its own session's spans (network.transport "pipe");
//  2. a second spawned `--stdio` relays to that instance, whose spans for the relayed session say
//     network.transport "unix" and carry the client's traceparent;
//  3. the relay itself exports nothing of its own (the instance serves the session).
// Serialized with every other default-environment test (they share the per-user socket).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, lockRunUser, scratchDir, sleep } from './lib.mjs';

let unlock; let home; let receiver; const savedHome = process.env.HOME;

// Captures every OTLP/HTTP JSON POST.
async function startOtlpReceiver() {
  const bodies = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let json = null;
      try { json = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { /* counted below */ }
      bodies.push({ path: req.url, json });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, bodies, url: `http://127.0.0.1:${server.address().port}` };
}

function spansOf(bodies) {
  const out = [];
  for (const b of bodies) {
    if (b.path !== '/v1/traces' || !b.json) continue;
    for (const rs of b.json.resourceSpans ?? []) {
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          const attrs = Object.fromEntries((s.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]]));
          out.push({ ...s, attrs });
        }
      }
    }
  }
  return out;
}

async function until(fn, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(typeof what === 'function' ? what() : what);
    await sleep(50);
  }
}

before(async () => {
  unlock = await lockRunUser();
  home = path.join(scratchDir('fb-default-env-obs-'), 'home');
  fs.mkdirSync(path.join(home, '.config', 'fabric-broker'), { recursive: true });
  process.env.HOME = home;
  receiver = await startOtlpReceiver();
  // What a user writes once; every server their clients spawn then exports.
  fs.writeFileSync(path.join(home, '.config', 'fabric-broker', 'policy.json'),
    JSON.stringify({ observability: { otlp_endpoint: receiver.url } }));
});

after(async () => {
  process.env.HOME = savedHome;
  if (receiver) { receiver.server.closeAllConnections?.(); await new Promise((r) => receiver.server.close(() => r())); }
  if (unlock) unlock();
});

function alive(pid) { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } }

async function spawnDefault(args, name) {
  const childEnv = getDefaultEnvironment();
  assert.equal(childEnv.OTEL_EXPORTER_OTLP_ENDPOINT, undefined, 'the SDK passes no OTEL_* variable');
  assert.equal(childEnv.HOME, home);
  const transport = new StdioClientTransport({ command: BIN, args, stderr: 'pipe' }); // no env
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name, version: '1' }, { capabilities: {} });
  await client.connect(transport);
  const pid = transport.pid;
  return {
    client, get stderr() { return stderr; },
    async close() {
      await client.close();
      for (let i = 0; i < 100 && pid && alive(pid); i++) await sleep(50);
    },
  };
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

test("default env: the user's policy file names the collector, and both the spawned instance and a session relayed to it export their spans", async () => {
  const instance = await spawnDefault(['--stdio'], 'default-env-instance');
  let relayed;
  try {
    const r1 = await instance.client.callTool({ name: 'fabric_list_metros', arguments: {} }, CallToolResultSchema);
    assert.notEqual(r1.isError, true);
    relayed = await spawnDefault(['--stdio'], 'default-env-relayed');
    const r2 = await relayed.client.callTool({
      name: 'fabric_list_metros', arguments: {},
      _meta: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
    }, CallToolResultSchema);
    assert.notEqual(r2.isError, true);
  } finally {
    if (relayed) await relayed.close();
    await instance.close(); // the instance exits and flushes what it holds
  }
  const calls = () => spansOf(receiver.bodies).filter((s) => s.name === 'tools/call fabric_list_metros');
  await until(() => calls().length >= 2, 10000,
    () => `both calls' spans at the policy's collector; got ${JSON.stringify(calls().map((s) => s.attrs))}; instance: ${instance.stderr.slice(-1500)}`);
  const pipe = calls().filter((s) => s.attrs['network.transport'] === 'pipe');
  const unix = calls().filter((s) => s.attrs['network.transport'] === 'unix');
  assert.equal(pipe.length, 1, 'the instance\'s own stdio session');
  assert.equal(unix.length, 1, 'the relayed session, served by the instance over the socket');
  assert.equal(unix[0].traceId, TRACE, 'the relayed client\'s traceparent continues');
  assert.equal(unix[0].parentSpanId, '00f067aa0ba902b7');
  assert.equal(calls().length, 2, 'the relay exports no span of its own for the call');
});
