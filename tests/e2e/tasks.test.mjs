// fabric_confirm_change as a task (MCP 2025-11-25 tasks; issue #37): the official SDK clients
// keep their default 60 s request timeout, and the decision takes longer.
//  - A person answers the approval prompt (the client's form elicitation) 3 minutes after the
//    confirm: the v1 client (its callToolStream runtime: tasks/get polls, then tasks/result) and
//    the v2 client (the tasks/* requests by hand), each over plain stdio and over the relay to
//    a running instance. The create executes once; tasks/get showed the wait (status message,
//    request SHA-256, expiry); the result is the seed's.
//  - tasks/cancel before the send withdraws the proposal: nothing is sent.
//  - Against the desktop app: the client is killed while the dialog is open; a new `--stdio`
//    collects the result by task id after the person approves. And the 2026-07-28 Tasks
//    extension (SEP-2663), raw over a relay: a confirm that waits for the dialog answers with
//    resultType "task"; tasks/get shows the wait, then the result inline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as Client2, specTypeSchemas } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransport2 } from '@modelcontextprotocol/client/stdio';
import { BIN, baseEnv, connectionSpec, sleep } from './lib.mjs';
import { startXvfb, xvfbSkip } from './xvfb.mjs';

// The v2 client's own schemas (Standard Schema) of the task results.
const CreateTask2 = specTypeSchemas.CreateTaskResult;
const GetTask2 = specTypeSchemas.GetTaskResult;
const CallToolResult2 = specTypeSchemas.CallToolResult;
const DECISION_MS = 180000;
const RELATED = 'io.modelcontextprotocol/related-task';
const DETAIL = 'fabric-broker/task-detail';
const terminal = (s) => s === 'completed' || s === 'failed' || s === 'cancelled';

async function waitFor(pred, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// The person: answers the form after delayMs (never when delayMs is Infinity), recording what it
// was asked.
function person(delayMs) {
  const asked = [];
  const handler = async (request) => {
    asked.push(request.params);
    if (delayMs === Infinity) await new Promise(() => {});
    await sleep(delayMs);
    return { action: 'accept', content: { confirm: true } };
  };
  return { asked, handler };
}

async function v1Client(args, env, answer) {
  const transport = new StdioClientTransport({ command: BIN, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'tasks-v1-e2e', version: '1.0.0' },
    { capabilities: answer ? { elicitation: { form: {} } } : {} });
  if (answer) client.setRequestHandler(ElicitRequestSchema, answer);
  await client.connect(transport);
  // tools/list tells the client which tools run as tasks (execution.taskSupport).
  const tools = (await client.listTools()).tools;
  const confirm = tools.find((t) => t.name === 'fabric_confirm_change');
  assert.equal(confirm?.execution?.taskSupport, 'optional');
  assert.ok(client.getServerCapabilities()?.tasks?.requests?.tools?.call, 'the tasks capability');
  return { client, transport, get stderr() { return stderr; } };
}

async function v2Client(args, env, answer) {
  const transport = new StdioClientTransport2({ command: BIN, args, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client2({ name: 'tasks-v2-e2e', version: '2.4.0' },
    { capabilities: answer ? { elicitation: { form: {} } } : {} });
  if (answer) client.setRequestHandler('elicitation/create', answer);
  await client.connect(transport);
  assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  return { client, transport, get stderr() { return stderr; } };
}

async function propose(client) {
  const spec = connectionSpec();
  const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
  assert.notEqual(p.isError, true, JSON.stringify(p).slice(0, 800));
  return { spec, token: p.structuredContent.confirm_token, sha: p.structuredContent.request_sha256 };
}

// The v1 SDK's own task runtime: tools/call with task, tasks/get polls, tasks/result.
async function confirmV1(client, token) {
  const statuses = [];
  let result; let error; let taskId;
  const stream = client.experimental.tasks.callToolStream(
    { name: 'fabric_confirm_change', arguments: { confirm_token: token } }, CallToolResultSchema, { task: { ttl: 900000 } });
  for await (const m of stream) {
    if (m.type === 'taskCreated') taskId = m.task.taskId;
    else if (m.type === 'taskStatus') statuses.push(m.task);
    else if (m.type === 'result') result = m.result;
    else if (m.type === 'error') error = m.error;
  }
  assert.equal(error, undefined, String(error));
  return { taskId, statuses, result };
}

// The v2 client (2.4 has the wire types, no task runtime): the same requests by hand.
async function confirmV2(client, token) {
  const created = await client.request({
    method: 'tools/call',
    params: { name: 'fabric_confirm_change', arguments: { confirm_token: token }, task: { ttl: 900000 } },
  }, CreateTask2);
  const taskId = created.task.taskId;
  const statuses = [];
  for (;;) {
    const t = await client.request({ method: 'tasks/get', params: { taskId } }, GetTask2);
    statuses.push(t);
    if (terminal(t.status)) break;
    await sleep(t.pollInterval ?? 1000);
  }
  const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResult2);
  return { taskId, statuses, result };
}

async function searchByName(client, name) {
  const r = await client.callTool({ name: 'fabric_search_connections', arguments: { name } });
  return r.structuredContent.data;
}

function checkWaitShown(statuses, sha) {
  const waiting = statuses.filter((s) => s.status === 'working');
  assert.ok(waiting.length >= 10, `tasks/get polled while waiting: ${waiting.length}`);
  const asked = waiting.find((s) => s._meta?.[DETAIL]?.stage === 'asked');
  assert.ok(asked, JSON.stringify(waiting.at(-1)));
  assert.match(asked.statusMessage ?? '', /person|approv/i, JSON.stringify(asked));
  assert.equal(asked._meta[DETAIL].request_sha256, sha);
  assert.equal(asked._meta[DETAIL].change_type, 'connection_create');
  assert.ok(Date.parse(asked._meta[DETAIL].expires_at) > Date.parse(asked.createdAt));
  assert.equal(asked._meta[DETAIL].channel, 'client');
  for (const s of statuses) assert.ok(!JSON.stringify(s).includes('chg-'), 'no confirm token in a task');
}

function checkExecuted(result, taskId) {
  const r = result.structuredContent;
  assert.equal(r.executed, true, JSON.stringify(r).slice(0, 1000));
  assert.equal(r.human_confirmation.status, 'accepted');
  assert.equal(r.human_confirmation.channel, 'client');
  assert.deepEqual(r.confirm_checks, { proposal_exists: true, not_evicted: true, not_expired: true, not_previously_used: true, request_matches_binding: true });
  assert.equal(result._meta?.[RELATED]?.taskId, taskId);
}

// A raw NDJSON client over a relaying `fabric-broker --stdio`.
function rawRelay(env) {
  const proc = spawn(BIN, ['--stdio'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  let buf = ''; let next = 1;
  const pending = new Map();
  proc.stdout.on('data', (d) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i); buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const m = JSON.parse(line);
      if (m.id !== undefined && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
    }
  });
  return {
    ask(method, params) {
      const id = `r${next++}`;
      proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      return new Promise((resolve, reject) => {
        pending.set(id, resolve);
        setTimeout(() => { if (pending.delete(id)) reject(new Error(`no answer to ${method}`)); }, 20000);
      });
    },
    async close() { proc.stdin.end(); if (proc.exitCode === null) await once(proc, 'exit'); },
  };
}

let instance; let instanceEnv; let instanceStderr = '';

before(async () => {
  // A running instance for the relayed clients (what an MCP client's `fabric-broker --stdio`
  // reaches when the app runs).
  instanceEnv = baseEnv();
  instance = spawn(BIN, ['--headless', '--sandbox', '--toolsets', 'read,mutate'], { env: instanceEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  instance.stderr.on('data', (d) => { instanceStderr += d.toString(); });
  const sock = path.join(instanceEnv.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  await waitFor(() => fs.existsSync(sock) || instance.exitCode !== null, 20000, 'the instance');
  assert.equal(instance.exitCode, null, instanceStderr);
});

after(async () => {
  if (instance && instance.exitCode === null) {
    instance.kill('SIGTERM');
    await once(instance, 'exit');
  }
});

test('tasks: a 3-minute decision with the SDKs\' 60 s timeout executes once (v1, v2; stdio, relay)', { timeout: 420000 }, async () => {
  const own = ['--headless', '--stdio', '--sandbox', '--toolsets', 'read,mutate'];
  const relay = ['--stdio'];
  const runs = [
    ['v1 stdio', v1Client, confirmV1, own, baseEnv()],
    ['v2 stdio', v2Client, confirmV2, own, baseEnv()],
    ['v1 relay', v1Client, confirmV1, relay, instanceEnv],
    ['v2 relay', v2Client, confirmV2, relay, instanceEnv],
  ];
  const started = await Promise.all(runs.map(async ([name, make, confirm, args, env]) => {
    const answer = person(DECISION_MS);
    const c = await make(args, env, answer.handler);
    return { name, c, confirm, answer };
  }));
  try {
    const outcomes = await Promise.all(started.map(async ({ name, c, confirm, answer }) => {
      const p = await propose(c.client);
      const t0 = Date.now();
      const { taskId, statuses, result } = await confirm(c.client, p.token);
      const elapsed = Date.now() - t0;
      return { name, c, p, taskId, statuses, result, elapsed, answer };
    }));
    for (const o of outcomes) {
      assert.ok(o.elapsed >= DECISION_MS, `${o.name}: ${o.elapsed} ms`);
      checkWaitShown(o.statuses, o.p.sha);
      checkExecuted(o.result, o.taskId);
      assert.equal(o.statuses.at(-1).status, 'completed', o.name);
      // The prompt was the task's.
      assert.equal(o.answer.asked.length, 1, o.name);
      assert.equal(o.answer.asked[0]._meta?.[RELATED]?.taskId, o.taskId, o.name);
      const found = await searchByName(o.c.client, o.p.spec.name);
      assert.equal(found.length, 1, `${o.name}: created exactly once`);
    }
  } finally {
    for (const { c } of started) await c.client.close();
  }
});

test('tasks: tasks/cancel before the send withdraws the proposal and sends nothing', { timeout: 60000 }, async () => {
  const answer = person(Infinity);
  const c = await v1Client(['--headless', '--stdio', '--sandbox', '--toolsets', 'read,mutate'], baseEnv(), answer.handler);
  try {
    const p = await propose(c.client);
    const created = await c.client.request({
      method: 'tools/call',
      params: { name: 'fabric_confirm_change', arguments: { confirm_token: p.token }, task: {} },
    }, (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema);
    const taskId = created.task.taskId;
    assert.equal(created.task.status, 'working');
    await waitFor(() => answer.asked.length === 1, 20000, 'the approval prompt');
    const cancelled = await c.client.experimental.tasks.cancelTask(taskId);
    assert.equal(cancelled.status, 'cancelled');
    const r = await c.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    assert.equal(r.structuredContent.executed, false);
    assert.equal(r.structuredContent.human_confirmation.status, 'call_cancelled');
    const again = await c.client.experimental.tasks.getTask(taskId);
    assert.equal(again.status, 'cancelled');
    await assert.rejects(c.client.experimental.tasks.cancelTask(taskId), /already cancelled/);
    assert.equal((await searchByName(c.client, p.spec.name)).length, 0, 'nothing was created');
    // The token was consumed: a plain confirm of it now fails on its predicate.
    const retry = await c.client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.token } });
    assert.equal(retry.structuredContent.confirm_checks.not_previously_used, false);
  } finally { await c.client.close(); }
});

test('tasks: a client killed while the dialog is open; a new --stdio collects the result by task id', { skip: xvfbSkip, timeout: 120000 }, async () => {
  const xvfb = await startXvfb(260, 300);
  const env = baseEnv({ DISPLAY: xvfb.display });
  delete env.QT_QPA_PLATFORM;
  let appStderr = '';
  const app = spawn(BIN, ['--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', (d) => { appStderr += d.toString(); });
  try {
    await waitFor(() => xvfb.windows('Fabric Broker - SANDBOX').length > 0 || app.exitCode !== null, 20000, 'the main window');
    assert.equal(app.exitCode, null, appStderr.slice(-2000));
    const first = await v1Client(['--stdio'], env, null);
    const p = await propose(first.client);
    const created = await first.client.request({
      method: 'tools/call',
      params: { name: 'fabric_confirm_change', arguments: { confirm_token: p.token }, task: { ttl: 900000 } },
    }, (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema);
    const taskId = created.task.taskId;
    const dialog = await waitFor(() => xvfb.windows('Approve: Create connection')[0], 20000, 'the approval dialog');
    // The client dies (its relay with it).
    process.kill(first.transport.pid, 'SIGKILL');
    await first.client.close().catch(() => {});
    await sleep(1500);
    assert.equal(xvfb.windows('Agent gave up').length, 0, 'a task does not give up with its client');
    // A new client asks for the task by id: still waiting for the person.
    const second = await v1Client(['--stdio'], env, null);
    try {
      const waiting = await second.client.experimental.tasks.getTask(taskId);
      assert.equal(waiting.status, 'working');
      assert.equal(waiting._meta?.[DETAIL]?.channel, 'desktop', JSON.stringify(waiting));
      assert.equal(waiting._meta?.[DETAIL]?.request_sha256, p.sha);
      await sleep(3000); // the dialog's Approve unlocks after a moment of reading
      xvfb.press(dialog, ['Tab', 'space']);
      const done = await waitFor(async () => {
        const t = await second.client.experimental.tasks.getTask(taskId);
        return terminal(t.status) ? t : null;
      }, 30000, 'the task to finish');
      assert.equal(done.status, 'completed');
      const r = await second.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      assert.equal(r.structuredContent.executed, true, JSON.stringify(r).slice(0, 800));
      assert.equal(r.structuredContent.human_confirmation.channel, 'desktop');
      assert.equal((await searchByName(second.client, p.spec.name)).length, 1);
    } finally { await second.client.close(); }

    // The 2026-07-28 era, raw (no SDK has a runtime for the extension yet).
    const raw = rawRelay(env);
    try {
      const meta = (tasks) => ({
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {},
        'io.modelcontextprotocol/clientInfo': { name: 'tasks-modern-e2e', version: '1' },
      });
      const spec = connectionSpec();
      const proposed = await raw.ask('tools/call', { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec }, _meta: meta(true) });
      const token = proposed.result.structuredContent.confirm_token;
      const created = (await raw.ask('tools/call', { name: 'fabric_confirm_change', arguments: { confirm_token: token }, _meta: meta(true) })).result;
      assert.equal(created.resultType, 'task', JSON.stringify(created).slice(0, 800));
      assert.ok(created.ttlMs > 0 && created.pollIntervalMs > 0);
      const second = await waitFor(() => xvfb.windows('Approve: Create connection').find((id) => id !== dialog), 20000, 'the modern confirm\'s dialog');
      const refused = await raw.ask('tasks/get', { taskId: created.taskId, _meta: meta(false) });
      assert.equal(refused.error?.code, -32021);
      const working = (await raw.ask('tasks/get', { taskId: created.taskId, _meta: meta(true) })).result;
      assert.equal(working.status, 'working');
      assert.equal(working._meta?.[DETAIL]?.channel, 'desktop');
      await sleep(3000); // the dialog's Approve unlocks after a moment of reading
      xvfb.press(second, ['Tab', 'space']);
      const done = await waitFor(async () => {
        const t = (await raw.ask('tasks/get', { taskId: created.taskId, _meta: meta(true) })).result;
        return terminal(t.status) ? t : null;
      }, 30000, 'the modern task to finish');
      assert.equal(done.status, 'completed');
      assert.equal(done.result.structuredContent.executed, true, JSON.stringify(done).slice(0, 800));
      assert.equal(done.result._meta?.[RELATED], undefined);
    } finally { await raw.close(); }
  } catch (e) {
    e.message += `\napp stderr:\n${appStderr.slice(-4000)}`;
    throw e;
  } finally {
    if (app.exitCode === null) { app.kill('SIGTERM'); await once(app, 'exit'); }
    await xvfb.stop();
  }
});
