// Attacks on the relayed `--stdio` session (docs/architecture.md, "A relayed `--stdio` session"):
// the launcher (src/launcher/main.cpp), the hand-over on the per-user socket
// (LocalSocketServer::acceptRelay), the app's reading of the relay's /proc (RelayLaunch::read)
// and the decision (decideRelayedSession). The agent and every other local user are the
// adversary. Each test asserts the SAFE behaviour; a hole found by review is kept as a test
// marked { todo: 'HOLE: ...' } so that it shows in the output without failing the run.
// Raw socket work (sendmsg/SCM_RIGHTS, impostor listeners, execve with an exact envp) is done by
// attack-helpers/fdrelay.py (python3, stdlib). Cross-user cases need root (nobody = 65534) and
// skip with a message otherwise.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, baseEnv, scratchDir, startSandboxProcess, sleep } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const HELPER = path.join(here, 'attack-helpers', 'fdrelay.py');
const PAD = 'x'.repeat(400); // makes the helper's argument area big enough to masquerade
const NOBODY = 65534;
const OTHER_UID = 4242; // a user with nothing on this machine: its /tmp fallback is ours to set up
const notRoot = process.getuid() !== 0 ? 'needs root: other users\' files and processes, SIGSTOP, ns_last_pid' : false;
// Debian's own python3 (a version manager's shim can take a second to start).
let python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
try { execFileSync(python, ['-c', 'import socket; socket.send_fds'], { stdio: 'ignore' }); } catch { python = null; }
const noPython = python ? false : 'needs python3 >= 3.9 (socket.send_fds)';

const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'launcher-attacks', version: '1' } } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const LIST = { jsonrpc: '2.0', id: 'list', method: 'tools/list' };
const SESSION = [INIT, INITIALIZED, LIST];

// ---------------------------------------------------------------------------------------------
// Helpers

async function startInstance({ args = [], env = {}, wrap = null } = {}) {
  const fullEnv = baseEnv(env);
  const sock = path.join(fullEnv.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  const argv = ['--headless', '--listen', ...args];
  const proc = wrap ? spawn(wrap[0], [...wrap.slice(1), BIN, ...argv], { env: fullEnv, stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(BIN, argv, { env: fullEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  const deadline = Date.now() + 15000;
  while (!fs.existsSync(sock) || !/listening on \//.test(stderr)) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`instance did not start: ${stderr}`);
    await sleep(25);
  }
  // The launcher execv()s the app: the same pid. Under `unshare -f` the app is a child in
  // another pid namespace, and its pid is not ours to signal.
  const pid = wrap ? null : proc.pid;
  return {
    proc, sock, pid, env: fullEnv, runtime: fullEnv.XDG_RUNTIME_DIR, get stderr() { return stderr; },
    fds() { return fs.readdirSync(`/proc/${pid}/fd`).length; },
    cpuTicks() { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return Number(f[11]) + Number(f[12]); },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) { if (pid) { try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ } } proc.kill(wrap ? 'SIGKILL' : 'SIGTERM'); await once(proc, 'exit'); }
      fs.rmSync(fullEnv.XDG_RUNTIME_DIR, { recursive: true, force: true });
    },
  };
}

// Runs COMMAND (the launcher by default) with ARGS and ENV, writes MESSAGES (objects, or raw
// strings) at once, collects stdout frames until every id in waitIds is answered (or the
// process exits, or ms pass), then closes stdin and waits for the exit.
async function runClient({ command = BIN, args = ['--stdio'], env, messages = SESSION, waitIds = ['init', 'list'], ms = 10000, cwd, keepOpenMs = 0 } = {}) {
  const proc = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = ''; let stderr = '';
  proc.stdout.on('data', (d) => { stdout += d.toString(); });
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  proc.stdin.on('error', () => {});
  const frames = () => stdout.split('\n').filter((l) => l.trim()).map((l) => { try { return JSON.parse(l); } catch { return { notJson: l }; } });
  proc.stdin.write(messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)) + '\n').join(''));
  const exited = once(proc, 'exit');
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && proc.exitCode === null && proc.signalCode === null
    && !waitIds.every((id) => frames().some((f) => f.id === id))) await sleep(20);
  if (keepOpenMs) await sleep(keepOpenMs);
  proc.stdin.end();
  const timer = setTimeout(() => proc.kill('SIGKILL'), 8000);
  const [code, signal] = await exited;
  clearTimeout(timer);
  return { code, signal, stdout, stderr, frames: frames(), pid: proc.pid };
}

function relayEnv(inst, extra = {}) {
  return { ...baseEnv(extra), XDG_RUNTIME_DIR: inst.runtime };
}

function toolNames(r) {
  const list = r.frames.find((f) => f.id === 'list');
  return list?.result?.tools?.map((t) => t.name) ?? [];
}

// Every line the client ever sees on stdout is a JSON-RPC frame: no log line, no banner.
function assertOnlyFrames(r, what) {
  for (const line of r.stdout.split('\n')) {
    if (!line.trim()) continue;
    let m;
    try { m = JSON.parse(line); } catch { assert.fail(`${what}: a non-JSON line on the client's stdout: ${line.slice(0, 200)}`); }
    assert.equal(m.jsonrpc, '2.0', `${what}: not a JSON-RPC frame: ${line.slice(0, 200)}`);
  }
}

// Never more than the instance serves nor than the relay asked: no mutate tool in a session of
// a read instance or of a session that asked for read.
function assertNoMutate(r, what) {
  const names = toolNames(r);
  assert.ok(!names.includes('fabric_propose_change') && !names.includes('fabric_confirm_change'),
    `${what}: served mutate tools: ${names.join(',')}; stderr: ${r.stderr.slice(0, 600)}`);
}

function runHelper(args, { env = process.env, ms = 30000, stdin = 'ignore' } = {}) {
  return new Promise((resolve) => {
    const p = spawn(python, [HELPER, ...args], { env, stdio: [stdin, 'pipe', 'pipe'] });
    let out = ''; let err = '';
    p.stdout.on('data', (d) => { out += d.toString(); });
    p.stderr.on('data', (d) => { err += d.toString(); });
    const timer = setTimeout(() => p.kill('SIGKILL'), ms);
    p.on('exit', (code) => {
      clearTimeout(timer);
      const lines = out.split('\n').filter((l) => l.trim()).map((l) => { try { return JSON.parse(l); } catch { return { raw: l }; } });
      resolve({ code, lines, last: lines[lines.length - 1] ?? {}, stderr: err });
    });
  });
}

// A python impostor listening at SOCK (optionally as UID) that reports what one relay sent.
function startImpostor(sock, mode, uid, acceptSeconds = 6) {
  const p = spawn(python, [HELPER, 'impostor', sock, mode, ...(uid !== undefined ? [String(uid)] : [])],
    { env: { ...process.env, ACCEPT_S: String(acceptSeconds) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = ''; let err = '';
  p.stdout.on('data', (d) => { out += d.toString(); });
  p.stderr.on('data', (d) => { err += d.toString(); });
  const lines = () => out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  return {
    proc: p, lines, get stderr() { return err; },
    async listening() {
      const deadline = Date.now() + 5000;
      while (!lines().some((l) => l.listening)) {
        if (Date.now() > deadline || p.exitCode !== null) throw new Error(`impostor did not listen: ${out} ${err}`);
        await sleep(20);
      }
    },
    received() { return lines().find((l) => 'accepted' in l); },
    async done(ms = 10000) { if (p.exitCode === null) { const t = setTimeout(() => p.kill('SIGKILL'), ms); await once(p, 'exit'); clearTimeout(t); } },
    kill() { if (p.exitCode === null) p.kill('SIGKILL'); },
  };
}

async function waitFor(pred, ms, step = 50) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) { if (pred()) return true; await sleep(step); }
  return pred();
}

// ---------------------------------------------------------------------------------------------
// Shared instances: a read,mutate sandbox instance and a read-only sandbox instance.

let rw; let ro;
before(async () => {
  [rw, ro] = await Promise.all([
    startInstance({ args: ['--sandbox', '--toolsets', 'read,mutate'] }),
    startInstance({ args: ['--sandbox', '--toolsets', 'read'] }),
  ]);
});
after(async () => { await Promise.all([rw?.stop(), ro?.stop()]); });

// ---------------------------------------------------------------------------------------------
// 1. Widening through the relay

test('1a widening: mutate (argv, env, repeated --toolsets) against a read instance and unconfirmed mutations are refused with 78', async () => {
  for (const [args, extra] of [
    [['--stdio', '--toolsets', 'read,mutate'], {}],
    [['--stdio'], { EQUINIX_MCP_TOOLSETS: 'mutate' }],
    [['--stdio', '--toolsets', 'read', '--toolsets', 'read,mutate'], {}],
  ]) {
    const r = await runClient({ args, env: relayEnv(ro, extra) });
    assert.equal(r.code, 78, `${args.join(' ')} ${JSON.stringify(extra)}: ${r.stderr}`);
    assert.equal(r.frames.find((f) => f.id === 'init')?.error?.code, -32001);
    assertNoMutate(r, args.join(' '));
    assertOnlyFrames(r, 'refused');
  }
  const u = await runClient({ env: relayEnv(rw, { EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS: 'true' }) });
  assert.equal(u.code, 78, u.stderr);
  assert.match(u.frames.find((f) => f.id === 'init')?.error?.message ?? '', /EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS/);
});

test('1b widening: --sandbox against a real endpoint, and credentials for a rogue endpoint, are refused; the rogue endpoint is never contacted', async () => {
  const fabric = await startSandboxProcess(); // stands in for Equinix
  const real = await startInstance({ args: ['--toolsets', 'read'], env: fabric.env });
  let rogueConnections = 0;
  const rogue = net.createServer((c) => { rogueConnections++; c.destroy(); });
  await new Promise((r) => rogue.listen(0, '127.0.0.1', r));
  const roguePort = rogue.address().port;
  try {
    const s = await runClient({ args: ['--stdio', '--sandbox'], env: relayEnv(real) });
    assert.equal(s.code, 78, s.stderr);
    assert.match(s.frames.find((f) => f.id === 'init')?.error?.message ?? '', /--sandbox: this session asks for the embedded sandbox/);
    const creds = { EQUINIX_API_ENDPOINT: `http://127.0.0.1:${roguePort}`, EQUINIX_API_CLIENTID: 'agent', EQUINIX_API_CLIENTSECRET: 'agent-secret' };
    const e = await runClient({ env: relayEnv(real, creds), messages: [...SESSION, { jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'fabric_list_metros', arguments: {} } }], waitIds: ['init', 'list', 'call'] });
    assert.equal(e.code, 78, e.stderr);
    assert.match(e.frames.find((f) => f.id === 'init')?.error?.message ?? '', /EQUINIX_API_ENDPOINT: this session asks for http:\/\/127\.0\.0\.1/);
    assert.ok(!e.frames.some((f) => f.result), 'nothing answered with a result');
    const sb = await runClient({ env: relayEnv(ro, creds) }); // credentials against a sandbox instance
    assert.equal(sb.code, 78, sb.stderr);
    await sleep(300);
    assert.equal(rogueConnections, 0, 'the rogue endpoint was contacted');
    assert.doesNotMatch(real.stderr + e.stderr, /agent-secret/);
  } finally { rogue.close(); await real.stop(); await fabric.stop(); }
});

test('1c argv tricks: --stdio as an option\'s value, an unknown option, a relative --socket: never served with the instance\'s settings, stdout stays MCP-only', async () => {
  // The launcher sees --stdio; the app's own parse sees --toolsets=--stdio: "exec", and the app
  // binary then says what it would say on its own.
  const a = await runClient({ args: ['--toolsets', '--stdio'], env: relayEnv(rw) });
  assert.notEqual(a.code, 0, a.stderr);
  assert.ok(!a.frames.some((f) => f.result), `served: ${a.stdout.slice(0, 300)}`);
  assertOnlyFrames(a, '--toolsets --stdio');
  const b = await runClient({ args: ['--stdio', '--bogus-option'], env: relayEnv(rw) });
  assert.notEqual(b.code, 0);
  assert.equal(b.stdout, '');
  assert.match(b.stderr, /Unknown option 'bogus-option'/);
  const c = await runClient({ args: ['--stdio', '--toolsets', 'read', '--socket', './fabric-broker.sock'], env: relayEnv(rw), cwd: rw.runtime });
  assertNoMutate(c, 'relative --socket');
  assertOnlyFrames(c, 'relative --socket');
});

test('1d huge argv (> 256 KiB) or environ (> 1 MiB) asking read of a read,mutate instance: never served with mutate', async () => {
  const bigEnv = relayEnv(rw, { EQUINIX_MCP_TOOLSETS: 'read' });
  for (let i = 0; i < 10; i++) bigEnv[`PAD_${i}`] = 'p'.repeat(120 * 1024);
  const e = await runClient({ env: bigEnv });
  assertNoMutate(e, 'huge environ');
  assertOnlyFrames(e, 'huge environ');
  assert.match(e.stderr, /cannot serve this relay: \/proc\/\d+\/environ is larger than 1048576 bytes/, e.stderr.slice(0, 400));
  assert.equal(e.code, 1);
  const manyArgs = ['--stdio', '--toolsets', 'read', ...Array(40000).fill('--stdio')];
  const a = await runClient({ args: manyArgs, env: relayEnv(rw) });
  assertNoMutate(a, 'huge argv');
  assertOnlyFrames(a, 'huge argv');
  assert.match(a.stderr, /cannot serve this relay: \/proc\/\d+\/cmdline is larger than 262144 bytes/, a.stderr.slice(0, 400));
  assert.equal(a.code, 1);
});

test('1e duplicate and invalid UTF-8 environment entries: the relayed session gets what the same command would get on its own, never mutate for a read request', { skip: noPython }, async () => {
  // What a process with this exact envp gets when it serves itself (no app listening) ...
  const alone = scratchDir('fb-attack-alone-');
  fs.chmodSync(alone, 0o700);
  const envp = (rt, extra) => {
    const e = { ...baseEnv(), XDG_RUNTIME_DIR: rt };
    return [...Object.entries(e).map(([k, v]) => `${k}=${v}`), ...extra];
  };
  const orders = [
    ['EQUINIX_MCP_TOOLSETS=read', 'EQUINIX_MCP_TOOLSETS=read,mutate'],
    ['EQUINIX_MCP_TOOLSETS=read,mutate', 'EQUINIX_MCP_TOOLSETS=read'],
  ];
  for (const dup of orders) {
    const standalone = await runClient({ command: python, args: [HELPER, 'execve', BIN, 'fabric-broker', '--headless', '--stdio', '--sandbox', '--', ...envp(alone, dup)] });
    const relayed = await runClient({ command: python, args: [HELPER, 'execve', BIN, 'fabric-broker', '--stdio', '--sandbox', '--', ...envp(rw.runtime, dup)] });
    assert.match(relayed.stderr, /relaying stdio to the running Fabric Broker/, relayed.stderr);
    assert.deepEqual(toolNames(relayed).sort(), toolNames(standalone).sort(),
      `${dup.join(' ')}: relayed ${toolNames(relayed).length} tools vs alone ${toolNames(standalone).length}`);
  }
  // A value that is not UTF-8 is an invalid setting, not "no setting".
  const bad = await runClient({ command: python, args: [HELPER, 'execve', BIN, 'fabric-broker', '--stdio', '--', ...envp(rw.runtime, ['hex:' + Buffer.from('EQUINIX_MCP_TOOLSETS=read\xff', 'latin1').toString('hex')])] });
  assertNoMutate(bad, 'invalid UTF-8 toolsets');
  assert.notEqual(bad.code, 0);
});

test('1f a relay that execve()s right after the hand-over (other argv and env) is never served with mutate it did not ask for at connect', { skip: noPython }, async () => {
  // It connects looking like `fabric-broker --stdio --toolsets read`, hands over its stdio, then
  // becomes `sleep` with EQUINIX_MCP_TOOLSETS=read,mutate: whichever /proc the app reads, no
  // mutate (read at connect: narrowed; read after: not a --stdio command line, "exec").
  for (let i = 0; i < 3; i++) {
    const r = await runClient({ command: python, args: [HELPER, 'swap', rw.sock, PAD, '--toolsets', 'read', '--', '/bin/sleep', '1'], env: relayEnv(rw), ms: 3000 });
    assertNoMutate(r, `swap #${i}`);
    assertOnlyFrames(r, 'swap');
  }
});

test('1g pid namespaces: a relay in a child pid namespace gets its own settings; an app in a child pid namespace refuses relays it cannot see', { skip: notRoot }, async () => {
  const r = await runClient({ command: 'unshare', args: ['-p', '-f', BIN, '--stdio', '--toolsets', 'read'], env: relayEnv(rw) });
  assertNoMutate(r, 'relay in a child pid namespace');
  assert.ok(r.code !== 0 || toolNames(r).includes('fabric_list_metros'), `neither served its own settings nor refused: ${r.stderr}`);
  const inner = await startInstance({ args: ['--sandbox', '--toolsets', 'read,mutate'], wrap: ['unshare', '-p', '-f', '--kill-child'] });
  try {
    const o = await runClient({ env: relayEnv(inner) });
    assert.equal(o.code, 1, o.stderr);
    assert.match(o.stderr, /cannot serve this relay: the relay's process id is not visible here/);
    assert.equal(o.stdout, '', 'nothing served');
  } finally { await inner.stop(); }
});

test('1h pid reuse: a hand-over whose sender died and whose pid now belongs to another process is refused, never decided with that process\'s settings',
  { skip: notRoot || noPython }, async () => {
    const inst = await startInstance({ args: ['--sandbox', '--toolsets', 'read,mutate'] });
    let b;
    try {
      // Widen the window between the hand-over and the app's /proc read: stop the app (a process
      // of the same user may do so; so may a busy event loop).
      process.kill(inst.pid, 'SIGSTOP');
      const a = spawn(BIN, ['--stdio', '--toolsets', 'read'], { env: relayEnv(inst), stdio: ['pipe', 'pipe', 'pipe'] });
      a.stdin.write(SESSION.map((m) => JSON.stringify(m) + '\n').join(''));
      await sleep(400); // connected, hello and descriptors queued
      const apid = a.pid;
      a.kill('SIGKILL'); await once(a, 'exit');
      // Another process of the user gets A's pid; it asks for a limit the instance does not use.
      const code = `
import os, sys
env = dict(os.environ, EQUINIX_MCP_PROPOSAL_TTL_MS='4321')
for _ in range(50):
    open('/proc/sys/kernel/ns_last_pid', 'w').write(str(${apid} - 1))
    pid = os.fork()
    if pid == 0:
        null = os.open('/dev/null', os.O_RDWR)
        os.dup2(null, 1); os.dup2(null, 2)
        os.execve(sys.executable, [sys.executable, ${JSON.stringify(HELPER)}, 'sleepas', ${JSON.stringify(inst.sock)}, '5', ${JSON.stringify(PAD)}], env)
    if pid == ${apid}:
        print(pid); sys.stdout.flush(); os._exit(0)
    os.kill(pid, 9); os.waitpid(pid, 0)
print(0)`;
      b = execFileSync(python, ['-c', code], { encoding: 'utf8' }).trim();
      assert.equal(Number(b), apid, 'could not reuse the pid: the attack did not run');
      const masked = () => { try { return fs.readFileSync(`/proc/${apid}/cmdline`, 'latin1').includes('--stdio'); } catch { return false; } };
      assert.ok(await waitFor(masked, 3000), 'the process at the reused pid did not get ready');
    } finally { process.kill(inst.pid, 'SIGCONT'); }
    try {
      await waitFor(() => /session \d+ (refused|closing)|cannot serve this relay/.test(inst.stderr), 3000);
      assert.doesNotMatch(inst.stderr, /EQUINIX_MCP_PROPOSAL_TTL_MS: this session asks for 4321/,
        'the dead relay\'s session was decided with the environment of the process that reused its pid');
      assert.doesNotMatch(inst.stderr, /relay control line not sent whole/, 'a session was set up for a relay that is gone');
    } finally { try { process.kill(Number(b), 'SIGKILL'); } catch { /* gone */ } await inst.stop(); }
  });

// ---------------------------------------------------------------------------------------------
// 2. A refused session talking itself into being served

test('2 a refused session stays refused whatever follows (a hello line, requests); a narrowed session cannot widen itself with a hello line', async () => {
  const hello = { fabricBrokerRelayHello: { v: 1, toolsets: ['read'], pid: 1 } };
  const r = await runClient({
    args: ['--stdio', '--toolsets', 'read,mutate'], env: relayEnv(ro),
    messages: [hello, { jsonrpc: '2.0', id: 'ping', method: 'ping' }, INIT, INITIALIZED, hello, LIST,
      { jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'fabric_list_metros', arguments: {} } }],
    waitIds: ['init'],
  });
  assert.equal(r.code, 78, r.stderr);
  assertOnlyFrames(r, 'refused');
  assert.ok(!r.frames.some((f) => f.fabricBrokerRelayWelcome), 'a welcome line was sent');
  for (const f of r.frames) {
    if (f.id === 'ping') continue;
    assert.ok(!f.result, `a result after the refusal: ${JSON.stringify(f).slice(0, 300)}`);
    if (f.id === 'init' || f.id === 'list' || f.id === 'call') assert.equal(f.error?.code, -32001, JSON.stringify(f).slice(0, 300));
  }
  assert.equal(r.frames.find((f) => f.id === 'init')?.error?.code, -32001);
  const n = await runClient({
    args: ['--stdio', '--toolsets', 'read'], env: relayEnv(rw),
    messages: [{ fabricBrokerRelayHello: { v: 1, toolsets: ['read', 'mutate'], allowUnconfirmedMutations: true } }, ...SESSION],
  });
  assert.ok(toolNames(n).includes('fabric_list_metros'), n.stderr);
  assertNoMutate(n, 'narrowed session with a hello line');
});

// ---------------------------------------------------------------------------------------------
// 3. Hand-over abuse by a same-user process speaking raw to the socket

test('3a malformed hand-overs are closed unanswered; odd descriptors, idle connections and storms neither crash, hang nor leak; a real relay works after', { skip: noPython }, async () => {
  const inst = await startInstance({ args: ['--sandbox', '--toolsets', 'read'] });
  try {
    await sleep(300);
    const base = inst.fds();
    for (const mode of ['nofd', 'onefd', 'threefd', 'manyfd', 'dir', 'eventfd', 'epoll', 'badmarker', 'split', 'split-fds-later', 'plus-mcp']) {
      const h = await runHelper(['hello', inst.sock, mode, '0.3']);
      assert.equal(h.last.received, '', `${mode}: answered ${JSON.stringify(h.last)} ${h.stderr}`);
      assert.equal(h.last.closed, true, `${mode}: not closed ${JSON.stringify(h.last)} ${h.stderr}`);
    }
    // A second hello on an accepted connection is never a second hand-over (this raw client's
    // command line is python's, not a launcher's: "exec", once).
    const twice = await runHelper(['hello', inst.sock, 'twice', '0.5']);
    assert.match(twice.last.received ?? '', /^(exec\n)?$/, JSON.stringify(twice) + twice.stderr);
    // Well-typed but odd descriptors from a raw client that looks like a launcher in /proc.
    for (const mode of ['opath', 'opath-fifo', 'memfd', 'looppipe']) {
      const h = await runHelper(['served', inst.sock, mode, '0.7', PAD]);
      assert.ok(h.code === 0, `${mode}: ${h.stderr}`);
    }
    // /dev/zero as stdin: the app reads it as fast as it can; another client is still served.
    const flood = runHelper(['served', inst.sock, 'devzero', '4', PAD]);
    await sleep(500);
    const t0 = Date.now();
    // Liveness, not speed (a sanitizer build on two busy cores took 16 s): it is served.
    const during = await runClient({ env: relayEnv(inst), ms: 60000 });
    const took = Date.now() - t0;
    assert.ok(toolNames(during).includes('fabric_list_metros'), `not served during the /dev/zero flood (${took} ms): ${during.stderr}`);
    await flood;
    // Idle connections: they count against the limit while held, and are let go when closed.
    const idle = await runHelper(['idle', inst.sock, '70', '1.5']);
    assert.ok(idle.last.connected >= 64, `${JSON.stringify(idle)} app: ${inst.stderr.slice(-1500)}`);
    const storm = await runHelper(['storm', inst.sock, '300']);
    assert.equal(storm.code, 0, storm.stderr);
    assert.equal(inst.proc.exitCode, null, 'the app is still running');
    assert.ok(await waitFor(() => inst.fds() <= base + 2, 5000), `descriptors leaked: ${inst.fds()} open, ${base} before`);
    const after = await runClient({ env: relayEnv(inst) });
    assert.ok(toolNames(after).includes('fabric_list_metros'), `a real relay after the abuse: ${after.stderr}`);
    assert.equal(after.code, 0);
  } finally { await inst.stop(); }
});

test('3b a hand-over that passes the connection\'s own socket as stdin/stdout does not outlive its sender (no leaked sessions or descriptors; the session limit is not used up)',
  { skip: noPython }, async () => {
    const inst = await startInstance({ args: ['--sandbox', '--toolsets', 'read'] });
    try {
      await sleep(300);
      const base = inst.fds();
      const h = await runHelper(['selfsock', inst.sock, '64', PAD]);
      assert.equal(h.code, 0, h.stderr);
      const released = await waitFor(() => inst.fds() <= base + 2, 4000);
      const after = await runClient({ env: relayEnv(inst) });
      assert.ok(toolNames(after).includes('fabric_list_metros'),
        `a real relay after 64 self-socket hand-overs from an exited process: exit ${after.code}, ${after.stderr.slice(0, 300)}; app: ${inst.stderr.split('\n').filter((l) => /sessions \(maximum/.test(l)).slice(-1)}`);
      assert.ok(released, `descriptors held after the sender exited: ${inst.fds()} open, ${base} before`);
    } finally { await inst.stop(); }
  });

// ---------------------------------------------------------------------------------------------
// 4. Cross-user

test('4a a socket file of another user, or a listener running as another user, never gets a byte or a descriptor', { skip: notRoot || noPython }, async () => {
  // The socket file belongs to nobody: refused before connecting.
  const env = baseEnv();
  const sock = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  const imp = startImpostor(sock, 'silent', undefined, 3);
  await imp.listening();
  fs.chownSync(sock, NOBODY, NOBODY);
  const r = await runClient({ env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /refusing to relay to .*belongs to uid 65534/);
  assert.equal(r.stdout, '');
  await imp.done();
  assert.deepEqual(imp.received(), { accepted: false }, 'the impostor was connected to');
  // A listener running as nobody, its socket file chowned to us: refused after connect, with no
  // byte and no descriptor sent.
  const shared = scratchDir('fb-attack-shared-');
  fs.chmodSync(shared, 0o777);
  const sock2 = path.join(shared, 'fabric-broker.sock');
  const imp2 = startImpostor(sock2, 'silent', NOBODY, 5);
  await imp2.listening();
  fs.chownSync(sock2, 0, 0);
  const r2 = await runClient({ args: ['--stdio', '--socket', sock2], env: baseEnv() });
  assert.equal(r2.code, 1, r2.stderr);
  assert.match(r2.stderr, /the peer process \(pid \d+\) runs as uid 65534/);
  await waitFor(() => imp2.received(), 3000);
  imp2.kill();
  const got = imp2.received();
  assert.ok(got, 'the impostor saw no connection at all');
  if (got.accepted) assert.deepEqual({ bytes: got.bytes, fds: got.fds }, { bytes: 0, fds: 0 });
});

test('4b the /run/user and /tmp fallbacks: another user\'s, a symlinked or an open directory is refused (or ignored) and its listener gets nothing', { skip: notRoot || noPython }, async () => {
  const runUser = `/run/user/${OTHER_UID}`;
  const fallback = `/tmp/fabric-broker-${OTHER_UID}`;
  for (const p of [runUser, fallback]) if (fs.existsSync(p)) assert.fail(`${p} exists: this test sets it up itself`);
  const home = scratchDir('fb-attack-home-');
  fs.chownSync(home, OTHER_UID, OTHER_UID);
  // The user's client: no XDG_RUNTIME_DIR (the SDK's default environment), uid 4242.
  const asUser = (args) => runClient({
    command: 'setpriv', args: [`--reuid=${OTHER_UID}`, `--regid=${OTHER_UID}`, '--clear-groups', BIN, '--stdio', '--sandbox', ...args],
    env: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' }, ms: 6000,
  });
  const cases = [
    { name: 'fallback owned by nobody', setup: () => { fs.mkdirSync(fallback, { mode: 0o700 }); fs.chownSync(fallback, NOBODY, NOBODY); return path.join(fallback, 'fabric-broker.sock'); }, refused: /belongs to uid 65534/ },
    { name: 'fallback is a symlink', setup: () => { const d = scratchDir('fb-attack-link-'); fs.chmodSync(d, 0o777); fs.symlinkSync(d, fallback); return path.join(d, 'fabric-broker.sock'); }, refused: /symbolic link/ },
    { name: 'fallback open to others', setup: () => { fs.mkdirSync(fallback); fs.chmodSync(fallback, 0o777); fs.chownSync(fallback, OTHER_UID, OTHER_UID); return path.join(fallback, 'fabric-broker.sock'); }, refused: /mode 0777 lets other users in/, chownSock: OTHER_UID },
  ];
  try {
    for (const c of cases) {
      const sock = c.setup();
      const imp = startImpostor(sock, 'silent', NOBODY, 4);
      await imp.listening();
      if (c.chownSock) fs.chownSync(sock, c.chownSock, c.chownSock);
      const r = await asUser([]);
      assert.equal(r.code, 1, `${c.name}: ${r.stderr}`);
      assert.match(r.stderr, c.refused, c.name);
      assert.equal(r.stdout, '', c.name);
      imp.kill();
      await imp.done();
      const got = imp.received();
      assert.ok(!got || got.accepted === false || (got.bytes === 0 && got.fds === 0), `${c.name}: ${JSON.stringify(got)}`);
      fs.rmSync(fallback, { recursive: true, force: true });
    }
    // /run/user/<uid> of another owner is never used: the launcher falls back, and its
    // listener is never connected to.
    fs.mkdirSync(runUser, { mode: 0o700 }); fs.chownSync(runUser, NOBODY, NOBODY);
    const imp = startImpostor(path.join(runUser, 'fabric-broker.sock'), 'silent', NOBODY, 3);
    await imp.listening();
    await asUser(['--version-never-a-flag']); // an unknown option: exits after the relay decision
    await imp.done();
    assert.deepEqual(imp.received(), { accepted: false }, 'the listener in another user\'s /run/user/<uid> was connected to');
  } finally {
    fs.rmSync(runUser, { recursive: true, force: true });
    fs.rmSync(fallback, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------
// 5. Stdout integrity

test('5 stdout carries MCP frames only: when the app is killed mid-session (EOF, non-zero exit) and when the launcher is killed (the app ends the session)', async () => {
  const inst = await startInstance({ args: ['--sandbox', '--toolsets', 'read'] });
  try {
    // The launcher killed: the client sees end of file (the app closes its copy of stdout).
    const k = spawn(BIN, ['--stdio'], { env: relayEnv(inst), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = ''; let eof = false;
    k.stdout.on('data', (d) => { out += d.toString(); });
    k.stdout.on('end', () => { eof = true; });
    k.stdin.write(SESSION.map((m) => JSON.stringify(m) + '\n').join(''));
    assert.ok(await waitFor(() => out.includes('"list"'), 20000), `no tools/list answer: ${out.slice(0, 300)}`);
    k.kill('SIGKILL');
    assert.ok(await waitFor(() => eof, 20000), 'no end of file on the client\'s stdout after the launcher was killed');
    assertOnlyFrames({ stdout: out }, 'launcher killed');
    // Node closes its end of the launcher's stdin when it reaps it, so the app may see end of
    // input before it sees the relay end: either way, the session ends.
    assert.ok(await waitFor(() => /closing: "(the relay process ended|end of input)"/.test(inst.stderr), 20000), `the app did not end the session: ${inst.stderr.slice(-600)}`);
    // The app killed: end of file and a non-zero exit.
    const c = spawn(BIN, ['--stdio'], { env: relayEnv(inst), stdio: ['pipe', 'pipe', 'pipe'] });
    let out2 = ''; let err2 = ''; let eof2 = false;
    c.stdout.on('data', (d) => { out2 += d.toString(); });
    c.stdout.on('end', () => { eof2 = true; });
    c.stderr.on('data', (d) => { err2 += d.toString(); });
    c.stdin.on('error', () => {});
    c.stdin.write(SESSION.map((m) => JSON.stringify(m) + '\n').join(''));
    assert.ok(await waitFor(() => out2.includes('"list"'), 20000), `no tools/list answer: ${out2.slice(0, 300)} ${err2.slice(0, 300)}`);
    const exited = once(c, 'exit');
    process.kill(inst.pid, 'SIGKILL');
    const t = setTimeout(() => c.kill('SIGKILL'), 20000);
    const [code, signal] = await exited;
    clearTimeout(t);
    assert.ok(await waitFor(() => eof2, 5000), 'no end of file after the app was killed');
    assert.equal(signal, null, 'the launcher had to be killed: it did not notice the app died');
    assert.notEqual(code, 0, err2);
    assertOnlyFrames({ stdout: out2 }, 'app killed');
  } finally { await inst.stop(); }
});

// ---------------------------------------------------------------------------------------------
// 6. The launcher's own parsing of a hostile same-user listener

test('6 hostile control lines from a same-user impostor: bounded reads, sane exit codes, no exec of the app after "ok"', { skip: noPython }, async () => {
  const cases = [
    { mode: 'exit42', code: 42 },
    { mode: 'exit999', code: 1 },
    { mode: 'exitneg', code: 1 },
    { mode: 'exitjunk', code: 1 },
    { mode: 'garbage', code: 1, stderr: /does not speak this relay's protocol/ },
    { mode: 'bigstderr', code: 1, maxStderr: 64 * 1024 },
    { mode: 'nonewline', code: 1, maxMs: 6000, maxStderr: 64 * 1024 },
    { mode: 'execafterok', code: 5 },
  ];
  for (const c of cases) {
    const env = baseEnv();
    const sock = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock');
    const imp = startImpostor(sock, c.mode, undefined, 5);
    await imp.listening();
    const t0 = Date.now();
    const r = await runClient({ env, messages: [INIT], waitIds: [], ms: 9000 });
    const took = Date.now() - t0;
    imp.kill();
    await imp.done();
    const got = imp.received();
    assert.ok(got?.accepted && got.hello && got.fds === 2, `${c.mode}: ${JSON.stringify(got)}`);
    assert.equal(r.signal, null, `${c.mode}: the launcher crashed or hung (${r.signal}); stderr ${r.stderr.slice(0, 300)}`);
    assert.equal(r.code, c.code, `${c.mode}: exit ${r.code}; stderr ${r.stderr.slice(0, 300)}`);
    assert.equal(r.stdout, '', `${c.mode}: the launcher (or an app it ran) wrote to the client's stdout`);
    assert.doesNotMatch(r.stderr, /fabricbroker\.|serving this session headless/, `${c.mode}: the app was run after the hand-over`);
    if (c.stderr) assert.match(r.stderr, c.stderr, c.mode);
    if (c.maxStderr) assert.ok(r.stderr.length <= c.maxStderr, `${c.mode}: ${r.stderr.length} bytes of stderr`);
    if (c.maxMs) assert.ok(took <= c.maxMs, `${c.mode}: took ${took} ms`);
  }
});
