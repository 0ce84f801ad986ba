// Credentials saved in Settings while the desktop app runs on its embedded sandbox (issue #40), in
// the real app under Xvfb with a real Secret Service (a GNOME Keyring daemon on a private session
// bus, its own scratch HOME). A separate sandbox process stands in for Equinix.
//   1. "Later": the app starts with no credentials (the embedded sandbox), an MCP client proposes a
//      connection, the person saves the endpoint, a client id and secret in Settings (xdotool key
//      events); the app offers to switch now (non-modal box, read through AT-SPI: it names the one
//      pending proposal it would drop); Return takes the default, Later: the window still says
//      SANDBOX, the client stays connected and its proposal pending.
//   2. "Switch to Equinix now": the same again, and the person presses the switch button. The old
//      client's connection is closed; a new client's initialize no longer says SANDBOX; its read
//      reaches the separate sandbox process with the saved client id; the old proposal's token is
//      unknown there and nothing was created; the audit log holds the eviction with the switch's
//      reason, and no secret.
// Skips when Xvfb, xdotool, dbus-run-session, python3-pyatspi or gnome-keyring is missing.
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

const SAVED = { id: 'e2e-switch-client', secret: 'e2e-switch-secret-value' };
const OFFER = '^Switch to Equinix now\\? - Fabric Broker$';

let xvfb; let bus; let keyring; let app; let env; let driver; let answers; let sandbox; let appLog = '';

async function atspi(req) {
  driver.stdin.write(`${JSON.stringify(req)}\n`);
  const { value, done } = await answers.next();
  if (done) throw new Error(`the AT-SPI driver exited; app log:\n${appLog.slice(-2000)}`);
  const out = JSON.parse(value);
  if (!out.ok) throw new Error(`AT-SPI ${req.cmd} ${req.window}: ${out.error}; app log:\n${appLog.slice(-2000)}`);
  return out;
}

const waitForWindow = (name, ms = 20000) => xvfb.waitForWindow(name, ms, () => `app log:\n${appLog.slice(-3000)}`, app);

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

function startDriver() {
  driver = spawn(PYTHON, [path.join(here, 'atspi_driver.py')], {
    env: { PATH: env.PATH, HOME: env.HOME, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR, DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  answers = readline.createInterface({ input: driver.stdout })[Symbol.asyncIterator]();
}

function stopDriver() {
  if (driver) { driver.stdin.end(); driver.kill('SIGTERM'); driver = null; }
}

// A client as users' tools start one: the SDK's default environment plus the runtime folder.
async function connectClient(name) {
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env: { ...getDefaultEnvironment(), XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR }, stderr: 'ignore' });
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  const closed = new Promise((resolve) => { client.onclose = resolve; });
  await client.connect(transport);
  return { client, closed };
}

// A person: File > Settings..., the endpoint, Tab, the client id, Tab, the secret; Return saves.
async function saveInSettings(mainWindow) {
  const main = xvfb.windows(mainWindow)[0];
  xvfb.press(main, ['alt+f', 's'], { pauseMs: 200 });
  const settings = await waitForWindow('^Settings - Fabric Broker');
  await sleep(300); // the dialog takes the focus once it is mapped
  xvfb.press(settings, ['ctrl+a']);
  xvfb.xdo('type', '--delay', '15', sandbox.url);
  xvfb.press(settings, ['Tab', 'ctrl+a']);
  xvfb.xdo('type', '--delay', '15', SAVED.id);
  xvfb.press(settings, ['Tab', 'ctrl+a']);
  xvfb.xdo('type', '--delay', '15', SAVED.secret);
  xvfb.press(settings, ['Return']);
  assert.ok(await xvfb.windowGone(settings, 15000), `the settings dialog did not close; app log:\n${appLog.slice(-3000)}`);
}

const prefsFile = () => path.join(env.XDG_CONFIG_HOME, 'fabric-broker', 'fabric-broker.conf');
const auditFile = () => path.join(env.XDG_DATA_HOME, 'fabric-broker', 'audit.jsonl');
const auditRecords = () => fs.readFileSync(auditFile(), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const sandboxRequests = async () => (await sandbox.admin('GET', '/sandbox/v1/requests'));

// The embedded sandbox with a pending proposal of an SDK client, and the offer on screen.
async function sandboxWithProposalAndOffer(clientName) {
  // Each run starts on the sandbox: nothing saved says the keychain holds credentials.
  fs.rmSync(prefsFile(), { force: true });
  startApp();
  await waitForWindow('^Fabric Broker - SANDBOX$');
  startDriver();
  const { client, closed } = await connectClient(clientName);
  assert.match(client.getInstructions() ?? '', /^SANDBOX/);
  const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec: connectionSpec() } });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
  await saveInSettings('^Fabric Broker - SANDBOX$');
  const offer = await waitForWindow(OFFER);
  const said = await atspi({ cmd: 'text', window: OFFER, contains: 'the sandbox.s 1 pending proposal\\(s\\) are dropped' });
  const text = said.texts.join('\n');
  assert.match(text, /open approval dialog\(s\) are denied/, text);
  assert.match(text, /MCP sessions, relayed --stdio clients, HTTP sessions\) are disconnected and must reconnect/, text);
  assert.ok(text.includes(sandbox.url.replace(/\/$/, '')) && text.includes(SAVED.id), text);
  assert.ok(!text.includes(SAVED.secret), 'no secret in the offer');
  return { client, closed, proposal: p.structuredContent, offer };
}

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
  stopDriver();
  await stopApp();
  if (keyring) await keyring.stop();
  if (bus) await stopSessionBus(bus);
  if (xvfb) await xvfb.stop();
  if (sandbox) await sandbox.stop();
});

test('credentials saved on the sandbox, "Later": nothing changes until the next start', { skip, timeout: 180000 }, async () => {
  const { client, closed, proposal, offer } = await sandboxWithProposalAndOffer('sandbox-later-e2e');
  try {
    let isClosed = false;
    closed.then(() => { isClosed = true; });
    xvfb.press(offer, ['Return']); // the default button: Later (at the next start)
    assert.ok(await xvfb.windowGone(offer, 10000), `the offer did not close; app log:\n${appLog.slice(-3000)}`);
    await waitForWindow('^Fabric Broker - SANDBOX$');
    const listed = await client.callTool({ name: 'fabric_list_proposals', arguments: {} });
    assert.ok(JSON.stringify(listed.structuredContent).includes(proposal.request_sha256), JSON.stringify(listed).slice(0, 1500));
    const read = await client.callTool({ name: 'fabric_list_metros', arguments: {} });
    assert.ok(!read.isError, JSON.stringify(read).slice(0, 1500));
    assert.equal(isClosed, false, 'the client stays connected');
    assert.ok(!auditRecords().some((r) => r.type === 'evicted'), 'no eviction');
    const requests = await sandboxRequests();
    assert.deepEqual(requests.data.filter((r) => r.path === '/oauth2/v1/token'), [], 'nothing reached the account yet');
  } finally {
    await client.close();
    stopDriver();
    await stopApp();
  }
});

test('credentials saved on the sandbox, "Switch to Equinix now": sessions end, proposals are evicted and audited, the saved account serves', { skip, timeout: 180000 }, async () => {
  const { client, closed, proposal } = await sandboxWithProposalAndOffer('sandbox-switch-e2e');
  const before = auditRecords().length;
  await atspi({ cmd: 'press', window: OFFER, role: 'push button', name: '^Switch to Equinix now$' });

  // The old client's connection is closed (its relay saw the app's socket close).
  const ended = await Promise.race([closed.then(() => true), sleep(20000).then(() => false)]);
  assert.ok(ended, `the old client's connection was not closed; app log:\n${appLog.slice(-3000)}`);
  await client.close();

  // The window of the new host says the endpoint in use, not SANDBOX.
  await waitForWindow('^Fabric Broker$');
  assert.equal(xvfb.windows('SANDBOX').length, 0, 'no window says SANDBOX');
  assert.equal(app.exitCode, null, 'the same process serves');

  const { client: fresh } = await connectClient('sandbox-switch-new-e2e');
  try {
    assert.doesNotMatch(fresh.getInstructions() ?? '', /SANDBOX/);
    assert.doesNotMatch(fresh.getServerVersion()?.title ?? '', /SANDBOX/);
    // A read reaches the separate sandbox process as the saved client id.
    const read = await fresh.callTool({ name: 'fabric_list_metros', arguments: {} });
    assert.ok(!read.isError, JSON.stringify(read).slice(0, 1500));
    const tokens = (await sandboxRequests()).data.filter((r) => r.method === 'POST' && r.path === '/oauth2/v1/token');
    assert.ok(tokens.length > 0 && tokens.every((r) => JSON.stringify(r.body).includes(SAVED.id)),
      `a token for the saved client id: ${JSON.stringify(tokens).slice(0, 1500)}`);

    // The sandbox's proposal does not ride through: its token is unknown, nothing is created.
    const confirm = await fresh.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: proposal.confirm_token } });
    assert.equal(confirm.structuredContent.executed, false, JSON.stringify(confirm).slice(0, 1500));
    assert.equal(confirm.structuredContent.confirm_checks.proposal_exists, false);
    const requests = await sandboxRequests();
    assert.deepEqual(requests.data.filter((r) => r.path === '/fabric/v4/connections' && r.method === 'POST'), [], 'no create nor dry run reached the account');
    assert.equal(requests.realCreateCount, 0);
  } finally { await fresh.close(); }

  // The audit trail: the eviction with the switch's reason, and no create or secret.
  const records = auditRecords().slice(before);
  const evicted = records.filter((r) => r.type === 'evicted');
  assert.equal(evicted.length, 1, JSON.stringify(records).slice(0, 3000));
  assert.equal(evicted[0].data.request_sha256, proposal.request_sha256);
  assert.match(evicted[0].data.reason, /switched from its embedded sandbox to /);
  const switched = records.filter((r) => r.type === 'endpoint_switched');
  assert.equal(switched.length, 1, JSON.stringify(records).slice(0, 3000));
  assert.equal(switched[0].data.outcome, 'switching');
  assert.equal(switched[0].data.dropped, 1);
  assert.match(switched[0].data.from, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(switched[0].data.to, sandbox.url.replace(/\/$/, ''));
  assert.notEqual(switched[0].data.from, switched[0].data.to, 'from: the embedded sandbox');
  assert.ok(!auditRecords().some((r) => r.type === 'sending'), 'nothing was sent anywhere');
  assert.ok(!fs.readFileSync(auditFile(), 'utf8').includes(SAVED.secret), 'no secret in the audit log');
  stopDriver();
  await stopApp();
});

// Attack (review of #40's switch, finding 1): the agent has the person's files. While the offer
// is on screen it points the saved endpoint at a server of its own; the person then presses
// "Switch to Equinix now" for what the box named. The switch must not happen, and the account's
// secret must reach neither address.
test('an endpoint rewritten while the offer is up stops the switch; no secret leaves', { skip, timeout: 180000 }, async () => {
  const rogue = await startSandboxProcess();
  const tokenRequests = async (s) => (await s.admin('GET', '/sandbox/v1/requests')).data.filter((r) => r.path === '/oauth2/v1/token');
  const earlier = (await tokenRequests(sandbox)).length; // the tests before this one switched
  const { client, offer } = await sandboxWithProposalAndOffer('sandbox-switch-rewrite-e2e');
  try {
    const conf = fs.readFileSync(prefsFile(), 'utf8');
    assert.match(conf, /endpoint=/, conf);
    fs.writeFileSync(prefsFile(), conf.replace(/^endpoint=.*$/m, `endpoint=${rogue.url}`));
    await atspi({ cmd: 'press', window: OFFER, role: 'push button', name: '^Switch to Equinix now$' });
    assert.ok(await xvfb.windowGone(offer, 10000), 'the offer closed');
    // Give a switch time to happen, if it were going to; the app stays on the sandbox.
    await sleep(3000);
    await waitForWindow('^Fabric Broker - SANDBOX$');
    assert.equal(app.exitCode, null, 'the app still runs');
    assert.match(appLog, /not switching from the sandbox: the saved endpoint or credentials changed/);
    assert.deepEqual(await tokenRequests(rogue), [], 'no token request reached the rewritten endpoint');
    assert.deepEqual((await tokenRequests(sandbox)).slice(earlier), [], 'nor the endpoint the offer named');
    const read = await client.callTool({ name: 'fabric_list_metros', arguments: {} });
    assert.ok(!read.isError, 'the sandbox session goes on');
  } finally {
    await client.close();
    stopDriver();
    await stopApp();
    await rogue.stop();
  }
});

// What the keychain and the settings hold may not serve at all: here a saved MCP-over-HTTP
// address that is no address, written while the offer is up. The switch then comes back to the
// sandbox in the same process (empty: the earlier proposals were dropped, as the offer said) and
// says why; the app does not end.
test('a saved setting that cannot serve brings the app back to the sandbox; it does not end', { skip, timeout: 180000 }, async () => {
  const { client, closed, proposal, offer } = await sandboxWithProposalAndOffer('sandbox-switch-bad-address-e2e');
  try {
    const conf = fs.readFileSync(prefsFile(), 'utf8');
    fs.writeFileSync(prefsFile(), conf.replace(/^\[mcp\]$/m, '') + '\n[mcp]\nhttpAddress=not-an-address:99999\n');
    await atspi({ cmd: 'press', window: OFFER, role: 'push button', name: '^Switch to Equinix now$' });
    assert.ok(await xvfb.windowGone(offer, 10000), 'the offer closed');
    await closed; // the sandbox's sessions end, as the offer said
    const deadline = Date.now() + 30000;
    while (!/back on the sandbox/.test(appLog) && Date.now() < deadline && app.exitCode === null) await sleep(100);
    assert.match(appLog, /could not start with the saved account, back on the sandbox: .*not-an-address/, appLog.slice(-3000));
    await waitForWindow('^Fabric Broker - SANDBOX$');
    assert.equal(app.exitCode, null, 'the app still runs');
    const fresh = await connectClient('sandbox-switch-bad-address-after');
    try {
      assert.match(fresh.client.getInstructions() ?? '', /^SANDBOX/);
      const confirm = await fresh.client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: proposal.confirm_token } });
      assert.equal(confirm.structuredContent.executed, false, JSON.stringify(confirm).slice(0, 1500));
      assert.equal(confirm.structuredContent.confirm_checks.proposal_exists, false);
    } finally { await fresh.client.close(); }
    const evicted = auditRecords().filter((r) => r.type === 'evicted' && r.data.request_sha256 === proposal.request_sha256);
    assert.equal(evicted.length, 1, 'the dropped proposal is audited once');
    const switched = auditRecords().filter((r) => r.type === 'endpoint_switched').map((r) => r.data);
    assert.deepEqual(switched.slice(-2).map((d) => d.outcome), ['switching', 'back_on_sandbox'], JSON.stringify(switched));
    assert.match(switched.at(-1).reason, /not-an-address/);
  } finally {
    await client.close().catch(() => {});
    stopDriver();
    await stopApp();
  }
});

// A keychain that does not answer (a hung daemon; here gnome-keyring-daemon stopped with
// SIGSTOP after the offer is up) must not hold the app in the switch: it gives the switch up
// after 10 s and stays on the sandbox, serving; and a quit while it waits quits at once.
test('a keychain that does not answer gives the switch up; the sandbox keeps serving', { skip, timeout: 180000 }, async () => {
  const { client, closed, offer } = await sandboxWithProposalAndOffer('sandbox-switch-hung-keychain-e2e');
  let isClosed = false;
  closed.then(() => { isClosed = true; });
  try {
    const switches = () => auditRecords().filter((r) => r.type === 'endpoint_switched').length;
    const before = switches();
    keyring.proc.kill('SIGSTOP');
    await atspi({ cmd: 'press', window: OFFER, role: 'push button', name: '^Switch to Equinix now$' });
    assert.ok(await xvfb.windowGone(offer, 10000), 'the offer closed');
    const deadline = Date.now() + 30000;
    while (!/keychain did not answer/.test(appLog) && Date.now() < deadline && app.exitCode === null) await sleep(100);
    assert.match(appLog, /not switching from the sandbox: the keychain did not answer within 10 s/, appLog.slice(-3000));
    await waitForWindow('^Fabric Broker - SANDBOX$');
    const read = await client.callTool({ name: 'fabric_list_metros', arguments: {} });
    assert.ok(!read.isError, JSON.stringify(read).slice(0, 1500));
    assert.equal(isClosed, false, 'the sandbox session goes on');
    assert.equal(switches(), before, 'no switch was recorded');
  } finally {
    keyring.proc.kill('SIGCONT');
    await client.close().catch(() => {});
    stopDriver();
    await stopApp();
  }
});

test('quit while the switch waits for the keychain: the app quits', { skip, timeout: 180000 }, async () => {
  const { client, offer } = await sandboxWithProposalAndOffer('sandbox-switch-quit-e2e');
  try {
    keyring.proc.kill('SIGSTOP');
    await atspi({ cmd: 'press', window: OFFER, role: 'push button', name: '^Switch to Equinix now$' });
    assert.ok(await xvfb.windowGone(offer, 10000), 'the offer closed');
    const exited = once(app, 'exit');
    app.kill('SIGTERM');
    const t = setTimeout(() => app.kill('SIGKILL'), 8000);
    const [code, signal] = await exited;
    clearTimeout(t);
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, `the app did not quit; log:\n${appLog.slice(-3000)}`);
  } finally {
    keyring.proc.kill('SIGCONT');
    await client.close().catch(() => {});
    stopDriver();
    await stopApp();
  }
});
