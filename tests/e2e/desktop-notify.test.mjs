// Desktop notifications (issue #37) of the real desktop app under Xvfb, on a D-Bus session bus of
// the test's own (atspi.mjs) where a notification server of the test's answers (notify.mjs:
// the freedesktop specification's interface, showing nothing) and dbus-monitor watches every
// org.freedesktop.Notifications message. The official SDK client proposes and confirms through
// `fabric-broker --stdio` (the relay into the app); the app is read and operated through AT-SPI.
//   - the approval dialog opens and a Notify crosses the bus: app "Fabric Broker", summary
//     "Approval needed (sandbox)", the target in its body, one action "default" labelled "Open",
//     none that approves;
//   - the person works in the main window; invoking the notification (ActionInvoked "default",
//     as a click on it) makes the approval dialog the active window, and decides nothing: the
//     confirm still waits, and only a press of the dialog's button approves (then it is created);
//   - a dialog answered without the notification withdraws it (CloseNotification of its id).
// Skips when Xvfb, xdotool, dbus-run-session, dbus-monitor, python3-pyatspi or python3-gi is
// missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, connectionSpec } from './lib.mjs';
import { startXvfb } from './xvfb.mjs';
import { PYTHON, atspiSkip, startSessionBus, stopSessionBus } from './atspi.mjs';
import { notifySkip, startNotificationMonitor, startNotificationServer } from './notify.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const skip = atspiSkip() || notifySkip();
const MAIN = '^Fabric Broker - SANDBOX$';
const DIALOG = '^Approve: Create connection';

let xvfb; let bus; let server; let monitor; let app; let env; let driver; let answers; let appLog = '';

async function atspi(req) {
  driver.stdin.write(`${JSON.stringify(req)}\n`);
  const { value, done } = await answers.next();
  if (done) throw new Error(`the AT-SPI driver exited; app log:\n${appLog.slice(-2000)}`);
  const out = JSON.parse(value);
  if (!out.ok) throw new Error(`AT-SPI ${req.cmd} ${req.window}: ${out.error}; app log:\n${appLog.slice(-2000)}`);
  return out;
}

before(async () => {
  if (skip) return;
  xvfb = await startXvfb(920, 980);
  const base = baseEnv();
  bus = await startSessionBus(base.XDG_RUNTIME_DIR);
  server = await startNotificationServer(bus);
  monitor = await startNotificationMonitor(bus);
  env = { ...base, DISPLAY: xvfb.display, DBUS_SESSION_BUS_ADDRESS: bus.address, QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1' };
  delete env.QT_QPA_PLATFORM; // a real X display, not offscreen
  app = spawn(BIN, ['--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', (d) => { appLog += d.toString(); });
  await xvfb.waitForWindow(MAIN, 30000, () => `app log:\n${appLog.slice(-3000)}`, app);
  driver = spawn(PYTHON, [path.join(here, 'atspi_driver.py')], {
    env: { PATH: env.PATH, HOME: env.HOME, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR, DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  answers = readline.createInterface({ input: driver.stdout })[Symbol.asyncIterator]();
});

after(async () => {
  if (driver) { driver.stdin.end(); driver.kill('SIGTERM'); }
  if (app && app.exitCode === null && app.signalCode === null) {
    app.kill('SIGTERM');
    const t = setTimeout(() => app.kill('SIGKILL'), 5000);
    await once(app, 'exit');
    clearTimeout(t);
  }
  if (monitor) await monitor.stop();
  if (server) await server.stop();
  if (bus) await stopSessionBus(bus);
  if (xvfb) await xvfb.stop();
});

async function relayClient() {
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env, stderr: 'ignore' });
  // No elicitation capability: the desktop dialog is what asks the person.
  const client = new Client({ name: 'desktop-notify-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

// Proposes a connection and starts its confirm; resolves once its dialog is open.
async function proposeAndConfirm(client) {
  const spec = connectionSpec();
  const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
  assert.equal(p.isError, undefined, JSON.stringify(p));
  const call = { spec, settled: false };
  call.pending = client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } }, undefined, { timeout: 120000 })
    .finally(() => { call.settled = true; });
  call.dialog = await xvfb.waitForWindow(DIALOG, 20000, () => `app log:\n${appLog.slice(-3000)}`, app);
  return call;
}

const decisionsInAudit = () => {
  const file = path.join(env.XDG_DATA_HOME, 'fabric-broker', 'audit.jsonl');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => /"type":"decision"/.test(l)).length : 0;
};

test('an approval is announced on the session bus; opening the notification raises the dialog and decides nothing', { skip, timeout: 180000 }, async () => {
  const client = await relayClient();
  try {
    const call = await proposeAndConfirm(client);
    const n = await server.waitFor((e) => e.event === 'notify' && e.summary === 'Approval needed (sandbox)');
    assert.equal(n.app_name, 'Fabric Broker');
    assert.equal(n.replaces_id, 0);
    assert.equal(n.app_icon, 'fabric-broker');
    const lines = n.body.split('\n');
    assert.equal(lines.length, 2, n.body);
    assert.equal(lines[0], 'An agent asks to create a connection:');
    assert.match(lines[1], /^EVPL_VC 50 Mbps port /, 'the target line the broker compiled');
    assert.deepEqual(n.actions, ['default', 'Open'], 'one action, which opens');
    assert.ok(!n.actions.some((a) => /approv|accept|allow/i.test(a)), `no action decides: ${n.actions}`);
    assert.equal(n.hints['desktop-entry'], 'io.github.fabric_broker.FabricBroker');
    // The witness on the bus: the app's Notify call itself.
    await monitor.waitFor(() => monitor.calls('Notify').some((b) => b.includes('string "Approval needed (sandbox)"') && b.includes('string "Fabric Broker"')));
    const notifyCall = monitor.calls('Notify').find((b) => b.includes('string "Approval needed (sandbox)"'));
    // Its first array is the actions: exactly "default" and its label.
    const actions = [...(/array \[\s*((?:string "[^"]*"\s*)*)\]/.exec(notifyCall)?.[1] ?? '').matchAll(/string "([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(actions, ['default', 'Open'], notifyCall);

    // The person works in the main window, the dialog behind it: focused, and clicked into (on
    // its status bar, where a click does nothing).
    const main = xvfb.windows(MAIN)[0];
    assert.ok(main, 'the main window');
    xvfb.focus(main);
    const geometry = xvfb.xdo('getwindowgeometry', main);
    const [, height] = /Geometry: (\d+)x(\d+)/.exec(geometry).slice(1).map(Number);
    xvfb.xdo('mousemove', '--window', main, '20', String(height - 5), 'click', '1');
    await atspi({ cmd: 'active', window: MAIN });
    // Opening the notification: the dialog comes to the front, with the keyboard.
    await server.invoke(n.id, 'default');
    await monitor.waitFor(() => monitor.signals('ActionInvoked').length > 0);
    const active = await atspi({ cmd: 'active', window: DIALOG });
    assert.ok(!active.active.some((w) => /^Fabric Broker - SANDBOX$/.test(w)), `only the dialog is active: ${active.active}`);
    // It decided nothing: the confirm waits, no decision is in the audit trail.
    assert.equal(call.settled, false, 'the confirm was answered by opening the notification');
    assert.equal(decisionsInAudit(), 0);
    assert.ok(xvfb.windows(DIALOG).includes(call.dialog), 'the same dialog is open');

    // Only the dialog's own button approves (it unlocks after its delay).
    await atspi({ cmd: 'press', window: DIALOG, role: 'push button', name: '^Create connection$', timeout: 30 });
    const r = (await call.pending).structuredContent;
    assert.deepEqual({ status: r.human_confirmation.status, channel: r.human_confirmation.channel }, { status: 'accepted', channel: 'desktop' });
    assert.equal(r.executed, true);
    assert.equal(r.execution.outcome, 'created');
    await atspi({ cmd: 'gone', window: DIALOG });
  } finally { await client.close(); }
});

test('a dialog answered in the dialog withdraws its notification', { skip, timeout: 120000 }, async () => {
  const client = await relayClient();
  try {
    const before = server.notifies().length;
    const call = await proposeAndConfirm(client);
    const n = await server.waitFor((e) => e.event === 'notify' && server.notifies().indexOf(e) >= before);
    assert.equal(n.summary, 'Approval needed (sandbox)');
    await atspi({ cmd: 'press', window: DIALOG, role: 'push button', name: '^Deny$' });
    const r = (await call.pending).structuredContent;
    assert.equal(r.human_confirmation.status, 'declined');
    assert.equal(r.executed, false);
    await server.waitFor((e) => e.event === 'close' && e.id === n.id);
    await monitor.waitFor(() => monitor.calls('CloseNotification').some((b) => b.includes(`uint32 ${n.id}`)));
  } finally { await client.close(); }
});
