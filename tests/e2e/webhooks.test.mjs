// Notify-only webhooks (issue #37, docs/notify.md): the real binary with an administrator's
// policy file (FABRIC_BROKER_EXTRA_ADMIN_POLICY: root-owned, in a root-only folder, as the policy
// loader demands), a separate sandbox process and loopback HTTP receivers in this file, driven by
// the official SDK client whose elicitation answers the approvals.
//  1. A confirmed create gives needs_approval, approved, created; a declined one needs_approval,
//     denied; a create the sandbox answers 500 after committing it needs_approval, approved,
//     unknown. The generic, Slack and Teams receivers get each once; no received byte (request
//     line, headers, body) holds a confirm token, the credentials or a spec value the summary
//     does not show; each delivery is audited with the URL's origin only.
//  2. A receiver that hangs and one that answers 500: the create executes and the confirm's result
//     is that of a broker without webhooks; the confirm returns while the hanging receiver still
//     holds its request; the 500 is tried three times and audited as failed, the hanging one is
//     audited as failed when the broker exits.
//  3. A user's policy file naming webhooks: ignored and reported (origin only), nothing is sent;
//     `policy show` prints the administrator's webhooks as origins only.
//  4. Webhooks the administrator adds to the file while the broker runs apply to the next
//     confirm; removed again, they get nothing more.
// Team mode (only the proposing broker sends): team-webhooks.test.mjs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { BIN, baseEnv, connectionSpec, scratchDir, sleep, startBroker, startSandboxProcess } from './lib.mjs';

const inCI = process.env.CI === 'true';
const servers = new Set();
const cleanups = [];

after(async () => {
  for (const c of cleanups.reverse()) { try { await c(); } catch { /* already gone */ } }
  for (const s of [...servers]) { s.closeAllConnections?.(); await new Promise((r) => s.close(() => r())); }
});

function skipUnlessRoot(t) {
  if (process.getuid?.() === 0) return false;
  if (inCI) assert.fail('CI runs as root: the administrator policy file must be root-owned');
  t.skip('needs root for a root-owned administrator policy file');
  return true;
}

// A root-owned administrator-layer policy file in a folder only root writes.
function adminPolicyFile(policy) {
  const dir = scratchDir('fb-hooks-admin-');
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  fs.chmodSync(file, 0o644);
  return file;
}

// A loopback HTTP receiver: records every request whole; mode 'ok' answers 200, 'fail' 500,
// 'hang' never answers (the request stays open until the broker gives up on it).
async function startReceiver(mode = 'ok') {
  const r = { mode, requests: [] };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method, url: req.url, headers: req.headers, rawHeaders: req.rawHeaders.join('\n'),
        body: Buffer.concat(chunks).toString('utf8'), open: true };
      r.requests.push(entry);
      res.on('close', () => { entry.open = false; });
      if (r.mode === 'hang') return;
      res.writeHead(r.mode === 'fail' ? 500 : 200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  servers.add(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  r.base = `http://127.0.0.1:${server.address().port}`;
  return r;
}

function readAudit(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

async function until(fn, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) assert.fail(typeof what === 'function' ? what() : what);
    await sleep(50);
  }
}

function run(args, env) {
  return new Promise((resolve) => {
    execFile(BIN, args, { env: baseEnv(env), encoding: 'utf8' }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

// A broker on its own sandbox process (real client credentials, so they can be looked for),
// with elicitation answered by whatever `answer` is when the prompt comes.
async function startHookedBroker(env) {
  const sandbox = await startSandboxProcess();
  cleanups.push(() => sandbox.stop());
  const audit = path.join(scratchDir('fb-hooks-audit-'), 'audit.jsonl');
  const state = { answer: async () => ({ action: 'accept', content: { confirm: true } }) };
  const b = await startBroker({ args: ['--toolsets', 'read,mutate'],
    env: { ...sandbox.env, EQUINIX_MCP_AUDIT_LOG: audit, ...env },
    elicit: (req, extra) => state.answer(req, extra) });
  cleanups.push(() => b.close());
  return { b, sandbox, audit, state };
}

async function proposeAndConfirm(h, answer) {
  h.state.answer = answer;
  const spec = connectionSpec();
  const p = await h.b.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 800));
  const c = await h.b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
  return { spec, p: p.structuredContent, c: c.structuredContent };
}

const accept = async () => ({ action: 'accept', content: { confirm: true } });
const decline = async () => ({ action: 'decline' });

test('the five events reach the generic, Slack and Teams receivers, with no token, credential or spec value in them', async (t) => {
  if (skipUnlessRoot(t)) return;
  const rx = await startReceiver('ok');
  const generic = `${rx.base}/generic/GENERICSECRET`;
  const slack = `${rx.base}/slack/services/T0SLACK/B0SLACK/SLACKSECRET`;
  const teams = `${rx.base}/teams/invoke?api-version=1&sig=TEAMSSECRET`;
  const admin = adminPolicyFile({ notify: { webhooks: [
    { url: generic }, { url: slack, format: 'slack' }, { url: teams, format: 'teams' }] } });
  const h = await startHookedBroker({ FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin });

  const created = await proposeAndConfirm(h, accept);
  assert.equal(created.c.execution.outcome, 'created', JSON.stringify(created.c).slice(0, 1500));
  const denied = await proposeAndConfirm(h, decline);
  assert.equal(denied.c.executed, false);
  assert.equal(denied.c.human_confirmation.status, 'declined');
  // The create is answered 500 after the sandbox committed it: outcome unknown (outcome.test.mjs).
  const unknown = await proposeAndConfirm(h, async () => {
    await h.sandbox.admin('POST', '/sandbox/v1/faults', { fail: { count: 1, status: 500, applyRequest: true } });
    return accept();
  });
  assert.equal(unknown.c.execution.outcome, 'unknown', JSON.stringify(unknown.c).slice(0, 1500));

  await until(() => rx.requests.length >= 24, 15000,
    () => `24 requests (8 events x 3 webhooks); got ${rx.requests.map((r) => r.url.split('/')[1]).join(',')}; stderr: ${h.b.stderr.slice(-1500)}`);
  await until(() => readAudit(h.audit).filter((r) => r.type === 'webhook_delivered').length >= 24, 10000,
    'every delivery audited');
  await sleep(300); // time for a (wrong) extra delivery to show up
  assert.equal(rx.requests.length, 24);

  const at = (prefix) => rx.requests.filter((r) => r.url.startsWith(prefix));
  for (const r of rx.requests) {
    assert.equal(r.method, 'POST');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.match(r.headers['user-agent'], /^fabric-broker\//);
    assert.equal(r.headers.authorization, undefined);
  }
  // The generic bodies: the events of each request, in order.
  const bodies = at('/generic/').map((r) => JSON.parse(r.body));
  const eventsOf = (sha) => bodies.filter((b) => b.request_sha256 === sha).map((b) => b.event);
  assert.deepEqual(eventsOf(created.p.request_sha256), ['needs_approval', 'approved', 'created']);
  assert.deepEqual(eventsOf(denied.p.request_sha256), ['needs_approval', 'denied']);
  assert.deepEqual(eventsOf(unknown.p.request_sha256), ['needs_approval', 'approved', 'unknown']);
  const asked = bodies.find((b) => b.request_sha256 === created.p.request_sha256 && b.event === 'needs_approval');
  assert.equal(asked.channel, 'client');
  assert.equal(asked.change_type, 'connection_create');
  assert.equal(asked.summary, created.p.target, 'the summary is the target line every prompt shows');
  assert.equal(asked.source, 'fabric-broker');
  if (created.p.price?.priced) {
    assert.equal(asked.price.currency, created.p.price.currency);
    assert.equal(asked.price.monthly_recurring, created.p.price.monthly_recurring);
  }
  assert.equal(bodies.find((b) => b.event === 'denied').decision, 'declined');
  assert.equal(bodies.find((b) => b.event === 'created').outcome, 'created');
  assert.equal(bodies.find((b) => b.event === 'unknown').outcome, 'unknown');
  // Slack and Teams got their own shapes, the same eight events.
  const slackBodies = at('/slack/').map((r) => JSON.parse(r.body));
  assert.equal(slackBodies.length, 8);
  for (const s of slackBodies) {
    assert.equal(s.mrkdwn, false);
    assert.ok(Array.isArray(s.blocks) && s.blocks.length >= 3);
    assert.ok(!JSON.stringify(s).includes('"type":"mrkdwn"'), 'Slack formats nothing');
  }
  const teamsBodies = at('/teams/').map((r) => JSON.parse(r.body));
  assert.equal(teamsBodies.length, 8);
  for (const m of teamsBodies) {
    assert.equal(m.type, 'message');
    assert.equal(m.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');
    assert.equal(m.attachments[0].content.type, 'AdaptiveCard');
  }

  // No secret and no spec value in any received byte.
  const wire = rx.requests.map((r) => `${r.method} ${r.url}\n${r.rawHeaders}\n\n${r.body}`).join('\n');
  const never = [
    ['a confirm token', /chg-[0-9a-f]{32}/],
    ['a confirm token\'s digits', new RegExp([created, denied, unknown].map((x) => x.p.confirm_token.slice(4)).join('|'))],
    ['the client secret', /e2e-secret-value/],
    ['the client id', /e2e-client/],
    ['the sandbox endpoint', new RegExp(h.sandbox.url.replace(/[.]/g, '\\.'))],
    ['the connection name', new RegExp([created, denied, unknown].map((x) => x.spec.name).join('|'))],
    ['the authentication key', /123456789012/],
    ['the notification address', /netops@example\.com/],
    ['the MCP client', /fabric-broker-e2e/],
  ];
  for (const [what, re] of never) assert.doesNotMatch(wire, re, `${what} was sent`);

  // Each delivery audited: the origin, never the URL (Slack's and Teams' are secrets).
  const records = readAudit(h.audit);
  const delivered = records.filter((r) => r.type === 'webhook_delivered');
  assert.equal(delivered.length, 24);
  for (const d of delivered) {
    assert.equal(d.data.host, rx.base);
    assert.equal(d.data.http_status, 200);
    assert.equal(d.data.attempts, 1);
    assert.ok([0, 1, 2].includes(d.data.target));
  }
  const everything = fs.readFileSync(h.audit, 'utf8') + h.b.stderr;
  for (const secret of ['GENERICSECRET', 'SLACKSECRET', 'TEAMSSECRET', 'T0SLACK'])
    assert.ok(!everything.includes(secret), `${secret} is in the audit log or the log`);
  assert.match(h.b.stderr, /webhooks \(notify\.webhooks in .*\): http:\/\/127\.0\.0\.1:\d+ \(generic\), .*\(slack\), .*\(teams\)/);
});

test('a receiver that hangs and one that answers 500 change nothing about the create; both failures are audited', async (t) => {
  if (skipUnlessRoot(t)) return;
  const hang = await startReceiver('hang');
  const fail = await startReceiver('fail');
  // The control: the same flow on a broker without webhooks.
  const control = await startHookedBroker({});
  const plain = await proposeAndConfirm(control, accept);
  const admin = adminPolicyFile({ notify: { webhooks: [
    { url: `${hang.base}/hang/HANGSECRET` },
    { url: `${fail.base}/fail/FAILSECRET`, events: ['created'] }] } });
  const h = await startHookedBroker({ FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin });
  // The person answers once the hanging receiver holds needs_approval.
  const hooked = await proposeAndConfirm(h, async () => {
    await until(() => hang.requests.length >= 1, 10000, 'needs_approval reached the hanging receiver');
    return accept();
  });

  // The confirm came back while the hanging receiver still held that request (10 s per attempt).
  assert.equal(hang.requests.length, 1);
  assert.equal(hang.requests[0].open, true, 'the confirm did not wait for the hanging receiver');
  // Its result is that of a broker without webhooks.
  const shape = (c) => ({ keys: Object.keys(c).sort(), executed: c.executed, outcome: c.execution.outcome,
    status: c.human_confirmation.status, checks: c.confirm_checks, message: typeof c.message });
  assert.deepEqual(shape(hooked.c), shape(plain.c));
  assert.equal(hooked.c.execution.outcome, 'created');
  const creates = (await h.sandbox.admin('GET', '/sandbox/v1/requests')).data
    .filter((r) => r.method === 'POST' && r.path === '/fabric/v4/connections' && !r.dryRun);
  assert.equal(creates.length, 1, 'the create was sent once');

  // The 500: three attempts, then webhook_failed.
  const failed = await until(() => readAudit(h.audit).find((r) => r.type === 'webhook_failed' && r.data.target === 1),
    15000, () => `webhook_failed for the 500 receiver; stderr: ${h.b.stderr.slice(-1500)}`);
  assert.equal(failed.data.attempts, 3);
  assert.equal(failed.data.http_status, 500);
  assert.equal(failed.data.error, 'HTTP 500');
  assert.equal(failed.data.event, 'created');
  assert.equal(failed.data.request_sha256, hooked.p.request_sha256);
  assert.equal(failed.data.host, fail.base);
  assert.equal(fail.requests.length, 3);

  // The hanging one: still waiting when the client leaves; the exit ends it, audited.
  assert.ok(!readAudit(h.audit).some((r) => r.type.startsWith('webhook_') && r.data.target === 0),
    'nothing recorded for the hanging receiver yet');
  await h.b.close();
  const ended = await until(() => {
    const r = readAudit(h.audit).filter((x) => x.type === 'webhook_failed' && x.data.target === 0);
    return r.length === 3 ? r : null;
  }, 10000, () => `three webhook_failed for the hanging receiver (needs_approval, approved, created); log: ${JSON.stringify(readAudit(h.audit).filter((x) => x.type.startsWith('webhook')))}`);
  assert.deepEqual(ended.map((r) => r.data.event), ['needs_approval', 'approved', 'created']);
  for (const r of ended) {
    assert.equal(r.data.error, 'the broker exited before the receiver answered');
    assert.equal(r.data.http_status, null);
    assert.equal(r.data.host, hang.base);
  }
  const everything = fs.readFileSync(h.audit, 'utf8') + h.b.stderr;
  assert.ok(!everything.includes('HANGSECRET') && !everything.includes('FAILSECRET'), 'a URL in the audit log or the log');
  // The audit chain still verifies.
  const verify = await run(['audit', 'verify', h.audit], {});
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);
});

test("a user's policy file naming webhooks is ignored and reported; policy show prints origins only", async (t) => {
  if (skipUnlessRoot(t)) return;
  const rx = await startReceiver('ok');
  const userDir = scratchDir('fb-hooks-user-');
  const user = path.join(userDir, 'policy.json');
  fs.writeFileSync(user, JSON.stringify({ notify: { webhooks: [{ url: `${rx.base}/agent/USERSECRET` }] } }));
  const h = await startHookedBroker({ FABRIC_BROKER_POLICY: user });
  const r = await proposeAndConfirm(h, accept);
  assert.equal(r.c.execution.outcome, 'created');
  assert.match(h.b.stderr, /notify\.webhooks: the value .* is ignored: the webhooks are set by the administrator's policy alone/);
  assert.match(h.b.stderr, new RegExp(`"url":"${rx.base.replace(/[.]/g, '\\.')}/…"`), 'the origin is named');
  assert.ok(!h.b.stderr.includes('USERSECRET'), 'the URL is not in the log');
  await sleep(500); // time for a (wrong) delivery to show up
  assert.equal(rx.requests.length, 0, 'nothing was sent to the user file\'s webhook');
  assert.ok(!readAudit(h.audit).some((x) => x.type.startsWith('webhook_')));

  // policy show: the administrator's webhooks as origins; the user's reported as ignored.
  const admin = adminPolicyFile({ notify: { webhooks: [{ url: 'https://hooks.slack.com/services/T0/B0/SHOWSECRET', format: 'slack' }] } });
  const show = await run(['policy', 'show', '--json'], { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, FABRIC_BROKER_POLICY: user });
  const doc = JSON.parse(show.stdout);
  assert.deepEqual(doc.policy['notify.webhooks'].value,
    [{ url: 'https://hooks.slack.com/…', format: 'slack', events: ['needs_approval', 'approved', 'denied', 'created', 'unknown'] }]);
  assert.equal(doc.policy['notify.webhooks'].locked_by_administrator, true);
  assert.ok(doc.ignored.some((l) => l.startsWith('notify.webhooks: ')), JSON.stringify(doc.ignored));
  const text = await run(['policy', 'show'], { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, FABRIC_BROKER_POLICY: user });
  for (const out of [show.stdout + show.stderr, text.stdout + text.stderr]) {
    assert.ok(!out.includes('SHOWSECRET') && !out.includes('USERSECRET'), out);
  }
  assert.match(text.stdout, /notify\.webhooks = \[.*https:\/\/hooks\.slack\.com\/….*\]/);
});

test('webhooks the administrator adds while the broker runs apply from then on; removed, they get nothing more', async (t) => {
  if (skipUnlessRoot(t)) return;
  const rx = await startReceiver('ok');
  const admin = adminPolicyFile({});
  const h = await startHookedBroker({ FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin });
  const first = await proposeAndConfirm(h, accept);
  assert.equal(first.c.execution.outcome, 'created');
  fs.writeFileSync(admin, JSON.stringify({ notify: { webhooks: [{ url: `${rx.base}/live/LIVESECRET` }] } }));
  await until(() => /webhooks \(notify\.webhooks in /.test(h.b.stderr), 10000,
    () => `the reload did not name the webhooks; stderr: ${h.b.stderr.slice(-1500)}`);
  const second = await proposeAndConfirm(h, accept);
  await until(() => rx.requests.length >= 3, 10000, () => `3 events; got ${rx.requests.length}`);
  const events = rx.requests.map((r) => JSON.parse(r.body));
  assert.deepEqual(events.map((b) => b.event), ['needs_approval', 'approved', 'created']);
  assert.ok(events.every((b) => b.request_sha256 === second.p.request_sha256), 'nothing about the create before the reload');
  assert.ok(readAudit(h.audit).some((r) => r.type === 'policy_changed'));

  fs.writeFileSync(admin, JSON.stringify({}));
  await until(() => /webhooks: none/.test(h.b.stderr), 10000, () => `no reload; stderr: ${h.b.stderr.slice(-1500)}`);
  const third = await proposeAndConfirm(h, accept);
  assert.equal(third.c.execution.outcome, 'created');
  await sleep(500); // time for a (wrong) delivery to show up
  assert.equal(rx.requests.length, 3, 'nothing after the webhook was removed');
  assert.ok(!h.b.stderr.includes('LIVESECRET'));
});
