// Long human decisions through the desktop app (Xvfb + real keyboard input): MCP clients give up
// on a request after 60 s (the TypeScript SDK's default) unless progress resets the timeout.
//  - a client with resetTimeoutOnProgress: true gets its create executed when the person approves
//    after 90 s (the broker sends progress while the dialog waits);
//  - a client with the defaults cancels at 60 s: the broker records call_cancelled, nothing is
//    created, and the dialog stays open saying that the agent gave up (its title says so too);
//  - the same 90 s decision for a client over Streamable HTTP (the app with --http): its
//    tools/call is answered as text/event-stream, and the progress events on it keep the
//    official SDK client (resetTimeoutOnProgress) alive past its 60 s request timeout.
// Skips when Xvfb or xdotool is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, baseEnv, connectionSpec, sleep } from './lib.mjs';
import { startXvfb, xvfbSkip as skip } from './xvfb.mjs';

let xvfb; let app; let env; let appStderr = '';

const windows = (name) => xvfb.windows(name);
async function waitFor(pred, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = pred();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; app stderr:\n${appStderr.slice(-3000)}`);
    await sleep(100);
  }
}
const press = (id, ...keys) => xvfb.press(id, keys);
process.on('exit', () => { if (app && app.exitCode === null) app.kill('SIGKILL'); });

before(async () => {
  if (skip) return;
  xvfb = await startXvfb(200, 260);
  env = baseEnv({ DISPLAY: xvfb.display });
  delete env.QT_QPA_PLATFORM;
  app = spawn(BIN, ['--toolsets', 'read,mutate', '--http', '127.0.0.1:0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
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

async function relayClient() {
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env, stderr: 'ignore' });
  const client = new Client({ name: 'long-decisions-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

async function httpClient() {
  const m = await waitFor(() => /MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(appStderr), 20000, 'the HTTP endpoint');
  const token = fs.readFileSync(path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token'), 'utf8').trim();
  const transport = new StreamableHTTPClientTransport(new URL(m[1]), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'long-decisions-http-e2e', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

async function propose(client) {
  const spec = connectionSpec();
  const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
  assert.equal(p.isError, undefined, JSON.stringify(p));
  return { spec, token: p.structuredContent.confirm_token };
}

test('long decisions: defaults give up at 60 s (the dialog says so); resetTimeoutOnProgress survives a 90 s decision', { skip, timeout: 240000 }, async () => {
  const impatient = await relayClient();
  const patient = await relayClient();
  const overHttp = await httpClient();
  try {
    // 1. A client with the SDK's defaults: 60 s, no progress handler.
    const a = await propose(impatient);
    const aStart = Date.now();
    const aCall = impatient.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: a.token } })
      .then((r) => ({ r }), (e) => ({ e }));
    const dialogA = await waitFor(() => windows('Approve: Create connection')[0], 20000, 'dialog A');

    // 2. A client that resets its timeout on progress.
    const b = await propose(patient);
    let progress = 0;
    const bStart = Date.now();
    const bCall = patient.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: b.token } }, CallToolResultSchema,
      { onprogress: () => { progress++; }, resetTimeoutOnProgress: true });
    const dialogB = await waitFor(() => windows('Approve: Create connection').find((id) => id !== dialogA), 20000, 'dialog B');

    // 3. The same patient client over HTTP: progress arrives on the POST's event stream.
    const c = await propose(overHttp);
    let httpProgress = 0;
    const cStart = Date.now();
    const cCall = overHttp.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: c.token } }, CallToolResultSchema,
      { onprogress: () => { httpProgress++; }, resetTimeoutOnProgress: true });
    const dialogC = await waitFor(() => windows('Approve: Create connection').find((id) => id !== dialogA && id !== dialogB), 20000, 'dialog C');

    // At 60 s the impatient client gives up; its dialog stays, titled "Agent gave up".
    const aOutcome = await aCall;
    const aElapsed = Date.now() - aStart;
    assert.ok(aOutcome.e, `the default client timed out instead of getting ${JSON.stringify(aOutcome.r)}`);
    assert.match(String(aOutcome.e), /timed out|Request timed out/i);
    assert.ok(aElapsed >= 59000 && aElapsed < 75000, `gave up after ${aElapsed} ms`);
    const gaveUp = await waitFor(() => windows('Agent gave up')[0], 10000, 'the "Agent gave up" dialog');
    assert.equal(gaveUp, dialogA, 'the same dialog, now explaining');

    // At 90 s the person approves B.
    await sleep(Math.max(0, 90000 - (Date.now() - bStart)));
    press(dialogB, 'Tab', 'space');
    const r = (await bCall).structuredContent;
    assert.ok(Date.now() - bStart >= 90000);
    assert.ok(progress >= 10, `progress notifications while waiting: ${progress}`);
    assert.deepEqual({ status: r.human_confirmation.status, channel: r.human_confirmation.channel }, { status: 'accepted', channel: 'desktop' });
    assert.equal(r.executed, true);
    assert.equal(r.execution.outcome, 'created');

    // And the HTTP client's, 90 s after its call: still waiting, then approved.
    await sleep(Math.max(0, 90000 - (Date.now() - cStart)));
    press(dialogC, 'Tab', 'space');
    const rc = (await cCall).structuredContent;
    assert.ok(Date.now() - cStart >= 90000);
    assert.ok(httpProgress >= 10, `progress notifications over HTTP while waiting: ${httpProgress}`);
    assert.deepEqual({ status: rc.human_confirmation.status, channel: rc.human_confirmation.channel }, { status: 'accepted', channel: 'desktop' });
    assert.equal(rc.executed, true);
    assert.equal(rc.execution.outcome, 'created');

    // Nothing executed for A; the audit trail (the activity view's source) recorded it.
    const foundA = await patient.callTool({ name: 'fabric_search_connections', arguments: { name: a.spec.name } });
    assert.equal(foundA.structuredContent.data.length, 0);
    const audit = fs.readFileSync(path.join(env.XDG_DATA_HOME, 'fabric-broker', 'audit.jsonl'), 'utf8');
    assert.match(audit, /"call_cancelled"/);
    // The person closes the explanation.
    press(dialogA, 'Escape');
    await waitFor(() => !windows('Agent gave up').length, 10000, 'the explanation to close');
  } finally {
    await impatient.close();
    await patient.close();
    await overHttp.close();
  }
});
