// The operator policy (docs/policy.md) driven through the real executable: `policy show` and
// `policy check`, the administrator-layer file's ownership rule (root-owned and root-writable
// only, else ignored with a loud error and the mutate toolset refused), a user file that tries
// to loosen (ignored, reported), and toolsets.allowed seen by the official SDK client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, baseEnv, startBroker } from './lib.mjs';

function run(args, env = {}) {
  return new Promise((resolve) => {
    execFile(BIN, args, { env: baseEnv(env) }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

// A directory only root may write to, holding an administrator-layer policy file.
function adminFile(policy, mode = 0o644) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-policy-'));
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  fs.chmodSync(file, mode);
  return file;
}
function userFile(policy) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-policy-user-'));
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
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-xdg-'));
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
    assert.ok(!(await toolNames(b)).includes('fabric_propose_change'), 'spend rules are not enforced yet: mutate refused');
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

test('rules this build does not enforce yet refuse mutate instead of being ignored', async () => {
  const user = userFile({ spend: { max_monthly_recurring_per_change: { amount: 100, currency: 'USD' } } });
  const b = await startBroker({ env: { FABRIC_BROKER_POLICY: user } });
  try {
    assert.ok(!(await toolNames(b)).includes('fabric_propose_change'));
    assert.match(b.stderr, /does not enforce spend\.max_monthly_recurring_per_change yet/);
  } finally { await b.close(); }
  const allow = userFile({ spend: { unpriced: 'allow' }, approval: { channel: 'auto' } });
  const b2 = await startBroker({ env: { FABRIC_BROKER_POLICY: allow } });
  try {
    assert.ok((await toolNames(b2)).includes('fabric_propose_change'));
  } finally { await b2.close(); }
});
