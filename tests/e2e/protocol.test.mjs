// JSON-RPC and MCP lifecycle basics on the wire: raw NDJSON over the real executable's stdio
// (what the SDK client hides): error codes, version negotiation, ping, batches, frame limits
// and end of input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { startRaw, sleep } from './lib.mjs';

const MAX_FRAME = 4 * 1024 * 1024; // ServerOptions::maxFrameBytes
const SUPPORTED = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const LATEST = SUPPORTED[0];
// End of input must end the process within 1 s; sanitizer builds (LSan's exit-time leak scan)
// get more room.
const EXIT_BUDGET_MS = process.env.ASAN_OPTIONS || process.env.UBSAN_OPTIONS ? 3000 : 1000;

function initMsg(id, protocolVersion, capabilities = {}) {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 'protocol-e2e', version: '1' } } };
}

// Writes raw text (not necessarily JSON) as one or more lines.
function writeLine(raw, text) { raw.proc.stdin.write(text + '\n'); }

async function withRaw(fn, opts) {
  const raw = startRaw(opts);
  try { await fn(raw); } finally { await raw.close(); }
}

// Sends `text` and then a ping with a fresh id, and returns the messages that arrived between.
let seq = 0;
async function exchange(raw, text) {
  const before = raw.messages.length;
  writeLine(raw, text);
  const pingId = `sync-${++seq}`;
  raw.write({ jsonrpc: '2.0', id: pingId, method: 'ping' });
  await raw.waitFor((m) => m.id === pingId);
  return raw.messages.slice(before).filter((m) => m.id !== pingId);
}

async function expectError(raw, text, code, id) {
  const got = await exchange(raw, text);
  assert.equal(got.length, 1, `exactly one reply to ${text.slice(0, 120)}: ${JSON.stringify(got)}`);
  const [m] = got;
  assert.equal(m.jsonrpc, '2.0');
  assert.ok(m.error, `an error for ${text.slice(0, 120)}: ${JSON.stringify(m)}`);
  assert.equal(m.error.code, code, `${text.slice(0, 120)} -> ${JSON.stringify(m.error)}`);
  assert.equal(typeof m.error.message, 'string');
  assert.ok(m.error.message.length > 0);
  assert.deepEqual(m.id, id, `reply id for ${text.slice(0, 120)}`);
  assert.equal('result' in m, false);
  return m;
}

test('protocol: -32700 parse errors, -32600 invalid requests; the session stays usable', async () => {
  await withRaw(async (raw) => {
    await raw.initialize();
    await expectError(raw, '{not json', -32700, null);
    await expectError(raw, '{"jsonrpc":"2.0","id":1,"method":"ping"', -32700, null);
    await expectError(raw, '"just a string"', -32600, null);
    await expectError(raw, '42', -32600, null);
    await expectError(raw, '{"jsonrpc":"2.0","id":1}', -32600, 1);
    await expectError(raw, '{"id":2,"method":"ping"}', -32600, 2);
    await expectError(raw, '{"jsonrpc":"1.0","id":3,"method":"ping"}', -32600, 3);
    await expectError(raw, '{"jsonrpc":"2.0","id":4,"method":42}', -32600, 4);
    await expectError(raw, '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', -32600, null);
    await expectError(raw, '{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, null);
    // Blank lines and CRLF framing are fine.
    assert.deepEqual(await exchange(raw, '   '), []);
    raw.proc.stdin.write('{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
    assert.deepEqual((await raw.waitFor((m) => m.id === 'crlf')).result, {});
    // An unknown notification gets no reply; a reply to an unknown request is ignored.
    assert.deepEqual(await exchange(raw, '{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}'), []);
    assert.deepEqual(await exchange(raw, '{"jsonrpc":"2.0","id":987654,"result":{}}'), []);
    raw.write({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    assert.ok((await raw.waitFor((m) => m.id === 'list')).result.tools.length > 0);
  });
});

test('protocol: -32601 for unknown methods; server/discover (2026-07-28) is answered before and after initialize', async () => {
  await withRaw(async (raw) => {
    const discovered = async (line, id) => {
      const [r] = await exchange(raw, line);
      assert.equal(r.id, id);
      assert.ok(r.result.supportedVersions.includes('2026-07-28'), JSON.stringify(r));
      assert.ok(r.result.supportedVersions.includes('2025-11-25'), JSON.stringify(r));
    };
    await discovered('{"jsonrpc":"2.0","id":"d0","method":"server/discover","params":{}}', 'd0');
    await raw.initialize();
    await discovered('{"jsonrpc":"2.0","id":"d1","method":"server/discover","params":{}}', 'd1');
    await discovered('{"jsonrpc":"2.0","id":"d2","method":"server/discover"}', 'd2');
    await expectError(raw, '{"jsonrpc":"2.0","id":5,"method":"foo/bar"}', -32601, 5);
    await expectError(raw, '{"jsonrpc":"2.0","id":6,"method":"resources/list"}', -32601, 6);
    await expectError(raw, '{"jsonrpc":"2.0","id":7,"method":"prompts/list"}', -32601, 7);
  });
});

test('protocol: -32602 invalid params', async () => {
  await withRaw(async (raw) => {
    await expectError(raw, JSON.stringify({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: { protocolVersion: 20251125, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }), -32602, 'i');
    await raw.initialize();
    await expectError(raw, '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1,2]}', -32602, 1);
    await expectError(raw, '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":7}}', -32602, 2);
    await expectError(raw, '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}', -32602, 3);
    await expectError(raw, '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fabric_list_metros","arguments":[]}}', -32602, 4);
    await expectError(raw, '{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"verbose"}}', -32602, 5);
    await expectError(raw, '{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{}}', -32602, 6);
    const ok = await exchange(raw, '{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"warning"}}');
    assert.deepEqual(ok, [{ jsonrpc: '2.0', id: 7, result: {} }]);
  });
});

test('protocol: lifecycle — ping before initialize, requests before initialize, double initialize', async () => {
  await withRaw(async (raw) => {
    raw.write({ jsonrpc: '2.0', id: 'p0', method: 'ping' });
    assert.deepEqual((await raw.waitFor((m) => m.id === 'p0')).result, {});
    await expectError(raw, '{"jsonrpc":"2.0","id":"l0","method":"tools/list"}', -32600, 'l0');
    const init = await raw.initialize();
    assert.equal(init.result.protocolVersion, LATEST);
    assert.equal(init.result.serverInfo.name, 'fabric-broker');
    assert.equal(typeof init.result.serverInfo.version, 'string');
    assert.ok(init.result.capabilities.tools);
    assert.ok(init.result.capabilities.logging);
    await expectError(raw, JSON.stringify(initMsg('again', LATEST)), -32600, 'again');
    raw.write({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
    assert.deepEqual((await raw.waitFor((m) => m.id === 'p1')).result, {});
    // Numeric ids (including 0 and negative) are echoed as given.
    for (const id of [0, -1, 1.5, 9007199254740991]) {
      raw.write({ jsonrpc: '2.0', id, method: 'ping' });
      const r = await raw.waitFor((m) => m.id === id);
      assert.deepEqual(r.result, {}, `id ${id}`);
    }
  });
});

for (const version of SUPPORTED) {
  test(`protocol: version negotiation — ${version} is accepted as asked`, async () => {
    await withRaw(async (raw) => {
      raw.write(initMsg(1, version));
      const r = await raw.waitFor((m) => m.id === 1);
      assert.equal(r.result.protocolVersion, version);
    });
  });
}

for (const version of ['1999-01-01', '2026-12-31', 'latest', '']) {
  test(`protocol: version negotiation — unsupported "${version}" gets the latest (${LATEST})`, async () => {
    await withRaw(async (raw) => {
      raw.write(initMsg(1, version));
      const r = await raw.waitFor((m) => m.id === 1);
      assert.equal(r.result?.protocolVersion, LATEST, JSON.stringify(r));
    });
  });
}

test('protocol: batches are answered only with protocol version 2025-03-26', async () => {
  await withRaw(async (raw) => {
    raw.write(initMsg('init', '2025-03-26'));
    await raw.waitFor((m) => m.id === 'init');
    raw.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    writeLine(raw, JSON.stringify([
      { jsonrpc: '2.0', id: 'b1', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/whatever' },
      { jsonrpc: '2.0', id: 'b2', method: 'tools/call', params: { name: 'fabric_list_metros', arguments: {} } },
      { jsonrpc: '2.0', id: 'b3', method: 'no/such' },
      7,
    ]));
    const batch = await raw.waitFor((m) => Array.isArray(m));
    assert.equal(batch.length, 4, JSON.stringify(batch).slice(0, 1000));
    const byId = Object.fromEntries(batch.filter((m) => m.id !== null).map((m) => [m.id, m]));
    assert.deepEqual(byId.b1.result, {});
    assert.ok(Array.isArray(byId.b2.result.structuredContent.data));
    assert.equal(byId.b3.error.code, -32601);
    assert.equal(batch.filter((m) => m.id === null && m.error?.code === -32600).length, 1);
    await expectError(raw, '[]', -32600, null);
    // Notifications only: no reply at all.
    assert.deepEqual(await exchange(raw, '[{"jsonrpc":"2.0","method":"notifications/whatever"}]'), []);
  });
  for (const version of ['2025-06-18', '2025-11-25']) {
    await withRaw(async (raw) => {
      raw.write(initMsg('init', version));
      await raw.waitFor((m) => m.id === 'init');
      raw.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const m = await expectError(raw, JSON.stringify([{ jsonrpc: '2.0', id: 'x1', method: 'ping' }, { jsonrpc: '2.0', id: 'x2', method: 'ping' }]), -32600, null);
      assert.match(m.error.message, /2025-03-26/);
      assert.equal(raw.messages.some((x) => x.id === 'x1' || x.id === 'x2'), false, `${version}: nothing inside the batch ran`);
    });
  }
});

test('protocol: an oversized frame (> 4 MiB) gets -32600 and the session stays usable', async () => {
  await withRaw(async (raw) => {
    await raw.initialize();
    const head = '{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"';
    const tail = '"}}';
    const over = head + 'x'.repeat(MAX_FRAME + 1024 - head.length - tail.length) + tail;
    const before = raw.messages.length;
    writeLine(raw, over);
    raw.write({ jsonrpc: '2.0', id: 'after', method: 'ping' });
    const after = await raw.waitFor((m) => m.id === 'after', 20000);
    assert.deepEqual(after.result, {});
    const got = raw.messages.slice(before).filter((m) => m.id !== 'after');
    assert.equal(got.length, 1, JSON.stringify(got).slice(0, 500));
    assert.equal(got[0].error.code, -32600);
    assert.equal(got[0].id, null);
    assert.match(got[0].error.message, /size|large|exceed/i);
    assert.equal(raw.messages.some((m) => m.id === 'big'), false, 'the oversized request was not run');

    // Also when it arrives in many small writes (the server must not buffer it all).
    const before2 = raw.messages.length;
    for (let i = 0; i < over.length; i += 256 * 1024) raw.proc.stdin.write(over.slice(i, i + 256 * 1024));
    raw.proc.stdin.write('\n');
    raw.write({ jsonrpc: '2.0', id: 'after2', method: 'tools/list' });
    const after2 = await raw.waitFor((m) => m.id === 'after2', 20000);
    assert.ok(after2.result.tools.length > 0);
    const got2 = raw.messages.slice(before2).filter((m) => m.id !== 'after2');
    assert.deepEqual(got2.map((m) => m.error?.code), [-32600]);
  });
});

test('protocol: a frame of exactly 4 MiB is still accepted', async () => {
  await withRaw(async (raw) => {
    await raw.initialize();
    const head = '{"jsonrpc":"2.0","id":"edge","method":"ping","params":{"pad":"';
    const tail = '"}}';
    const frame = head + 'x'.repeat(MAX_FRAME - head.length - tail.length) + tail;
    assert.equal(Buffer.byteLength(frame), MAX_FRAME);
    writeLine(raw, frame);
    const r = await raw.waitFor((m) => m.id === 'edge' || (m.id === null && m.error), 20000);
    assert.deepEqual(r, { jsonrpc: '2.0', id: 'edge', result: {} });
  });
});

test('protocol: end of input -> the process exits (status 0) within 1 s', async () => {
  const raw = startRaw();
  await raw.initialize();
  const exit = once(raw.proc, 'exit');
  const t0 = Date.now();
  raw.proc.stdin.end();
  const [code, signal] = await Promise.race([exit, sleep(5000).then(() => ['timeout', null])]);
  const took = Date.now() - t0;
  if (code === 'timeout') raw.proc.kill('SIGKILL');
  assert.equal(code, 0, `exit code (signal ${signal}); stderr:\n${raw.stderr.slice(-2000)}`);
  assert.ok(took < EXIT_BUDGET_MS, `exited ${took} ms after end of input (budget ${EXIT_BUDGET_MS} ms)`);
});

test('protocol: end of input while a confirm waits for a person -> exits within 1 s', async () => {
  const raw = startRaw();
  await raw.initialize();
  const spec = {
    type: 'EVPL_VC', name: `eof-${Date.now()}`, bandwidth: 50,
    aSide: { accessPoint: { type: 'COLO', port: { uuid: '50000000-0000-4000-8000-000000000001' }, linkProtocol: { type: 'DOT1Q', vlanTag: 3901 } } },
    zSide: { accessPoint: { type: 'SP', profile: { type: 'L2_PROFILE', uuid: '5e000000-0000-4000-8000-000000000001' }, location: { metroCode: 'SV' }, sellerRegion: 'us-west-1', authenticationKey: '123456789012' } },
    notifications: [{ type: 'ALL', emails: ['netops@example.com'] }],
  };
  raw.write({ jsonrpc: '2.0', id: 'p', method: 'tools/call', params: { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } } });
  const p = await raw.waitFor((m) => m.id === 'p');
  assert.ok(p.result?.structuredContent?.confirm_token, JSON.stringify(p).slice(0, 1000));
  raw.write({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'fabric_confirm_change', arguments: { confirm_token: p.result.structuredContent.confirm_token } } });
  await raw.waitFor((m) => m.method === 'elicitation/create');
  const exit = once(raw.proc, 'exit');
  const t0 = Date.now();
  raw.proc.stdin.end();
  const [code] = await Promise.race([exit, sleep(5000).then(() => ['timeout'])]);
  const took = Date.now() - t0;
  if (code === 'timeout') raw.proc.kill('SIGKILL');
  assert.equal(code, 0, raw.stderr.slice(-2000));
  assert.ok(took < EXIT_BUDGET_MS, `exited ${took} ms after end of input (budget ${EXIT_BUDGET_MS} ms)`);
});
