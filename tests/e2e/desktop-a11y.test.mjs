// The desktop app as a screen reader sees it: the real app under Xvfb inside its own D-Bus
// session (dbus-run-session) with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1, walked through AT-SPI by
// atspi_driver.py (python3-pyatspi), as Orca would. Every interactive control of the main
// window, Settings, Connect a client, the audit view and the approval dialog must have an
// accessible name and description; the windows are opened and one proposal (made by the
// official SDK client) is approved through AT-SPI actions only. Skips when Xvfb, dbus-run-session
// or python3-pyatspi is missing (CI installs them: scripts/dev.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, connectionSpec, sleep } from './lib.mjs';
import { startXvfb } from './xvfb.mjs';
import { PYTHON, atspiSkip, startSessionBus } from './atspi.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const skip = atspiSkip();

let xvfb; let bus; let app; let env; let driver; let answers; let appLog = '';

// One command to the AT-SPI driver, one JSON answer back.
async function atspi(req) {
  driver.stdin.write(`${JSON.stringify(req)}\n`);
  const { value, done } = await answers.next();
  if (done) throw new Error(`the AT-SPI driver exited; app log:\n${appLog.slice(-2000)}`);
  const out = JSON.parse(value);
  if (!out.ok) throw new Error(`AT-SPI ${req.cmd} ${req.window}: ${out.error}`);
  return out;
}

const show = (list) => list.map((c) => `${c.role} "${c.name}"${c.enabled ? '' : ' (disabled)'}`).join(', ');

async function assertAccessible(window) {
  const r = await atspi({ cmd: 'walk', window });
  assert.ok(r.controls.length > 0, `${window}: no interactive controls found at all`);
  assert.deepEqual(r.unnamed, [], `${window}: controls without an accessible name: ${show(r.unnamed)}`);
  assert.deepEqual(r.undescribed, [], `${window}: controls without an accessible description: ${show(r.undescribed)}`);
  return r;
}

before(async () => {
  if (skip) return;
  xvfb = await startXvfb(520, 580);
  const base = baseEnv();
  bus = await startSessionBus(base.XDG_RUNTIME_DIR);
  env = { ...base, DISPLAY: xvfb.display, DBUS_SESSION_BUS_ADDRESS: bus.address, QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1' };
  delete env.QT_QPA_PLATFORM; // a real X display, not offscreen
  app = spawn(BIN, ['--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', (d) => { appLog += d.toString(); });
  driver = spawn(PYTHON, [path.join(here, 'atspi_driver.py')], {
    env: { PATH: env.PATH, HOME: env.HOME, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR, DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  answers = readline.createInterface({ input: driver.stdout })[Symbol.asyncIterator]();
});

after(async () => {
  if (driver) { driver.stdin.end(); driver.kill('SIGTERM'); }
  if (app) { app.kill('SIGTERM'); await sleep(300); app.kill('SIGKILL'); }
  if (bus) { bus.proc.stdin.end(); if (bus.proc.exitCode === null) await once(bus.proc, 'exit'); }
  if (xvfb) await xvfb.stop();
});

test('every control of the main window has an accessible name and description', { skip }, async () => {
  const r = await assertAccessible('^Fabric Broker - SANDBOX');
  const names = r.controls.map((c) => c.name);
  for (const n of ['Settings...', 'Connect a client...', 'View audit log...']) assert.ok(names.includes(n), `menu item ${n} in ${names}`);
});

for (const [menuItem, window] of [['Settings...', '^Settings'], ['Connect a client...', '^Connect a client'], ['View audit log...', '^Audit log']]) {
  test(`${window.slice(1)}: opened through AT-SPI, every control named and described`, { skip }, async () => {
    await atspi({ cmd: 'press', window: '^Fabric Broker - SANDBOX', role: 'menu item', name: `^${menuItem.replace(/\./g, '\\.')}$` });
    await assertAccessible(window);
    await atspi({ cmd: 'press', window, role: 'push button', name: '^(Cancel|Close)$' });
    await atspi({ cmd: 'gone', window });
  });
}

test('approval dialog: named and described, approved by AT-SPI actions alone', { skip }, async () => {
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env, stderr: 'ignore' });
  // No elicitation capability: the desktop dialog is what asks the person.
  const client = new Client({ name: 'desktop-a11y-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  try {
    const spec = connectionSpec();
    const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
    assert.equal(p.isError, undefined, JSON.stringify(p));
    const pending = client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } }, undefined, { timeout: 60000 });
    const window = '^Approve: Create connection';
    const r = await assertAccessible(window);
    const deny = r.controls.find((c) => c.role === 'push button' && c.name === 'Deny');
    assert.ok(deny, `a Deny button in ${show(r.controls)}`);
    // The approve button unlocks after a short delay: press waits until it is enabled.
    await atspi({ cmd: 'press', window, role: 'push button', name: '^Create connection$', timeout: 30 });
    const result = (await pending).structuredContent;
    await atspi({ cmd: 'gone', window });
    assert.deepEqual({ status: result.human_confirmation.status, channel: result.human_confirmation.channel }, { status: 'accepted', channel: 'desktop' });
    assert.equal(result.executed, true);
    assert.equal(result.execution.outcome, 'created');
    const found = await client.callTool({ name: 'fabric_search_connections', arguments: { name: spec.name } });
    assert.equal(found.structuredContent.data.length, 1, 'the approved connection exists');
  } finally { await client.close(); }
});
