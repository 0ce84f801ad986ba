// EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS is per session (docs/policy.md, "Unconfirmed execution
// is per session"). A client whose server config sets it spawns `fabric-broker --stdio` while no
// app runs, so that process becomes the per-user instance; later clients spawned with the
// official SDK's default environment (no env block: HOME, LOGNAME, PATH, SHELL, TERM, USER) are
// relayed to it. They did not ask, so they keep the person in the loop: a client with form
// elicitation is asked, a client without it gets "unsupported_by_client" and nothing is created;
// neither is refused. The first session keeps its own exemption. Serialized with every other
// default-environment test (they share the per-user socket).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, connectionSpec, lockRunUser, scratchDir, sleep } from './lib.mjs';

let unlock; let home; const savedHome = process.env.HOME;

before(async () => {
  unlock = await lockRunUser();
  home = path.join(scratchDir('fb-unconfirmed-'), 'home');
  fs.mkdirSync(home, { recursive: true });
  process.env.HOME = home; // what getDefaultEnvironment() passes on
});

after(() => {
  process.env.HOME = savedHome;
  if (unlock) unlock();
});

function alive(pid) { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } }

async function spawnClient({ args = ['--stdio'], env, elicit, name }) {
  const transport = new StdioClientTransport({ command: BIN, args, ...(env ? { env } : {}), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name, version: '1' }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  await client.connect(transport);
  const pid = transport.pid;
  return {
    client, get stderr() { return stderr; },
    call: (tool, a) => client.callTool({ name: tool, arguments: a }, CallToolResultSchema, { timeout: 60000 }),
    async close() {
      await client.close();
      for (let i = 0; i < 100 && pid && alive(pid); i++) await sleep(50);
    },
  };
}

async function proposeAndConfirm(s) {
  const spec = connectionSpec();
  const p = await s.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
  const c = await s.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
  return { spec, c: c.structuredContent };
}

async function countCreated(s, name) {
  const r = await s.call('fabric_search_connections', { name });
  return r.structuredContent.data.filter((x) => x.name === name).length;
}

test('unconfirmed execution is per session: relayed default-env clients that did not ask are asked (or nothing is created); the session that asked keeps its exemption', async () => {
  const defaults = getDefaultEnvironment();
  assert.equal(defaults.XDG_RUNTIME_DIR, undefined);
  assert.equal(defaults.HOME, home);
  // The client that asked: its server config's env block adds the variable.
  const first = await spawnClient({
    args: ['--stdio', '--sandbox', '--toolsets', 'read,mutate'],
    env: { ...defaults, EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS: 'true' },
    name: 'asked-for-unconfirmed',
  });
  let elicitations = 0;
  let asking; let silent;
  try {
    assert.match(first.client.getInstructions() ?? '', /NO DESKTOP APP/, `the first process must serve itself: ${first.stderr}`);
    // A client with elicitation, relayed (no env block: the SDK's default environment).
    asking = await spawnClient({
      name: 'relayed-asks-person',
      elicit: async (req) => {
        elicitations++;
        assert.match(req.params.message, /request_sha256|SHA-256/i);
        return { action: 'decline' };
      },
    });
    assert.doesNotMatch(asking.stderr, /serving this session headless/, 'relayed to the first process, not a second instance');
    const declined = await proposeAndConfirm(asking);
    assert.equal(elicitations, 1, 'the person was asked');
    assert.equal(declined.c.human_confirmation.status, 'declined');
    assert.equal(declined.c.executed, false);
    assert.notEqual(declined.c.unconfirmed_execution, true);
    assert.equal(await countCreated(asking, declined.spec.name), 0);

    // A client without elicitation, relayed: never exempted by the instance's setting, never
    // refused for it either: served, and its confirm ends with nobody to ask.
    silent = await spawnClient({ name: 'relayed-no-elicitation' });
    const tools = (await silent.client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes('fabric_confirm_change'), tools.join());
    const unasked = await proposeAndConfirm(silent);
    assert.equal(unasked.c.human_confirmation.status, 'unsupported_by_client');
    assert.equal(unasked.c.executed, false, JSON.stringify(unasked.c).slice(0, 1500));
    assert.notEqual(unasked.c.unconfirmed_execution, true);
    assert.equal(await countCreated(silent, unasked.spec.name), 0);

    // The session that asked still executes without a person (loudly).
    const own = await proposeAndConfirm(first);
    assert.equal(own.c.human_confirmation.status, 'unsupported_by_client');
    assert.equal(own.c.executed, true, JSON.stringify(own.c).slice(0, 1500));
    assert.equal(own.c.unconfirmed_execution, true);
    assert.equal(await countCreated(first, own.spec.name), 1);
    // The relayed clients see that create: one instance (its embedded sandbox) served them all.
    assert.equal(await countCreated(silent, own.spec.name), 1);
    assert.equal(await countCreated(asking, own.spec.name), 1);
    assert.match(first.stderr, /WITHOUT HUMAN CONFIRMATION/);
  } finally {
    if (silent) await silent.close();
    if (asking) await asking.close();
    await first.close();
  }
});
