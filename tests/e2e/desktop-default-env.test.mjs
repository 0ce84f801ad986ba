// The product's main promise, as a new user meets it: the desktop app runs in a normal session
// (XDG_RUNTIME_DIR=/run/user/<uid>, a display), and an MCP client spawns `fabric-broker --stdio`
// through the official SDK's StdioClientTransport with NO env in its server config, so the child
// gets only getDefaultEnvironment() (HOME, LOGNAME, PATH, SHELL, TERM, USER): no XDG_RUNTIME_DIR,
// no DISPLAY. The relay must still find the app from the uid alone, and the confirm is decided
// in the desktop dialog (channel "desktop").
//
// /run/user/<uid> is one fixed path per user, so runs of this test (parallel suites of the same
// user) are serialized with a lock; the directory is created 0700 when absent and removed again
// if this test created it. Skips when Xvfb/xdotool are missing or /run/user cannot be used.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, connectionSpec, lockRunUser, sleep } from './lib.mjs';
import { startXvfb, xvfbSkip } from './xvfb.mjs';

const uid = process.getuid();
const RUN_USER = `/run/user/${uid}`;

function whySkip() {
  if (xvfbSkip) return xvfbSkip;
  if (fs.existsSync(RUN_USER)) {
    const st = fs.lstatSync(RUN_USER);
    if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o777) !== 0o700) return `${RUN_USER} exists but is not a private directory of uid ${uid}`;
    return false;
  }
  try { fs.accessSync('/run/user', fs.constants.W_OK); } catch { return `cannot create ${RUN_USER} (no write access to /run/user)`; }
  return false;
}
const skip = whySkip();

let xvfb; let app; let appStderr = ''; let scratch; let createdRunUser = false; let unlock;

const waitForWindow = (name, ms = 20000) => xvfb.waitForWindow(name, ms, () => `app stderr:\n${appStderr}`);
const press = (id, ...keys) => xvfb.press(id, keys);

function killApp() { if (app && app.exitCode === null && app.signalCode === null) app.kill('SIGKILL'); }
process.on('exit', () => { killApp(); });

before(async () => {
  if (skip) return;
  unlock = await lockRunUser();
  if (!fs.existsSync(RUN_USER)) {
    fs.mkdirSync(RUN_USER, { mode: 0o700 });
    fs.chmodSync(RUN_USER, 0o700);
    createdRunUser = true;
  }
  xvfb = await startXvfb(140, 200);
  // The app as a desktop session starts it: XDG_RUNTIME_DIR=/run/user/<uid> and a display.
  const env = baseEnv({ DISPLAY: xvfb.display, XDG_RUNTIME_DIR: RUN_USER });
  scratch = path.dirname(env.XDG_DATA_HOME);
  delete env.QT_QPA_PLATFORM;
  app = spawn(BIN, ['--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', (d) => { appStderr += d.toString(); });
  const sock = path.join(RUN_USER, 'fabric-broker.sock');
  const deadline = Date.now() + 30000;
  while (!fs.existsSync(sock)) {
    if (Date.now() > deadline || app.exitCode !== null) throw new Error(`the app did not start:\n${appStderr}`);
    await sleep(100);
  }
  await waitForWindow('Fabric Broker - SANDBOX');
  // What the MCP client's child will see: HOME, LOGNAME, PATH, SHELL, TERM, USER at most. HOME
  // points at a scratch directory so that a failing relay cannot write into the real one.
  process.env.HOME = path.join(scratch, 'home');
  fs.mkdirSync(process.env.HOME, { recursive: true });
});

after(async () => {
  if (app && app.exitCode === null && app.signalCode === null) {
    app.kill('SIGTERM');
    const timer = setTimeout(killApp, 5000);
    await once(app, 'exit');
    clearTimeout(timer);
  }
  if (xvfb) await xvfb.stop();
  if (createdRunUser) fs.rmSync(RUN_USER, { recursive: true, force: true });
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  if (unlock) unlock();
});

test('default env: a client spawning `--stdio` with no env reaches the desktop app; the person approves in its dialog', { skip }, async () => {
  const childEnv = getDefaultEnvironment();
  for (const k of ['XDG_RUNTIME_DIR', 'DISPLAY', 'WAYLAND_DISPLAY', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME']) {
    assert.equal(childEnv[k], undefined, `the SDK's default environment carries no ${k}`);
  }
  // No `env`: exactly what a client config without an "env" block does.
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], stderr: 'pipe' });
  let relayStderr = '';
  transport.stderr?.on('data', (d) => { relayStderr += d.toString(); });
  // No elicitation capability: only the desktop dialog can ask the person.
  const client = new Client({ name: 'default-env-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    const relayed = new RegExp(`relaying stdio to the running Fabric Broker at "?${RUN_USER}/fabric-broker.sock`);
    for (let i = 0; i < 50 && !relayed.test(relayStderr); i++) await sleep(100);
    assert.match(relayStderr, relayed);
    assert.doesNotMatch(client.getInstructions() ?? '', /NO DESKTOP APP/);
    const spec = connectionSpec();
    const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
    assert.equal(p.isError, undefined, JSON.stringify(p));
    const pending = client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } }, undefined, { timeout: 60000 });
    const dialog = await waitForWindow('Approve: Create connection');
    await sleep(2000); // the approve button unlocks after a short delay
    press(dialog, 'Tab', 'space'); // focus starts on Deny; Tab reaches "Create connection"
    const r = (await pending).structuredContent;
    assert.deepEqual({ status: r.human_confirmation.status, channel: r.human_confirmation.channel }, { status: 'accepted', channel: 'desktop' });
    assert.equal(r.executed, true);
    assert.equal(r.execution.outcome, 'created');
    const found = await client.callTool({ name: 'fabric_search_connections', arguments: { name: spec.name } });
    assert.equal(found.structuredContent.data.length, 1);
  } finally {
    await client.close();
  }
});

test('default env: EQUINIX_MCP_APPROVAL=desktop in a client\'s env is honoured by the desktop app, even for a client that could elicit', { skip }, async () => {
  // Still no XDG_RUNTIME_DIR or DISPLAY: only what a client config's "env" block would add.
  const env = { ...getDefaultEnvironment(), EQUINIX_MCP_APPROVAL: 'desktop' };
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env, stderr: 'pipe' });
  const client = new Client({ name: 'default-env-desktop', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  let elicited = 0;
  client.setRequestHandler(ElicitRequestSchema, async () => { elicited++; return { action: 'accept', content: { confirm: true } }; });
  await client.connect(transport);
  try {
    const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec: connectionSpec() } });
    assert.equal(p.isError, undefined, JSON.stringify(p));
    const pending = client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } }, undefined, { timeout: 60000 });
    const dialog = await waitForWindow('Approve: Create connection');
    await sleep(300);
    press(dialog, 'Escape');
    const r = (await pending).structuredContent;
    assert.deepEqual({ status: r.human_confirmation.status, channel: r.human_confirmation.channel }, { status: 'cancelled', channel: 'desktop' });
    assert.equal(r.executed, false);
    assert.equal(elicited, 0, 'the client was never asked');
  } finally {
    await client.close();
  }
});
