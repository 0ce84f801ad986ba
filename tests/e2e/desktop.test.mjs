// The desktop app under Xvfb: the official SDK client connects through `fabric-broker --stdio`
// (the relay to the running app), proposes, and a person approves, denies or dismisses the
// native dialog with real keyboard input (xdotool). Skips when Xvfb or xdotool is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, connectionSpec, sleep } from './lib.mjs';
import { startXvfb, xvfbSkip as skip } from './xvfb.mjs';

let xvfb; let app; let env;

const waitForWindow = (name, ms = 15000) => xvfb.waitForWindow(name, ms);
const windowGone = (id, ms) => xvfb.windowGone(id, ms);
const press = (id, ...keys) => xvfb.press(id, keys);

before(async () => {
  if (skip) return;
  xvfb = await startXvfb(90, 140);
  env = baseEnv({ DISPLAY: xvfb.display });
  delete env.QT_QPA_PLATFORM; // a real X display, not offscreen
  app = spawn(BIN, ['--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', () => {});
  const sock = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  const deadline = Date.now() + 20000;
  while (!fs.existsSync(sock)) { if (Date.now() > deadline) throw new Error('the app did not start'); await sleep(100); }
  await waitForWindow('Fabric Broker - SANDBOX');
});

after(async () => {
  if (app) { app.kill('SIGTERM'); await sleep(300); app.kill('SIGKILL'); }
  if (xvfb) await xvfb.stop();
});

async function relayClient() {
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env, stderr: 'ignore' });
  // No elicitation capability: the desktop dialog must be what asks the person.
  const client = new Client({ name: 'desktop-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

async function proposeAndConfirm(client, answer) {
  const spec = connectionSpec();
  const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
  assert.equal(p.isError, undefined, JSON.stringify(p));
  const pending = client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } }, undefined, { timeout: 60000 });
  const dialog = await waitForWindow('Approve: Create connection');
  await answer(dialog);
  const r = await pending;
  assert.ok(await windowGone(dialog), 'the dialog closed');
  const found = await client.callTool({ name: 'fabric_search_connections', arguments: { name: spec.name } });
  return { result: r.structuredContent, created: found.structuredContent.data.length };
}

test('desktop dialog: approve with the keyboard creates the connection', { skip }, async () => {
  const client = await relayClient();
  try {
    const { result, created } = await proposeAndConfirm(client, async (w) => {
      await sleep(2000); // the approve button unlocks after a short delay
      press(w, 'Tab', 'space'); // focus starts on Deny; Tab reaches "Create connection"
    });
    assert.deepEqual({ status: result.human_confirmation.status, channel: result.human_confirmation.channel }, { status: 'accepted', channel: 'desktop' });
    assert.equal(result.executed, true);
    assert.equal(result.execution.outcome, 'created');
    assert.equal(created, 1);
  } finally { await client.close(); }
});

test('desktop dialog: Enter on the default button denies', { skip }, async () => {
  const client = await relayClient();
  try {
    const { result, created } = await proposeAndConfirm(client, async (w) => { await sleep(300); press(w, 'Return'); });
    assert.equal(result.human_confirmation.status, 'declined');
    assert.equal(result.human_confirmation.channel, 'desktop');
    assert.equal(result.executed, false);
    assert.equal(created, 0);
  } finally { await client.close(); }
});

test('desktop dialog: Escape dismisses it (cancelled), nothing created', { skip }, async () => {
  const client = await relayClient();
  try {
    const { result, created } = await proposeAndConfirm(client, async (w) => { await sleep(300); press(w, 'Escape'); });
    assert.equal(result.human_confirmation.status, 'cancelled');
    assert.equal(result.executed, false);
    assert.equal(created, 0);
  } finally { await client.close(); }
});

test('a second launch raises the running app and exits', { skip }, async () => {
  const out = execFileSync(BIN, [], { env, encoding: 'utf8', timeout: 10000 });
  assert.match(out, /already running/);
});
