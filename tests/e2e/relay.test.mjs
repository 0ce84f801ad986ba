// `fabric-broker --stdio` (what MCP clients spawn) before it relays: it verifies the listening
// side (socket owner, then SO_PEERCRED) and refuses an impostor without writing a byte; with no
// desktop app it serves headless and says so. The impostor cases need root (chown to nobody, a
// listener that drops to nobody) and skip with a message otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, startSandboxProcess, scratchDir } from './lib.mjs';

const NOBODY = 65534;
const notRoot = process.getuid() !== 0 ? 'needs root: chowns a socket to nobody / listens as nobody' : false;
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'relay-e2e', version: '1' } } }) + '\n';

function rmrf(p) { fs.rmSync(p, { recursive: true, force: true }); }

// Runs `fabric-broker --stdio ARGS`, writes an initialize request, and waits for it to exit.
async function runRelay(env, args = []) {
  const proc = spawn(BIN, ['--stdio', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = ''; let stdout = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  proc.stdout.on('data', (d) => { stdout += d.toString(); });
  proc.stdin.on('error', () => {}); // it may exit before reading
  proc.stdin.write(INIT);
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15000);
  const [code] = await once(proc, 'exit');
  clearTimeout(timer);
  return { code, stderr, stdout };
}

// A listener that counts what each connection sends.
function countingServer(sockPath) {
  const stats = { connections: 0, bytes: 0 };
  const server = net.createServer((c) => {
    stats.connections++;
    c.on('data', (d) => { stats.bytes += d.length; });
    c.on('error', () => {});
  });
  return new Promise((resolve) => server.listen(sockPath, () => resolve({ server, stats })));
}

test('relay: a socket that belongs to another user is refused before connecting', { skip: notRoot }, async () => {
  const env = baseEnv();
  delete env.QT_QPA_PLATFORM;
  const sock = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  const { server, stats } = await countingServer(sock);
  try {
    fs.chownSync(sock, NOBODY, NOBODY);
    const r = await runRelay(env);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`refusing to relay to ${sock}: the socket ${sock} belongs to uid ${NOBODY}, not to uid 0`));
    assert.equal(r.stdout, '', 'no MCP output: nothing was served as if all were well');
    assert.equal(stats.connections, 0);
    assert.equal(stats.bytes, 0);
  } finally {
    server.close();
    rmrf(env.XDG_RUNTIME_DIR);
  }
});

test('relay: a listener running as another user is refused (SO_PEERCRED) without a byte sent', { skip: notRoot }, async () => {
  const env = baseEnv();
  delete env.QT_QPA_PLATFORM;
  // A directory nobody can write into, so an impostor can bind a socket there.
  const shared = scratchDir('fb-e2e-impostor-');
  fs.chmodSync(shared, 0o777);
  const sock = path.join(shared, 'fabric-broker.sock');
  const impostor = spawn(process.execPath, ['-e', `
    process.setgid(${NOBODY}); process.setuid(${NOBODY});
    const net = require('node:net');
    net.createServer((c) => {
      let n = 0;
      c.on('data', (d) => { n += d.length; });
      c.on('close', () => console.log('connection bytes=' + n));
      c.on('error', () => {});
    }).listen(${JSON.stringify(sock)}, () => console.log('listening uid=' + process.getuid()));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  impostor.stdout.on('data', (d) => { out += d.toString(); });
  try {
    const deadline = Date.now() + 10000;
    while (!out.includes('listening')) {
      if (Date.now() > deadline || impostor.exitCode !== null) throw new Error(`impostor did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.match(out, new RegExp(`listening uid=${NOBODY}`));
    // Make the socket file look like ours: only the peer check can tell now.
    fs.chownSync(sock, 0, 0);
    const r = await runRelay(env, ['--socket', sock]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`refusing to relay to ${sock}: the peer process \\(pid \\d+\\) runs as uid ${NOBODY}, not as uid 0`));
    assert.equal(r.stdout, '');
    const deadline2 = Date.now() + 5000;
    while (!out.includes('connection bytes=')) {
      if (Date.now() > deadline2) throw new Error(`the impostor saw no connection: ${out}`);
      await new Promise((res) => setTimeout(res, 25));
    }
    assert.match(out, /connection bytes=0\n/, 'the relay connected, checked, and closed without writing');
  } finally {
    impostor.kill('SIGKILL');
    rmrf(shared);
    rmrf(env.XDG_RUNTIME_DIR);
  }
});

test('relay: with no desktop app running, `--stdio` serves headless and says so (stderr and initialize.instructions)', async () => {
  const env = baseEnv(); // a private, empty XDG_RUNTIME_DIR: no app listens there; no display
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio', '--sandbox'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'relay-e2e', version: '1' }, { capabilities: {} });
  try {
    await client.connect(transport);
    const instructions = client.getInstructions() ?? '';
    assert.match(instructions, /NO DESKTOP APP: no Fabric Broker desktop app is running for this user, so approvals go through this MCP client/);
    assert.ok((await client.listTools()).tools.length > 0, 'still served');
    for (let i = 0; i < 50 && !/serving this session headless/.test(stderr); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(stderr, new RegExp(`no Fabric Broker desktop app is running \\(nothing listens on ${env.XDG_RUNTIME_DIR}/fabric-broker.sock\\); serving this session headless: approvals go through the MCP client`));
  } finally {
    await client.close();
    rmrf(env.XDG_RUNTIME_DIR);
  }
});

test('relay: `--headless --stdio` is headless by choice and adds no such notice', async () => {
  const env = baseEnv();
  const transport = new StdioClientTransport({ command: BIN, args: ['--headless', '--stdio', '--sandbox'], env, stderr: 'pipe' });
  const client = new Client({ name: 'relay-e2e', version: '1' }, { capabilities: {} });
  try {
    await client.connect(transport);
    assert.doesNotMatch(client.getInstructions() ?? '', /NO DESKTOP APP/);
  } finally {
    await client.close();
    rmrf(env.XDG_RUNTIME_DIR);
  }
});

// ---------------------------------------------------------------------------------------------
// The hello line: a relayed session says what its command line and environment ask for; the
// instance narrows it or refuses it (stderr of the relay + a JSON-RPC error at initialize).

async function startInstance({ args = [], env = {} } = {}) {
  const fullEnv = baseEnv(env);
  const sock = path.join(fullEnv.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  const proc = spawn(BIN, ['--headless', '--listen', ...args], { env: fullEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  const deadline = Date.now() + 15000;
  while (!fs.existsSync(sock)) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`instance did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    proc, sock, runtime: fullEnv.XDG_RUNTIME_DIR, get stderr() { return stderr; },
    async stop() { if (proc.exitCode === null) { proc.kill('SIGTERM'); await once(proc, 'exit'); } rmrf(fullEnv.XDG_RUNTIME_DIR); },
  };
}

// A client whose server config runs `fabric-broker --stdio ARGS` with ENV (plus the instance's
// runtime dir, so the relay finds it).
async function relayed(instance, { args = [], env = {} } = {}) {
  const fullEnv = { ...baseEnv(env), XDG_RUNTIME_DIR: instance.runtime };
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio', ...args], env: fullEnv, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'relay-hello-e2e', version: '1' }, { capabilities: {} });
  // The exit code of the spawned process (the SDK keeps its ChildProcess private).
  let exitCode = null;
  const exited = new Promise((resolve) => {
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      transport._process.on('exit', (code) => { exitCode = code; resolve(code); });
    };
  });
  let error = null;
  try { await client.connect(transport); } catch (e) { error = e; }
  return { client, error, exited, get exitCode() { return exitCode; }, get stderr() { return stderr; }, async close() { await client.close(); } };
}

async function expectRefused(instance, options, pattern) {
  const r = await relayed(instance, options);
  try {
    assert.ok(r.error, 'initialize must fail');
    assert.match(r.error.message, /MCP error -32001: Fabric Broker refused this relayed session/);
    assert.match(r.error.message, pattern);
    assert.match(r.error.message, /Fix: /);
    for (let i = 0; i < 50 && !pattern.test(r.stderr); i++) await new Promise((res) => setTimeout(res, 100));
    assert.match(r.stderr, pattern, 'the same conflict on the relay\'s stderr');
    // The relay ends by itself once the client has the error, with EX_CONFIG, and the first
    // line of its stderr (what a client's log shows first) is the fix.
    let timer;
    const code = await Promise.race([r.exited, new Promise((res) => { timer = setTimeout(() => res('still running after 10 s'), 10000); })]);
    clearTimeout(timer);
    assert.equal(code, 78, `exit code of a refused relayed session: ${code}; stderr: ${r.stderr}`);
    const first = r.stderr.split('\n')[0];
    assert.match(first, /^fabric-broker: Fix: [^\n]+\.$/, `first stderr line: ${first}`);
    assert.doesNotMatch(first, /this session asks for/, 'the first line is the fix alone');
  } finally { await r.close(); }
  return r.error.message;
}

test('hello: --toolsets read narrows one relayed session of a read,mutate instance; others keep mutate', async () => {
  const inst = await startInstance({ args: ['--sandbox', '--toolsets', 'read,mutate'] });
  try {
    const narrow = await relayed(inst, { args: ['--toolsets', 'read'] });
    const full = await relayed(inst);
    try {
      assert.equal(narrow.error, null, String(narrow.error));
      assert.equal(full.error, null, String(full.error));
      const narrowTools = (await narrow.client.listTools()).tools.map((t) => t.name);
      const fullTools = (await full.client.listTools()).tools.map((t) => t.name);
      assert.ok(!narrowTools.includes('fabric_propose_change'), narrowTools.join());
      assert.ok(!narrowTools.includes('fabric_confirm_change'));
      assert.ok(narrowTools.includes('fabric_search_connections'));
      assert.ok(fullTools.includes('fabric_propose_change'), 'the other session is not narrowed');
      await assert.rejects(narrow.client.callTool({ name: 'fabric_propose_change', arguments: {} }), /Unknown tool: fabric_propose_change/);
      // EQUINIX_MCP_TOOLSETS says the same as --toolsets.
      const viaEnv = await relayed(inst, { env: { EQUINIX_MCP_TOOLSETS: 'read' } });
      assert.equal(viaEnv.error, null);
      assert.ok(!(await viaEnv.client.listTools()).tools.some((t) => t.name === 'fabric_propose_change'));
      await viaEnv.close();
    } finally { await narrow.close(); await full.close(); }
  } finally { await inst.stop(); }
});

test('hello: mutate asked of a read-only instance is refused, naming the conflict and the fix', async () => {
  const inst = await startInstance({ args: ['--sandbox', '--toolsets', 'read'] });
  try {
    await expectRefused(inst, { args: ['--toolsets', 'read,mutate'] },
      /--toolsets: this session asks for read,mutate, but the running Fabric Broker \(pid \d+\) uses read\. Fix: turn on the mutate toolset in the running app/);
    await expectRefused(inst, { env: { EQUINIX_MCP_TOOLSETS: 'mutate' } }, /EQUINIX_MCP_TOOLSETS: this session asks for mutate/);
  } finally { await inst.stop(); }
});

test('hello: EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS, another limit or the desktop channel are refused by a headless instance', async () => {
  const inst = await startInstance({ args: ['--sandbox', '--toolsets', 'read,mutate'] });
  try {
    await expectRefused(inst, { env: { EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS: 'true' } },
      /EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS: this session asks for true, but the running Fabric Broker \(pid \d+\) uses false\. Fix: remove EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS/);
    await expectRefused(inst, { env: { EQUINIX_MCP_PROPOSAL_TTL_MS: '1000' } },
      /EQUINIX_MCP_PROPOSAL_TTL_MS: this session asks for 1000, but the running Fabric Broker \(pid \d+\) uses 600000/);
    await expectRefused(inst, { env: { EQUINIX_MCP_APPROVAL: 'desktop' } },
      /EQUINIX_MCP_APPROVAL: this session asks for desktop, but the running Fabric Broker \(pid \d+\) uses client/);
    // What the instance does anyway is no conflict.
    const same = await relayed(inst, { env: { EQUINIX_MCP_APPROVAL: 'client', EQUINIX_MCP_PROPOSAL_TTL_MS: '600000' } });
    assert.equal(same.error, null, String(same.error));
    await same.close();
  } finally { await inst.stop(); }
});

test('hello: a relay\'s stricter policy file narrows its session (toolsets.allowed) or is refused with the fix; another named audit log is refused; the same policy bytes are served', async () => {
  const dir = scratchDir('fb-e2e-relay-policy-');
  const own = path.join(dir, 'instance-policy.json');
  fs.writeFileSync(own, '{"spend": {"max_monthly_recurring_per_change": {"amount": 500, "currency": "USD"}}}');
  const inst = await startInstance({ args: ['--sandbox', '--toolsets', 'read,mutate'], env: { FABRIC_BROKER_POLICY: own } });
  try {
    // Stricter in toolsets.allowed only: served under it, read tools only, for that session.
    const readOnly = path.join(dir, 'read-only.json');
    fs.writeFileSync(readOnly, '{"toolsets": {"allowed": ["read"]}}');
    const narrowed = await relayed(inst, { env: { FABRIC_BROKER_POLICY: readOnly } });
    assert.equal(narrowed.error, null, String(narrowed.error));
    const names = (await narrowed.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('fabric_search_connections'), names.join());
    assert.ok(!names.includes('fabric_propose_change') && !names.includes('fabric_confirm_change'), names.join());
    await narrowed.close();
    // Stricter where only the whole instance can enforce it: refused with the fix.
    const lower = path.join(dir, 'lower-limit.json');
    fs.writeFileSync(lower, '{"spend": {"max_monthly_recurring_per_change": {"amount": 5, "currency": "USD"}}}');
    await expectRefused(inst, { env: { FABRIC_BROKER_POLICY: lower } },
      new RegExp(`policy file: this session asks for ${lower.replace(/[.]/g, '\\.')} \\(SHA-256 [0-9a-f]{12}: it sets spend\\.max_monthly_recurring_per_change, which only the whole instance can enforce\\), but the running Fabric Broker \\(pid \\d+\\) uses ${own.replace(/[.]/g, '\\.')} \\(SHA-256 [0-9a-f]{12}\\)\\. Fix: give the running app the same policy`));
    await expectRefused(inst, { env: { EQUINIX_MCP_AUDIT_LOG: path.join(dir, 'elsewhere.jsonl') } },
      /EQUINIX_MCP_AUDIT_LOG: this session asks for .*elsewhere\.jsonl, but the running Fabric Broker \(pid \d+\) uses .*audit\.jsonl\. Fix: remove EQUINIX_MCP_AUDIT_LOG from this client's env/);
    // The same bytes under another path are the same policy.
    const copy = path.join(dir, 'copy.json');
    fs.copyFileSync(own, copy);
    const same = await relayed(inst, { env: { FABRIC_BROKER_POLICY: copy } });
    assert.equal(same.error, null, String(same.error));
    assert.ok((await same.client.listTools()).tools.some((t) => t.name === 'fabric_confirm_change'));
    await same.close();
  } finally { await inst.stop(); }
});

test('hello: Fabric credentials in the env of a session relayed to a sandbox instance are refused', async () => {
  const inst = await startInstance({ args: ['--sandbox'] });
  try {
    const message = await expectRefused(inst, { env: { EQUINIX_API_CLIENTID: 'someone', EQUINIX_API_CLIENTSECRET: 'secret-never-sent-123' } },
      /credentials: this session asks for client credentials \(EQUINIX_API_CLIENTID\) for https:\/\/api\.equinix\.com, but the running Fabric Broker \(pid \d+\) uses the embedded sandbox/);
    assert.doesNotMatch(message, /secret-never-sent-123/);
    await expectRefused(inst, { env: { EQUINIX_API_ENDPOINT: 'https://api.equinix.com' } },
      /EQUINIX_API_ENDPOINT: this session asks for https:\/\/api\.equinix\.com, but the running Fabric Broker \(pid \d+\) uses the embedded sandbox/);
  } finally { await inst.stop(); }
});

test('hello: against a real endpoint, --sandbox, other credentials and another endpoint are refused; the same credentials are served', async () => {
  const fabric = await startSandboxProcess(); // stands in for Equinix: the instance is not a sandbox instance
  const inst = await startInstance({ args: ['--toolsets', 'read'], env: fabric.env });
  try {
    await expectRefused(inst, { args: ['--sandbox'] },
      new RegExp(`--sandbox: this session asks for the embedded sandbox, but the running Fabric Broker \\(pid \\d+\\) uses Equinix Fabric at ${fabric.url.replace(/[.]/g, '\\.')}\\. Fix: remove --sandbox`));
    await expectRefused(inst, { env: { ...fabric.env, EQUINIX_API_CLIENTSECRET: 'another-secret' } },
      /credentials: this session asks for other credentials \(client credentials \(EQUINIX_API_CLIENTID\)\), but the running Fabric Broker \(pid \d+\) uses the credentials saved in the running app/);
    await expectRefused(inst, { env: { ...fabric.env, EQUINIX_API_ENDPOINT: 'https://api.example.com' } },
      new RegExp(`EQUINIX_API_ENDPOINT: this session asks for https://api\\.example\\.com, but the running Fabric Broker \\(pid \\d+\\) uses ${fabric.url.replace(/[.]/g, '\\.')}`));
    // An endpoint alone (no credentials) is asked for too.
    await expectRefused(inst, { env: { EQUINIX_API_ENDPOINT: 'https://api.example.com' } },
      /EQUINIX_API_ENDPOINT: this session asks for https:\/\/api\.example\.com, but the running Fabric Broker \(pid \d+\) uses http:\/\/127\.0\.0\.1:\d+\. Fix: remove EQUINIX_API_ENDPOINT/);
    const sameEndpoint = await relayed(inst, { env: { EQUINIX_API_ENDPOINT: fabric.url + '/' } });
    assert.equal(sameEndpoint.error, null, String(sameEndpoint.error));
    await sameEndpoint.close();
    const same = await relayed(inst, { env: fabric.env });
    assert.equal(same.error, null, String(same.error));
    assert.ok((await same.client.listTools()).tools.length > 0);
    await same.close();
    // No session without a hello is affected (e.g. a client on the socket itself).
    assert.doesNotMatch(inst.stderr, /another-secret|e2e-secret-value/);
  } finally { await inst.stop(); await fabric.stop(); }
});
