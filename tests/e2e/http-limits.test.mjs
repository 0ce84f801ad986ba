// The loopback HTTP endpoint under another local process's flood (docs/http.md "Limits"): with
// the common `ulimit -n 1024` on the broker, 1,100 idle connections and 40 unfinished 8 MiB
// bodies, then an authorized request is answered in under 1 s and the broker's RSS stays below
// 100 MB throughout. The flood runs in a child with its own raised descriptor limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BIN, baseEnv } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

async function startHttpBroker() {
  const env = baseEnv();
  // The broker gets the common soft limit of 1,024 descriptors.
  const child = spawn('sh', ['-c', 'ulimit -n 1024 && exec "$0" "$@"', BIN, '--headless', '--http',
    '127.0.0.1:0', '--sandbox'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d.toString(); });
  const re = /MCP over HTTP at (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/;
  const deadline = Date.now() + 15000;
  while (!re.test(err)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no HTTP endpoint: ${err}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const [, url, port] = re.exec(err);
  const token = fs.readFileSync(path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token'), 'utf8').trim();
  return { child, url, port, token, get stderr() { return err; } };
}

function rssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

test('1,100 idle connections and 40 unfinished 8 MiB bodies do not stall an authorized request', async () => {
  const b = await startHttpBroker();
  const initialize = () => fetch(b.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      authorization: `Bearer ${b.token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'limits', version: '1' } } }),
    signal: AbortSignal.timeout(5000),
  });
  // Warm up this process's fetch (undici's first use) so the measure is the broker's.
  assert.equal((await initialize()).status, 200);
  const base = rssMb(b.child.pid);
  let peak = base;
  const sampler = setInterval(() => { try { peak = Math.max(peak, rssMb(b.child.pid)); } catch { /* exited */ } }, 20);
  const flood = spawn('sh', ['-c', 'ulimit -n 4096 && exec "$0" "$@"', process.execPath,
    path.join(here, 'http-flood.mjs'), '127.0.0.1', b.port, b.token, '1100', '40'],
  { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: flood.stdout });
  const next = () => new Promise((resolve) => lines.once('line', (l) => resolve(JSON.parse(l))));
  try {
    const ready = await next();
    assert.ok(ready.idleOpen + ready.connectErrors >= 1100, JSON.stringify(ready));
    // The flood is still open: an authorized client gets its answer at once.
    const started = Date.now();
    const res = await initialize();
    const elapsed = Date.now() - started;
    assert.equal(res.status, 200);
    assert.equal((await res.json()).result.protocolVersion, '2025-11-25');
    assert.ok(elapsed < 1000, `answered in ${elapsed} ms`);
    flood.stdin.end();
    const done = await next();
    // Every body sender was refused at once, with a status and a JSON-RPC error body.
    assert.equal(done.answers.length, 40, JSON.stringify(done.answers.slice(0, 3)));
    for (const a of done.answers) {
      assert.equal(a.status, a.foreign ? 403 : 413, JSON.stringify(a));
      assert.equal(JSON.parse(a.body).jsonrpc, '2.0');
    }
    // Idle connections over the cap were answered and closed to make room.
    assert.ok(done.idleClosedByServer >= 1100 - 64, `closed ${done.idleClosedByServer}`);
    // Under AddressSanitizer (the CI's asan step sets ASAN_OPTIONS) the binary's own footprint is
    // not the product's: shadow memory and the quarantine of freed blocks come on top. There the
    // bound is on what the flood added, which unbounded buffering (40 × 8 MiB) would still break.
    if (process.env.ASAN_OPTIONS)
      assert.ok(peak - base < 100, `RSS grew by ${(peak - base).toFixed(1)} MB (from ${base.toFixed(1)})`);
    else
      assert.ok(peak < 100, `RSS peaked at ${peak.toFixed(1)} MB`);
  } finally {
    clearInterval(sampler);
    flood.kill('SIGKILL');
    b.child.kill('SIGTERM');
    if (b.child.exitCode === null) await once(b.child, 'exit');
  }
});

// Another local user reaches the loopback port too: it is refused on accept, before the server
// reads a byte of its request (the client here sends nothing and still gets the 403).
test('a client run as another user is refused before it sends a byte', async (t) => {
  if (process.getuid?.() !== 0) {
    t.skip('needs root to run a client as `nobody` (runuser); CI runs as root');
    return;
  }
  const b = await startHttpBroker();
  try {
    const script = `const s=require('net').connect(${b.port},'127.0.0.1');let d='';`
      + "s.on('data',(x)=>{d+=x;});s.on('close',()=>{process.stdout.write(d);});"
      + 's.on(\'error\',()=>{});setTimeout(()=>s.destroy(),5000);';
    const child = spawn('runuser', ['-u', 'nobody', '--', process.execPath, '-e', script],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = ''; let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    await once(child, 'exit');
    assert.match(out, /^HTTP\/1\.1 403 /, `${out} ${err}`);
    const body = JSON.parse(out.split('\r\n\r\n')[1]);
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /runs as uid \d+, not as this user/);
    // This user is still served.
    const res = await fetch(b.url, { method: 'POST', headers: { 'content-type': 'application/json',
      authorization: `Bearer ${b.token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) });
    assert.equal(res.status, 200);
  } finally {
    b.child.kill('SIGTERM');
    if (b.child.exitCode === null) await once(b.child, 'exit');
  }
});

// Whoever holds the port may collect the token from a configured client: the broker starts
// anyway (the other transports serve), says so, and the stored token is replaced.
test('the HTTP port taken by another process: the broker starts, warns and rotates the token', async () => {
  const squatter = net.createServer(() => {});
  squatter.listen(0, '127.0.0.1');
  await once(squatter, 'listening');
  const { port } = squatter.address();
  const env = baseEnv();
  const tokenFile = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token');
  const old = 'A'.repeat(43);
  fs.writeFileSync(tokenFile, `${old}\n`, { mode: 0o600 });
  const child = spawn(BIN, ['--headless', '--http', `127.0.0.1:${port}`, '--sandbox'],
    { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d.toString(); });
  try {
    const deadline = Date.now() + 15000;
    while (!/warning: MCP over HTTP is off/.test(err)) {
      assert.ok(Date.now() < deadline && child.exitCode === null, `no warning: ${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.match(err, /already in use/);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(child.exitCode, null, 'the broker keeps running');
    const now = fs.readFileSync(tokenFile, 'utf8').trim();
    assert.match(now, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(now, old, 'the token was rotated');
    assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
    assert.ok(!err.includes(now), 'the token never reaches the log');
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
    squatter.close();
  }
});
