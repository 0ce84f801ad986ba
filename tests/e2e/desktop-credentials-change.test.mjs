// Other credentials saved in Settings while an approval dialog is open (#22, requirement 5), in
// the real desktop app under Xvfb with a real Secret Service: a GNOME Keyring daemon on a private
// session bus, with its own scratch HOME (never the real user's keyrings). The credentials come
// from the keychain, as a user's do, never from the environment (which would outrank them):
//   1. The app starts with none (the embedded sandbox); a person opens Settings with real key
//      events (xdotool), types the endpoint of a separate Fabric sandbox process, a client id and
//      secret, and saves: they go to the keychain, only the endpoint to QSettings.
//   2. The app is started again: it reads them from the keychain and talks to that sandbox.
//   3. An MCP client spawned through the official SDK (its default environment plus the runtime
//      folder a client config would set) proposes a connection and confirms it: the approval
//      dialog opens.
//   4. The person opens Settings and saves another client id and secret while the dialog is open.
// The dialog is denied with the reason naming the credential change (read as a screen reader
// reads it, through AT-SPI), the client's result says the same with request_matches_binding:
// false and nothing executed, the audit log records the decision, and the sandbox received no
// create, although it accepts the new credentials too (it takes any), so a create sent as the
// new account would have succeeded. Skips when Xvfb, xdotool, dbus-run-session,
// python3-pyatspi or gnome-keyring is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, connectionSpec, scratchDir, sleep, startSandboxProcess } from './lib.mjs';
import { startXvfb } from './xvfb.mjs';
import { PYTHON, atspiSkip, keyringSkip, startKeyring, startSessionBus, stopSessionBus } from './atspi.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const skip = atspiSkip() || keyringSkip();

const FIRST = { id: 'e2e-client', secret: 'e2e-secret-value' };
const OTHER = { id: 'e2e-other-client', secret: 'e2e-other-secret-value' };

let xvfb; let bus; let keyring; let app; let env; let driver; let answers; let sandbox; let appLog = '';

async function atspi(req) {
  driver.stdin.write(`${JSON.stringify(req)}\n`);
  const { value, done } = await answers.next();
  if (done) throw new Error(`the AT-SPI driver exited; app log:\n${appLog.slice(-2000)}`);
  const out = JSON.parse(value);
  if (!out.ok) throw new Error(`AT-SPI ${req.cmd} ${req.window}: ${out.error}; app log:\n${appLog.slice(-2000)}`);
  return out;
}

const waitForWindow = (name, ms = 20000) => xvfb.waitForWindow(name, ms, () => `app log:\n${appLog.slice(-3000)}`);

function startApp() {
  appLog = '';
  app = spawn(BIN, ['--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', (d) => { appLog += d.toString(); });
}

async function stopApp() {
  if (!app || app.exitCode !== null || app.signalCode !== null) return;
  const t = setTimeout(() => app.kill('SIGKILL'), 5000);
  app.kill('SIGTERM');
  await once(app, 'exit');
  clearTimeout(t);
}

// A person: File > Settings... (the endpoint field has the focus), then the keys of `fill`;
// Return saves. Resolves once the dialog has closed, i.e. the keychain took the credentials.
async function saveInSettings(mainWindow, fill) {
  const main = xvfb.windows(mainWindow)[0];
  xvfb.press(main, ['alt+f', 's'], { pauseMs: 200 });
  const settings = await waitForWindow('^Settings - Fabric Broker');
  await sleep(300); // the dialog takes the focus once it is mapped
  for (const step of fill) {
    if (step.type !== undefined) xvfb.xdo('type', '--delay', '15', step.type);
    else xvfb.press(settings, step.keys);
  }
  xvfb.press(settings, ['Return']);
  assert.ok(await xvfb.windowGone(settings, 15000), `the settings dialog did not close; app log:\n${appLog.slice(-3000)}`);
}

const prefsFile = () => path.join(env.XDG_CONFIG_HOME, 'fabric-broker', 'fabric-broker.conf');
const tokenRequests = async () => (await sandbox.admin('GET', '/sandbox/v1/requests')).data
  .filter((r) => r.method === 'POST' && r.path === '/oauth2/v1/token');
const escape = (s) => s.replace(/[.:/]/g, '\\$&');

process.on('exit', () => { if (app && app.exitCode === null) app.kill('SIGKILL'); });

before(async () => {
  if (skip) return;
  sandbox = await startSandboxProcess();
  xvfb = await startXvfb(800, 860);
  const base = baseEnv();
  bus = await startSessionBus(base.XDG_RUNTIME_DIR);
  keyring = await startKeyring(bus, scratchDir('fb-e2e-keyring-'));
  // Not sandbox.env: no credentials (nor endpoint) in the app's environment.
  env = { ...base, DISPLAY: xvfb.display, DBUS_SESSION_BUS_ADDRESS: bus.address, QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1' };
  delete env.QT_QPA_PLATFORM; // a real X display, not offscreen
  for (const k of Object.keys(env)) assert.ok(!k.startsWith('EQUINIX_'), `no ${k} in the app's environment`);
});

after(async () => {
  if (driver) { driver.stdin.end(); driver.kill('SIGTERM'); }
  await stopApp();
  if (keyring) await keyring.stop();
  if (bus) await stopSessionBus(bus);
  if (xvfb) await xvfb.stop();
  if (sandbox) await sandbox.stop();
});

test('other credentials saved in Settings while the approval dialog is open: denied with the reason, audited, nothing created', { skip, timeout: 180000 }, async () => {
  // 1. First run: no credentials anywhere, so the embedded sandbox. Save the separate
  // sandbox's endpoint and credentials in Settings (endpoint, Tab, client id, Tab, secret).
  startApp();
  await waitForWindow('^Fabric Broker - SANDBOX$');
  await saveInSettings('^Fabric Broker - SANDBOX$', [
    { keys: ['ctrl+a'] }, { type: sandbox.url },
    { keys: ['Tab', 'ctrl+a'] }, { type: FIRST.id },
    { keys: ['Tab', 'ctrl+a'] }, { type: FIRST.secret },
  ]);
  // Issue #40: the app offers to switch now; Return takes the default, "Later (at the next
  // start)", and the app stays on the sandbox as before.
  const offer = await waitForWindow('^Switch to Equinix now\\? - Fabric Broker$');
  xvfb.press(offer, ['Return']);
  assert.ok(await xvfb.windowGone(offer, 10000), `the offer did not close; app log:\n${appLog.slice(-3000)}`);
  await waitForWindow('^Fabric Broker - SANDBOX$');
  let prefs = '';
  for (const deadline = Date.now() + 10000; !/credentialsInKeychain=true/.test(prefs); await sleep(100)) {
    try { prefs = fs.readFileSync(prefsFile(), 'utf8'); } catch { /* not written yet */ }
    assert.ok(Date.now() < deadline, `the credentials were not saved to the keychain: ${prefs}\napp log:\n${appLog.slice(-3000)}\nkeyring log:\n${keyring.log}`);
  }
  assert.ok(prefs.includes(sandbox.url), prefs);
  assert.ok(!prefs.includes(FIRST.secret) && !prefs.includes(FIRST.id), `no credential in QSettings: ${prefs}`);
  await stopApp();

  // 2. Second run: the credentials come from the keychain.
  startApp();
  await waitForWindow('^Fabric Broker$');
  driver = spawn(PYTHON, [path.join(here, 'atspi_driver.py')], {
    env: { PATH: env.PATH, HOME: env.HOME, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR, DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  answers = readline.createInterface({ input: driver.stdout })[Symbol.asyncIterator]();

  // 3. A client with the SDK's default environment and the runtime folder (that finds this app).
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env: { ...getDefaultEnvironment(), XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR }, stderr: 'ignore' });
  const client = new Client({ name: 'credentials-change-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    const spec = connectionSpec();
    const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
    assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
    const dryRunTokens = await tokenRequests();
    assert.ok(dryRunTokens.length > 0 && dryRunTokens.every((r) => JSON.stringify(r.body).includes(FIRST.id)),
      `the dry run was made as the keychain's client id: ${JSON.stringify(dryRunTokens).slice(0, 1500)}`);
    const pending = client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } }, undefined, { timeout: 120000 });
    const dialog = await waitForWindow('^Approve: Create connection');

    // 4. Settings while the dialog is open: Tab to the client id, another one, Tab, its secret.
    await saveInSettings('^Fabric Broker$', [
      { keys: ['Tab', 'ctrl+a'] }, { type: OTHER.id },
      { keys: ['Tab', 'ctrl+a'] }, { type: OTHER.secret },
    ]);

    // The dialog is denied at once (not when the client's wait runs out), and the client told.
    await waitForWindow('^Denied - Approve: Create connection');
    const result = (await pending).structuredContent;
    const changed = `the credentials changed from client id ${escape(FIRST.id)} to client id ${escape(OTHER.id)}`;
    const why = new RegExp(`${changed} while this approval was open; nothing was sent`);
    assert.equal(result.executed, false, JSON.stringify(result).slice(0, 2000));
    assert.equal(result.confirm_checks.request_matches_binding, false);
    assert.equal(result.execution.reason, 'binding_mismatch');
    assert.equal(result.human_confirmation.status, 'declined');
    assert.match(result.human_confirmation.detail, why);
    assert.doesNotMatch(result.human_confirmation.detail, /endpoint/, 'only the credentials changed');
    assert.match(result.message, new RegExp(`^Refused: ${changed} .*Nothing was created`));

    // The dialog says why, where the person looks (and a screen reader reads).
    const said = await atspi({ cmd: 'text', window: '^Denied - Approve', contains: why.source });
    assert.ok(said.texts.some((t) => /Nothing was created/.test(t)), said.texts.join(' | '));
    xvfb.press(dialog, ['Escape']);

    // The audit log records the denial with the reason, and nothing was sent.
    const log = fs.readFileSync(path.join(env.XDG_DATA_HOME, 'fabric-broker', 'audit.jsonl'), 'utf8')
      .split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const decision = log.find((r) => r.type === 'decision' && r.data?.request_sha256 === p.structuredContent.request_sha256);
    assert.ok(decision, 'a decision record');
    assert.equal(decision.data.status, 'declined');
    assert.match(decision.data.detail, why);
    assert.ok(!log.some((r) => r.type === 'sending' && r.data?.request_sha256 === p.structuredContent.request_sha256), 'no sending record');
    const raw = fs.readFileSync(path.join(env.XDG_DATA_HOME, 'fabric-broker', 'audit.jsonl'), 'utf8');
    for (const s of [FIRST.secret, OTHER.secret]) assert.ok(!raw.includes(s), 'no secret in the audit log');

    // The sandbox saw the dry run and no create.
    const requests = await sandbox.admin('GET', '/sandbox/v1/requests');
    const posts = requests.data.filter((r) => r.method === 'POST' && r.path === '/fabric/v4/connections');
    assert.ok(posts.some((r) => r.dryRun), `the dry run reached the sandbox: ${JSON.stringify(posts).slice(0, 1500)}`);
    assert.deepEqual(posts.filter((r) => !r.dryRun), [], 'no create reached the sandbox');
    assert.equal(requests.realCreateCount, 0);

    // The new credentials are the ones in use now (and the estate holds no such connection).
    const found = await client.callTool({ name: 'fabric_search_connections', arguments: { name: spec.name } });
    assert.equal(found.structuredContent.data.length, 0, 'nothing was created');
    const tokens = await tokenRequests();
    assert.ok(JSON.stringify(tokens.slice(dryRunTokens.length)).includes(OTHER.id), `a token for the new client id: ${JSON.stringify(tokens).slice(0, 1500)}`);
    const prefs2 = fs.readFileSync(prefsFile(), 'utf8');
    for (const s of [FIRST.id, FIRST.secret, OTHER.id, OTHER.secret]) assert.ok(!prefs2.includes(s), `no credential in QSettings: ${prefs2}`);
  } finally { await client.close(); }
});

// Issue #40: `fabric-broker --stdio` with a display and no app running becomes the desktop
// instance. A 2026-07-28 client's first line is server/discover, answered before anything starts;
// it said SANDBOX (from the environment alone) while the app then used the credentials saved in
// the keychain. Now the keychain is read first: the answer names the endpoint the session uses.
test('with credentials in the keychain, --stdio becoming the desktop app answers server/discover as the account it then uses, not SANDBOX', { skip, timeout: 120000 }, async () => {
  if (driver) { driver.stdin.end(); driver.kill('SIGTERM'); driver = null; }
  await stopApp();
  appLog = '';
  app = spawn(BIN, ['--stdio'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  app.stderr.on('data', (d) => { appLog += d.toString(); });
  const lines = readline.createInterface({ input: app.stdout })[Symbol.asyncIterator]();
  const ask = async (msg) => {
    app.stdin.write(`${JSON.stringify(msg)}\n`);
    for (;;) {
      const { value, done } = await lines.next();
      if (done) throw new Error(`the app ended without answering ${msg.method}; app log:\n${appLog.slice(-3000)}`);
      const m = JSON.parse(value);
      if (m.id === msg.id) return m;
    }
  };
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'credentials-discover-e2e', version: '1' },
  };
  const discover = await ask({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
  const info = discover.result?._meta?.['io.modelcontextprotocol/serverInfo'];
  assert.ok(info, JSON.stringify(discover).slice(0, 1500));
  assert.doesNotMatch(info.title ?? '', /SANDBOX/, `discover's title: ${info.title}`);
  assert.doesNotMatch(discover.result.instructions, /SANDBOX/, discover.result.instructions.slice(0, 600));

  // The session that follows uses that account: a read goes to the keychain's endpoint with the
  // keychain's client id (the separate sandbox process, not the embedded one).
  const before = (await tokenRequests()).length;
  const read = await ask({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fabric_list_metros', arguments: {}, _meta: meta } });
  assert.ok(read.result && !read.result.isError, JSON.stringify(read).slice(0, 1500));
  const tokens = (await tokenRequests()).slice(before);
  assert.ok(tokens.some((r) => JSON.stringify(r.body).includes(OTHER.id)), `a token for the keychain's client id: ${JSON.stringify(tokens).slice(0, 1500)}`);
  await waitForWindow('^Fabric Broker$');
  app.stdin.end();
  await stopApp();
});
