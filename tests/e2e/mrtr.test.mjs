// The confirm as a multi-round-trip (MCP 2026-07-28, issue 18 §2), in raw frames: round 1
// consumes the token and answers `resultType: "input_required"` with one form elicitation and
// an opaque requestState; round 2 retries with inputResponses and that requestState. Covers
// accept, decline, cancel, a retry without an answer, tampered / forged / replayed states, two
// racing retries (one create), the timeout (audited when the deadline passes, a late retry told
// so), and a modern client without elicitation. The sandbox's create count proves what was sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRaw, connectionSpec, sleep } from './lib.mjs';

const MODERN = '2026-07-28';
const ELICIT = { elicitation: { form: {} } };
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-e2e-mrtr-'));
test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const envelope = (caps) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': caps,
  'io.modelcontextprotocol/clientInfo': { name: 'mrtr-e2e', version: '1' },
});

let nextId = 1;
function start(env = {}) {
  const b = startRaw({ env });
  b.callTool = async (name, args, extra = {}, caps = ELICIT) => {
    const id = `m${nextId++}`;
    b.write({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra, _meta: envelope(caps) } });
    return b.waitFor((m) => m.id === id, 30000);
  };
  return b;
}

async function propose(b) {
  const spec = connectionSpec();
  const r = await b.callTool('fabric_propose_change', { change_type: 'connection_create', spec });
  const token = r.result?.structuredContent?.confirm_token;
  assert.ok(token, JSON.stringify(r).slice(0, 1500));
  return { token, name: spec.name };
}

async function countCreated(b, name) {
  const r = await b.callTool('fabric_search_connections', { name });
  return r.result.structuredContent.data.filter((c) => c.name === name).length;
}

// Round 1: the question travels in the result.
async function askFor(b, token, caps = ELICIT) {
  const r = await b.callTool('fabric_confirm_change', { confirm_token: token }, {}, caps);
  assert.equal(r.result?.resultType, 'input_required', JSON.stringify(r).slice(0, 1500));
  const reqs = r.result.inputRequests;
  assert.deepEqual(Object.keys(reqs), ['confirm']);
  assert.equal(reqs.confirm.method, 'elicitation/create');
  assert.equal(reqs.confirm.params.requestedSchema.properties.confirm.type, 'boolean');
  assert.deepEqual(reqs.confirm.params.requestedSchema.required, ['confirm']);
  assert.match(reqs.confirm.params.message, /request/i);
  assert.equal(typeof r.result.requestState, 'string');
  return r.result.requestState;
}

function retry(b, token, requestState, answer) {
  const extra = { requestState };
  if (answer !== undefined) extra.inputResponses = { confirm: answer };
  return b.callTool('fabric_confirm_change', { confirm_token: token }, extra);
}

const ACCEPT = { action: 'accept', content: { confirm: true } };

test('accept with confirm = true: accepted, executed once; the token stays consumed', async () => {
  const b = start();
  try {
    const { token, name } = await propose(b);
    const state = await askFor(b, token);
    assert.ok(!state.includes(token) && !state.includes('accept'), 'the state carries no approval or token');
    assert.equal(await countCreated(b, name), 0, 'nothing is created by round 1');
    const r = await retry(b, token, state, ACCEPT);
    const s = r.result.structuredContent;
    assert.equal(r.result.resultType, 'complete');
    assert.equal(s.human_confirmation.status, 'accepted', JSON.stringify(s).slice(0, 1500));
    assert.equal(s.human_confirmation.channel, 'client');
    assert.equal(s.executed, true);
    assert.equal(s.execution.outcome, 'created');
    assert.equal(await countCreated(b, name), 1);
    // The token was consumed by round 1: a fresh confirm is a replay.
    const again = await b.callTool('fabric_confirm_change', { confirm_token: token });
    assert.equal(again.result.structuredContent.confirm_checks.not_previously_used, false);
    // The completed state again: the replayed-token error, nothing more created.
    const replay = await retry(b, token, state, ACCEPT);
    const rs = replay.result.structuredContent;
    assert.equal(replay.result.isError, true);
    assert.equal(rs.confirm_checks.not_previously_used, false);
    assert.equal(rs.execution.reason, 'replayed_token');
    assert.match(rs.message, /[Pp]ropose/);
    assert.equal(await countCreated(b, name), 1);
  } finally { await b.close(); }
});

for (const [label, answer, status] of [
  ['decline', { action: 'decline' }, 'declined'],
  ['accept with confirm = false', { action: 'accept', content: { confirm: false } }, 'declined'],
  ['accept without confirm', { action: 'accept', content: {} }, 'declined'],
  ['cancel', { action: 'cancel' }, 'cancelled'],
]) {
  test(`${label}: ${status}, nothing created`, async () => {
    const b = start();
    try {
      const { token, name } = await propose(b);
      const state = await askFor(b, token);
      const r = await retry(b, token, state, answer);
      const s = r.result.structuredContent;
      assert.equal(s.human_confirmation.status, status, JSON.stringify(s).slice(0, 1500));
      assert.equal(s.executed, false);
      assert.equal(s.execution.reason, 'not_approved');
      assert.equal(await countCreated(b, name), 0);
    } finally { await b.close(); }
  });
}

test('a retry without an answer asks again with a new requestState', async () => {
  const b = start();
  try {
    const { token, name } = await propose(b);
    const first = await askFor(b, token);
    const again = await retry(b, token, first, undefined);
    assert.equal(again.result.resultType, 'input_required', JSON.stringify(again).slice(0, 800));
    const second = again.result.requestState;
    assert.notEqual(second, first);
    const r = await retry(b, token, second, ACCEPT);
    assert.equal(r.result.structuredContent.executed, true);
    assert.equal(await countCreated(b, name), 1);
  } finally { await b.close(); }
});

test('tampered and forged requestState: -32602, nothing created, the genuine one still works', async () => {
  const b = start();
  try {
    const { token, name } = await propose(b);
    const state = await askFor(b, token);
    const i = state.length - 3;
    const tampered = state.slice(0, i) + (state[i] === 'A' ? 'B' : 'A') + state.slice(i + 1);
    const forged = 'fbrs1.AAAAAAAAAAAAAAAAAAAAAA.' + 'A'.repeat(43);
    for (const bad of [tampered, forged, '', 'x'.repeat(5000), 'not a state']) {
      const r = await retry(b, token, bad, ACCEPT);
      assert.equal(r.error?.code, -32602, JSON.stringify(r).slice(0, 800));
      assert.equal(r.result, undefined);
    }
    const wrongType = await b.callTool('fabric_confirm_change', { confirm_token: token }, { requestState: 42, inputResponses: { confirm: ACCEPT } });
    assert.equal(wrongType.error?.code, -32602);
    // The state belongs to its token: another token with it is refused too.
    const other = await propose(b);
    const crossed = await retry(b, other.token, state, ACCEPT);
    assert.equal(crossed.error?.code, -32602);
    assert.equal(await countCreated(b, name), 0);
    assert.equal(await countCreated(b, other.name), 0);
    const r = await retry(b, token, state, ACCEPT);
    assert.equal(r.result.structuredContent.executed, true);
    assert.equal(await countCreated(b, name), 1);
  } finally { await b.close(); }
});

test('two racing retries of one state create once', async () => {
  const b = start();
  try {
    const { token, name } = await propose(b);
    const state = await askFor(b, token);
    const frame = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'fabric_confirm_change', arguments: { confirm_token: token }, inputResponses: { confirm: ACCEPT }, requestState: state, _meta: envelope(ELICIT) } });
    b.write(frame('race-1'), frame('race-2')); // one write
    const [r1, r2] = await Promise.all([b.waitFor((m) => m.id === 'race-1', 30000), b.waitFor((m) => m.id === 'race-2', 30000)]);
    const executed = [r1, r2].map((r) => r.result.structuredContent.executed);
    assert.deepEqual(executed.sort(), [false, true]);
    const loser = [r1, r2].find((r) => !r.result.structuredContent.executed).result.structuredContent;
    assert.equal(loser.confirm_checks.not_previously_used, false);
    assert.equal(await countCreated(b, name), 1);
  } finally { await b.close(); }
});

test('no retry within EQUINIX_MCP_ELICIT_TIMEOUT_MS: timed_out, audited at the deadline; a late retry is told so', async () => {
  const log = path.join(scratch, 'timeout-audit.jsonl');
  const b = start({ EQUINIX_MCP_ELICIT_TIMEOUT_MS: '1500', EQUINIX_MCP_AUDIT_LOG: log });
  try {
    const { token, name } = await propose(b);
    await askFor(b, token);
    const state = b.messages.filter((m) => m.result?.requestState).at(-1).result.requestState;
    const decisions = () => fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      .filter((r) => r.type === 'decision');
    assert.equal(decisions().length, 0);
    await sleep(2500);
    // Audited when the deadline passed, before any retry.
    const d = decisions();
    assert.equal(d.length, 1, JSON.stringify(d));
    assert.equal(d[0].data.status, 'timed_out');
    assert.equal(d[0].data.channel, 'client');
    const r = await retry(b, token, state, ACCEPT);
    const s = r.result.structuredContent;
    assert.equal(s.human_confirmation.status, 'timed_out', JSON.stringify(s).slice(0, 1500));
    assert.equal(s.executed, false);
    assert.match(s.message, /after that deadline/);
    assert.equal(await countCreated(b, name), 0);
    assert.equal(decisions().length, 1, 'the late retry does not record a second decision');
  } finally { await b.close(); }
});

test('a modern client without elicitation: unsupported_by_client, the token consumed', async () => {
  const b = start();
  try {
    const { token, name } = await propose(b);
    const r = await b.callTool('fabric_confirm_change', { confirm_token: token }, {}, {});
    assert.equal(r.result.resultType, 'complete');
    const s = r.result.structuredContent;
    assert.equal(s.human_confirmation.status, 'unsupported_by_client', JSON.stringify(s).slice(0, 1500));
    assert.equal(s.executed, false);
    assert.equal(s.confirm_checks.not_previously_used, true);
    const again = await b.callTool('fabric_confirm_change', { confirm_token: token });
    assert.equal(again.result.structuredContent.confirm_checks.not_previously_used, false);
    assert.equal(await countCreated(b, name), 0);
    // No JSON-RPC request was ever written to the client.
    assert.ok(!b.messages.some((m) => m.method && m.id !== undefined), 'no server request');
  } finally { await b.close(); }
});
