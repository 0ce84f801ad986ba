#!/usr/bin/env node
// CTest syscalls_per_read_call (issue #35): the system calls one read tool call costs, counted
// with `strace -f -c` on the real executable, and a bound on them. A count, not a time: the
// machine's load does not change it.
//
// For each Fabric: the embedded sandbox (--sandbox: the HTTP client and server both in the
// traced process) and a loopback Fabric in a process of its own (`fabric-broker --sandbox-only`:
// only the client side is traced, as against the real Fabric): `fabric-broker --headless
// --stdio` is run twice under strace, with 0 and with CALLS sequential tools/call
// fabric_list_metros, and (counts with CALLS - counts with 0) / CALLS is the cost per call
// (start-up and exit cancel out). Every call must succeed, every stdout line must be a JSON-RPC
// message, and each request gets exactly one response.
//
// Exit 77 (CTest SKIP_RETURN_CODE) when strace is not installed, except with CI=true: CI
// installs it (scripts/dev.sh), so there its absence fails the test.
//
//   node tests/e2e/syscalls-per-call.mjs --broker build/ci/src/app/fabric-broker [--calls N]
//        [--verbose]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TRACED = ['read', 'write', 'recvfrom', 'sendto', 'recvmsg', 'sendmsg', 'readv', 'writev',
  'poll', 'ppoll', 'select', 'pselect6', 'epoll_wait', 'epoll_pwait'];

// Per call, set with about 20% headroom over the Fabric client of its own (branch http-client,
// measured on Debian 12, Qt 6.4.2, 100 calls: loopback Fabric read 4.01, write 4.02, all traced
// 11.48; embedded sandbox read 4.03, write 5.04, all traced 16.50). Before it, on
// QNetworkAccessManager, the same measurement gave read 180.5 / 179.9, write 12.9 / 13.3, all
// 205.1 / 208.3: Qt 6.4 read a plain-http status line and header block one byte per read(2).
// Now a response is read in one read(2) and a request written in one write(2); the rest is one
// read and one write of the MCP message each way and the event loop's wake-ups
// (bench/performance-notes.md, "A read call's system calls").
const BOUNDS = {
  loopback: { read: 5, write: 5, all: 14 },
  embedded: { read: 5, write: 7, all: 20 },
};

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const broker = opt('--broker', process.env.FB_BROKER_BIN);
const calls = Number(opt('--calls', '200'));
const verbose = args.includes('--verbose');
if (!broker || !fs.existsSync(broker)) {
  console.error(`syscalls-per-call: no fabric-broker executable (--broker ${broker})`);
  process.exit(2);
}

const probe = spawnSync('strace', ['-V'], { encoding: 'utf8' });
if (probe.error) {
  if (process.env.CI === 'true') {
    console.error('syscalls-per-call: strace is not installed, and CI=true: CI installs it ' +
      '(scripts/dev.sh, APT_PACKAGES), so this is a failure');
    process.exit(1);
  }
  console.log('SKIP: strace is not installed (apt-get install strace); this count runs in CI');
  process.exit(77);
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-syscalls-'));
const children = new Set();
function cleanup() {
  for (const c of children) {
    try { c.kill('SIGKILL'); } catch { /* gone */ }
  }
  fs.rmSync(root, { recursive: true, force: true });
}
process.on('exit', cleanup);

// A private environment: nothing of the user's (settings, audit log, runtime dir) is touched.
function baseEnv(name) {
  const dir = path.join(root, name);
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (k.startsWith('EQUINIX_') || k.startsWith('FABRIC_BROKER_') || k === 'QT_LOGGING_RULES')
      delete env[k];
  }
  for (const sub of ['run', 'data', 'config', 'state', 'cache']) fs.mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o700 });
  Object.assign(env, {
    XDG_RUNTIME_DIR: path.join(dir, 'run'), XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_STATE_HOME: path.join(dir, 'state'),
    XDG_CACHE_HOME: path.join(dir, 'cache'), QT_QPA_PLATFORM: 'offscreen', LANG: 'C.UTF-8',
    // LeakSanitizer cannot run in a traced process (sanitizer builds); the other tests check leaks.
    ASAN_OPTIONS: [process.env.ASAN_OPTIONS, 'detect_leaks=0'].filter(Boolean).join(':'),
  });
  return env;
}

// fabric-broker --sandbox-only on a free port: the loopback Fabric.
async function startLoopbackFabric() {
  const child = spawn(broker, ['--sandbox-only', '--port', '0'], { env: baseEnv('fabric'), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  child.stderr.resume();
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the loopback Fabric did not start')), 20000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^sandbox: (http\S+)/m.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on('exit', (code) => reject(new Error(`the loopback Fabric exited (${code})`)));
  });
  return { url, stop: () => { child.kill('SIGTERM'); children.delete(child); } };
}

// One traced session: initialize, then n calls, one at a time; returns strace's counts.
async function tracedSession(name, n, brokerArgs, env) {
  const summary = path.join(root, `${name}-${n}.strace`);
  const child = spawn('strace', ['-f', '-c', '-o', summary, '-e', `trace=${TRACED.join(',')}`, '--',
    broker, '--headless', '--stdio', ...brokerArgs], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; if (stderr.length > 200000) stderr = stderr.slice(-100000); });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const responses = new Map();
  let waiting = null;
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let msg;
      try { msg = JSON.parse(line); } catch { throw new Error(`${name}: stdout carried a line that is not JSON: ${line.slice(0, 200)}`); }
      if (msg.jsonrpc !== '2.0') throw new Error(`${name}: stdout carried a non-JSON-RPC message: ${line.slice(0, 200)}`);
      if (msg.id === undefined || msg.method !== undefined) continue; // notifications, requests
      responses.set(msg.id, (responses.get(msg.id) ?? 0) + 1);
      if (waiting && waiting.id === msg.id) { const w = waiting; waiting = null; w.resolve(msg); }
    }
  });
  const request = (id, method, params) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no response to ${method} ${id}\n${stderr.slice(-4000)}`)), 60000);
    waiting = { id, resolve: (m) => { clearTimeout(timer); resolve(m); } };
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const init = await request(1, 'initialize', {
    protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'syscalls-per-call', version: '1' },
  });
  if (!init.result) throw new Error(`${name}: initialize failed: ${JSON.stringify(init)}`);
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  for (let i = 0; i < n; i++) {
    const r = await request(100 + i, 'tools/call', { name: 'fabric_list_metros', arguments: {} });
    if (!r.result || r.result.isError || !Array.isArray(r.result.structuredContent?.data))
      throw new Error(`${name}: fabric_list_metros failed: ${JSON.stringify(r).slice(0, 1000)}`);
  }
  child.stdin.end();
  const { code, signal } = await exited;
  children.delete(child);
  if (code !== 0) throw new Error(`${name}: fabric-broker under strace exited with ${code ?? signal}\n${stderr.slice(-4000)}`);
  for (const [id, count] of responses) {
    if (count !== 1) throw new Error(`${name}: request ${id} got ${count} responses`);
  }
  if (responses.size !== n + 1) throw new Error(`${name}: ${responses.size} responses for ${n + 1} requests`);
  return parseStraceSummary(fs.readFileSync(summary, 'utf8'), name);
}

// strace -c: "% time  seconds  usecs/call  calls  [errors]  syscall", then "total".
function parseStraceSummary(text, name) {
  const counts = {};
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5 || !/^\d/.test(f[0]) || f[f.length - 1] === 'total') continue;
    counts[f[f.length - 1]] = Number(f[3]);
  }
  if (Object.keys(counts).length === 0) throw new Error(`${name}: no strace summary:\n${text}`);
  return counts;
}

async function measure(name, brokerArgs, env) {
  const idle = await tracedSession(name, 0, brokerArgs, env);
  const busy = await tracedSession(name, calls, brokerArgs, env);
  const per = {};
  let all = 0;
  for (const sc of new Set([...Object.keys(idle), ...Object.keys(busy)])) {
    per[sc] = ((busy[sc] ?? 0) - (idle[sc] ?? 0)) / calls;
    all += per[sc];
  }
  per.all = all;
  return per;
}

const fmt = (x) => (x ?? 0).toFixed(2);
let failed = false;
try {
  const fabric = await startLoopbackFabric();
  const loopEnv = { ...baseEnv('loopback'), EQUINIX_API_ENDPOINT: fabric.url,
    EQUINIX_API_CLIENTID: 'syscalls-client', EQUINIX_API_CLIENTSECRET: 'syscalls-secret' };
  const results = {
    loopback: await measure('loopback', [], loopEnv),
    embedded: await measure('embedded', ['--sandbox'], baseEnv('embedded')),
  };
  fabric.stop();
  for (const [name, per] of Object.entries(results)) {
    const bound = BOUNDS[name];
    const line = `${name}: per fabric_list_metros call over ${calls} calls: read ${fmt(per.read)} ` +
      `(bound ${bound.read}), write ${fmt(per.write)} (bound ${bound.write}), all traced ` +
      `${fmt(per.all)} (bound ${bound.all})`;
    console.log(line);
    if (verbose) {
      for (const [sc, v] of Object.entries(per)) if (sc !== 'all' && v !== 0) console.log(`  ${sc} ${fmt(v)}`);
    }
    for (const k of ['read', 'write', 'all']) {
      if (!((per[k] ?? 0) <= bound[k])) {
        failed = true;
        console.error(`FAIL: ${name}: ${k} per call ${fmt(per[k])} is above the bound ${bound[k]} ` +
          '(issue #35: a read call should be I/O, not bookkeeping; see docs/performance.md)');
      }
    }
  }
} catch (e) {
  console.error(`syscalls-per-call: ${e.stack ?? e}`);
  process.exit(1);
}
process.exit(failed ? 1 : 0);
