// The daily spend limit (issue #23) seen by the official SDK client against the embedded
// sandbox: overlapping confirms cannot exceed it, an inflated proposal is refused at propose,
// a deleted log neither resets the running day nor a restarted one (denied until
// `policy reset-ledger`), and creates "in the future" (a clock stepped back) still count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, baseEnv, connectionSpec, sleep, startBroker, scratchDir } from './lib.mjs';

const usd = (amount) => ({ amount, currency: 'USD' });

function policyEnv(policy, dir) {
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  // The day's marker (docs/audit.md) lives outside the log's folder, in XDG_STATE_HOME: the same
  // across restarts here, as a user's is.
  return { FABRIC_BROKER_POLICY: file, EQUINIX_MCP_AUDIT_LOG: path.join(dir, 'audit.jsonl'), XDG_STATE_HOME: path.join(dir, 'state') };
}
function run(args, env) {
  return new Promise((resolve) => {
    execFile(BIN, args, { env: baseEnv(env) }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}
async function until(cond, ms = 20000) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}
const propose = (b, bandwidth = 50) =>
  b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec({ bandwidth }) });

test('five overlapping confirms under a limit that fits two: exactly two created', async () => {
  const dir = scratchDir('fb-spend-');
  const held = [];
  const elicit = () => new Promise((resolve) => held.push(resolve));
  const b = await startBroker({ env: policyEnv({ spend: { max_monthly_recurring_per_day: usd(300) } }, dir), elicit });
  try {
    const tokens = [];
    for (let i = 0; i < 5; i++) {
      const p = await propose(b); // USD 150/month each
      assert.equal(p.isError, undefined, JSON.stringify(p.structuredContent).slice(0, 600));
      tokens.push(p.structuredContent.confirm_token);
    }
    const done = [];
    const calls = tokens.map((t) => b.call('fabric_confirm_change', { confirm_token: t }, { timeout: 60000 })
      .then((r) => { done.push(r); return r; }));
    // Two are asked (their prices reserved); the other three are refused before anyone is asked.
    await until(() => held.length === 2 && done.length === 3);
    for (const r of done) {
      const s = r.structuredContent;
      assert.equal(s.executed, false);
      assert.equal(s.execution.reason, 'policy_denied');
      assert.equal(s.human_confirmation.status, 'not_requested');
      assert.equal(s.policy.rule, 'spend.max_monthly_recurring_per_day');
      assert.match(s.message, /USD 150\.00\/month would exceed your daily limit: USD 0\.00 of USD 300\.00 already used in the last 24 hours, and USD 300\.00 waiting for approval/);
    }
    for (const resolve of held) resolve({ action: 'accept', content: { confirm: true } });
    const all = await Promise.all(calls);
    assert.equal(all.filter((r) => r.structuredContent.executed).length, 2);
    assert.equal(all.filter((r) => r.structuredContent.execution.outcome === 'created').length, 2);
  } finally { await b.close(); }
});

test('an inflated notifications list is refused at propose by the schema', async () => {
  const dir = scratchDir('fb-spend-');
  const b = await startBroker({ env: policyEnv({ spend: { max_monthly_recurring_per_day: usd(300) } }, dir), elicit: async () => ({ action: 'accept', content: { confirm: true } }) });
  try {
    const spec = connectionSpec();
    spec.notifications = Array.from({ length: 11 }, () => ({ type: 'ALL', emails: ['netops@example.com'] }));
    let r = await b.call('fabric_propose_change', { change_type: 'connection_create', spec });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.confirm_token, undefined);
    assert.match(JSON.stringify(r.structuredContent), /notifications/);
    const emails = Array.from({ length: 300 }, (_, i) => `${'a'.repeat(200)}${i}@example.com`);
    spec.notifications = [{ type: 'ALL', emails }];
    r = await b.call('fabric_propose_change', { change_type: 'connection_create', spec });
    assert.equal(r.isError, true);
    assert.match(JSON.stringify(r.structuredContent), /emails/);
  } finally { await b.close(); }
});

test('the log deleted mid-run: the running day is kept, a restart is denied until reset-ledger', async () => {
  const dir = scratchDir('fb-spend-');
  const env = policyEnv({ spend: { max_monthly_recurring_per_day: usd(300) } }, dir);
  const elicit = async () => ({ action: 'accept', content: { confirm: true } });
  let b = await startBroker({ env, elicit });
  try {
    let c = await b.call('fabric_confirm_change', { confirm_token: (await propose(b)).structuredContent.confirm_token });
    assert.equal(c.structuredContent.executed, true, JSON.stringify(c.structuredContent).slice(0, 600));
    fs.rmSync(env.EQUINIX_MCP_AUDIT_LOG);
    // Counted against the day, not reset: USD 150 of 300 used.
    c = await b.call('fabric_confirm_change', { confirm_token: (await propose(b)).structuredContent.confirm_token });
    assert.equal(c.structuredContent.executed, true);
    assert.deepEqual(c.structuredContent.policy.used, usd(150));
    c = await b.call('fabric_confirm_change', { confirm_token: (await propose(b)).structuredContent.confirm_token });
    assert.equal(c.structuredContent.execution.reason, 'policy_denied');
  } finally { await b.close(); }
  // A restart cannot count the day (the file before the log_continued record is gone): denied.
  b = await startBroker({ env, elicit });
  try {
    const c = await b.call('fabric_confirm_change', { confirm_token: (await propose(b)).structuredContent.confirm_token });
    assert.equal(c.structuredContent.executed, false);
    assert.equal(c.structuredContent.execution.reason, 'policy_denied');
    assert.match(c.structuredContent.message, /unlinked/);
    assert.match(c.structuredContent.message, /fabric-broker policy reset-ledger/);
  } finally { await b.close(); }
  const r = await run(['policy', 'reset-ledger', '--reason', 'e2e: restored by the operator'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /ledger_reset recorded/);
  const records = fs.readFileSync(env.EQUINIX_MCP_AUDIT_LOG, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const reset = records.find((x) => x.type === 'ledger_reset');
  assert.equal(reset.data.reason, 'e2e: restored by the operator');
  assert.match(reset.data.previous_problem, /unlinked/);
  b = await startBroker({ env, elicit });
  try {
    const c = await b.call('fabric_confirm_change', { confirm_token: (await propose(b)).structuredContent.confirm_token });
    assert.equal(c.structuredContent.executed, true, JSON.stringify(c.structuredContent).slice(0, 600));
    assert.deepEqual(c.structuredContent.policy.used, usd(0));
  } finally { await b.close(); }
});

// Issue #34, item 8: with a daily limit of USD 200 and USD 150 creates, deleting the log and its
// head file between runs, or pointing EQUINIX_MCP_AUDIT_LOG at a fresh path, no longer starts the
// day over: the marker outside the log's folder says what is missing (fail closed, with the fix).
test('the log and its head file deleted between runs, or a fresh log path: the day is not reset', async () => {
  const dir = scratchDir('fb-spend-');
  const env = policyEnv({ spend: { max_monthly_recurring_per_day: usd(200) } }, dir);
  const elicit = async () => ({ action: 'accept', content: { confirm: true } });
  const confirmOne = async (e) => {
    const b = await startBroker({ env: e, elicit });
    try {
      return (await b.call('fabric_confirm_change', { confirm_token: (await propose(b)).structuredContent.confirm_token })).structuredContent;
    } finally { await b.close(); }
  };
  let c = await confirmOne(env);
  assert.equal(c.executed, true, JSON.stringify(c).slice(0, 600));
  c = await confirmOne(env); // USD 150 + 150 > 200: refused, and still after a restart
  assert.equal(c.execution.reason, 'policy_denied');
  fs.rmSync(env.EQUINIX_MCP_AUDIT_LOG);
  fs.rmSync(`${env.EQUINIX_MCP_AUDIT_LOG}.head`);
  c = await confirmOne(env);
  assert.equal(c.executed, false, JSON.stringify(c).slice(0, 600));
  assert.equal(c.execution.reason, 'policy_denied');
  assert.match(c.message, /is missing: the log was deleted, truncated or replaced/);
  assert.match(c.message, /fabric-broker policy reset-ledger/);
  // And again: the new log's records did not move the marker.
  c = await confirmOne(env);
  assert.equal(c.execution.reason, 'policy_denied');
  // A fresh path for the log: the same.
  c = await confirmOne({ ...env, EQUINIX_MCP_AUDIT_LOG: path.join(dir, 'fresh', 'audit.jsonl') });
  assert.equal(c.executed, false);
  assert.match(c.message, /the audit log is now .*fresh\/audit\.jsonl, but the last record of the last 24 hours went to/);
  assert.equal(fs.existsSync(path.join(dir, 'state', 'fabric-broker', 'audit-day')), true);
});

// RFC 8785 for these records: sorted keys, integers and strings only.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

test('creates "in the future" (the clock stepped back 2 hours) still count', async () => {
  const dir = scratchDir('fb-spend-');
  const env = policyEnv({ spend: { max_monthly_recurring_per_day: usd(300) } }, dir);
  // A log whose last creates were written 2 hours ahead of this clock.
  const at = new Date(Date.now() + 2 * 3600 * 1000).toISOString();
  const price = { currency: 'USD', monthly_recurring: 200, priced: true };
  const data = [
    ['proposed', { price, request_sha256: 'f'.repeat(64) }],
    ['sending', { price, request_sha256: 'f'.repeat(64) }],
    ['executed', { outcome: 'created', request_sha256: 'f'.repeat(64) }],
  ];
  let prev = '0'.repeat(64);
  const lines = data.map(([type, d], i) => {
    const line = canonical({ data: d, prev, seq: i + 1, time: at, type });
    prev = crypto.createHash('sha256').update(line).digest('hex');
    return line;
  });
  fs.writeFileSync(env.EQUINIX_MCP_AUDIT_LOG, lines.join('\n') + '\n', { mode: 0o600 });
  const b = await startBroker({ env, elicit: async () => ({ action: 'accept', content: { confirm: true } }) });
  try {
    const c = await b.call('fabric_confirm_change', { confirm_token: (await propose(b)).structuredContent.confirm_token });
    assert.equal(c.structuredContent.executed, false, JSON.stringify(c.structuredContent).slice(0, 600));
    assert.equal(c.structuredContent.execution.reason, 'policy_denied');
    assert.deepEqual(c.structuredContent.policy.used, usd(200));
  } finally { await b.close(); }
});
