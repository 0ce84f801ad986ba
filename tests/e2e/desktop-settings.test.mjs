// Settings apply without a restart, in the real app under Xvfb with real keyboard input: a
// client connected through `fabric-broker --stdio` to a read-only app gets
// notifications/tools/list_changed and then lists the mutate tools once a person turns on
// "mutate" in Settings and saves, without reconnecting. Skips when Xvfb or xdotool is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, baseEnv, sleep } from './lib.mjs';
import { startXvfb, xvfbSkip as skip } from './xvfb.mjs';

let xvfb; let app; let env; let appStderr = '';

const windows = (name) => xvfb.windows(name);
async function waitFor(pred, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; app stderr:\n${appStderr.slice(-3000)}`);
    await sleep(100);
  }
}
const press = (id, ...keys) => xvfb.press(id, keys, { pauseMs: 200 });
process.on('exit', () => { if (app && app.exitCode === null) app.kill('SIGKILL'); });

before(async () => {
  if (skip) return;
  xvfb = await startXvfb(260, 320);
  env = baseEnv({ DISPLAY: xvfb.display });
  delete env.QT_QPA_PLATFORM;
  app = spawn(BIN, [], { env, stdio: ['ignore', 'ignore', 'pipe'] }); // read-only by default
  app.stderr.on('data', (d) => { appStderr += d.toString(); });
  const sock = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  await waitFor(() => fs.existsSync(sock) || app.exitCode !== null, 20000, 'the app');
  await waitFor(() => windows('Fabric Broker - SANDBOX').length > 0, 20000, 'the main window');
});

after(async () => {
  if (app && app.exitCode === null) {
    app.kill('SIGTERM');
    const t = setTimeout(() => app.kill('SIGKILL'), 5000);
    await once(app, 'exit');
    clearTimeout(t);
  }
  if (xvfb) await xvfb.stop();
  if (env) fs.rmSync(env.XDG_RUNTIME_DIR, { recursive: true, force: true });
});

test('settings: saving read,mutate in a running app gives a connected client the mutate tools without reconnecting', { skip }, async () => {
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env, stderr: 'ignore' });
  const client = new Client({ name: 'settings-e2e', version: '1.0.0' }, { capabilities: {} });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });
  await client.connect(transport);
  try {
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!(await names()).includes('fabric_propose_change'), 'read-only at first');

    // A person: File > Settings..., Tab to "mutate" (the form's focus order: endpoint, client
    // id, secret, Test connection, read, mutate), tick it, Return (Save is the default button).
    // Xvfb has no window manager, so Qt's Alt shortcuts inside the dialog do not fire.
    const main = windows('Fabric Broker - SANDBOX')[0];
    press(main, 'alt+f', 's');
    const settings = await waitFor(() => windows('Settings - Fabric Broker')[0], 10000, 'the settings dialog');
    await sleep(300);
    press(settings, 'Tab', 'Tab', 'Tab', 'Tab', 'Tab', 'space', 'Return');
    await waitFor(() => windows('Settings - Fabric Broker').length === 0, 10000, 'the settings dialog to close');

    await waitFor(() => listChanged > 0, 10000, 'notifications/tools/list_changed');
    const after = await names();
    assert.ok(after.includes('fabric_propose_change'), after.join());
    assert.ok(after.includes('fabric_confirm_change'));
    const prefs = fs.readFileSync(path.join(env.XDG_CONFIG_HOME, 'fabric-broker', 'fabric-broker.conf'), 'utf8');
    assert.match(prefs, /toolsets=read, mutate|toolsets=read,mutate/);
  } finally {
    await client.close();
  }
});
