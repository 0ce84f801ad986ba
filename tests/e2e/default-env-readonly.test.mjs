// A new user's client with the README's snippet (`fabric-broker --stdio`, no env block) while no
// desktop app runs: the official SDK's StdioClientTransport spawns it with getDefaultEnvironment()
// only (no XDG_RUNTIME_DIR, no DISPLAY), so it becomes a headless instance with the default
// toolset, read. The agent must learn from initialize.instructions that proposals are off and
// how to turn them on; with --toolsets read,mutate the note is gone and the tools are there.
// Serialized with every other default-environment test (they share the per-user socket).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, lockRunUser, scratchDir, sleep } from './lib.mjs';

let unlock; let home; const savedHome = process.env.HOME;

before(async () => {
  unlock = await lockRunUser();
  // HOME is the one variable of the default environment that locates state (settings, audit
  // log): a scratch folder, so that the test never writes into the real one.
  home = path.join(scratchDir('fb-default-env-'), 'home');
  fs.mkdirSync(home, { recursive: true });
  process.env.HOME = home;
});

after(() => {
  process.env.HOME = savedHome;
  if (unlock) unlock();
});

function alive(pid) { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } }

async function spawnDefault(args) {
  const childEnv = getDefaultEnvironment();
  assert.equal(childEnv.XDG_RUNTIME_DIR, undefined);
  assert.equal(childEnv.DISPLAY, undefined);
  assert.equal(childEnv.HOME, home);
  const transport = new StdioClientTransport({ command: BIN, args, stderr: 'pipe' }); // no env
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'default-env-readonly-e2e', version: '1' }, { capabilities: {} });
  await client.connect(transport);
  const pid = transport.pid;
  return {
    client, get stderr() { return stderr; },
    async close() {
      await client.close();
      // The next spawn must not find this one still listening on the per-user socket.
      for (let i = 0; i < 100 && pid && alive(pid); i++) await sleep(50);
    },
  };
}

test('default env, no app: the spawned read-only instance says in initialize.instructions that proposals are off and how to turn them on', async () => {
  const s = await spawnDefault(['--stdio']);
  try {
    const instructions = s.client.getInstructions() ?? '';
    assert.match(instructions, /NO DESKTOP APP/, `not the spawned headless instance: ${instructions}\n${s.stderr}`);
    assert.match(instructions, /PROPOSALS ARE OFF: start Fabric Broker, or add --toolsets read,mutate\./);
    assert.match(instructions, /turns on proposals there/);
    const names = (await s.client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('fabric_search_connections'), names.join());
    assert.ok(!names.includes('fabric_propose_change'), 'read tools only');
  } finally { await s.close(); }

  const m = await spawnDefault(['--stdio', '--toolsets', 'read,mutate']);
  try {
    const instructions = m.client.getInstructions() ?? '';
    assert.match(instructions, /NO DESKTOP APP/);
    assert.doesNotMatch(instructions, /PROPOSALS ARE OFF/);
    assert.ok((await m.client.listTools()).tools.some((t) => t.name === 'fabric_propose_change'));
  } finally { await m.close(); }
});
