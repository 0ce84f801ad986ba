// Webhooks in team mode (issue #37, docs/notify.md, docs/team.md): on a real PostgreSQL 15
// (pg.mjs) with alice's desktop app under Xvfb (team.mjs: her own host name, operated through
// AT-SPI) and carol's agent proposing through the official SDK client, both under an
// administrator's policy that names the same webhook (a loopback receiver in this file):
//   - an approval by alice gives needs_approval (channel team), approved, created; a deny gives
//     needs_approval, denied; each event arrives once, and every one comes from carol's broker
//     (the proposing one), none from alice's app, which has the same webhooks;
//   - no body holds the confirm token.
// Skips, with the reason, when PostgreSQL, Xvfb, dbus-run-session, python3-pyatspi or
// gnome-keyring is missing (team.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import { BIN, baseEnv, connectionSpec, scratchDir, sleep, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase } from './pg.mjs';
import {
  teamSigningSkip, startWorkstations, proposerEnv, startProposer, hasDecided, until, adminPolicyEnv,
} from './team.mjs';

const skip = teamSigningSkip();
let team; let sandbox; let alice; let carol; let rx; let server;

async function startReceiver() {
  const r = { requests: [] };
  server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      r.requests.push({ url: req.url, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  r.url = `http://127.0.0.1:${server.address().port}/hook/TEAMHOOKSECRET`;
  return r;
}

before(async () => {
  if (skip) return;
  rx = await startReceiver();
  const hooks = { notify: { webhooks: [{ url: rx.url }] } };
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
  // alice's app: her team database role and the same webhooks, in her administrator's file.
  const aliceAdmin = adminPolicyEnv(scratchDir('fb-hooks-alice-'), { team: { database: team.uri('alice') }, ...hooks });
  [alice] = await startWorkstations(['alice'], team, { keyring: true, extraEnv: aliceAdmin });
  const carolEnv = proposerEnv(team, sandbox, { role: 'carol', policy: hooks, keys: [{ role: 'alice', ...alice.key }] });
  carol = await startProposer(carolEnv, { name: 'team-webhooks-e2e' });
});

after(async () => {
  if (carol) await carol.close();
  if (alice) await alice.stop();
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
  if (server) { server.closeAllConnections?.(); await new Promise((r) => server.close(() => r())); }
});

const escapeRx = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const named = (spec) => escapeRx(`"name": "${spec.name}"`);
const bodies = () => rx.requests.map((r) => JSON.parse(r.body));
const eventsOf = (sha) => bodies().filter((b) => b.request_sha256 === sha).map((b) => b.event);

async function proposeAndDecide(decision) {
  const spec = connectionSpec();
  const p = await carol.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
  const s = p.structuredContent;
  const pending = carol.confirm(s.confirm_token);
  // The proposing broker says the change needs the team before anyone has decided.
  await until(() => eventsOf(s.request_sha256).includes('needs_approval'), 20000,
    () => `needs_approval at the receiver; carol's log:\n${carol.stderr.slice(-2000)}`);
  await alice.decide(named(spec), decision, () => hasDecided(team, s.team.proposal_id, 'alice'));
  const c = (await pending).structuredContent;
  return { s, c };
}

test('the proposing broker notifies once per event; the approver\'s app, with the same webhooks, sends nothing', { skip, timeout: 180000 }, async () => {
  const approved = await proposeAndDecide('Approve');
  assert.equal(approved.c.execution.outcome, 'created', JSON.stringify(approved.c).slice(0, 1500));
  const denied = await proposeAndDecide('Deny');
  assert.equal(denied.c.executed, false, JSON.stringify(denied.c).slice(0, 1500));
  await until(() => eventsOf(approved.s.request_sha256).length >= 3 && eventsOf(denied.s.request_sha256).length >= 2, 20000,
    () => `the events at the receiver: ${JSON.stringify(bodies().map((b) => b.event))}`);
  await sleep(1000); // time for a (wrong) second sender to show up
  assert.deepEqual(eventsOf(approved.s.request_sha256), ['needs_approval', 'approved', 'created']);
  assert.deepEqual(eventsOf(denied.s.request_sha256), ['needs_approval', 'denied']);
  assert.equal(rx.requests.length, 5, 'each event once');
  for (const b of bodies()) {
    assert.notEqual(b.broker.host, alice.host, 'sent by the proposing broker, never by the approver\'s app');
    if (b.event === 'needs_approval') assert.equal(b.channel, 'team');
  }
  assert.ok(bodies().find((b) => b.event === 'denied').decision, 'the decision is named');
  // alice's app read the same webhooks (it could have sent), and did not.
  assert.match(alice.log, /webhooks \(notify\.webhooks in .*\): http:\/\/127\.0\.0\.1:\d+ \(generic\)/);
  assert.doesNotMatch(alice.log, /webhook \d+ at .* notified of/);
  const wire = rx.requests.map((r) => r.body).join('\n');
  assert.doesNotMatch(wire, /chg-[0-9a-f]{32}/);
  for (const log of [alice.log, carol.stderr]) assert.ok(!log.includes('TEAMHOOKSECRET'), 'the URL is in a log');
});
