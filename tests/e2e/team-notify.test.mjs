// Desktop notifications in team mode (issue #37) on a real PostgreSQL 15 (pg.mjs) with two real
// desktop apps under Xvfb (team.mjs): alice's workstation (an approver, signing with the key in
// her keychain) and carol's (a proposer, whose agent proposes through `fabric-broker --stdio`
// relayed into her app), each with a session bus of its own on which a notification server of the
// test's answers and dbus-monitor watches (notify.mjs).
//   - alice is told that a proposal needs her ("Team approval needed", who proposed it from
//     where); opening the notification brings the Team approvals dialog back (active) and decides
//     nothing; her press on Approve does;
//   - carol is told the decision ("Approved by the team"), then the outcome in the same
//     notification ("Approved by the team and created", replaces_id);
//   - a proposal alice denies in the dialog: carol is told "Denied by the team", and alice's
//     notification of it is withdrawn once it no longer waits for her.
// Skips, with the reason, when PostgreSQL, Xvfb, xdotool, dbus-run-session, python3-pyatspi,
// python3-gi, dbus-monitor or gnome-keyring is missing, or when not run as root (team mode comes
// from a root-owned administrator policy file).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, baseEnv, connectionSpec, scratchDir, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase } from './pg.mjs';
import { adminPolicyEnv, hasDecided, startProposer, startWorkstation, teamSigningSkip } from './team.mjs';
import { notifySkip, startNotificationMonitor, startNotificationServer } from './notify.mjs';

const skip = teamSigningSkip() || notifySkip();
let team; let sandbox; let alice; let carol; let agent;
const buses = {};

before(async () => {
  if (skip) return;
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
  alice = await startWorkstation('alice', team, { keyring: true });
  // carol's administrator lists alice's key: in team mode only signed approvals count.
  const policy = { team: { database: team.uri('carol'), approver_keys: [{ role: 'alice', ...alice.key }] } };
  carol = await startWorkstation('carol', team, { fabric: sandbox, extraEnv: adminPolicyEnv(scratchDir('fb-e2e-carol-policy-'), policy) });
  for (const ws of [alice, carol]) {
    buses[ws.role] = { server: await startNotificationServer(ws.bus), monitor: await startNotificationMonitor(ws.bus) };
  }
  agent = await startProposer(carol.env, { name: 'team-notify-e2e' });
});

after(async () => {
  if (agent) await agent.close();
  for (const { server, monitor } of Object.values(buses)) {
    await monitor.stop();
    await server.stop();
  }
  for (const ws of [alice, carol]) if (ws) await ws.stop();
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
});

const escapeRx = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function proposeAndConfirm() {
  const spec = connectionSpec(); // USD 150: one approval
  const p = await agent.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
  const s = p.structuredContent;
  const call = { spec, id: s.team.proposal_id, settled: false };
  call.pending = agent.confirm(s.confirm_token).finally(() => { call.settled = true; });
  return call;
}

// alice's notification of proposal call (the n-th "Team approval needed" she was shown).
const aliceNotified = (from) => buses.alice.server.waitFor((e) => e.event === 'notify' && e.summary === 'Team approval needed'
  && buses.alice.server.notifies().indexOf(e) >= from, 30000);

test('the approver is told a proposal needs her, the proposer the decision and then the outcome', { skip, timeout: 240000 }, async () => {
  const from = buses.alice.server.notifies().length;
  const call = await proposeAndConfirm();
  const n = await aliceNotified(from);
  assert.equal(n.app_name, 'Fabric Broker');
  assert.deepEqual(n.actions, ['default', 'Open']);
  const lines = n.body.split('\n');
  // The OS user is the password database's (the test's own user), the host carol's own.
  assert.match(lines[0], /^connection_create proposed by carol \(OS user [^ ()]+ on ws-carol\)$/, n.body);
  assert.match(lines[1], /^Request SHA-256 [0-9a-f]{16}\.\.\.$/);
  await buses.alice.monitor.waitFor(() => buses.alice.monitor.calls('Notify').some((b) => b.includes('string "Team approval needed"')));

  // Her Team approvals dialog opened by itself; she closes it and works elsewhere.
  await alice.dialog();
  await alice.atspi({ cmd: 'press', window: '^Team approvals', role: 'push button', name: '^&?Close$' });
  await alice.atspi({ cmd: 'gone', window: '^Team approvals' });
  // Opening the notification brings it back, in front; nothing is decided by that.
  await buses.alice.server.invoke(n.id, 'default');
  await alice.dialog();
  await alice.atspi({ cmd: 'active', window: '^Team approvals' });
  assert.equal(await hasDecided(team, call.id, 'alice'), false);
  assert.equal(call.settled, false);

  await alice.decide(escapeRx(`"name": "${call.spec.name}"`), 'Approve', () => hasDecided(team, call.id, 'alice'));
  const r = (await call.pending).structuredContent;
  assert.equal(r.executed, true, JSON.stringify(r).slice(0, 1500));
  assert.equal(r.execution.outcome, 'created');

  // carol's workstation: the decision, then the outcome in the same notification.
  const decided = await buses.carol.server.waitFor((e) => e.event === 'notify' && e.summary === 'Approved by the team');
  const outcome = await buses.carol.server.waitFor((e) => e.event === 'notify' && e.summary === 'Approved by the team and created');
  assert.equal(outcome.replaces_id, decided.id, 'the outcome replaces the decision');
  assert.equal(outcome.id, decided.id);
  assert.match(decided.body, /^Your agent's proposal to create a connection:\n/);
  assert.deepEqual(decided.actions, ['default', 'Open']);
  await buses.carol.monitor.waitFor(() => ['Approved by the team', 'Approved by the team and created']
    .every((s) => buses.carol.monitor.calls('Notify').some((b) => b.includes(`string "${s}"`))));
});

test('a denial reaches the proposer; the approver\'s notification is withdrawn once it no longer waits', { skip, timeout: 240000 }, async () => {
  const from = buses.alice.server.notifies().length;
  const call = await proposeAndConfirm();
  const n = await aliceNotified(from);
  await alice.decide(escapeRx(`"name": "${call.spec.name}"`), 'Deny', () => hasDecided(team, call.id, 'alice'));
  const r = (await call.pending).structuredContent;
  assert.equal(r.executed, false);
  assert.equal(r.human_confirmation.status, 'declined');
  const denied = await buses.carol.server.waitFor((e) => e.event === 'notify' && e.summary === 'Denied by the team');
  assert.match(denied.body, /\nEVPL_VC 50 Mbps /, 'the target line the broker compiled');
  await buses.alice.server.waitFor((e) => e.event === 'close' && e.id === n.id, 30000);
  await buses.alice.monitor.waitFor(() => buses.alice.monitor.calls('CloseNotification').some((b) => b.includes(`uint32 ${n.id}`)));
});
