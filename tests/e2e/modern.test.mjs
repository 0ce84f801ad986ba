// MCP 2026-07-28 (the "modern" era) with the official v2 client @modelcontextprotocol/client 2.4.0:
// `versionNegotiation: {mode: 'auto'}` and `{pin: '2026-07-28'}` over stdio (the client probes
// server/discover on a short-lived sibling process, then speaks per-request _meta envelopes with
// no initialize) and through the relay (a running instance, `--stdio` spawned as its relay).
// Raw frames cover what the client hides: the envelope errors, resultType and cache hints, and
// that the server never writes a JSON-RPC request in this era.
//
// The StdioClientTransport runs with its default environment (getDefaultEnvironment(): HOME,
// LOGNAME, PATH, SHELL, TERM, USER). HOME points at a scratch directory so that nothing lands in
// the real one; the relay cases add only XDG_RUNTIME_DIR, where the test's instance listens.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN, baseEnv, startRaw, sleep } from './lib.mjs';
import { answerForms, proposeAndConfirm } from './mrtr-v2.mjs';

const MODERN = '2026-07-28';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-e2e-modern-'));
process.env.HOME = path.join(scratch, 'home');
fs.mkdirSync(process.env.HOME, { recursive: true });
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const envelope = (extra = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'modern-raw-e2e', version: '1' },
  ...extra,
});

async function connect(transport, versionNegotiation) {
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'modern-e2e', version: '2.4.0' }, { capabilities: {}, versionNegotiation });
  await client.connect(transport);
  return { client, get stderr() { return stderr; } };
}

// What a modern session must show: the negotiated revision, the discover facts, a tool list
// and a catalog call served from the sandbox estate.
async function exercise(client) {
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  assert.equal(client.getServerVersion()?.name, 'fabric-broker');
  const discover = client.getDiscoverResult();
  assert.ok(discover.supportedVersions.includes(MODERN), JSON.stringify(discover));
  assert.ok(discover.supportedVersions.includes('2025-11-25'));
  assert.match(client.getInstructions() ?? '', /SANDBOX/);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes('fabric_list_metros'), tools.join());
  assert.ok(tools.includes('fabric_propose_change'), tools.join());
  const r = await client.callTool({ name: 'fabric_list_metros', arguments: {} });
  assert.notEqual(r.isError, true, JSON.stringify(r).slice(0, 500));
  assert.ok(Array.isArray(r.structuredContent.data) && r.structuredContent.data.length > 0);
}

for (const [label, versionNegotiation] of [['mode auto', { mode: 'auto' }], [`pin ${MODERN}`, { mode: { pin: MODERN } }]]) {
  test(`modern stdio: ${label} negotiates ${MODERN} without initialize; tools/list and a catalog call`, async () => {
    // No env: the SDK's default environment only.
    const transport = new StdioClientTransport({ command: BIN, args: ['--headless', '--stdio', '--sandbox', '--toolsets', 'read,mutate'], stderr: 'pipe' });
    const s = await connect(transport, versionNegotiation);
    try {
      await exercise(s.client);
      for (let i = 0; i < 30 && !/serves the 2026-07-28 era/.test(s.stderr); i++) await sleep(100);
      assert.match(s.stderr, /serves the 2026-07-28 era/);
      assert.doesNotMatch(s.stderr, /initialize from/, 'the session process never saw initialize');
    } finally { await s.client.close(); }
  });
}

async function startInstance() {
  const env = baseEnv();
  const sock = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  const proc = spawn(BIN, ['--headless', '--listen', '--sandbox', '--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  const deadline = Date.now() + 15000;
  while (!fs.existsSync(sock)) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`instance did not start: ${stderr}`);
    await sleep(25);
  }
  return {
    runtime: env.XDG_RUNTIME_DIR, get stderr() { return stderr; },
    async stop() {
      if (proc.exitCode === null) { proc.kill('SIGTERM'); await once(proc, 'exit'); }
      fs.rmSync(env.XDG_RUNTIME_DIR, { recursive: true, force: true });
    },
  };
}

for (const [label, versionNegotiation] of [['mode auto', { mode: 'auto' }], [`pin ${MODERN}`, { mode: { pin: MODERN } }]]) {
  test(`modern relay: ${label} through \`--stdio\` relayed to a running instance`, async () => {
    const inst = await startInstance();
    try {
      const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env: { XDG_RUNTIME_DIR: inst.runtime }, stderr: 'pipe' });
      const s = await connect(transport, versionNegotiation);
      try {
        await exercise(s.client);
        for (let i = 0; i < 30 && !/relaying stdio/.test(s.stderr); i++) await sleep(100);
        assert.match(s.stderr, /relaying stdio to the running Fabric Broker/);
        for (let i = 0; i < 30 && !/serves the 2026-07-28 era/.test(inst.stderr); i++) await sleep(100);
        assert.match(inst.stderr, /serves the 2026-07-28 era/, 'the instance served the relayed session');
      } finally { await s.client.close(); }
    } finally { await inst.stop(); }
  });
}

test('modern raw frames: discover, envelope errors, removed methods, resultType and cache hints, no request to the client', async () => {
  const raw = startRaw();
  try {
    const ask = async (id, method, params) => {
      raw.write({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      return raw.waitFor((m) => m.id === id && !m.method);
    };
    const d = await ask('d', 'server/discover', { _meta: envelope() });
    assert.equal(d.result.resultType, 'complete');
    assert.deepEqual(d.result.supportedVersions, [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
    assert.equal(d.result.ttlMs, 0);
    assert.equal(d.result.cacheScope, 'private');
    assert.equal(d.result._meta['io.modelcontextprotocol/serverInfo'].name, 'fabric-broker');
    assert.ok(d.result.capabilities.tools);
    assert.match(d.result.instructions, /fabric_propose_change/);

    const noVersion = await ask('e1', 'tools/list', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } });
    assert.equal(noVersion.error.code, -32602);
    const noCaps = await ask('e2', 'tools/call', { name: 'fabric_list_metros', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } });
    assert.equal(noCaps.error.code, -32602);
    const badInfo = await ask('e3', 'tools/list', { _meta: envelope({ 'io.modelcontextprotocol/clientInfo': 'me' }) });
    assert.equal(badInfo.error.code, -32602);
    const future = await ask('e4', 'tools/list', { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }) });
    assert.equal(future.error.code, -32022);
    assert.equal(future.error.data.requested, '2099-01-01');
    assert.ok(future.error.data.supported.includes(MODERN));
    for (const [id, method, params] of [['r1', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }],
      ['r2', 'ping', {}], ['r3', 'logging/setLevel', { level: 'debug' }]]) {
      const r = await ask(id, method, { ...params, _meta: envelope() });
      assert.equal(r.error?.code, -32601, `${method}: ${JSON.stringify(r)}`);
    }

    const list = await ask('l', 'tools/list', { _meta: envelope() });
    assert.equal(list.result.resultType, 'complete');
    assert.equal(list.result.ttlMs, 0);
    assert.equal(list.result.cacheScope, 'private');
    assert.ok(list.result.tools.some((t) => t.name === 'fabric_list_metros'));
    const call = await ask('c', 'tools/call', { name: 'fabric_list_metros', arguments: {}, _meta: envelope({ progressToken: 'p' }) });
    assert.equal(call.result.resultType, 'complete');
    assert.ok(call.result.structuredContent.data.length > 0);

    // A confirm from a client that declared elicitation would, in the 2025 era, write an
    // elicitation/create request. In this era nothing is ever sent to the client as a request.
    const proposal = await ask('p', 'tools/call', {
      name: 'fabric_propose_change', _meta: envelope(),
      arguments: { change_type: 'connection_create', spec: { type: 'EVPL_VC', name: 'modern-raw', bandwidth: 50,
        aSide: { accessPoint: { type: 'COLO', port: { uuid: '50000000-0000-4000-8000-000000000001' }, linkProtocol: { type: 'DOT1Q', vlanTag: 3999 } } },
        zSide: { accessPoint: { type: 'SP', profile: { type: 'L2_PROFILE', uuid: '5e000000-0000-4000-8000-000000000001' }, location: { metroCode: 'SV' }, sellerRegion: 'us-west-1', authenticationKey: '123456789012' } },
        notifications: [{ type: 'ALL', emails: ['netops@example.com'] }] } },
    });
    assert.equal(proposal.result.resultType, 'complete');
    const token = proposal.result.structuredContent?.confirm_token;
    assert.ok(token, JSON.stringify(proposal).slice(0, 800));
    const confirm = await ask('k', 'tools/call', {
      name: 'fabric_confirm_change', arguments: { confirm_token: token },
      _meta: envelope({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }),
    });
    assert.ok(confirm.result.resultType, JSON.stringify(confirm).slice(0, 800));
    await sleep(200);
    const requests = raw.messages.filter((m) => m.method && m.id !== undefined);
    assert.deepEqual(requests, [], 'no JSON-RPC request from the server');
    assert.doesNotMatch(raw.stderr, /initialize from/);
  } finally { await raw.close(); }
});

// The v2 client probes on a disposable sibling process and kills it once answered: that process
// must not have opened the audit log, started the sandbox or claimed the socket by then.
for (const args of [['--headless', '--stdio', '--sandbox'], ['--stdio']]) {
  test(`modern startup: \`${args.join(' ')}\` answers server/discover before opening the audit log, the sandbox or the socket`, async () => {
    const env = baseEnv();
    delete env.QT_QPA_PLATFORM;
    const proc = spawn(BIN, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = ''; let stderr = '';
    proc.stdout.on('data', (d) => { stdout += d.toString(); });
    proc.stderr.on('data', (d) => { stderr += d.toString(); });
    try {
      proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: envelope() } }) + '\n');
      const deadline = Date.now() + 10000;
      while (!stdout.includes('\n')) {
        if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`no discover answer: ${stderr}`);
        await sleep(5);
      }
      const answer = JSON.parse(stdout.split('\n')[0]);
      assert.equal(answer.id, 1);
      assert.ok(answer.result.supportedVersions.includes(MODERN));
      assert.match(answer.result.instructions, /SANDBOX/);
      // Checked at once, as the client kills the probe at once.
      assert.ok(!fs.existsSync(path.join(env.XDG_DATA_HOME, 'fabric-broker')), 'no audit log yet');
      assert.ok(!fs.existsSync(path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock')), 'no socket claimed');
      assert.doesNotMatch(stderr, /audit log|sandbox listening|listening on/);
      proc.kill('SIGKILL');
      await once(proc, 'exit');
      assert.ok(!fs.existsSync(path.join(env.XDG_DATA_HOME, 'fabric-broker')));
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) { proc.kill('SIGKILL'); await once(proc, 'exit'); }
      fs.rmSync(env.XDG_RUNTIME_DIR, { recursive: true, force: true });
    }
  });
}

test('modern startup: a probe that ends its input after server/discover exits 0 having started nothing; initialize still starts the host', async () => {
  const env = baseEnv();
  const probe = spawn(BIN, ['--headless', '--stdio', '--sandbox'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  probe.stdout.on('data', (d) => { out += d.toString(); });
  probe.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'server/discover' }) + '\n');
  const [code] = await once(probe, 'exit');
  assert.equal(code, 0);
  assert.equal(JSON.parse(out.trim()).id, 'p');
  assert.ok(!fs.existsSync(path.join(env.XDG_DATA_HOME, 'fabric-broker')));
  fs.rmSync(env.XDG_RUNTIME_DIR, { recursive: true, force: true });
  // A 2025 client right after: served as ever (discover first, then initialize on one stream).
  const raw = startRaw();
  try {
    raw.write({ jsonrpc: '2.0', id: 'd', method: 'server/discover' });
    await raw.waitFor((m) => m.id === 'd');
    const init = await raw.initialize();
    assert.equal(init.result.protocolVersion, '2025-11-25');
    raw.write({ jsonrpc: '2.0', id: 'l', method: 'tools/list' });
    assert.ok((await raw.waitFor((m) => m.id === 'l')).result.tools.length > 0);
  } finally { await raw.close(); }
});

// The confirm as a multi-round-trip (issue 18 §2, the broker's part from i16broker): the v2
// client auto-fulfils the input_required result through its elicitation handler and retries.
for (const [action, status, executed] of [['accept', 'accepted', true], ['decline', 'declined', false]]) {
  test(`modern MRTR: ${action} through the v2 client's auto-fulfilment of input_required`, async () => {
    const transport = new StdioClientTransport({ command: BIN, args: ['--headless', '--stdio', '--sandbox', '--toolsets', 'read,mutate'], stderr: 'pipe' });
    const client = new Client({ name: 'modern-mrtr-e2e', version: '2.4.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } });
    const asked = answerForms(client, action);
    await client.connect(transport);
    try {
      await proposeAndConfirm(client, asked, status, executed);
    } finally { await client.close(); }
  });
}
