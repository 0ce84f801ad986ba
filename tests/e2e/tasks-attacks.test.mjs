// Attacks on "confirm as a task" (issue #37; review of the tasks feature): the agent writes every
// byte of the MCP traffic, may start its own clients (`fabric-broker --stdio` relays into the
// running instance) and races them against each other. Each test asserts the safe behaviour; an
// attack that gets through is marked `todo` with what got through.
//  - hostile `task` params and task-augmented calls where tasks are not served
//  - another session's task: tasks/list and notifications/tasks/status stay with their session
//  - tasks/cancel racing the approval: a cancel that says "cancelled" never goes with a create
//  - a task outliving the proposal's TTL or the elicitation timeout creates nothing
//  - a killed client's elicitation: its successor cannot answer it; nothing is created
//  - no confirm token in anything a task shows
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, baseEnv, connectionSpec, sleep } from './lib.mjs';

const DETAIL = 'fabric-broker/task-detail';
const terminal = (s) => s === 'completed' || s === 'failed' || s === 'cancelled';
const OWN = ['--headless', '--stdio', '--sandbox', '--toolsets', 'read,mutate'];

async function until(pred, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// A raw NDJSON client: every message kept; server requests (elicitation/create) answered by
// onRequest(msg, client) when given.
function rawClient(args, env, { onRequest } = {}) {
  const proc = spawn(BIN, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let buf = ''; let next = 1; let stderr = '';
  const messages = [];
  const pending = new Map();
  const c = {
    proc, messages,
    get stderr() { return stderr; },
    write(...objs) { proc.stdin.write(objs.map((o) => JSON.stringify(o) + '\n').join('')); },
    send(method, params) {
      const id = `a${next++}`;
      c.write({ jsonrpc: '2.0', id, method, params });
      return c.answer(id, method);
    },
    answer(id, what = id) {
      const hit = messages.find((m) => m.id === id && m.method === undefined);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        pending.set(id, resolve);
        setTimeout(() => { if (pending.delete(id)) reject(new Error(`no answer to ${what}\n${stderr.slice(-2000)}`)); }, 30000);
      });
    },
    request(method, params) { return c.send(method, params); },
    async init(version = '2025-11-25', capabilities = { elicitation: { form: {} } }) {
      const r = await c.send('initialize', { protocolVersion: version, capabilities, clientInfo: { name: 'tasks-attacks', version: '1' } });
      assert.equal(r.result?.protocolVersion, version, JSON.stringify(r));
      c.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return r.result;
    },
    async close() { proc.stdin.end(); if (proc.exitCode === null && proc.signalCode === null) await once(proc, 'exit'); },
  };
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  proc.stdout.on('data', (d) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i); buf = buf.slice(i + 1);
      if (!line.trim()) continue;
      const m = JSON.parse(line);
      messages.push(m);
      if (m.method !== undefined && m.id !== undefined && onRequest) onRequest(m, c);
      else if (m.method === undefined && pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
    }
  });
  return c;
}

async function propose(c) {
  const spec = connectionSpec();
  const r = await c.send('tools/call', { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
  assert.notEqual(r.result?.isError, true, JSON.stringify(r).slice(0, 800));
  return { spec, token: r.result.structuredContent.confirm_token, sha: r.result.structuredContent.request_sha256 };
}

async function createdCount(c, name) {
  const r = await c.send('tools/call', { name: 'fabric_search_connections', arguments: { name } });
  return r.result.structuredContent.data.length;
}

async function taskConfirm(c, token, task = { ttl: 900000 }) {
  const r = await c.send('tools/call', { name: 'fabric_confirm_change', arguments: { confirm_token: token }, task });
  assert.ok(r.result?.task?.taskId, JSON.stringify(r).slice(0, 800));
  return r.result.task.taskId;
}

async function finished(c, taskId, ms = 30000) {
  return until(async () => {
    const t = await c.send('tasks/get', { taskId });
    return terminal(t.result?.status) ? t.result : null;
  }, ms, `task ${taskId} to finish`);
}

function noToken(c, token) {
  const all = JSON.stringify(c.messages.filter((m) => !(m.result?.structuredContent?.confirm_token)));
  assert.ok(!all.includes(token), 'the confirm token never appears in task traffic');
}

let instance; let instanceEnv; let instanceStderr = '';

before(async () => {
  instanceEnv = baseEnv();
  instance = spawn(BIN, ['--headless', '--sandbox', '--toolsets', 'read,mutate'], { env: instanceEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  instance.stderr.on('data', (d) => { instanceStderr += d.toString(); });
  const sock = path.join(instanceEnv.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  await until(() => fs.existsSync(sock) || instance.exitCode !== null, 20000, 'the instance');
  assert.equal(instance.exitCode, null, instanceStderr);
});

after(async () => {
  if (instance && instance.exitCode === null) { instance.kill('SIGTERM'); await once(instance, 'exit'); }
});

test('attack 1a: hostile task params are refused and consume nothing', { timeout: 60000 }, async () => {
  const c = rawClient(OWN, baseEnv(), { onRequest: () => {} });
  try {
    await c.init();
    const p = await propose(c);
    const bad = [
      'x', 5, [], true,
      { ttl: '900000' }, { ttl: -1 }, { ttl: 1.5 }, { ttl: 1e300 }, { ttl: {} }, { ttl: [900000] },
      { ttl: 9.1e15 },
    ];
    for (const task of bad) {
      const r = await c.send('tools/call', { name: 'fabric_confirm_change', arguments: { confirm_token: p.token }, task });
      assert.equal(r.error?.code, -32602, `task ${JSON.stringify(task)}: ${JSON.stringify(r).slice(0, 400)}`);
    }
    // A null task is no task object either.
    const nul = await c.send('tools/call', { name: 'fabric_confirm_change', arguments: { confirm_token: p.token }, task: null });
    assert.equal(nul.error?.code, -32602, JSON.stringify(nul).slice(0, 400));
    // A huge but valid ttl is clamped to the documented hour.
    const spec2 = await propose(c);
    const ok = await c.send('tools/call', { name: 'fabric_confirm_change', arguments: { confirm_token: spec2.token }, task: { ttl: 9.0e15 } });
    assert.ok(ok.result?.task?.ttl <= 3600000, JSON.stringify(ok));
    const tiny = await c.send('tools/call', { name: 'fabric_confirm_change', arguments: { confirm_token: 'chg-nope' }, task: { ttl: 0 } });
    assert.ok(tiny.result?.task?.ttl >= 900000, JSON.stringify(tiny));
    // The first token was never consumed by the refused calls: tasks/list shows only the two.
    const list = await c.send('tasks/list', {});
    assert.equal(list.result.tasks.length, 2, JSON.stringify(list));
    // A tool that declares no taskSupport refuses a task (-32601), and proposes nothing.
    const tools = await c.send('tools/list', {});
    const propTool = tools.result.tools.find((t) => t.name === 'fabric_propose_change');
    assert.notEqual(propTool.execution?.taskSupport, 'optional');
    const spec = connectionSpec();
    const r = await c.send('tools/call', { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec }, task: {} });
    assert.equal(r.error?.code, -32601, JSON.stringify(r).slice(0, 400));
    // taskIds that are not bounded strings.
    for (const taskId of [undefined, 5, '', 'x'.repeat(129), { a: 1 }]) {
      const g = await c.send('tasks/get', { taskId });
      assert.equal(g.error?.code, -32602, JSON.stringify(g));
      const k = await c.send('tasks/cancel', { taskId });
      assert.equal(k.error?.code, -32602, JSON.stringify(k));
    }
  } finally { await c.close(); }
});

test('attack 1b: a task-augmented confirm on a 2025-06-18 session is a plain call; tasks/* do not exist there', { timeout: 60000 }, async () => {
  let asked = 0;
  const c = rawClient(OWN, baseEnv(), {
    onRequest: (m, cl) => { asked++; cl.write({ jsonrpc: '2.0', id: m.id, result: { action: 'decline' } }); },
  });
  try {
    const init = await c.init('2025-06-18');
    assert.equal(init.capabilities.tasks, undefined, 'no tasks capability for 2025-06-18');
    const p = await propose(c);
    const r = await c.send('tools/call', { name: 'fabric_confirm_change', arguments: { confirm_token: p.token }, task: { ttl: 900000 } });
    assert.equal(r.result?.task, undefined, 'no task');
    assert.equal(r.result.structuredContent.executed, false);
    assert.equal(r.result.structuredContent.human_confirmation.status, 'declined');
    assert.equal(asked, 1);
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list']) {
      const g = await c.send(method, { taskId: 'task-00000000000000000000000000000000' });
      assert.equal(g.error?.code, -32601, `${method}: ${JSON.stringify(g)}`);
    }
    assert.equal(await createdCount(c, p.spec.name), 0);
  } finally { await c.close(); }
});

test('attack 1c: another session cannot list, or hear of, a task; a guessed id finds nothing', { timeout: 60000 }, async () => {
  let elicitA = null;
  const a = rawClient(['--stdio'], instanceEnv, { onRequest: (m) => { elicitA = m; } });
  const b = rawClient(['--stdio'], instanceEnv, { onRequest: () => {} });
  try {
    await a.init(); await b.init();
    const p = await propose(a);
    const taskId = await taskConfirm(a, p.token);
    await until(() => elicitA, 20000, 'the approval prompt');
    assert.match(taskId, /^task-[0-9a-f]{32}$/);
    const listB = await b.send('tasks/list', {});
    assert.deepEqual(listB.result.tasks, [], 'session B lists none of A\'s tasks');
    const listA = await a.send('tasks/list', {});
    assert.equal(listA.result.tasks.length, 1);
    // Neighbouring ids (one hex digit off) find nothing.
    const last = taskId.at(-1) === '0' ? '1' : '0';
    const g = await b.send('tasks/get', { taskId: taskId.slice(0, -1) + last });
    assert.equal(g.error?.code, -32602);
    const prefix = await b.send('tasks/get', { taskId: taskId.slice(0, 20) });
    assert.equal(prefix.error?.code, -32602, 'no prefix match');
    const upper = await b.send('tasks/get', { taskId: taskId.toUpperCase() });
    assert.equal(upper.error?.code, -32602, 'ids are exact');
    // A declines: A hears the status; B hears nothing of it.
    a.write({ jsonrpc: '2.0', id: elicitA.id, result: { action: 'decline' } });
    await finished(a, taskId);
    await sleep(500);
    assert.ok(a.messages.some((m) => m.method === 'notifications/tasks/status'), 'A got its status');
    assert.ok(!b.messages.some((m) => m.method === 'notifications/tasks/status'), 'B got none of A\'s');
    assert.ok(!b.messages.some((m) => m.method === 'elicitation/create'), 'B was never asked');
    assert.ok(!JSON.stringify(b.messages).includes(taskId), 'A\'s task id never reached B');
    noToken(a, p.token);
  } finally { await a.close(); await b.close(); }
});

// The person accepts; the agent's tasks/cancel follows after `gap` ms (0: in the same write; -1:
// the cancel just before the accept, in one write).
// Invariant: a cancel answered "cancelled" never goes with a create; a refused cancel ("being
// sent" / "already completed") goes with exactly one.
test('attack 1d: tasks/cancel racing the approval never leaves a create behind a "cancelled"', { timeout: 240000 }, async () => {
  const gaps = [-1, -1, 0, 0, 1, 2, 3, 5, 8, 12, 20, 35, 60, 100];
  const outcomes = [];
  for (const gap of gaps) {
    let taskId = null;
    const c = rawClient(OWN, baseEnv(), {
      onRequest: (m, cl) => {
        const accept = { jsonrpc: '2.0', id: m.id, result: { action: 'accept', content: { confirm: true } } };
        const cancel = { jsonrpc: '2.0', id: 'cancel', method: 'tasks/cancel', params: { taskId } };
        if (gap === -1) cl.write(cancel, accept); // the cancel first, the accept in the same write
        else if (gap === 0) cl.write(accept, cancel);
        else { cl.write(accept); setTimeout(() => cl.write(cancel), gap); }
      },
    });
    try {
      await c.init();
      const p = await propose(c);
      taskId = await taskConfirm(c, p.token);
      const cancelled = await c.answer('cancel');
      const done = await finished(c, taskId);
      const result = await c.send('tasks/result', { taskId });
      const executed = result.result?.structuredContent?.executed;
      const count = await createdCount(c, p.spec.name);
      outcomes.push({ gap, cancel: cancelled.result?.status ?? cancelled.error?.message, status: done.status, executed, count });
      assert.ok(count <= 1, `gap ${gap}: created ${count} times`);
      assert.equal(count, executed ? 1 : 0, `gap ${gap}: the result says executed=${executed}, Fabric has ${count}`);
      if (cancelled.result?.status === 'cancelled') {
        assert.equal(count, 0, `gap ${gap}: tasks/cancel said cancelled, but the create was sent`);
        assert.equal(done.status, 'cancelled');
      } else {
        assert.match(cancelled.error?.message ?? '', /being sent|already completed/, JSON.stringify(cancelled));
        assert.equal(done.status, 'completed');
      }
      noToken(c, p.token);
      // The seed's five checks are in the task's result, unchanged.
      assert.deepEqual(Object.keys(result.result.structuredContent.confirm_checks).sort(),
        ['not_evicted', 'not_expired', 'not_previously_used', 'proposal_exists', 'request_matches_binding']);
    } finally { await c.close(); }
  }
  console.log(JSON.stringify(outcomes));
});

test('attack 1e: a task outliving the proposal TTL, or the elicitation timeout, creates nothing', { timeout: 90000 }, async () => {
  // The person accepts after the proposal has expired.
  {
    const c = rawClient(OWN, baseEnv({ EQUINIX_MCP_PROPOSAL_TTL_MS: '4000' }), {
      onRequest: (m, cl) => setTimeout(() => cl.write({ jsonrpc: '2.0', id: m.id, result: { action: 'accept', content: { confirm: true } } }), 6000),
    });
    try {
      await c.init();
      const p = await propose(c);
      const taskId = await taskConfirm(c, p.token, { ttl: 3600000 });
      const done = await finished(c, taskId, 30000);
      assert.equal(done.status, 'completed');
      const r = await c.send('tasks/result', { taskId });
      assert.equal(r.result.structuredContent.executed, false, JSON.stringify(r).slice(0, 800));
      assert.equal(r.result.structuredContent.confirm_checks.not_expired, false);
      assert.equal(await createdCount(c, p.spec.name), 0);
    } finally { await c.close(); }
  }
  // The person answers after the elicitation timeout: the task ends, the late accept counts for
  // nothing.
  {
    const c = rawClient(OWN, baseEnv({ EQUINIX_MCP_ELICIT_TIMEOUT_MS: '3000' }), {
      onRequest: (m, cl) => setTimeout(() => cl.write({ jsonrpc: '2.0', id: m.id, result: { action: 'accept', content: { confirm: true } } }), 6000),
    });
    try {
      await c.init();
      const p = await propose(c);
      const taskId = await taskConfirm(c, p.token, { ttl: 3600000 });
      const done = await finished(c, taskId, 30000);
      assert.equal(done.status, 'completed');
      await sleep(4000); // the late accept arrives
      const r = await c.send('tasks/result', { taskId });
      assert.equal(r.result.structuredContent.executed, false, JSON.stringify(r).slice(0, 800));
      assert.equal(await createdCount(c, p.spec.name), 0);
    } finally { await c.close(); }
  }
});

test('attack 1f: a killed client\'s elicitation cannot be answered by its successor; nothing is created', { timeout: 90000 }, async () => {
  let elicit = null;
  const a = rawClient(['--stdio'], instanceEnv, { onRequest: (m) => { elicit = m; } });
  await a.init();
  const p = await propose(a);
  const taskId = await taskConfirm(a, p.token);
  await until(() => elicit, 20000, 'the approval prompt');
  a.proc.kill('SIGKILL');
  await once(a.proc, 'exit');
  // The successor names the task and answers the dead session's prompt id with an accept.
  const b = rawClient(['--stdio'], instanceEnv, { onRequest: () => {} });
  try {
    await b.init();
    b.write({ jsonrpc: '2.0', id: elicit.id, result: { action: 'accept', content: { confirm: true } } });
    const done = await finished(b, taskId, 40000);
    const r = await b.send('tasks/result', { taskId });
    assert.equal(r.result?.structuredContent?.executed, false, JSON.stringify(r).slice(0, 800));
    assert.notEqual(r.result.structuredContent.human_confirmation.status, 'accepted');
    assert.ok(terminal(done.status));
    assert.ok(!b.messages.some((m) => m.method === 'elicitation/create'), 'the successor is not asked in its place');
    assert.equal(await createdCount(b, p.spec.name), 0);
  } finally { await b.close(); }
});

test('attack 1g: 2026-07-28 — declaring the Tasks extension never skips the person; -32021 without it', { timeout: 60000 }, async () => {
  const env = (tasks) => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, ...(tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {}) },
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-attacks-modern', version: '1' },
  });
  const c = rawClient(OWN, baseEnv(), { onRequest: () => {} });
  try {
    const spec = connectionSpec();
    const p = await c.send('tools/call', { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec }, _meta: env(true) });
    const token = p.result.structuredContent.confirm_token;
    // A confirm that carries a made-up "accept" on its first round, a 2025-11-25 task param and
    // the extension: asked (input_required) or refused, never executed, never a task that runs
    // without the person.
    const r = await c.send('tools/call', {
      name: 'fabric_confirm_change', arguments: { confirm_token: token }, task: { ttl: 900000 },
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, _meta: env(true),
    });
    assert.notEqual(r.result?.structuredContent?.executed, true, JSON.stringify(r).slice(0, 800));
    assert.notEqual(r.result?.resultType, 'task', 'a wait through the client is not a task');
    // The same with a requestState of the agent's making.
    const p2 = await c.send('tools/call', { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec: connectionSpec() }, _meta: env(true) });
    const r2 = await c.send('tools/call', {
      name: 'fabric_confirm_change', arguments: { confirm_token: p2.result.structuredContent.confirm_token },
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } }, requestState: 'eyJ0b2tlbiI6ImNoZy0ifQ', _meta: env(true),
    });
    assert.notEqual(r2.result?.structuredContent?.executed, true, JSON.stringify(r2).slice(0, 800));
    // tasks/* of the extension without declaring it: -32021, for a real task id too.
    const legacy = rawClient(OWN, baseEnv(), { onRequest: (m, cl) => cl.write({ jsonrpc: '2.0', id: m.id, result: { action: 'decline' } }) });
    await legacy.init();
    const lp = await propose(legacy);
    const taskId = await taskConfirm(legacy, lp.token);
    await finished(legacy, taskId);
    await legacy.close();
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const g = await c.send(method, { taskId, _meta: env(false) });
      assert.equal(g.error?.code, -32021, `${method}: ${JSON.stringify(g)}`);
    }
    assert.equal(await c.send('tools/call', { name: 'fabric_search_connections', arguments: { name: spec.name }, _meta: env(true) })
      .then((s) => s.result.structuredContent.data.length), 0);
    noToken(c, token);
  } finally { await c.close(); }
});

test('attack 1h: flooding tasks — 64 working is the cap; the 65th is refused, nothing runs for it', { timeout: 180000 }, async () => {
  let asked = 0;
  const c = rawClient(OWN, baseEnv(), { onRequest: () => { asked++; } }); // never answers
  try {
    await c.init();
    const ids = [];
    for (let i = 0; i < 64; i++) {
      const p = await propose(c);
      ids.push(await taskConfirm(c, p.token));
    }
    await until(() => asked === 64, 60000, '64 prompts');
    const p = await propose(c);
    const r = await c.send('tools/call', { name: 'fabric_confirm_change', arguments: { confirm_token: p.token }, task: {} });
    assert.equal(r.error?.code, -32600, JSON.stringify(r).slice(0, 400));
    // Refused before it ran: its token was not consumed (a plain confirm of it is asked).
    const list = await c.send('tasks/list', {});
    assert.equal(list.result.tasks.length, 64);
    assert.ok(list.result.tasks.every((t) => t.status === 'working'));
    await sleep(500);
    assert.equal(asked, 64, 'the refused task asked nobody');
  } finally { await c.close(); }
});
