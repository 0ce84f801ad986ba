// The Safe Mutation Broker driven by the official MCP SDK client through every row of the
// seed's table, every token error, eviction, expiry, replay, cancellation and Fabric faults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startBroker, startRaw, startSandboxProcess, connectionSpec, accept, sleep, IDS } from './lib.mjs';

const CHECK_NAMES = ['proposal_exists', 'not_evicted', 'not_expired', 'not_previously_used', 'request_matches_binding'];
const ALL_TRUE = Object.fromEntries(CHECK_NAMES.map((n) => [n, true]));

async function propose(b, spec = connectionSpec(), changeType = 'connection_create') {
  const r = await b.call('fabric_propose_change', { change_type: changeType, spec });
  assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 1500));
  return r.structuredContent;
}

async function countCreated(b, name) {
  const r = await b.call('fabric_search_connections', { name });
  return r.structuredContent.data.filter((c) => c.name === name).length;
}

test('propose returns a bound token, the compiled request and price; accept creates exactly that', async () => {
  let elicitation;
  const b = await startBroker({ elicit: async (req) => { elicitation = req.params; return { action: 'accept', content: { confirm: true } }; } });
  try {
    const spec = connectionSpec();
    const p = await propose(b, spec);
    assert.match(p.confirm_token, /^chg-[0-9a-f]{32}$/);
    assert.equal(p.change_type, 'connection_create');
    assert.equal(p.request.method, 'POST');
    assert.equal(p.request.path, '/fabric/v4/connections');
    assert.deepEqual(p.request.body, spec);
    // request_sha256 = sha256(change_type + "\n" + canonical body): recompute it here.
    const canonical = canonicalize(spec);
    assert.equal(p.request_sha256, createHash('sha256').update('connection_create\n' + canonical).digest('hex'));
    assert.equal(p.validated.uuid, undefined, 'a dry run entity has no uuid');
    assert.ok(p.price, 'price context present');
    assert.deepEqual(p.evicted_proposals, []);
    assert.ok(Date.parse(p.expires_at) - Date.parse(p.proposed_at) === 600000);
    assert.equal(p.sandbox, true);
    assert.equal(await countCreated(b, spec.name), 0, 'propose creates nothing');

    const list = await b.call('fabric_list_proposals');
    assert.equal(list.structuredContent.proposals.length, 1);
    assert.ok(!JSON.stringify(list).includes(p.confirm_token), 'list never shows tokens');

    const c = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    const s = c.structuredContent;
    assert.equal(c.isError, undefined, JSON.stringify(s));
    assert.deepEqual(s.confirm_checks, ALL_TRUE);
    assert.deepEqual({ status: s.human_confirmation.status, channel: s.human_confirmation.channel }, { status: 'accepted', channel: 'client' });
    assert.equal(s.executed, true);
    assert.equal(s.execution.outcome, 'created');
    assert.match(s.execution.uuid, /^[0-9a-f-]{36}$/);
    assert.equal(await countCreated(b, spec.name), 1);

    // The elicitation showed what the broker compiled.
    assert.ok(elicitation.message.includes(p.request_sha256));
    assert.ok(elicitation.message.includes('connection_create'));
    assert.ok(elicitation.message.includes(`aSide.accessPoint.linkProtocol.vlanTag = ${spec.aSide.accessPoint.linkProtocol.vlanTag}`));
    assert.ok(elicitation.message.includes(p.target));
    assert.deepEqual(Object.keys(elicitation.requestedSchema.properties), ['confirm']);
    assert.equal(elicitation.requestedSchema.properties.confirm.type, 'boolean');
    assert.equal(elicitation.requestedSchema.properties.confirm.default, false);

    // Replay: consumed on first use.
    const again = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    assert.equal(again.isError, true);
    assert.deepEqual(again.structuredContent.confirm_checks, { proposal_exists: true, not_evicted: true, not_expired: true, not_previously_used: false, request_matches_binding: null });
    assert.equal(again.structuredContent.executed, false);
    assert.match(again.structuredContent.message, /propose/i);
    assert.equal(await countCreated(b, spec.name), 1);
  } finally { await b.close(); }
});

for (const [label, answer, status] of [
  ['decline', { action: 'decline' }, 'declined'],
  ['accept without confirm', { action: 'accept', content: { confirm: false } }, 'declined'],
  ['accept with empty content', { action: 'accept', content: {} }, 'declined'],
  ['accept with a non-boolean confirm', { action: 'accept', content: { confirm: 'true' } }, 'declined'],
  ['cancel', { action: 'cancel' }, 'cancelled'],
]) {
  test(`elicitation ${label} -> ${status}, nothing created, token consumed`, async () => {
    const b = await startBroker({ elicit: async () => answer });
    try {
      const spec = connectionSpec();
      const p = await propose(b, spec);
      const c = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
      assert.equal(c.structuredContent.human_confirmation.status, status);
      assert.equal(c.structuredContent.human_confirmation.channel, 'client');
      assert.equal(c.structuredContent.executed, false);
      assert.deepEqual(c.structuredContent.confirm_checks, ALL_TRUE);
      assert.equal(await countCreated(b, spec.name), 0);
      const again = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
      assert.equal(again.structuredContent.confirm_checks.not_previously_used, false);
    } finally { await b.close(); }
  });
}

test('elicitation round trip failure -> failed', async () => {
  const b = await startBroker({ elicit: async () => { throw new Error('renderer crashed'); } });
  try {
    const spec = connectionSpec();
    const p = await propose(b, spec);
    const c = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    assert.equal(c.structuredContent.human_confirmation.status, 'failed');
    assert.equal(c.structuredContent.executed, false);
    assert.equal(await countCreated(b, spec.name), 0);
  } finally { await b.close(); }
});

test('no answer within EQUINIX_MCP_ELICIT_TIMEOUT_MS -> timed_out, and the elicitation is cancelled', async () => {
  let aborted = false;
  const b = await startBroker({
    env: { EQUINIX_MCP_ELICIT_TIMEOUT_MS: '700' },
    elicit: (req, extra) => new Promise((resolve) => {
      extra.signal.addEventListener('abort', () => { aborted = true; });
      setTimeout(() => resolve({ action: 'accept', content: { confirm: true } }), 5000);
    }),
  });
  try {
    const spec = connectionSpec();
    const p = await propose(b, spec);
    const c = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    assert.equal(c.structuredContent.human_confirmation.status, 'timed_out');
    assert.equal(c.structuredContent.executed, false);
    await sleep(100);
    assert.equal(aborted, true, 'the server cancelled its elicitation request');
    assert.equal(await countCreated(b, spec.name), 0);
  } finally { await b.close(); }
});

test('accept after the proposal TTL -> accepted with not_expired = false, nothing sent', async () => {
  const b = await startBroker({
    env: { EQUINIX_MCP_PROPOSAL_TTL_MS: '1500' },
    elicit: () => new Promise((resolve) => setTimeout(() => resolve({ action: 'accept', content: { confirm: true } }), 2000)),
  });
  try {
    const spec = connectionSpec();
    const p = await propose(b, spec);
    const c = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    assert.equal(c.structuredContent.human_confirmation.status, 'accepted');
    assert.equal(c.structuredContent.confirm_checks.not_expired, false);
    assert.equal(c.structuredContent.executed, false);
    assert.equal(await countCreated(b, spec.name), 0);
  } finally { await b.close(); }
});

test('client without elicitation -> unsupported_by_client, not executed', async () => {
  const b = await startBroker({});
  try {
    const spec = connectionSpec();
    const p = await propose(b, spec);
    const c = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    assert.equal(c.structuredContent.human_confirmation.status, 'unsupported_by_client');
    assert.equal(c.structuredContent.executed, false);
    assert.equal(await countCreated(b, spec.name), 0);
    const again = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    assert.equal(again.structuredContent.confirm_checks.not_previously_used, false);
  } finally { await b.close(); }
});

test('EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true executes without a person, loudly', async () => {
  const b = await startBroker({ env: { EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS: 'true' } });
  try {
    const spec = connectionSpec();
    const p = await propose(b, spec);
    const c = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    assert.equal(c.structuredContent.human_confirmation.status, 'unsupported_by_client');
    assert.equal(c.structuredContent.executed, true);
    assert.equal(c.structuredContent.unconfirmed_execution, true);
    assert.match(c.structuredContent.message, /WITHOUT human confirmation/);
    assert.match(b.stderr, /WITHOUT HUMAN CONFIRMATION/);
    assert.equal(await countCreated(b, spec.name), 1);
  } finally { await b.close(); }
});

test('token errors: unknown, malformed, expired (short TTL) — each names its predicate', async () => {
  const b = await startBroker({ env: { EQUINIX_MCP_PROPOSAL_TTL_MS: '800' }, elicit: accept() });
  try {
    const unknown = await b.call('fabric_confirm_change', { confirm_token: 'chg-00000000000000000000000000000000' });
    assert.equal(unknown.isError, true);
    assert.deepEqual(unknown.structuredContent.confirm_checks, { proposal_exists: false, not_evicted: null, not_expired: null, not_previously_used: null, request_matches_binding: null });
    assert.equal(unknown.structuredContent.failed_check, 'proposal_exists');
    assert.match(unknown.structuredContent.message, /propose/i);

    const garbage = await b.call('fabric_confirm_change', { confirm_token: 'not a token' });
    assert.equal(garbage.structuredContent.confirm_checks.proposal_exists, false);

    const spec = connectionSpec();
    const p = await propose(b, spec);
    await sleep(1000);
    const expired = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
    assert.equal(expired.isError, true);
    assert.deepEqual(expired.structuredContent.confirm_checks, { proposal_exists: true, not_evicted: true, not_expired: false, not_previously_used: null, request_matches_binding: null });
    assert.equal(expired.structuredContent.failed_check, 'not_expired');
    assert.match(expired.structuredContent.message, /expired/);
    assert.equal(await countCreated(b, spec.name), 0);

    // Extra arguments never revive a token: the token's own outcome is reported (trust.test.mjs
    // covers a live token with extra arguments, which is consumed).
    const extra = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token, spec: {} });
    assert.equal(extra.isError, true);
    assert.equal(extra.structuredContent.executed, false);
    assert.equal(extra.structuredContent.confirm_checks.proposal_exists, true);
  } finally { await b.close(); }
});

test('the 21st proposal evicts the oldest and reports it; the evicted token fails not_evicted', async () => {
  const b = await startBroker({ elicit: accept() });
  try {
    const tokens = [];
    const targets = [];
    for (let i = 0; i < 20; i++) {
      const p = await propose(b);
      assert.deepEqual(p.evicted_proposals, []);
      tokens.push(p.confirm_token); targets.push(p.target);
    }
    const p21 = await propose(b);
    assert.equal(p21.evicted_proposals.length, 1);
    assert.equal(p21.evicted_proposals[0].token, tokens[0]);
    assert.equal(p21.evicted_proposals[0].change_type, 'connection_create');
    assert.equal(p21.evicted_proposals[0].target, targets[0]);
    assert.equal(typeof p21.evicted_proposals[0].age_seconds, 'number');
    const list = await b.call('fabric_list_proposals');
    assert.equal(list.structuredContent.proposals.length, 20);
    const ev = await b.call('fabric_confirm_change', { confirm_token: tokens[0] });
    assert.deepEqual(ev.structuredContent.confirm_checks, { proposal_exists: true, not_evicted: false, not_expired: null, not_previously_used: null, request_matches_binding: null });
    assert.match(ev.structuredContent.message, /evicted/);
    const ok = await b.call('fabric_confirm_change', { confirm_token: tokens[1] });
    assert.equal(ok.structuredContent.executed, true);
  } finally { await b.close(); }
});

test('EQUINIX_MCP_MAX_PENDING lowers the capacity', async () => {
  const b = await startBroker({ env: { EQUINIX_MCP_MAX_PENDING: '2' }, elicit: accept() });
  try {
    const a = await propose(b); await propose(b);
    const c = await propose(b);
    assert.equal(c.evicted_proposals[0].token, a.confirm_token);
  } finally { await b.close(); }
});

test('invalid spec: isError naming each field, nothing sent, no token', async () => {
  const b = await startBroker({ elicit: accept() });
  try {
    const spec = connectionSpec();
    spec.aSide.accessPoint.linkProtocol.vlanTag = 4093;
    spec.bogus = 1;
    const r = await b.call('fabric_propose_change', { change_type: 'connection_create', spec });
    assert.equal(r.isError, true);
    const paths = r.structuredContent.error.violations.map((v) => v.path);
    assert.ok(paths.some((p) => p.includes('vlanTag')), JSON.stringify(paths));
    assert.ok(paths.some((p) => p.includes('bogus')), JSON.stringify(paths));
    const bad = await b.call('fabric_propose_change', { change_type: 'connection_delete', spec: {} });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /change_type/);
    const list = await b.call('fabric_list_proposals');
    assert.equal(list.structuredContent.proposals.length, 0);
  } finally { await b.close(); }
});

test('Fabric dry-run rejection: isError with the Fabric code, no token minted', async () => {
  const b = await startBroker({ elicit: accept() });
  try {
    const spec = connectionSpec();
    const first = await propose(b, spec);
    await b.call('fabric_confirm_change', { confirm_token: first.confirm_token });
    // Same VLAN on the same port is now in use: Fabric's dry run says EQ-3142102.
    const again = connectionSpec({ vlan: spec.aSide.accessPoint.linkProtocol.vlanTag, name: 'other' });
    const r = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: again });
    assert.equal(r.isError, true);
    assert.ok(JSON.stringify(r.structuredContent).includes('EQ-3142102'), JSON.stringify(r.structuredContent));
    assert.equal((await b.call('fabric_list_proposals')).structuredContent.proposals.length, 0);
  } finally { await b.close(); }
});

test('toolset gating: mutate tools are absent and uncallable by default', async () => {
  const b = await startBroker({ args: ['--sandbox'], elicit: accept() });
  try {
    const tools = (await b.client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes('fabric_list_metros'));
    assert.ok(!tools.includes('fabric_propose_change'));
    assert.ok(!tools.includes('fabric_confirm_change'));
    assert.ok(!tools.some((t) => /delete|update|patch/i.test(t)));
    await assert.rejects(b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec() }), /-32602|Unknown tool/);
  } finally { await b.close(); }
});

test('cancel before the call starts: no response, token not consumed', async () => {
  const raw = startRaw();
  try {
    await raw.initialize();
    raw.write({ jsonrpc: '2.0', id: 'p', method: 'tools/call', params: { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec: connectionSpec() } } });
    const p = (await raw.waitFor((m) => m.id === 'p')).result.structuredContent;
    // The call and its cancel in one write: the cancel reaches the call before it starts.
    raw.write(
      { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'fabric_confirm_change', arguments: { confirm_token: p.confirm_token } } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'user pressed stop' } },
    );
    raw.write({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
    await raw.waitFor((m) => m.id === 'ping');
    await sleep(300);
    assert.equal(raw.messages.find((m) => m.id === 'c1'), undefined, 'no response to a cancelled call');
    assert.equal(raw.messages.find((m) => m.method === 'elicitation/create'), undefined, 'nobody was asked');
    // The token is still good.
    raw.write({ jsonrpc: '2.0', id: 'c2', method: 'tools/call', params: { name: 'fabric_confirm_change', arguments: { confirm_token: p.confirm_token } } });
    const el = await raw.waitFor((m) => m.method === 'elicitation/create');
    raw.write({ jsonrpc: '2.0', id: el.id, result: { action: 'accept', content: { confirm: true } } });
    const r = await raw.waitFor((m) => m.id === 'c2');
    assert.deepEqual(r.result.structuredContent.confirm_checks, ALL_TRUE);
    assert.equal(r.result.structuredContent.executed, true);
  } finally { await raw.close(); }
});

test('cancel while the person is being asked: call_cancelled, prompt withdrawn, token consumed', async () => {
  const raw = startRaw();
  try {
    await raw.initialize();
    const spec = connectionSpec();
    raw.write({ jsonrpc: '2.0', id: 'p', method: 'tools/call', params: { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } } });
    const p = (await raw.waitFor((m) => m.id === 'p')).result.structuredContent;
    raw.write({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'fabric_confirm_change', arguments: { confirm_token: p.confirm_token } } });
    const el = await raw.waitFor((m) => m.method === 'elicitation/create');
    raw.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'stop' } });
    const withdrawn = await raw.waitFor((m) => m.method === 'notifications/cancelled' && m.params.requestId === el.id);
    assert.ok(withdrawn);
    // A late accept must change nothing.
    raw.write({ jsonrpc: '2.0', id: el.id, result: { action: 'accept', content: { confirm: true } } });
    await sleep(400);
    assert.equal(raw.messages.find((m) => m.id === 'c1'), undefined);
    raw.write({ jsonrpc: '2.0', id: 'c2', method: 'tools/call', params: { name: 'fabric_confirm_change', arguments: { confirm_token: p.confirm_token } } });
    const r = await raw.waitFor((m) => m.id === 'c2');
    assert.equal(r.result.structuredContent.confirm_checks.not_previously_used, false);
    raw.write({ jsonrpc: '2.0', id: 's', method: 'tools/call', params: { name: 'fabric_search_connections', arguments: { name: spec.name } } });
    const s = await raw.waitFor((m) => m.id === 's');
    assert.equal(s.result.structuredContent.data.length, 0);
  } finally { await raw.close(); }
});

test('cancel after the create was sent: the call still answers that it executed', async () => {
  const sandbox = await startSandboxProcess();
  const raw = startRaw({ args: ['--toolsets', 'read,mutate'], env: sandbox.env });
  try {
    await raw.initialize();
    const spec = connectionSpec();
    raw.write({ jsonrpc: '2.0', id: 'p', method: 'tools/call', params: { name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } } });
    const p = (await raw.waitFor((m) => m.id === 'p')).result.structuredContent;
    await sandbox.admin('POST', '/sandbox/v1/faults', { latencyMs: 1500 });
    raw.write({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'fabric_confirm_change', arguments: { confirm_token: p.confirm_token } } });
    const el = await raw.waitFor((m) => m.method === 'elicitation/create');
    raw.write({ jsonrpc: '2.0', id: el.id, result: { action: 'accept', content: { confirm: true } } });
    await sleep(500); // the create is in flight at the sandbox
    raw.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'too slow' } });
    const r = await raw.waitFor((m) => m.id === 'c1', 10000);
    assert.equal(r.result.structuredContent.executed, true);
    assert.equal(r.result.structuredContent.execution.outcome, 'created');
  } finally { await raw.close(); await sandbox.stop(); }
});

for (const [label, fault, outcome] of [
  ['5xx', { fail: { count: 1, status: 503 } }, 'unknown'],
  ['dropped connection after the request was read', { drop: { count: 1, onlyRealCreates: true } }, 'unknown'],
]) {
  test(`Fabric failure during confirm (${label}): sent once, never retried, outcome ${outcome}`, async () => {
    const sandbox = await startSandboxProcess();
    // The fault is set while the person is asked: after the re-validation dry run (issue 17).
    const elicit = async () => { await sandbox.admin('POST', '/sandbox/v1/faults', fault); return { action: 'accept', content: { confirm: true } }; };
    const b = await startBroker({ args: ['--toolsets', 'read,mutate'], env: sandbox.env, elicit });
    try {
      const spec = connectionSpec();
      const p = await propose(b, spec);
      const c = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token });
      const s = c.structuredContent;
      assert.equal(c.isError, true);
      assert.equal(s.executed, true, 'the request was sent');
      assert.equal(s.execution.outcome, outcome);
      if (outcome === 'unknown') {
        assert.match(s.message, /NOT retried/);
        assert.equal(s.execution.lookup.name, spec.name);
      }
      await sleep(300);
      const log = await sandbox.admin('GET', '/sandbox/v1/requests');
      const requests = log.data;
      const creates = requests.filter((r) => r.method === 'POST' && r.path === '/fabric/v4/connections' && !r.dryRun);
      assert.equal(creates.length, 1, 'exactly one real create was sent');
    } finally { await b.close(); await sandbox.stop(); }
  });
}

test('read catalog: every list and search tool works with no arguments', async () => {
  const b = await startBroker({ args: ['--sandbox'] });
  try {
    const tools = (await b.client.listTools()).tools;
    for (const t of tools) {
      assert.equal(t.annotations?.readOnlyHint, true, t.name);
      assert.ok(t.description && t.inputSchema.type === 'object' && t.outputSchema?.type === 'object', t.name);
    }
    for (const name of ['fabric_search_connections', 'fabric_list_ports', 'fabric_list_metros', 'fabric_search_service_profiles',
      'fabric_search_networks', 'fabric_search_service_tokens', 'fabric_search_cloud_routers', 'fabric_search_prices']) {
      const r = await b.call(name, {});
      assert.equal(r.isError, undefined, `${name}: ${JSON.stringify(r).slice(0, 500)}`);
      assert.ok(Array.isArray(r.structuredContent.data), name);
      assert.ok(r.structuredContent.data.length > 0, `${name} returns the seeded estate`);
      assert.ok(r.structuredContent.pagination, name);
    }
    const port = await b.call('fabric_get_port', { uuid: IDS.portSvPrimary });
    assert.equal(port.structuredContent.uuid, IDS.portSvPrimary);
    assert.ok(Array.isArray(port.structuredContent.vlans_in_use));
    const prof = await b.call('fabric_get_service_profile', { uuid: IDS.profileAws });
    assert.equal(prof.structuredContent.uuid, IDS.profileAws);
    const missing = await b.call('fabric_get_connection', { uuid: '00000000-0000-4000-8000-000000000000' });
    assert.equal(missing.isError, true);
    const invalid = await b.call('fabric_get_connection', { uuid: 'nope' });
    assert.equal(invalid.isError, true);
    assert.match(invalid.content[0].text, /uuid/);
    const page = await b.call('fabric_list_ports', { limit: 2, offset: 1 });
    assert.equal(page.structuredContent.data.length, 2);
    assert.equal(page.structuredContent.pagination.offset, 1);
  } finally { await b.close(); }
});

// RFC 8785 for the JSON this test writes (integers and strings only).
function canonicalize(v) {
  if (Array.isArray(v)) return '[' + v.map(canonicalize).join(',') + ']';
  if (v && typeof v === 'object') {
    return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonicalize(v[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

test('progress notifications while a person is being asked (when the call carries a progress token)', async () => {
  const b = await startBroker({ elicit: () => new Promise((resolve) => setTimeout(() => resolve({ action: 'accept', content: { confirm: true } }), 300)) });
  try {
    const p = await propose(b);
    const progress = [];
    const c = await b.call('fabric_confirm_change', { confirm_token: p.confirm_token }, { onprogress: (n) => progress.push(n) });
    assert.equal(c.structuredContent.executed, true);
    assert.ok(progress.length >= 1, 'at least one progress notification');
    assert.match(progress[0].message, /approve/);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress, 'monotonic');
  } finally { await b.close(); }
});
