// What the team-mode e2e tests (team-*.test.mjs, issue #25) share: a workstation (the real
// desktop app under its own Xvfb display and D-Bus session, its own HOME, logged in to the team
// database as one role, read and operated through AT-SPI as a screen reader does), a proposer
// (`fabric-broker --stdio` spawned by the official SDK's StdioClientTransport, the per-user
// instance of its own runtime folder, with more sessions relayed into it), and the team
// database's rows (pg.mjs).
import { spawn, execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, baseEnv, scratchDir, sleep } from './lib.mjs';
import { startXvfb } from './xvfb.mjs';
import { PYTHON, atspiSkip, keyringSkip, startKeyring, startSessionBus } from './atspi.mjs';
import { pgSkip } from './pg.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

// A 24-bit TrueColor XWD dump (what `xwd -root` writes of an Xvfb screen) as a PNG, with the
// Python standard library only.
const XWD_TO_PNG = `
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
f = struct.unpack('>25I', d[:100])
hsize, w, h, order, bpp, bpl, ncolors = f[0], f[4], f[5], f[7], f[11], f[12], f[19]
px = d[hsize + 12 * ncolors:]
n = bpp // 8
if n not in (3, 4): raise SystemExit('unsupported XWD header %r' % (f,))
rows = bytearray()
for y in range(h):
    line = px[y * bpl:y * bpl + n * w]
    rows.append(0)
    for x in range(w):
        b = line[n * x:n * x + n]
        rows += bytes((b[2], b[1], b[0])) if order == 0 else bytes((b[n - 3], b[n - 2], b[n - 1]))
def chunk(t, data): return struct.pack('>I', len(data)) + t + data + struct.pack('>I', zlib.crc32(t + data))
png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(bytes(rows), 6)) + chunk(b'IEND', b'')
open(sys.argv[2], 'wb').write(png)
`;

// Each workstation is its own host: its app runs in a UTS namespace with a host name of its own
// (as root: unshare --uts; otherwise in a user namespace too). On one machine, as one OS user,
// every app would otherwise be "the proposing OS user on the proposing host", whose approvals
// never count.
const UNSHARE = process.getuid() === 0 ? ['--uts'] : ['--user', '--map-root-user', '--uts'];
function ownHostSkip() {
  try { execFileSync('unshare', [...UNSHARE, 'true'], { stdio: 'ignore' }); return false; } catch {
    return `each workstation needs a host name of its own: unshare ${UNSHARE.join(' ')} (util-linux) does not work here`;
  }
}

// A reason to skip the tests with desktop apps, or false.
export function teamDesktopSkip() { return pgSkip() || atspiSkip() || ownHostSkip() || adminPolicySkip(); }

// Team mode is set by an administrator-layer policy file, which must be owned by root.
export function adminPolicySkip() {
  return process.getuid() === 0 ? false : 'team mode is set by an administrator policy file, which must be owned by root: run as root';
}

// Waits until probe() returns something truthy (polled every 50 ms); throws what() after ms.
export async function until(probe, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms: ${typeof what === 'function' ? await what() : what}`);
    await sleep(50);
  }
}

// The row of proposal id, as the schema owner reads it: { state, proposer, price }.
export async function proposalRow(team, id) {
  const rows = await team.query('fb_owner', "SELECT state, proposer, coalesce(price::text, '') FROM fabric_team.proposals WHERE id = :'id'::uuid", { id });
  if (!rows.length) return null;
  return { state: rows[0][0], proposer: rows[0][1], price: rows[0][2] };
}

// Whether role has decided on proposal id.
export async function hasDecided(team, id, role) {
  return (await decisions(team, id)).some((d) => d.approver === role);
}

export async function waitForState(team, id, state, ms = 30000) {
  return until(async () => { const r = await proposalRow(team, id); return r && r.state === state ? r : null; }, ms,
    async () => `proposal ${id} is not ${state}: ${JSON.stringify(await proposalRow(team, id))}`);
}

// The decisions recorded on proposal id: [{ approver, decision, dialog_sha256 (hex), os_user, host }].
export async function decisions(team, id) {
  const rows = await team.query('fb_owner', "SELECT approver, decision, encode(dialog_sha256, 'hex'), os_user, host FROM fabric_team.approvals WHERE proposal_id = :'id'::uuid ORDER BY decided_at", { id });
  return rows.map(([approver, decision, sha, osUser, host]) => ({ approver, decision, dialog_sha256: sha, os_user: osUser, host }));
}

// A reason to skip the tests whose workstations hold an approval key (keyring: true), or false.
export function teamSigningSkip() { return teamDesktopSkip() || keyringSkip(); }

// `fabric-broker team key` in env (a session bus with a Secret Service): makes the approval key
// in that keychain on first use; returns what it printed, { public_key, fingerprint }.
function approverKey(env) {
  return new Promise((resolve, reject) => {
    execFile(BIN, ['team', 'key'], { env: { ...env, QT_QPA_PLATFORM: 'offscreen' }, encoding: 'utf8', timeout: 120000 }, (err, stdout, stderr) => {
      const m = /^public_key {2}([A-Za-z0-9+/]{43}=)\nfingerprint (SHA256:[A-Za-z0-9+/]{43})\n$/.exec(stdout ?? '');
      if (err || !m) reject(new Error(`fabric-broker team key (as ${env.USER}) failed (${err ? `exit ${err.code ?? err.signal}` : 'unexpected output'}): ${stdout}${stderr}`));
      else resolve({ public_key: m[1], fingerprint: m[2] });
    });
  });
}

// One approver's workstation: the desktop app as role, in its own HOME, runtime folder, X
// display and session bus; team.database is its role's URI.
// keyring: also a Secret Service (gnome-keyring-daemon, its own scratch folder) on the
// workstation's session bus, in which `fabric-broker team key` makes the role's Ed25519 approval
// key before the app starts, so that the app signs every decision; ws.key is what `team key`
// printed ({ public_key, fingerprint }: what the administrator lists in team.approver_keys).
// fabric: a sandbox process (lib.mjs startSandboxProcess) the app talks to instead of its own
// embedded one, as the proposers do (the lookup of an unknown create then searches where it was
// sent).
export async function startWorkstation(role, team, opts = {}) {
  // What is already running when a later step fails is stopped before the error goes on: a
  // workstation that does not come up leaves no process (and no scratch folder) behind.
  const started = { xvfb: null, bus: null, keychain: null, app: null, driver: null };
  try {
    return await bootWorkstation(role, team, opts, started);
  } catch (e) {
    await stopStarted(started);
    throw e;
  }
}

async function stopStarted({ xvfb, bus, keychain, app, driver }) {
  if (driver) { driver.stdin.end(); driver.kill('SIGTERM'); }
  if (app && app.exitCode === null && app.signalCode === null) {
    app.kill('SIGTERM');
    const t = setTimeout(() => app.kill('SIGKILL'), 5000);
    await once(app, 'exit');
    clearTimeout(t);
  }
  if (keychain) await keychain.stop();
  if (bus) {
    bus.proc.stdin.end();
    if (bus.proc.exitCode === null && bus.proc.signalCode === null) await once(bus.proc, 'exit');
  }
  if (xvfb) await xvfb.stop();
}

// startWorkstation for each of roles at once; when one fails, the others that came up are
// stopped too before the error goes on.
export async function startWorkstations(roles, team, opts = {}) {
  const results = await Promise.allSettled(roles.map((role) => startWorkstation(role, team, opts)));
  const failed = results.find((r) => r.status === 'rejected');
  if (!failed) return results.map((r) => r.value);
  await Promise.all(results.filter((r) => r.status === 'fulfilled').map((r) => r.value.stop()));
  throw failed.reason;
}

async function bootWorkstation(role, team, { extraEnv = {}, keyring = false, fabric = null }, started) {
  const xvfb = started.xvfb = await startXvfb(700, 800);
  const base = baseEnv();
  const home = scratchDir(`fb-e2e-home-${role}-`);
  const bus = started.bus = await startSessionBus(base.XDG_RUNTIME_DIR);
  const env = { ...base, HOME: home, USER: role, LOGNAME: role, DISPLAY: xvfb.display, DBUS_SESSION_BUS_ADDRESS: bus.address,
    QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1', ...adminPolicyEnv(home, { team: { database: team.uri(role) } }), ...(fabric ? fabric.env : {}), ...extraEnv };
  delete env.QT_QPA_PLATFORM; // a real X display, not offscreen
  let keychain = null;
  let key = null;
  if (keyring) {
    keychain = started.keychain = await startKeyring(bus, scratchDir(`fb-e2e-keyring-${role}-`));
    key = await approverKey(env);
  }
  let log = '';
  const host = `ws-${role}`;
  // unshare and sh exec: the process is the app itself.
  const app = started.app = spawn('unshare', [...UNSHARE, 'sh', '-c', 'hostname "$0" && exec "$@"', host, BIN, ...(fabric ? [] : ['--sandbox']), '--toolsets', 'read,mutate'],
    { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', (d) => { log += d.toString(); });
  const ws = { role, host, xvfb, bus, app, env, keychain, key, get log() { return log; } };
  await xvfb.waitForWindow('^Fabric Broker( - SANDBOX)?$', 30000, () => `${role}'s app log:\n${log.slice(-3000)}`, app);
  const driver = started.driver = spawn(PYTHON, [path.join(here, 'atspi_driver.py')], {
    env: { PATH: env.PATH, HOME: home, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR, DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers = readline.createInterface({ input: driver.stdout })[Symbol.asyncIterator]();
  let queue = Promise.resolve();
  // One command at a time (the driver answers in order).
  ws.atspi = (req) => {
    const run = queue.then(async () => {
      driver.stdin.write(`${JSON.stringify(req)}\n`);
      const { value, done } = await answers.next();
      if (done) throw new Error(`${role}'s AT-SPI driver exited; app log:\n${log.slice(-2000)}`);
      const out = JSON.parse(value);
      if (!out.ok) throw new Error(`${role}: AT-SPI ${req.cmd} ${req.window}: ${out.error}; app log:\n${log.slice(-2000)}`);
      return out;
    });
    queue = run.catch(() => {});
    return run;
  };
  ws.driver = driver;

  // The Team approvals dialog is open (TeamDesk opens it when a proposal waits).
  ws.dialog = (ms = 20000) => xvfb.waitForWindow('^Team approvals', ms, () => `${role}'s app log:\n${log.slice(-3000)}`);

  // Selects the proposal whose details show `shows` (a regular expression), as a person picks
  // it in the list; returns the exact text shown.
  ws.choose = async (shows, timeout = 20) => {
    await ws.dialog();
    const out = await ws.atspi({ cmd: 'choose', window: '^Team approvals', list: '^Open team proposals$', details: '^Proposal details$', contains: shows, timeout });
    return out.text;
  };

  // Picks the proposal and presses Approve or Deny (decision: 'Approve' | 'Deny'); waits until
  // recorded() (e.g. the row is in the database) and the dialog says so. Returns the text the
  // decision was made on.
  ws.decide = async (shows, decision, recorded) => {
    const text = await ws.choose(shows);
    await ws.atspi({ cmd: 'press', window: '^Team approvals', role: 'push button', name: `^&?${decision}$` });
    if (recorded) await until(recorded, 20000, `${role}'s ${decision} was not recorded; app log:\n${log.slice(-2000)}`);
    const word = decision === 'Approve' ? 'approve' : 'deny';
    // The dialog says so, unless the proposal already moved on to being sent (it then says that).
    await ws.atspi({ cmd: 'text', window: '^Team approvals', contains: `Your decision \\(${word}\\) is recorded|never sent again` });
    return text;
  };

  // The names of the dialog's list items once one matches rx.
  ws.items = async (rx, timeout = 20) => (await ws.atspi({ cmd: 'names', window: '^Team approvals', role: 'list item', contains: rx, timeout })).names;

  // A screenshot of the display (xwd, converted to PNG by XWD_TO_PNG) into file, when xwd
  // (x11-apps) exists; for a person to look at (FB_E2E_SCREENSHOT_DIR), never compared.
  // window: an X window id (the whole screen without).
  ws.screenshot = (file, window) => {
    const xwd = path.join(os.tmpdir(), `fb-e2e-${process.pid}-${role}.xwd`);
    try {
      execFileSync('xwd', [...(window ? ['-id', window] : ['-root']), '-silent', '-display', xvfb.display, '-out', xwd]);
      execFileSync(PYTHON, ['-c', XWD_TO_PNG, xwd, file]);
      return true;
    } catch (e) { console.error(`no screenshot: ${e.message}`); return false; } finally { fs.rmSync(xwd, { force: true }); }
  };

  ws.stop = () => stopStarted(started);
  return ws;
}

// The proposer's side: `fabric-broker --stdio` as an MCP client spawns it (the SDK's
// StdioClientTransport, its default environment plus what a client configuration sets). The
// first one in a runtime folder becomes the per-user instance; later ones with the same folder
// relay their session into it. elicit: a handler (the client then declares elicitation).
//
// Team mode is the administrator's alone (issue #34): team.database, team.approver_keys (keys:
// the entries of the approvers whose signed approvals count) and whatever else policy holds go
// into an administrator-layer policy file (FABRIC_BROKER_EXTRA_ADMIN_POLICY, root-owned in a
// folder only root can write, as the loader demands), never into the user's.
export function proposerEnv(team, sandbox, { role = 'carol', policy = {}, keys, extra = {} } = {}) {
  const runtime = scratchDir('fb-e2e-proposer-');
  fs.chmodSync(runtime, 0o700);
  const admin = { ...policy, team: { ...(policy.team ?? {}), database: team.uri(role) } };
  if (keys) admin.team.approver_keys = keys;
  return {
    HOME: scratchDir(`fb-e2e-home-${role}-`), USER: role, LOGNAME: role, PATH: process.env.PATH, LANG: 'C.UTF-8',
    XDG_RUNTIME_DIR: runtime, XDG_DATA_HOME: path.join(runtime, 'data'), XDG_CONFIG_HOME: path.join(runtime, 'config'),
    QT_QPA_PLATFORM: 'offscreen', ...adminPolicyEnv(runtime, admin), ...sandbox.env, ...extra,
  };
}

// An administrator-layer policy file (JSON of policy) in dir: { FABRIC_BROKER_EXTRA_ADMIN_POLICY }.
// The loader trusts it only when root owns it and its folder and nobody else can write them,
// which holds for a scratch folder (mode 0700) made by a test running as root.
export function adminPolicyEnv(dir, policy) {
  const file = path.join(dir, 'admin-policy.json');
  fs.writeFileSync(file, JSON.stringify(policy), { mode: 0o644 });
  return { FABRIC_BROKER_EXTRA_ADMIN_POLICY: file };
}

// Updates the administrator policy file of env (adminPolicyEnv) to policy's JSON.
export function rewriteAdminPolicy(env, policy) {
  fs.writeFileSync(env.FABRIC_BROKER_EXTRA_ADMIN_POLICY, JSON.stringify(policy), { mode: 0o644 });
}

export async function startProposer(env, { elicit, name = 'team-e2e', args = [] } = {}) {
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio', '--toolsets', 'read,mutate', ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name, version: '1.0.0' }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  await client.connect(transport);
  // The instance refuses proposals until its team queue is connected and the schema checked
  // (team_unavailable, "not connected yet"); it logs when it is. A relayed session uses the
  // instance's queue, which is ready already.
  await until(() => /team mode: connected to the team database|relaying stdio to the running/.test(stderr), 20000,
    () => `the broker did not connect to the team database: ${stderr.slice(-2000)}`);
  return {
    client, transport,
    get pid() { return transport.pid; },
    get stderr() { return stderr; },
    call(tool, args = {}, options = {}) { return client.callTool({ name: tool, arguments: args }, CallToolResultSchema, options); },
    // A confirm that may wait for people: long timeout, kept alive by progress notifications.
    confirm(token, progress = []) {
      return client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: token } }, CallToolResultSchema,
        { timeout: 300000, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p) });
    },
    async close() { try { await client.close(); } catch { /* already gone */ } },
    // With args ['--http', '127.0.0.1:0']: GET /metrics with the HTTP token (Prometheus text).
    async metrics() {
      const m = /MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr);
      if (!m) throw new Error(`no HTTP endpoint on stderr: ${stderr.slice(-1000)}`);
      const token = fs.readFileSync(path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token'), 'utf8').trim();
      const res = await fetch(`${m[1]}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      return res.text();
    },
  };
}

// Real creates (not dry runs) of a connection named name that reached the sandbox.
export async function createsNamed(sandbox, name) {
  const log = await sandbox.admin('GET', '/sandbox/v1/requests');
  return log.data.filter((r) => {
    if (r.method !== 'POST' || r.path !== '/fabric/v4/connections' || r.dryRun) return false;
    try { return JSON.parse(r.body).name === name; } catch { return false; }
  });
}
