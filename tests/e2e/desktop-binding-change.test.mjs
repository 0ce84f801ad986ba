// The Fabric binding is checked again before anything is sent (#22, requirement 5), in the real
// desktop app under Xvfb: the app talks to a separate Fabric sandbox process over loopback (not
// its embedded one) with credentials; an MCP client spawned through the official SDK proposes a
// connection and confirms it, so the approval dialog opens; then a person opens Settings with
// real key events (xdotool) and saves another Fabric endpoint while that dialog is open. The
// dialog is denied with the reason naming what changed (read as a screen reader reads it,
// through AT-SPI), the client's result says the same, the audit log records it, and the sandbox
// received no create. Skips when Xvfb, xdotool, dbus-run-session or python3-pyatspi is missing.
//
// Other credentials saved the same way are desktop-credentials-change.test.mjs: credentials go to
// the keychain, so that test runs a Secret Service (GNOME Keyring) on its bus. This test's bus
// has none (startSessionBus starts only AT-SPI) and its credentials come from the environment:
// the endpoint alone changes. Both go through the same path (FabricClient::setConfig ->
// FabricBinding::changesSince -> denyAllOpen).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, connectionSpec, sleep, startSandboxProcess } from './lib.mjs';
import { startXvfb } from './xvfb.mjs';
import { PYTHON, atspiSkip, startSessionBus } from './atspi.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const skip = atspiSkip();

let xvfb; let bus; let app; let env; let driver; let answers; let sandbox; let appLog = '';

async function atspi(req) {
  driver.stdin.write(`${JSON.stringify(req)}\n`);
  const { value, done } = await answers.next();
  if (done) throw new Error(`the AT-SPI driver exited; app log:\n${appLog.slice(-2000)}`);
  const out = JSON.parse(value);
  if (!out.ok) throw new Error(`AT-SPI ${req.cmd} ${req.window}: ${out.error}; app log:\n${appLog.slice(-2000)}`);
  return out;
}

const waitForWindow = (name, ms = 20000) => xvfb.waitForWindow(name, ms, () => `app log:\n${appLog.slice(-3000)}`);

process.on('exit', () => { if (app && app.exitCode === null) app.kill('SIGKILL'); });

before(async () => {
  if (skip) return;
  sandbox = await startSandboxProcess();
  xvfb = await startXvfb(620, 680);
  const base = baseEnv();
  bus = await startSessionBus(base.XDG_RUNTIME_DIR);
  env = { ...base, ...sandbox.env, DISPLAY: xvfb.display, DBUS_SESSION_BUS_ADDRESS: bus.address, QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1' };
  delete env.QT_QPA_PLATFORM; // a real X display, not offscreen
  app = spawn(BIN, ['--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', (d) => { appLog += d.toString(); });
  await waitForWindow('^Fabric Broker$');
  driver = spawn(PYTHON, [path.join(here, 'atspi_driver.py')], {
    env: { PATH: env.PATH, HOME: env.HOME, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR, DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  answers = readline.createInterface({ input: driver.stdout })[Symbol.asyncIterator]();
});

after(async () => {
  if (driver) { driver.stdin.end(); driver.kill('SIGTERM'); }
  if (app && app.exitCode === null) {
    app.kill('SIGTERM');
    const t = setTimeout(() => app.kill('SIGKILL'), 5000);
    await once(app, 'exit');
    clearTimeout(t);
  }
  if (bus) { bus.proc.stdin.end(); if (bus.proc.exitCode === null) await once(bus.proc, 'exit'); }
  if (xvfb) await xvfb.stop();
  if (sandbox) await sandbox.stop();
});

test('another endpoint saved in Settings while the approval dialog is open: denied with the reason, audited, nothing created', { skip, timeout: 120000 }, async () => {
  // The client's own short environment (its runtime dir only, so that it finds this app).
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env: { PATH: env.PATH, HOME: env.HOME, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR }, stderr: 'ignore' });
  const client = new Client({ name: 'binding-change-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    const spec = connectionSpec();
    const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
    assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
    const pending = client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } }, undefined, { timeout: 90000 });
    const dialog = await waitForWindow('^Approve: Create connection');

    // A person: File > Settings..., the endpoint field has the focus; select it, type the same
    // sandbox under another name (another endpoint to the binding), Return saves.
    const other = sandbox.url.replace('127.0.0.1', 'localhost');
    const main = xvfb.windows('^Fabric Broker$')[0];
    xvfb.press(main, ['alt+f', 's'], { pauseMs: 200 });
    const settings = await waitForWindow('^Settings - Fabric Broker');
    await sleep(300); // the dialog takes the focus once it is mapped
    xvfb.press(settings, ['ctrl+a']);
    xvfb.xdo('type', '--delay', '15', other);
    xvfb.press(settings, ['Return']);
    assert.ok(await xvfb.windowGone(settings, 10000), `the settings dialog did not close; app log:\n${appLog.slice(-3000)}`);

    const result = (await pending).structuredContent;
    const why = new RegExp(`the Fabric endpoint changed from ${sandbox.url.replace(/[.:/]/g, '\\$&')} to ${other.replace(/[.:/]/g, '\\$&')}`);
    assert.equal(result.executed, false, JSON.stringify(result).slice(0, 2000));
    assert.equal(result.confirm_checks.request_matches_binding, false);
    assert.equal(result.execution.reason, 'binding_mismatch');
    assert.equal(result.human_confirmation.status, 'declined');
    assert.match(result.human_confirmation.detail, why);

    // The dialog says why, where the person looks (and a screen reader reads).
    await waitForWindow('^Denied - Approve: Create connection');
    const said = await atspi({ cmd: 'text', window: '^Denied - Approve', contains: why.source });
    assert.ok(said.texts.some((t) => /Nothing was created/.test(t)), said.texts.join(' | '));
    xvfb.press(dialog, ['Escape']);

    // The audit log records the denial with the reason.
    const log = fs.readFileSync(path.join(env.XDG_DATA_HOME, 'fabric-broker', 'audit.jsonl'), 'utf8')
      .split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const decision = log.find((r) => r.type === 'decision' && r.data?.request_sha256 === p.structuredContent.request_sha256);
    assert.ok(decision, 'a decision record');
    assert.equal(decision.data.status, 'declined');
    assert.match(decision.data.detail, why);
    assert.ok(!log.some((r) => r.type === 'sending' && r.data?.request_sha256 === p.structuredContent.request_sha256), 'no sending record');

    // The sandbox saw the dry run and no create.
    const log2 = await sandbox.admin('GET', '/sandbox/v1/requests');
    const posts = log2.data.filter((r) => r.method === 'POST' && r.path === '/fabric/v4/connections');
    assert.ok(posts.some((r) => r.dryRun), `the dry run reached the sandbox: ${JSON.stringify(posts).slice(0, 1500)}`);
    assert.deepEqual(posts.filter((r) => !r.dryRun), [], 'no create reached the sandbox');
    assert.equal(log2.realCreateCount, 0);
    const found = await client.callTool({ name: 'fabric_search_connections', arguments: { name: spec.name } });
    assert.equal(found.structuredContent.data.length, 0, 'nothing was created');
  } finally { await client.close(); }
});
