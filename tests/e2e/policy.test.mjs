// The operator policy (docs/policy.md) driven through the real executable: `policy show` and
// `policy check`, the administrator-layer file's ownership rule (root-owned and root-writable
// only, else ignored with a loud error and the mutate toolset refused), a user file that tries
// to loosen (ignored, reported), and toolsets.allowed seen by the official SDK client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, IDS, accept, baseEnv, connectionSpec, nextVlan, sleep, startBroker, startSandboxProcess, scratchDir } from './lib.mjs';

function run(args, env = {}) {
  return new Promise((resolve) => {
    execFile(BIN, args, { env: baseEnv(env) }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

// A directory only root may write to, holding an administrator-layer policy file.
function adminFile(policy, mode = 0o644) {
  const dir = scratchDir('fb-policy-');
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  fs.chmodSync(file, mode);
  return file;
}
function userFile(policy) {
  const dir = scratchDir('fb-policy-user-');
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, typeof policy === 'string' ? policy : JSON.stringify(policy));
  return file;
}
const isRoot = process.getuid && process.getuid() === 0;

async function toolNames(b) {
  const tools = await b.client.listTools();
  return tools.tools.map((t) => t.name);
}

test('policy check validates a file and names the key of every error', async () => {
  const good = userFile({ spend: { unpriced: 'deny' } });
  let r = await run(['policy', 'check', good]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /valid policy \(1 key\(s\) set\)/);

  const bad = userFile({ spend: { max_monthly_recurring_per_change: 500, per_week: 1 }, colour: 'red' });
  r = await run(['policy', 'check', bad]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /spend\.max_monthly_recurring_per_change: must be an object/);
  assert.match(r.stderr, /spend\.per_week: unknown key/);
  assert.match(r.stderr, /colour: unknown key/);

  r = await run(['policy', 'check', '/nonexistent/policy.json']);
  assert.equal(r.code, 2);
  r = await run(['policy', 'frobnicate']);
  assert.equal(r.code, 2);
});

test('the shipped example passes policy check', async () => {
  const example = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../packaging/policy/policy.example.json');
  const r = await run(['policy', 'check', example]);
  assert.equal(r.code, 0, r.stderr);
});

test('policy show: defaults, and the source of each value', async () => {
  let r = await run(['policy', 'show', '--json'], { FABRIC_BROKER_POLICY: '/nonexistent/p.json' });
  assert.equal(r.code, 0, r.stderr);
  let doc = JSON.parse(r.stdout);
  assert.deepEqual(doc.policy.revalidate_before_send_after_ms, { value: 60000, source: 'default' });
  assert.deepEqual(doc.policy['spend.unpriced'], { value: 'allow', source: 'default' });
  assert.deepEqual(doc.policy['fabric.endpoint'], { value: null, source: 'not set' });
  assert.equal(doc.mutate_refused, false);

  const user = userFile({ revalidate_before_send_after_ms: 1000 });
  r = await run(['policy', 'show'], { FABRIC_BROKER_POLICY: user });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(`revalidate_before_send_after_ms = 1000  [${user}]`), r.stdout);
  assert.ok(r.stdout.includes('spend.unpriced = allow  [default]'), r.stdout);
});

test('the user policy defaults to $XDG_CONFIG_HOME/fabric-broker/policy.json', async () => {
  const config = scratchDir('fb-xdg-');
  fs.mkdirSync(path.join(config, 'fabric-broker'));
  fs.writeFileSync(path.join(config, 'fabric-broker', 'policy.json'), '{"spend": {"unpriced": "deny"}}');
  const r = await run(['policy', 'show', '--json'], { XDG_CONFIG_HOME: config });
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.policy['spend.unpriced'].value, 'deny');
  assert.equal(doc.policy['spend.unpriced'].source, path.join(config, 'fabric-broker', 'policy.json'));
});

test('a user file that tries to loosen the administrator is ignored and reported', { skip: !isRoot && 'needs root for a root-owned file' }, async () => {
  const admin = adminFile({ spend: { max_monthly_recurring_per_change: { amount: 500, currency: 'USD' }, unpriced: 'deny' } });
  const user = userFile({ spend: { max_monthly_recurring_per_change: { amount: 5000, currency: 'USD' }, unpriced: 'allow' } });
  const env = { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, FABRIC_BROKER_POLICY: user };
  let r = await run(['policy', 'show', '--json'], env);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.deepEqual(doc.policy['spend.max_monthly_recurring_per_change'],
    { value: { amount: 500, currency: 'USD' }, source: admin, locked_by_administrator: true });
  assert.equal(doc.policy['spend.unpriced'].value, 'deny');
  assert.equal(doc.ignored.length, 2);
  assert.match(doc.ignored[0], /spend\.max_monthly_recurring_per_change: the value .*5000.* is ignored: it is looser than the administrator's USD 500\.00/);
  r = await run(['policy', 'show'], env);
  assert.match(r.stdout, /set by your administrator/);
  assert.match(r.stderr, /ignored: spend\.unpriced/);

  // The broker reports it loudly at startup too, and keeps the administrator's values.
  const b = await startBroker({ env });
  try {
    assert.ok((await toolNames(b)).includes('fabric_propose_change'));
    assert.match(b.stderr, /policy: spend\.unpriced: the value "allow" .* is ignored/);
  } finally { await b.close(); }
});

test('an administrator file writable by anyone but root is ignored and mutate is refused', { skip: !isRoot && 'needs root for a root-owned file' }, async () => {
  // Root-owned, 0644: applied.
  const ok = adminFile({ toolsets: { allowed: ['read', 'mutate'] } });
  let b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: ok } });
  try {
    assert.ok((await toolNames(b)).includes('fabric_propose_change'));
    assert.doesNotMatch(b.stderr, /POLICY ERROR/);
  } finally { await b.close(); }

  // World-writable: ignored with a loud error, and mutate is not served.
  const writable = adminFile({ spend: { unpriced: 'allow' } }, 0o666);
  b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: writable } });
  try {
    const names = await toolNames(b);
    assert.ok(!names.includes('fabric_propose_change'));
    assert.ok(!names.includes('fabric_confirm_change'));
    assert.ok(names.includes('fabric_search_connections'), 'reads keep working');
    assert.match(b.stderr, /POLICY ERROR: policy file .* is IGNORED: it is writable by its group or by everyone \(mode 0666\)/);
    assert.match(b.stderr, /the mutate toolset is NOT served/);
  } finally { await b.close(); }
  const show = await run(['policy', 'show', '--json'], { FABRIC_BROKER_EXTRA_ADMIN_POLICY: writable });
  assert.equal(show.code, 1);
  assert.equal(JSON.parse(show.stdout).mutate_refused, true);

  // Owned by another user (even with mode 0644): ignored the same way.
  const foreign = adminFile({});
  fs.chownSync(foreign, 65534, 65534);
  b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: foreign } });
  try {
    assert.ok(!(await toolNames(b)).includes('fabric_propose_change'));
    assert.match(b.stderr, /owned by uid 65534, not root/);
  } finally { await b.close(); }
});

test('an invalid user file refuses mutate rather than falling back to a looser policy', async () => {
  const bad = userFile('{"toolsets": {"allowed": "read"}}');
  const b = await startBroker({ env: { FABRIC_BROKER_POLICY: bad } });
  try {
    assert.ok(!(await toolNames(b)).includes('fabric_propose_change'));
    assert.match(b.stderr, /toolsets\.allowed: must be an array/);
  } finally { await b.close(); }
});

test('toolsets.allowed ["read"] forbids mutate even when --toolsets asks for it', async () => {
  const user = userFile({ toolsets: { allowed: ['read'] }, allow_unconfirmed_mutations: false });
  const b = await startBroker({ env: { FABRIC_BROKER_POLICY: user, EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS: 'true' } });
  try {
    const names = await toolNames(b);
    assert.ok(!names.includes('fabric_propose_change'));
    assert.ok(names.includes('fabric_search_connections'));
    assert.match(b.stderr, /the mutate toolset is not served: toolsets\.allowed/);
    assert.match(b.stderr, /EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true is overridden/);
  } finally { await b.close(); }
});

test('fabric.endpoint locks mutate to that endpoint', async () => {
  const user = userFile({ fabric: { endpoint: 'https://api.equinix.com' } });
  const b = await startBroker({ env: { FABRIC_BROKER_POLICY: user } });
  try {
    assert.ok(!(await toolNames(b)).includes('fabric_propose_change'), 'the sandbox is not the locked endpoint');
    assert.match(b.stderr, /fabric\.endpoint .* locks the endpoint to https:\/\/api\.equinix\.com/);
  } finally { await b.close(); }
});

// The attack: an agent that can edit its MCP client's configuration points the broker it spawns
// at a server of its own (here a second sandbox process stands in for it) to collect the client
// secret. With fabric.endpoint locked elsewhere, no request at all reaches that server: not the
// token request (which carries the secret), not a read. Without the lock, the same setup does
// reach it (the control, so the test cannot pass for another reason).
test('fabric.endpoint: no request, not even for a token, goes to another endpoint', async () => {
  const other = await startSandboxProcess();
  const requests = async () => (await other.admin('GET', '/sandbox/v1/requests')).data;
  try {
    const locked = userFile({ fabric: { endpoint: 'https://api.equinix.com' } });
    const b = await startBroker({ args: ['--toolsets', 'read'], env: { ...other.env, FABRIC_BROKER_POLICY: locked } });
    try {
      const r = await b.call('fabric_list_metros', {});
      assert.equal(r.isError, true, JSON.stringify(r).slice(0, 1500));
      const text = JSON.stringify(r);
      assert.match(text, /fabric\.endpoint \(.*\) locks the Fabric endpoint to https:\/\/api\.equinix\.com/, text);
      assert.match(text, /nothing was sent/, text);
      assert.ok(!text.includes(other.env.EQUINIX_API_CLIENTSECRET), 'no secret in the result');
    } finally { await b.close(); }
    assert.deepEqual(await requests(), [], 'nothing reached the other endpoint');

    const b2 = await startBroker({ args: ['--toolsets', 'read'], env: { ...other.env, FABRIC_BROKER_POLICY: userFile({}) } });
    try {
      const r = await b2.call('fabric_list_metros', {});
      assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 1500));
    } finally { await b2.close(); }
    assert.ok((await requests()).some((q) => q.path === '/oauth2/v1/token'), 'the control reached it');
  } finally { await other.stop(); }
});

test('typed_confirmation_above_monthly: only the desktop dialog can ask for typing, so a client-only session is refused', async () => {
  const user = userFile({ approval: { typed_confirmation_above_monthly: { amount: 100, currency: 'USD' } } });
  let elicited = 0;
  const b = await startBroker({ env: { FABRIC_BROKER_POLICY: user }, elicit: async () => { elicited++; return { action: 'accept', content: { confirm: true } }; } });
  try {
    assert.ok((await toolNames(b)).includes('fabric_propose_change'), b.stderr);
    const p = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec() });
    assert.equal(p.isError, undefined, JSON.stringify(p.structuredContent).slice(0, 600));
    const c = await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    const s = c.structuredContent;
    assert.equal(s.executed, false);
    assert.equal(s.human_confirmation.status, 'unsupported_by_client');
    assert.equal(s.policy.rule, 'approval.typed_confirmation_above_monthly');
    assert.ok(s.human_confirmation.detail.startsWith('approval.typed_confirmation_above_monthly: '));
    assert.equal(elicited, 0);
  } finally { await b.close(); }
  // At or below the threshold nothing needs typing.
  const low = userFile({ approval: { typed_confirmation_above_monthly: { amount: 150, currency: 'USD' } } });
  const b2 = await startBroker({ env: { FABRIC_BROKER_POLICY: low }, elicit: accept() });
  try {
    const p = await b2.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec() });
    const c = await b2.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    assert.equal(c.structuredContent.executed, true, JSON.stringify(c.structuredContent).slice(0, 600));
    assert.equal(c.structuredContent.policy.checks[0].verdict, 'allow');
  } finally { await b2.close(); }
});

// ---- Spend limits and the desktop-only rule at propose and confirm -------------------------

async function proposeConn(b, bandwidth = 50) {
  return b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec({ bandwidth }) });
}
function policyEnv(policy, extra = {}) {
  return { FABRIC_BROKER_POLICY: userFile(policy), ...extra };
}
const usd = (amount) => ({ amount, currency: 'USD' });

test('max_monthly_recurring_per_change: above the limit no token, exactly at it a token', async () => {
  const b = await startBroker({ env: policyEnv({ spend: { max_monthly_recurring_per_change: usd(150) } }), elicit: accept() });
  try {
    assert.ok((await toolNames(b)).includes('fabric_propose_change'), b.stderr);
    const over = await proposeConn(b, 100); // USD 200/month
    assert.equal(over.isError, true);
    const s = over.structuredContent;
    assert.equal(s.confirm_token, undefined);
    assert.equal(s.error.kind, 'policy_denied');
    assert.equal(s.error.rule, 'spend.max_monthly_recurring_per_change');
    assert.deepEqual(s.error.limit, usd(150));
    assert.equal(s.error.price.monthly_recurring, 200);
    assert.deepEqual({ verdict: s.policy.verdict, rule: s.policy.rule, limit: s.policy.limit, used: s.policy.used },
      { verdict: 'deny', rule: 'spend.max_monthly_recurring_per_change', limit: usd(150), used: usd(200) });
    assert.match(s.error.message, /USD 200\.00\/month is above the limit of USD 150\.00\/month/);

    const at = await proposeConn(b, 50); // USD 150/month: exactly the limit
    assert.equal(at.isError, undefined, JSON.stringify(at.structuredContent));
    assert.match(at.structuredContent.confirm_token, /^chg-/);
    assert.equal(at.structuredContent.policy.verdict, 'allow');
    const c = await b.call('fabric_confirm_change', { confirm_token: at.structuredContent.confirm_token });
    assert.equal(c.structuredContent.executed, true, JSON.stringify(c.structuredContent));
    assert.equal(c.structuredContent.policy.verdict, 'allow');
    assert.equal(c.structuredContent.policy.rule, 'spend.max_monthly_recurring_per_change');
  } finally { await b.close(); }
});

test('max_monthly_recurring_per_day: summed from the audit log, across a restart', async () => {
  const dir = scratchDir('fb-policy-audit-');
  const env = policyEnv({ spend: { max_monthly_recurring_per_day: usd(300) } }, { EQUINIX_MCP_AUDIT_LOG: path.join(dir, 'audit.jsonl') });
  let elicited = 0;
  const elicit = async () => { elicited++; return { action: 'accept', content: { confirm: true } }; };
  let b = await startBroker({ env, elicit });
  try {
    for (const expectUsed of [0, 150]) {
      const p = await proposeConn(b, 50);
      assert.equal(p.isError, undefined, JSON.stringify(p.structuredContent));
      const c = await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
      const s = c.structuredContent;
      assert.equal(s.executed, true, JSON.stringify(s));
      assert.equal(s.policy.rule, 'spend.max_monthly_recurring_per_day');
      assert.deepEqual(s.policy.used, usd(expectUsed));
      assert.deepEqual(s.policy.limit, usd(300));
    }
    assert.equal(elicited, 2);
  } finally { await b.close(); }

  // A restart does not reset the sum: 300 of 300 used, so the next create is refused before
  // anyone is asked.
  b = await startBroker({ env, elicit });
  try {
    const p = await proposeConn(b, 50);
    assert.equal(p.isError, undefined, 'the daily limit is checked at confirm, not at propose');
    const c = await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    const s = c.structuredContent;
    assert.equal(c.isError, true);
    assert.equal(s.executed, false);
    assert.equal(s.execution.reason, 'policy_denied');
    assert.equal(s.human_confirmation.status, 'not_requested');
    assert.equal(elicited, 2, 'nobody was asked');
    assert.deepEqual(Object.values(s.confirm_checks), [true, true, true, true, true], 'the seed checks stay as they are');
    assert.deepEqual({ verdict: s.policy.verdict, rule: s.policy.rule, limit: s.policy.limit, used: s.policy.used },
      { verdict: 'deny', rule: 'spend.max_monthly_recurring_per_day', limit: usd(300), used: usd(300) });
    assert.match(s.message, /would exceed your daily limit: USD 300\.00 of USD 300\.00 already used/);
    // The token is used up.
    const again = await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    assert.equal(again.structuredContent.failed_check, 'not_previously_used');
  } finally { await b.close(); }
  const records = fs.readFileSync(path.join(dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const verdicts = records.filter((r) => r.type === 'policy').map((r) => r.data.policy.verdict);
  assert.deepEqual(verdicts, ['allow', 'allow', 'deny']);
  assert.ok(records.filter((r) => r.type === 'proposed').every((r) => r.data.policy.verdict === 'allow'));
});

const network = (name) => ({ type: 'EVPLAN', name, scope: 'LOCAL', notifications: [{ type: 'ALL', emails: ['netops@example.com'] }] });

test('spend.unpriced deny: an unpriced proposal gets no token', async () => {
  const b = await startBroker({ env: policyEnv({ spend: { unpriced: 'deny' } }) });
  try {
    const r = await b.call('fabric_propose_change', { change_type: 'network_create', spec: network('e2e-policy-net') });
    const s = r.structuredContent;
    assert.equal(r.isError, true, JSON.stringify(s).slice(0, 800));
    assert.equal(s.error.kind, 'policy_denied');
    assert.equal(s.confirm_token, undefined);
    assert.equal(s.policy.rule, 'spend.unpriced');
    assert.equal(s.policy.limit, 'deny');
    assert.equal(s.price.priced, false);
  } finally { await b.close(); }
});

test('desktop-only rules on a client-only session: unsupported_by_client with the rule named', async () => {
  for (const policy of [{ approval: { desktop_required_above_monthly: usd(100) } }, { spend: { unpriced: 'require_desktop' } }]) {
    let elicited = 0;
    const b = await startBroker({ env: policyEnv(policy), elicit: async () => { elicited++; return { action: 'accept', content: { confirm: true } }; } });
    try {
      const p = policy.spend
        ? await b.call('fabric_propose_change', { change_type: 'network_create', spec: network('e2e-policy-desk') })
        : await proposeConn(b, 50);
      assert.equal(p.isError, undefined, JSON.stringify(p.structuredContent).slice(0, 600));
      const c = await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
      const s = c.structuredContent;
      assert.equal(s.executed, false);
      assert.equal(s.human_confirmation.status, 'unsupported_by_client');
      assert.equal(s.human_confirmation.channel, 'client');
      const rule = policy.spend ? 'spend.unpriced' : 'approval.desktop_required_above_monthly';
      assert.ok(s.human_confirmation.detail.startsWith(rule + ': '), s.human_confirmation.detail);
      assert.equal(s.policy.verdict, 'require_desktop');
      assert.equal(s.policy.rule, rule);
      assert.equal(s.execution.reason, 'policy_requires_desktop');
      assert.equal(elicited, 0, 'an elicitation accept is not enough');
    } finally { await b.close(); }
  }
});

test('the approval prompt shows the daily limit', async () => {
  let message;
  const b = await startBroker({ env: policyEnv({ spend: { max_monthly_recurring_per_day: usd(1000) } }),
    elicit: async (req) => { message = req.params.message; return { action: 'decline' }; } });
  try {
    const p = await proposeConn(b, 50);
    await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    assert.match(message, /\nPolicy: within your daily limit: USD 0\.00 of USD 1,000\.00 used, this change adds USD 150\.00\n/);
  } finally { await b.close(); }
});

// ---- Re-validation at confirm --------------------------------------------------------------

test('re-validation: the VLAN taken between propose and confirm stops the confirm before anyone is asked', async () => {
  let elicited = 0;
  const b = await startBroker({ elicit: async () => { elicited++; return { action: 'accept', content: { confirm: true } }; } });
  try {
    const vlan = nextVlan();
    const a = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec({ vlan, name: `e2e-reval-a-${vlan}` }) });
    const second = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec({ vlan, name: `e2e-reval-b-${vlan}` }) });
    assert.equal(second.isError, undefined, 'both dry runs pass while the VLAN is free');

    const ca = await b.call('fabric_confirm_change', { confirm_token: a.structuredContent.confirm_token });
    assert.equal(ca.structuredContent.executed, true, JSON.stringify(ca.structuredContent));
    assert.deepEqual({ ran: ca.structuredContent.revalidation.ran, ok: ca.structuredContent.revalidation.ok, errors: ca.structuredContent.revalidation.fabric_errors },
      { ran: true, ok: true, errors: [] });
    assert.equal(ca.structuredContent.revalidation.before_send.ran, false, 'answered within 60 s');
    assert.equal(elicited, 1);

    const cb = await b.call('fabric_confirm_change', { confirm_token: second.structuredContent.confirm_token });
    const s = cb.structuredContent;
    assert.equal(cb.isError, true);
    assert.equal(s.executed, false);
    assert.equal(s.execution.reason, 'revalidation_failed');
    assert.equal(s.human_confirmation.status, 'not_requested');
    assert.equal(elicited, 1, 'nobody was asked');
    assert.deepEqual(Object.values(s.confirm_checks), [true, true, true, true, true], 'the seed checks stay as they are');
    assert.equal(s.revalidation.ran, true);
    assert.equal(s.revalidation.ok, false);
    assert.ok(s.revalidation.fabric_errors.length >= 1);
    assert.match(JSON.stringify(s.revalidation.fabric_errors), /VLAN already in use/);
    assert.match(s.message, /Re-propose the change/);
    const again = await b.call('fabric_confirm_change', { confirm_token: second.structuredContent.confirm_token });
    assert.equal(again.structuredContent.failed_check, 'not_previously_used', 'the token stays consumed');
    assert.deepEqual(again.structuredContent.revalidation.ran, false);
    assert.match(again.structuredContent.revalidation.reason, /not needed/);
    const names = (await b.call('fabric_search_connections', { name: `e2e-reval-b-${vlan}` })).structuredContent.data;
    assert.equal(names.filter((c) => c.name === `e2e-reval-b-${vlan}`).length, 0);
  } finally { await b.close(); }
});

test('re-validation right before sending when the person took longer than revalidate_before_send_after_ms', async () => {
  const dir = scratchDir('fb-reval-audit-');
  const auditLog = path.join(dir, 'audit.jsonl');
  const vlan = nextVlan();
  let b;
  let tokenA;
  const elicit = async (req) => {
    if (req.params.message.includes(`e2e-slow-b-${vlan}`)) {
      // While the person reads B's prompt, A (same VLAN) is approved and created.
      const ca = await b.call('fabric_confirm_change', { confirm_token: tokenA });
      assert.equal(ca.structuredContent.executed, true, JSON.stringify(ca.structuredContent));
    } else {
      await sleep(20);
    }
    return { action: 'accept', content: { confirm: true } };
  };
  b = await startBroker({ env: policyEnv({ revalidate_before_send_after_ms: 0 }, { EQUINIX_MCP_AUDIT_LOG: auditLog }), elicit });
  try {
    assert.ok((await toolNames(b)).includes('fabric_confirm_change'), b.stderr);
    const a = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec({ vlan, name: `e2e-slow-a-${vlan}` }) });
    const bb = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec({ vlan, name: `e2e-slow-b-${vlan}` }) });
    tokenA = a.structuredContent.confirm_token;
    const c = await b.call('fabric_confirm_change', { confirm_token: bb.structuredContent.confirm_token });
    const s = c.structuredContent;
    assert.equal(s.executed, false, JSON.stringify(s));
    assert.equal(s.human_confirmation.status, 'accepted');
    assert.equal(s.execution.reason, 'revalidation_failed');
    assert.equal(s.revalidation.ran, true);
    assert.equal(s.revalidation.ok, true, 'before asking the VLAN was free');
    assert.equal(s.revalidation.before_send.ran, true);
    assert.equal(s.revalidation.before_send.ok, false);
    assert.match(JSON.stringify(s.revalidation.before_send.fabric_errors), /VLAN already in use/);
    assert.match(s.message, /right before sending/);
  } finally { await b.close(); }
  const records = fs.readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const runs = records.filter((r) => r.type === 'revalidation').map((r) => `${r.data.stage}:${r.data.ok}`);
  // B before asking, A before asking, A before sending, B before sending.
  assert.deepEqual(runs, ['before_asking:true', 'before_asking:true', 'before_send:true', 'before_send:false']);
  assert.equal(records.filter((r) => r.type === 'sending').length, 1, 'only A was sent');
});
