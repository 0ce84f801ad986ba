// The per-user local socket (`fabric-broker --headless --listen --socket PATH`) driven by the
// official MCP SDK client over a Unix-socket Transport: sessions, concurrent independent
// proposals, elicitation round trips, double instances, stale sockets and permissions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, CallToolResultSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { SocketClientTransport } from './socket-transport.mjs';
import { BIN, baseEnv, connectionSpec, sleep } from './lib.mjs';

const LISTEN_ARGS = ['--headless', '--listen', '--sandbox', '--toolsets', 'read,mutate'];
const CHECK_NAMES = ['proposal_exists', 'not_evicted', 'not_expired', 'not_previously_used', 'request_matches_binding'];
const ALL_TRUE = Object.fromEntries(CHECK_NAMES.map((n) => [n, true]));

function isSocket(p) {
  try { return fs.lstatSync(p).isSocket(); } catch { return false; }
}

// Spawns a listening broker; resolves once its socket file exists (and accepts a connection),
// rejects with its stderr if it exits first.
async function startListener({ env = {}, socketArg, extraArgs = [], waitFor = true } = {}) {
  const fullEnv = baseEnv(env);
  const runtime = fullEnv.XDG_RUNTIME_DIR;
  const socketPath = socketArg === undefined ? path.join(runtime, 'broker.sock') : socketArg;
  const args = [...LISTEN_ARGS, ...extraArgs];
  if (socketPath !== null) args.push('--socket', socketPath);
  const proc = spawn(BIN, args, { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  proc.stdout.on('data', () => {});
  const exited = once(proc, 'exit');
  const handle = {
    proc, socketPath, runtime, env: fullEnv,
    get stderr() { return stderr; },
    exited,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      await exited;
    },
  };
  if (!waitFor) return handle;
  const deadline = Date.now() + 15000;
  while (!isSocket(socketPath)) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`fabric-broker --listen exited (${proc.exitCode ?? proc.signalCode}) before creating ${socketPath}:\n${stderr}`);
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`socket ${socketPath} did not appear within 15 s:\n${stderr}`);
    }
    await sleep(25);
  }
  return handle;
}

// An SDK client connected over the socket.
async function connectSocket(socketPath, { elicit, name = 'socket-e2e' } = {}) {
  const transport = new SocketClientTransport(socketPath);
  const capabilities = elicit ? { elicitation: { form: {} } } : {};
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  await client.connect(transport);
  return {
    client, transport,
    call(toolName, args = {}, options = {}) {
      return client.callTool({ name: toolName, arguments: args }, CallToolResultSchema, options);
    },
    close() { return client.close(); },
  };
}

async function propose(c, spec = connectionSpec()) {
  const r = await c.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 1500));
  return r.structuredContent;
}

async function countCreated(c, name) {
  const r = await c.call('fabric_search_connections', { name });
  return r.structuredContent.data.filter((x) => x.name === name).length;
}

function rmrf(dir) { try { fs.rmSync(dir, { recursive: true, force: true }); } catch { /* ignore */ } }

test('socket: initialize, tools/list and a read tool over the per-user socket', async () => {
  const srv = await startListener();
  let c;
  try {
    c = await connectSocket(srv.socketPath);
    assert.equal(c.client.getServerVersion().name, 'fabric-broker');
    assert.match(c.client.getInstructions() ?? '', /SANDBOX/);
    assert.ok(c.client.getServerCapabilities().tools, 'tools capability');
    const tools = (await c.client.listTools()).tools.map((t) => t.name);
    for (const t of ['fabric_list_metros', 'fabric_propose_change', 'fabric_confirm_change']) assert.ok(tools.includes(t), t);
    const metros = await c.call('fabric_list_metros');
    assert.equal(metros.isError, undefined, JSON.stringify(metros).slice(0, 500));
    assert.ok(metros.structuredContent.data.length > 0);
    assert.deepEqual(await c.client.ping(), {});
    assert.equal(srv.proc.exitCode, null, 'the server keeps running');
  } finally {
    await c?.close();
    await srv.stop();
    rmrf(srv.runtime);
  }
});

test('socket: the protocol version is negotiated per connection', async () => {
  const srv = await startListener();
  try {
    for (const [asked, expected] of [['2025-06-18', '2025-06-18'], ['1999-01-01', LATEST_PROTOCOL_VERSION]]) {
      const sock = net.createConnection(srv.socketPath);
      await once(sock, 'connect');
      sock.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) + '\n');
      let buf = '';
      for await (const chunk of sock) { buf += chunk; if (buf.includes('\n')) break; }
      const reply = JSON.parse(buf.slice(0, buf.indexOf('\n')));
      assert.equal(reply.id, 1);
      assert.equal(reply.result.protocolVersion, expected, `asked ${asked}`);
      sock.destroy();
    }
  } finally {
    await srv.stop();
    rmrf(srv.runtime);
  }
});

test('socket: two concurrent sessions propose and confirm independently; each elicitation reaches its own client', async () => {
  const srv = await startListener();
  const seen = { A: [], B: [] };
  // Both elicitations must be outstanding at the same time before either is answered.
  let release;
  const bothAsked = new Promise((r) => { release = r; });
  const asked = new Set();
  const handler = (who, answer) => async (req) => {
    seen[who].push(req.params.message);
    asked.add(who);
    if (asked.size === 2) release();
    await Promise.race([bothAsked, sleep(8000)]);
    return answer;
  };
  let a; let b;
  try {
    a = await connectSocket(srv.socketPath, { name: 'client-A', elicit: handler('A', { action: 'accept', content: { confirm: true } }) });
    b = await connectSocket(srv.socketPath, { name: 'client-B', elicit: handler('B', { action: 'decline' }) });
    const specA = connectionSpec();
    const specB = connectionSpec();
    const [pa, pb] = await Promise.all([propose(a, specA), propose(b, specB)]);
    assert.notEqual(pa.confirm_token, pb.confirm_token);
    assert.notEqual(pa.request_sha256, pb.request_sha256);

    const [ca, cb] = await Promise.all([
      a.call('fabric_confirm_change', { confirm_token: pa.confirm_token }),
      b.call('fabric_confirm_change', { confirm_token: pb.confirm_token }),
    ]);
    assert.equal(asked.size, 2, 'both clients were asked');
    assert.equal(seen.A.length, 1, 'client A was asked exactly once');
    assert.equal(seen.B.length, 1, 'client B was asked exactly once');
    assert.ok(seen.A[0].includes(pa.request_sha256), 'A was shown its own request');
    assert.ok(!seen.A[0].includes(pb.request_sha256), 'A was not shown B\'s request');
    assert.ok(seen.B[0].includes(pb.request_sha256), 'B was shown its own request');
    assert.ok(!seen.B[0].includes(pa.request_sha256), 'B was not shown A\'s request');

    assert.deepEqual(ca.structuredContent.confirm_checks, ALL_TRUE);
    assert.equal(ca.structuredContent.human_confirmation.status, 'accepted');
    assert.equal(ca.structuredContent.human_confirmation.channel, 'client');
    assert.equal(ca.structuredContent.executed, true);
    assert.equal(ca.structuredContent.execution.outcome, 'created');

    assert.deepEqual(cb.structuredContent.confirm_checks, ALL_TRUE);
    assert.equal(cb.structuredContent.human_confirmation.status, 'declined');
    assert.equal(cb.structuredContent.executed, false);

    assert.equal(await countCreated(a, specA.name), 1);
    assert.equal(await countCreated(b, specB.name), 0);
  } finally {
    await a?.close();
    await b?.close();
    await srv.stop();
    rmrf(srv.runtime);
  }
});

test('socket: a client that disconnects does not disturb another session', async () => {
  const srv = await startListener();
  let a; let b;
  try {
    a = await connectSocket(srv.socketPath, { name: 'client-A' });
    b = await connectSocket(srv.socketPath, { name: 'client-B' });
    a.transport.destroy(); // abrupt
    await sleep(200);
    const r = await b.call('fabric_list_metros');
    assert.equal(r.isError, undefined);
    const c = await connectSocket(srv.socketPath, { name: 'client-C' });
    assert.deepEqual(await c.client.ping(), {});
    await c.close();
  } finally {
    await a?.close().catch(() => {});
    await b?.close();
    await srv.stop();
    rmrf(srv.runtime);
  }
});

test('socket: elicitation round trips — accept, decline, cancel, and a client that never answers', async () => {
  const srv = await startListener({ env: { EQUINIX_MCP_ELICIT_TIMEOUT_MS: '800' } });
  const clients = [];
  try {
    for (const [label, answer, status, executed] of [
      ['accept', { action: 'accept', content: { confirm: true } }, 'accepted', true],
      ['decline', { action: 'decline' }, 'declined', false],
      ['cancel', { action: 'cancel' }, 'cancelled', false],
    ]) {
      const c = await connectSocket(srv.socketPath, { name: `client-${label}`, elicit: async () => answer });
      clients.push(c);
      const spec = connectionSpec();
      const p = await propose(c, spec);
      const r = await c.call('fabric_confirm_change', { confirm_token: p.confirm_token });
      assert.deepEqual(r.structuredContent.confirm_checks, ALL_TRUE, label);
      assert.equal(r.structuredContent.human_confirmation.status, status, label);
      assert.equal(r.structuredContent.human_confirmation.channel, 'client', label);
      assert.equal(r.structuredContent.executed, executed, label);
      assert.equal(await countCreated(c, spec.name), executed ? 1 : 0, label);
    }

    let aborted = false;
    let asked = false;
    const silent = await connectSocket(srv.socketPath, {
      name: 'client-silent',
      elicit: (req, extra) => new Promise(() => {
        asked = true;
        extra.signal.addEventListener('abort', () => { aborted = true; });
      }),
    });
    clients.push(silent);
    const spec = connectionSpec();
    const p = await propose(silent, spec);
    const t0 = Date.now();
    const r = await silent.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    const took = Date.now() - t0;
    assert.equal(asked, true, 'the silent client was asked');
    assert.equal(r.structuredContent.human_confirmation.status, 'timed_out');
    assert.equal(r.structuredContent.executed, false);
    assert.ok(took >= 700 && took < 10000, `confirm took ${took} ms with an 800 ms elicitation timeout`);
    await sleep(100);
    assert.equal(aborted, true, 'the server withdrew its elicitation (notifications/cancelled)');
    assert.equal(await countCreated(silent, spec.name), 0);
    // The consumed token stays consumed.
    const again = await silent.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    assert.equal(again.structuredContent.confirm_checks.not_previously_used, false);
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await srv.stop();
    rmrf(srv.runtime);
  }
});

test('socket: a second --listen on the same socket fails clearly and leaves the first serving', async () => {
  const first = await startListener();
  try {
    const second = await startListener({ socketArg: first.socketPath, waitFor: false, env: { XDG_RUNTIME_DIR: first.runtime } });
    const timer = setTimeout(() => second.proc.kill('SIGKILL'), 15000);
    const [code] = await second.exited;
    clearTimeout(timer);
    assert.notEqual(code, 0, 'the second instance exits non-zero');
    assert.notEqual(code, null, 'the second instance exits by itself (was not killed)');
    assert.match(second.stderr, /already serving/, second.stderr);
    assert.ok(second.stderr.includes(first.socketPath), `names the socket: ${second.stderr}`);
    assert.ok(second.stderr.includes(String(first.proc.pid)), `names the running pid ${first.proc.pid}: ${second.stderr}`);
    // The first instance is untouched: its socket is still there and serving.
    assert.ok(isSocket(first.socketPath));
    const c = await connectSocket(first.socketPath);
    assert.ok((await c.client.listTools()).tools.length > 0);
    await c.close();
  } finally {
    await first.stop();
    rmrf(first.runtime);
  }
});

test('socket: a stale socket left by a killed instance is recovered on restart', async () => {
  const first = await startListener();
  try {
    const c = await connectSocket(first.socketPath);
    assert.deepEqual(await c.client.ping(), {});
    await first.stop('SIGKILL');
    await c.close().catch(() => {});
    assert.ok(isSocket(first.socketPath), 'kill -9 leaves the socket file behind');
    // Nobody is listening behind it.
    await assert.rejects(new Promise((resolve, reject) => {
      const s = net.createConnection(first.socketPath);
      s.once('connect', () => { s.destroy(); resolve(); });
      s.once('error', reject);
    }), /ECONNREFUSED/);

    const again = await startListener({ socketArg: first.socketPath, env: { XDG_RUNTIME_DIR: first.runtime } });
    try {
      // Wait until the new instance really accepts (the stale file existed from the start).
      let c2;
      const deadline = Date.now() + 10000;
      for (;;) {
        try { c2 = await connectSocket(first.socketPath); break; } catch (e) {
          if (Date.now() > deadline || again.proc.exitCode !== null) throw new Error(`restart did not recover: ${e}\n${again.stderr}`);
          await sleep(50);
        }
      }
      assert.ok((await c2.client.listTools()).tools.some((t) => t.name === 'fabric_propose_change'));
      await c2.close();
    } finally {
      await again.stop();
    }
    // A clean stop removes the socket and its lock file.
    assert.equal(fs.existsSync(first.socketPath), false, 'socket removed on SIGTERM');
    assert.equal(fs.existsSync(first.socketPath + '.lock'), false, 'lock file removed on SIGTERM');
  } finally {
    if (first.proc.exitCode === null && first.proc.signalCode === null) await first.stop('SIGKILL');
    rmrf(first.runtime);
  }
});

test('socket: the socket file is reachable only by its owner; the default name lives in $XDG_RUNTIME_DIR', async () => {
  // Default socket name under a private XDG_RUNTIME_DIR.
  const srv = await startListener({ socketArg: null, waitFor: false });
  const expected = path.join(srv.runtime, 'fabric-broker.sock');
  try {
    const deadline = Date.now() + 15000;
    while (!isSocket(expected)) {
      if (srv.proc.exitCode !== null || Date.now() > deadline) throw new Error(`no socket at ${expected}: ${srv.stderr}`);
      await sleep(25);
    }
    const st = fs.statSync(expected);
    assert.equal(st.uid, process.getuid());
    assert.equal(st.mode & 0o077, 0, `socket mode ${(st.mode & 0o777).toString(8)} must not grant group/other access`);
    const dir = fs.statSync(srv.runtime);
    assert.equal(dir.mode & 0o777, 0o700, 'the runtime dir is 0700');
    const c = await connectSocket(expected);
    assert.deepEqual(await c.client.ping(), {});
    await c.close();
  } finally {
    await srv.stop();
    rmrf(srv.runtime);
  }
});

test('socket: without XDG_RUNTIME_DIR the socket goes to /run/user/<uid> or the 0700 fallback, and is private', async () => {
  // /run/user/<uid> when it exists, is ours and 0700 (another test may create it meanwhile),
  // else the fallback; the rule itself is tested in tst_socketdirectory and relay.test.mjs.
  const candidates = [`/run/user/${process.getuid()}`, `/tmp/fabric-broker-${process.getuid()}`];
  const name = `fb-e2e-${process.pid}-${Date.now()}.sock`;
  const env = baseEnv();
  const scratch = env.XDG_RUNTIME_DIR;
  delete env.XDG_RUNTIME_DIR;
  const proc = spawn(BIN, [...LISTEN_ARGS, '--socket', name], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  const exited = once(proc, 'exit');
  let sockPath = path.join(candidates[1], name);
  try {
    const deadline = Date.now() + 15000;
    for (;;) {
      const found = candidates.map((d) => path.join(d, name)).find(isSocket);
      if (found) { sockPath = found; break; }
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`no socket named ${name} in ${candidates}: ${stderr}`);
      await sleep(25);
    }
    const where = path.dirname(sockPath);
    const dir = fs.lstatSync(where);
    assert.ok(dir.isDirectory());
    assert.equal(dir.uid, process.getuid());
    assert.equal(dir.mode & 0o777, 0o700, `${where} mode ${(dir.mode & 0o777).toString(8)}`);
    assert.equal(fs.statSync(sockPath).mode & 0o077, 0);
  } finally {
    if (proc.exitCode === null) proc.kill('SIGTERM');
    await exited;
    for (const f of [sockPath, sockPath + '.lock']) {
      try { fs.unlinkSync(f); } catch { /* removed by the server */ }
    }
    rmrf(scratch);
  }
});

test('socket: --socket in a directory that does not exist is a clear startup error', async () => {
  const env = baseEnv();
  const missing = path.join(env.XDG_RUNTIME_DIR, 'no', 'such', 'dir', 'b.sock');
  const proc = spawn(BIN, [...LISTEN_ARGS, '--socket', missing], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15000);
  const [code] = await once(proc, 'exit');
  clearTimeout(timer);
  assert.notEqual(code, 0);
  assert.notEqual(code, null);
  assert.match(stderr, /does not exist/);
  rmrf(env.XDG_RUNTIME_DIR);
});

test('socket: at most 64 sessions; a refused connection is closed and a freed slot is reusable', async () => {
  const srv = await startListener();
  const socks = [];
  const openRaw = () => new Promise((resolve, reject) => {
    const sock = net.createConnection(srv.socketPath);
    sock.once('connect', () => resolve(sock));
    sock.once('error', reject);
  });
  const initialize = (sock, id) => new Promise((resolve) => {
    let buf = '';
    const onData = (d) => {
      buf += d;
      if (buf.includes('\n')) { sock.off('data', onData); resolve(JSON.parse(buf.slice(0, buf.indexOf('\n')))); }
    };
    sock.on('data', onData);
    sock.once('close', () => resolve(null));
    sock.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'many', version: '1' } } }) + '\n');
  });
  try {
    for (let i = 0; i < 64; i++) {
      const sock = await openRaw();
      socks.push(sock);
      const r = await initialize(sock, i);
      assert.equal(r?.result?.protocolVersion, '2025-11-25', `session ${i}`);
    }
    const extra = await openRaw();
    extra.on('error', () => {}); // the server aborts it (ECONNRESET)
    const closed = new Promise((r) => extra.once('close', r));
    const r = await Promise.race([initialize(extra, 'extra'), sleep(5000).then(() => 'no answer')]);
    assert.equal(r, null, 'the 65th connection is closed without an answer');
    await closed;
    // Free one slot: a new client gets served.
    socks.pop().destroy();
    await sleep(300);
    const again = await openRaw();
    socks.push(again);
    const r2 = await initialize(again, 'again');
    assert.equal(r2?.result?.protocolVersion, '2025-11-25');
    assert.match(srv.stderr, /refusing a connection/);
  } finally {
    for (const s of socks) s.destroy();
    await srv.stop();
    rmrf(srv.runtime);
  }
});

// SIGTERM must always shut down cleanly (socket and lock file removed, exit status 0). Today the
// signal handler is installed only after the socket is already listening (src/app/RunModes.cpp
// runHeadless: host.start() before installQuitOnSignals()), so a SIGTERM that arrives as soon as
// the socket appears kills the process with the default action and leaves both files behind.
test('socket: SIGTERM right after the socket appears still shuts down cleanly (socket and lock removed)', async () => {
  const outcomes = [];
  for (let i = 0; i < 10; i++) {
    const srv = await startListener({ waitFor: false });
    try {
      const deadline = Date.now() + 15000;
      while (!isSocket(srv.socketPath)) {
        if (srv.proc.exitCode !== null || Date.now() > deadline) throw new Error(`no socket: ${srv.stderr}`);
        await sleep(2);
      }
      srv.proc.kill('SIGTERM');
      const [code, signal] = await srv.exited;
      const left = ['broker.sock', 'broker.sock.lock'].filter((f) => fs.existsSync(path.join(srv.runtime, f)));
      outcomes.push({ code, signal, left });
    } finally {
      if (srv.proc.exitCode === null && srv.proc.signalCode === null) srv.proc.kill('SIGKILL');
      rmrf(srv.runtime);
    }
  }
  const bad = outcomes.filter((o) => o.code !== 0 || o.left.length > 0);
  assert.deepEqual(bad, [], `${bad.length}/10 early SIGTERMs were not clean: ${JSON.stringify(bad)}`);
});
