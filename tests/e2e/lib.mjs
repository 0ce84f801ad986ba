// Shared helpers for the end-to-end tests: spawn the real fabric-broker executable and drive it
// with the official MCP TypeScript SDK client (or, where the SDK hides the wire, a raw NDJSON
// client). Everything runs on loopback; nothing reaches the internet.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export const BIN = process.env.FB_BROKER_BIN
  || path.resolve(here, '../../build/ci/src/app/fabric-broker');

// Seeded sandbox estate (see `fabric-broker --print-estate`).
export const IDS = {
  portSvPrimary: '50000000-0000-4000-8000-000000000001',
  portSvSecondary: '50000000-0000-4000-8000-000000000002',
  portDc: '50000000-0000-4000-8000-000000000003',
  profileAws: '5e000000-0000-4000-8000-000000000001',
  profileGenericL2: '5e000000-0000-4000-8000-000000000003',
  networkGlobalEvplan: 'e0000000-0000-4000-8000-000000000001',
};

let vlanCounter = 2000 + Math.floor(Math.random() * 1000);
export function nextVlan() { return vlanCounter++; }

// A connection from the SV primary port to the AWS-like cloud profile.
export function connectionSpec(overrides = {}) {
  const vlan = overrides.vlan ?? nextVlan();
  return {
    type: 'EVPL_VC',
    name: overrides.name ?? `e2e-conn-${vlan}`,
    bandwidth: overrides.bandwidth ?? 50,
    aSide: { accessPoint: { type: 'COLO', port: { uuid: IDS.portSvPrimary },
      linkProtocol: { type: 'DOT1Q', vlanTag: vlan } } },
    zSide: { accessPoint: { type: 'SP', profile: { type: 'L2_PROFILE', uuid: IDS.profileAws },
      location: { metroCode: 'SV' }, sellerRegion: 'us-west-1',
      authenticationKey: '123456789012' } },
    notifications: [{ type: 'ALL', emails: ['netops@example.com'] }],
  };
}

// Scratch folders and child processes are this test file's to clean up: every folder made by
// scratchDir() (baseEnv makes one per broker) is removed when the file's process exits, after
// the children it left running (a failed test, a forgotten sandbox) were killed. A run of the
// suite leaves nothing in the temporary folder; ctest's fb_scratch_check fails when it does.
const scratch = new Set();

export function scratchDir(prefix = 'fb-e2e-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.add(dir);
  return dir;
}

// Removes a scratch folder now (a test that is done with it before the file ends).
export function removeScratch(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  scratch.delete(dir);
}

// The direct children of this process that are still alive (zombies excluded): pid and name.
function liveChildren() {
  const out = [];
  let entries = [];
  try { entries = fs.readdirSync('/proc'); } catch { return out; }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    let stat;
    try { stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8'); } catch { continue; }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split at the last ')'.
    const close = stat.lastIndexOf(')');
    const [state, ppid] = stat.slice(close + 2).split(' ');
    if (Number(ppid) === process.pid && state !== 'Z') out.push({ pid: Number(e), name: stat.slice(stat.indexOf('(') + 1, close) });
  }
  return out;
}

process.on('exit', () => {
  // Xvfb gets SIGTERM so that it removes its /tmp/.X<n>-lock; everything else is killed.
  const left = liveChildren();
  for (const c of left) { try { process.kill(c.pid, c.name === 'Xvfb' ? 'SIGTERM' : 'SIGKILL'); } catch { /* gone */ } }
  const deadline = Date.now() + 2000;
  while (left.length && liveChildren().some((c) => c.name !== 'Xvfb') && Date.now() < deadline) { /* dying */ }
  for (const dir of scratch) { try { fs.rmSync(dir, { recursive: true, force: true }); } catch { /* best effort */ } }
});

export function baseEnv(extra = {}) {
  const runtime = scratchDir('fb-e2e-');
  fs.chmodSync(runtime, 0o700);
  const env = {
    PATH: process.env.PATH, HOME: process.env.HOME ?? runtime,
    XDG_RUNTIME_DIR: runtime, XDG_DATA_HOME: path.join(runtime, 'data'),
    XDG_CONFIG_HOME: path.join(runtime, 'config'), XDG_STATE_HOME: path.join(runtime, 'state'),
    QT_QPA_PLATFORM: 'offscreen', LANG: 'C.UTF-8',
    // No session bus unless a test starts one (atspi.mjs): without this, a GUI app on an Xvfb
    // display autolaunches one (dbus-launch) that outlives the test and would start the
    // installed keyring daemon on the real user's HOME when Settings reads the keychain.
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${path.join(runtime, 'no-session-bus')}`,
  };
  if (process.env.ASAN_OPTIONS) env.ASAN_OPTIONS = process.env.ASAN_OPTIONS;
  if (process.env.UBSAN_OPTIONS) env.UBSAN_OPTIONS = process.env.UBSAN_OPTIONS;
  return { ...env, ...extra };
}

// Starts `fabric-broker --headless --stdio ...` and connects the official SDK client.
// elicit: undefined = the client does not declare elicitation; a function (req, extra) => result
// otherwise.
export async function startBroker({ args = ['--sandbox', '--toolsets', 'read,mutate'], env = {},
  elicit, clientName = 'fabric-broker-e2e' } = {}) {
  const transport = new StdioClientTransport({
    command: BIN, args: ['--headless', '--stdio', ...args], env: baseEnv(env), stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const capabilities = elicit ? { elicitation: { form: {} } } : {};
  const client = new Client({ name: clientName, version: '1.0.0' }, { capabilities });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  await client.connect(transport);
  return {
    client, transport,
    get stderr() { return stderr; },
    async call(name, args = {}, options = {}) {
      return client.callTool({ name, arguments: args }, CallToolResultSchema, options);
    },
    async close() { await client.close(); },
  };
}

// Runs a separate `fabric-broker --sandbox-only` process; returns its URL and an admin helper.
export async function startSandboxProcess() {
  const proc = spawn(BIN, ['--sandbox-only', '--port', '0'], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d.toString(); });
  const deadline = Date.now() + 15000;
  while (!/sandbox: (http:\/\/127\.0\.0\.1:\d+)/.test(out)) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`sandbox did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const url = /sandbox: (http:\/\/127\.0\.0\.1:\d+)/.exec(out)[1];
  return {
    url, proc,
    env: { EQUINIX_API_ENDPOINT: url, EQUINIX_API_CLIENTID: 'e2e-client', EQUINIX_API_CLIENTSECRET: 'e2e-secret-value' },
    async admin(method, p, body) {
      const res = await fetch(url + p, { method, headers: { 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      return text ? JSON.parse(text) : null;
    },
    async stop() { proc.kill('SIGTERM'); if (proc.exitCode === null) await once(proc, 'exit'); },
  };
}

// A raw NDJSON JSON-RPC client over the broker's stdio, for wire-level cases the SDK hides
// (a cancel in the same write as its call, responses to cancelled calls).
export function startRaw({ args = ['--sandbox', '--toolsets', 'read,mutate'], env = {} } = {}) {
  const proc = spawn(BIN, ['--headless', '--stdio', ...args], { env: baseEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let buf = '';
  const messages = [];
  const waiters = [];
  proc.stdout.on('data', (d) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i); buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      messages.push(msg);
      for (const w of [...waiters]) if (w.pred(msg)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(msg); }
    }
  });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  return {
    proc, messages,
    get stderr() { return stderr; },
    write(...objs) { proc.stdin.write(objs.map((o) => JSON.stringify(o) + '\n').join('')); },
    waitFor(pred, ms = 10000) {
      const hit = messages.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve };
        waiters.push(w);
        setTimeout(() => { const k = waiters.indexOf(w); if (k >= 0) { waiters.splice(k, 1); reject(new Error('timeout waiting for message; got ' + JSON.stringify(messages).slice(0, 2000))); } }, ms);
      });
    },
    async initialize(capabilities = { elicitation: { form: {} } }) {
      this.write({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw-e2e', version: '1' } } });
      const r = await this.waitFor((m) => m.id === 'init');
      this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return r;
    },
    async close() { proc.stdin.end(); if (proc.exitCode === null) await once(proc, 'exit'); },
  };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function accept(confirm = true) {
  return async () => ({ action: 'accept', content: { confirm } });
}

function alive(pid) { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } }

// Tests that spawn `--stdio` with the SDK's default environment (no XDG_RUNTIME_DIR) all meet at
// one per-user socket (/run/user/<uid>, else /tmp/fabric-broker-<uid>), so they take this
// machine-wide lock: a lock directory with the owner's pid; a lock whose owner is gone is taken
// over. Returns the function that releases it.
export async function lockRunUser() {
  const LOCK = path.join('/tmp', `fabric-broker-e2e-run-user-${process.getuid()}.lock`);
  const deadline = Date.now() + 8 * 60 * 1000;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      fs.writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      return () => fs.rmSync(LOCK, { recursive: true, force: true });
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let pid = 0;
      try { pid = Number(fs.readFileSync(path.join(LOCK, 'pid'), 'utf8')); } catch { /* being written */ }
      let age = 0;
      try { age = Date.now() - fs.statSync(LOCK).mtimeMs; } catch { continue; }
      if ((pid && !alive(pid)) || (!pid && age > 10000)) { fs.rmSync(LOCK, { recursive: true, force: true }); continue; }
      if (Date.now() > deadline) throw new Error(`${LOCK} is held by pid ${pid}`);
      await sleep(250);
    }
  }
}
