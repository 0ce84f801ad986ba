// Team mode (issue #25, "Done when"), end to end on a real PostgreSQL 15 (pg.mjs: a private
// cluster on a Unix socket, `fabric-broker team init` as the schema owner) with two real
// desktop apps under Xvfb, alice's and bob's workstations (two HOMEs, two roles, both
// approvers), read and operated through AT-SPI as a screen reader and a person do, and carol's
// agent proposing through the official SDK client (`fabric-broker --stdio`, its own instance)
// against a separate Fabric sandbox process.
//
//   - a proposal carol's workstation publishes shows in alice's dialog; her press on Approve
//     records her decision bound to the SHA-256 of exactly the text she was shown;
//   - a USD 150 proposal approved on another workstation executes once;
//   - a USD 600 proposal (team.quorum: 2 above USD 500) needs both alice and bob;
//   - the proposer's own approval does not count (dave proposes and approves);
//   - a deny from either ends it, nothing sent;
//   - the client's elicitation "accept" does not count: it is the proposer's acknowledgement.
//
// The sandbox's rate card (src/sandbox/SandboxSeed.cpp): 50 Mbps is USD 150 a month, 1000 Mbps
// is USD 600 (same metro). Skips, with the reason, when PostgreSQL, Xvfb, xdotool,
// dbus-run-session or python3-pyatspi is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import path from 'node:path';
import { BIN, baseEnv, connectionSpec, sleep, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase } from './pg.mjs';
import {
  teamSigningSkip, startWorkstations, proposerEnv, startProposer, waitForState, proposalRow,
  decisions, createsNamed, hasDecided, until,
} from './team.mjs';

const skip = teamSigningSkip();
const QUORUM = { team: { quorum: [{ above_monthly: { amount: 500, currency: 'USD' }, approvals: 2 }] } };
let team; let sandbox; let alice; let bob; let carolEnv; let carol; let keys;

before(async () => {
  if (skip) return;
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
  // Each workstation signs its decisions with the key in its keychain; the administrator lists
  // both (in team mode only signed approvals count).
  [alice, bob] = await startWorkstations(['alice', 'bob'], team, { keyring: true });
  keys = [{ role: 'alice', ...alice.key }, { role: 'bob', ...bob.key }];
  carolEnv = proposerEnv(team, sandbox, { role: 'carol', policy: QUORUM, keys });
});

after(async () => {
  if (carol) await carol.close();
  for (const ws of [alice, bob]) if (ws) await ws.stop();
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
});

const sha256hex = (s) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');
const escapeRx = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// The details pane shows the request's name as "name": "...".
const named = (spec) => escapeRx(`"name": "${spec.name}"`);

// The confirm's "N of M team approvals" progress notifications.
const counts = (progress) => progress.filter((n) => /team approvals/.test(n.message ?? ''));
// The count a "N of M team approvals" message says (the progress value is the time waited).
const counted = (n) => Number(/^(\d+) of \d+ team approvals/.exec(n.message ?? '')?.[1] ?? -1);

// Resolves once the broker sent a count after the first `before` ones (it re-read the
// decisions), or after 3 s.
async function readByBroker(progress, before) {
  const deadline = Date.now() + 3000;
  while (counts(progress).length <= before && Date.now() < deadline) await sleep(50);
}

async function proposer() {
  if (!carol) carol = await startProposer(carolEnv, { name: 'team-e2e-carol' });
  return carol;
}

async function propose(client, spec) {
  const p = await client.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
  const s = p.structuredContent;
  assert.ok(s.confirm_token, JSON.stringify(s).slice(0, 1500));
  assert.match(s.team?.proposal_id ?? '', /^[0-9a-f-]{36}$/, `structuredContent.team: ${JSON.stringify(s.team)}`);
  return s;
}

// The estate holds exactly n connections named name (one per executed proposal, never two).
async function connectionsNamed(client, name) {
  const r = await client.call('fabric_search_connections', { name });
  return r.structuredContent.data.filter((c) => c.name === name).length;
}

test('approver side: a proposal carol\'s workstation publishes shows in alice\'s dialog; her Approve records her decision on the text shown', { skip, timeout: 120000 }, async () => {
  // What carol's broker inserts, written as carol through SQL (her role, her row-level rights).
  const name = `sql-published-${process.pid}`;
  const request = JSON.stringify({ type: 'EVPL_VC', name, bandwidth: 50 });
  const [[id]] = await team.query('carol', `INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, price, dry_run,
      os_user, host, mcp_client, token_sha256, expires_at) VALUES ('connection_create', :'req', sha256(convert_to(:'req', 'UTF8')),
      '{}'::jsonb, '{"currency":"USD","monthly_recurring":150}'::jsonb, '{}'::jsonb, 'carol', 'ws-carol', 'sql-e2e 1.0',
      sha256(convert_to(:'tok', 'UTF8')), now() + interval '10 minutes') RETURNING id`, { req: request, tok: crypto.randomUUID() });

  // Both approvers' apps open their Team approvals dialog by themselves.
  await Promise.all([alice.dialog(), bob.dialog()]);
  const items = await alice.items('connection_create by carol \\(USD 150\\.00 monthly recurring\\), pending');
  assert.ok(items.length >= 1, items.join(' | '));
  const shown = await alice.choose(escapeRx(name));
  assert.match(shown, /Proposed by role carol \(OS user carol on ws-carol\)/);
  assert.match(shown, /Price: USD 150\.00 monthly recurring/);
  // The same value the agent sees as request_sha256: change type, a line feed, the body.
  assert.match(shown, new RegExp(`Request SHA-256: ${sha256hex(`connection_create\n${request}`)}`));
  assert.match(shown, /Fabric: Production, endpoint \(none given\) \(billable\)/);
  if (process.env.FB_E2E_SCREENSHOT_DIR) {
    alice.screenshot(path.join(process.env.FB_E2E_SCREENSHOT_DIR, 'team-approvals-alice-screen.png'));
    alice.screenshot(path.join(process.env.FB_E2E_SCREENSHOT_DIR, 'team-approvals-alice.png'), await alice.dialog());
  }

  const text = await alice.decide(escapeRx(name), 'Approve', () => hasDecided(team, id, 'alice'));
  assert.equal(text, shown);
  await alice.atspi({ cmd: 'text', window: '^Team approvals', contains: 'Your decision \\(approve\\) is recorded' });
  const d = await decisions(team, id);
  assert.equal(d.length, 1, JSON.stringify(d));
  assert.equal(d[0].approver, 'alice');
  assert.equal(d[0].decision, 'approve');
  assert.equal(d[0].host, 'ws-alice', 'her workstation\'s host name');
  assert.equal(d[0].dialog_sha256, sha256hex(shown), 'the decision is bound to the text the screen reader read');

  // bob, on the other workstation, denies it: his own row, under his own role.
  await bob.decide(escapeRx(name), 'Deny', () => hasDecided(team, id, 'bob'));
  const both = await decisions(team, id);
  assert.deepEqual(both.map((x) => [x.approver, x.decision]).sort(), [['alice', 'approve'], ['bob', 'deny']]);
  // Nobody confirms this token; end it so the next tests' dialogs list only their proposals.
  await team.query('fb_owner', "UPDATE fabric_team.proposals SET state = 'expired' WHERE id = :'id'::uuid", { id });
});

test('a USD 150 proposal approved on another workstation executes once', { skip, timeout: 180000 }, async () => {
  const c = await proposer();
  const spec = connectionSpec(); // 50 Mbps, SV to SV: USD 150
  const p = await propose(c, spec);
  const id = p.team.proposal_id;
  assert.equal(p.team.required, 1);
  assert.equal((await proposalRow(team, id)).state, 'pending');
  assert.equal((await proposalRow(team, id)).proposer, 'carol');
  const progress = [];
  const pending = c.confirm(p.confirm_token, progress);
  await waitForState(team, id, 'consumed');

  const shown = await alice.decide(named(spec), 'Approve', () => hasDecided(team, id, 'alice'));
  assert.match(shown, /Price: USD 150\.00 monthly recurring/);
  // One name per hash: the Request SHA-256 alice read is the agent's request_sha256; and where
  // the create goes, said plainly (carol's broker talks to the embedded sandbox).
  assert.match(shown, new RegExp(`^Request SHA-256: ${p.request_sha256}$`, 'm'));
  assert.match(shown, /^Fabric: Sandbox, endpoint http:\/\/127\.0\.0\.1:\d+/m);
  assert.match(shown, /^Fabric credentials: client id e2e-client$/m);
  const r = await pending;
  const s = r.structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
  assert.equal(s.human_confirmation.channel, 'team');
  assert.deepEqual(s.team.approvals, ['alice']);
  assert.equal(s.team.required, 1);
  assert.equal(s.team.denied_by ?? null, null);
  assert.equal((await proposalRow(team, id)).state, 'created');
  assert.equal((await createsNamed(sandbox, spec.name)).length, 1, 'one create reached the sandbox');
  assert.equal(await connectionsNamed(c, spec.name), 1, 'one connection in the estate');
  // The token was consumed: a second confirm finds nothing to confirm.
  const again = await c.call('fabric_confirm_change', { confirm_token: p.confirm_token });
  assert.notEqual(again.structuredContent?.executed, true, JSON.stringify(again).slice(0, 800));
  assert.equal((await createsNamed(sandbox, spec.name)).length, 1);
});

test('a USD 600 proposal needs both approvers', { skip, timeout: 180000 }, async () => {
  const c = await proposer();
  const spec = connectionSpec({ bandwidth: 1000 }); // USD 600
  const p = await propose(c, spec);
  const id = p.team.proposal_id;
  assert.equal(p.team.required, 2);
  let settled = false;
  const progress = [];
  const pending = c.confirm(p.confirm_token, progress).finally(() => { settled = true; });
  await waitForState(team, id, 'consumed');
  const shown = await alice.decide(named(spec), 'Approve', () => hasDecided(team, id, 'alice'));
  assert.match(shown, /Price: USD 600\.00 monthly recurring/);
  // One approval of two: once the broker read it, it still waits, nothing sent.
  await readByBroker(progress, 0);
  assert.ok(!counts(progress).some((n) => counted(n) >= 2), JSON.stringify(progress));
  await waitForState(team, id, 'consumed', 2000);
  assert.equal(settled, false, 'the confirm ended with one approval of two');
  assert.equal((await createsNamed(sandbox, spec.name)).length, 0);

  await bob.decide(named(spec), 'Approve', () => hasDecided(team, id, 'bob'));
  const s = (await pending).structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
  assert.deepEqual([...s.team.approvals].sort(), ['alice', 'bob']);
  assert.equal(s.team.required, 2);
  assert.equal((await createsNamed(sandbox, spec.name)).length, 1);
  assert.equal(await connectionsNamed(c, spec.name), 1);
});

test('the proposer\'s own approval does not count', { skip, timeout: 180000 }, async () => {
  // dave may both propose and approve; his agent proposes.
  const dave = await startProposer(proposerEnv(team, sandbox, { role: 'dave', keys }), { name: 'team-e2e-dave' });
  try {
    const spec = connectionSpec();
    const p = await propose(dave, spec);
    const id = p.team.proposal_id;
    let settled = false;
    const progress = [];
    const pending = dave.confirm(p.confirm_token, progress).finally(() => { settled = true; });
    await waitForState(team, id, 'consumed');
    const before = counts(progress).length;
    // dave approves his own proposal as a member of fabric_approvers (his dialog would not let
    // him: Approve is off for the role's own proposals; the database accepts the row).
    await team.query('dave', "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256, os_user, host) VALUES (:'id'::uuid, 'approve', sha256('x'), 'dave', 'ws-dave')", { id });
    // Once the broker read it, it counted nothing.
    await readByBroker(progress, before);
    assert.ok(!counts(progress).some((n) => counted(n) >= 1), JSON.stringify(progress));
    await waitForState(team, id, 'consumed', 2000);
    assert.equal(settled, false, 'the proposer\'s own approval completed the quorum');

    await alice.decide(named(spec), 'Approve', () => hasDecided(team, id, 'alice'));
    const s = (await pending).structuredContent;
    assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
    assert.deepEqual(s.team.approvals, ['alice']);
    assert.ok(s.team.not_counted.some((n) => n.approver === 'dave'), JSON.stringify(s.team));
    assert.equal((await createsNamed(sandbox, spec.name)).length, 1);
  } finally { await dave.close(); }
});

test('a deny from either approver ends it, nothing sent', { skip, timeout: 180000 }, async () => {
  const c = await proposer();
  // alice denies a USD 150 proposal.
  const one = connectionSpec();
  const p1 = await propose(c, one);
  const pending1 = c.confirm(p1.confirm_token);
  await waitForState(team, p1.team.proposal_id, 'consumed');
  await alice.decide(named(one), 'Deny', () => hasDecided(team, p1.team.proposal_id, 'alice'));
  const s1 = (await pending1).structuredContent;
  assert.equal(s1.executed, false, JSON.stringify(s1).slice(0, 2000));
  assert.equal(s1.team.denied_by, 'alice');
  assert.equal((await proposalRow(team, p1.team.proposal_id)).state, 'denied');

  // bob denies a USD 600 proposal alice approved.
  const two = connectionSpec({ bandwidth: 1000 });
  const p2 = await propose(c, two);
  const pending2 = c.confirm(p2.confirm_token);
  await waitForState(team, p2.team.proposal_id, 'consumed');
  await alice.decide(named(two), 'Approve', () => hasDecided(team, p2.team.proposal_id, 'alice'));
  await bob.decide(named(two), 'Deny', () => hasDecided(team, p2.team.proposal_id, 'bob'));
  const s2 = (await pending2).structuredContent;
  assert.equal(s2.executed, false, JSON.stringify(s2).slice(0, 2000));
  assert.equal(s2.team.denied_by, 'bob');
  assert.equal((await proposalRow(team, p2.team.proposal_id)).state, 'denied');
  assert.equal((await createsNamed(sandbox, one.name)).length + (await createsNamed(sandbox, two.name)).length, 0);
});

test('the client\'s elicitation "accept" does not count: it is the proposer\'s acknowledgement', { skip, timeout: 180000 }, async () => {
  let asked = 0;
  const elicit = async () => { asked += 1; return { action: 'accept', content: { confirm: true } }; };
  const c = await startProposer(carolEnv, { name: 'team-e2e-eliciting', elicit }); // relayed into carol's instance
  try {
    const spec = connectionSpec();
    const p = await propose(c, spec);
    const id = p.team.proposal_id;
    let settled = false;
    const pending = c.confirm(p.confirm_token).finally(() => { settled = true; });
    await until(() => asked > 0, 30000, 'the client was never asked');
    // The accept went back before this ping (one connection, in order); a wrong count would
    // send right after it.
    await c.client.ping();
    await sleep(500);
    await waitForState(team, id, 'consumed', 2000);
    assert.equal(settled, false, 'the client\'s accept completed the quorum');
    assert.equal((await createsNamed(sandbox, spec.name)).length, 0);

    await alice.decide(named(spec), 'Approve', () => hasDecided(team, id, 'alice'));
    const s = (await pending).structuredContent;
    assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
    assert.deepEqual(s.team.approvals, ['alice']);
    assert.equal(s.team.proposer_acknowledged, true);
    assert.equal((await createsNamed(sandbox, spec.name)).length, 1);
  } finally { await c.close(); }
});
