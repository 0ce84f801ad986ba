// An `unknown` outcome resolved by a second person (issue #26, requirement 5), end to end on a
// real PostgreSQL 15 (pg.mjs), alice's desktop app under Xvfb (AT-SPI) with an approval key in
// her own keychain and her app talking to the same Fabric sandbox process as the proposers, and
// the proposers' agents through the official SDK client (`fabric-broker --stdio`):
//
//   - carol's create loses its answer (the sandbox drops it without making it): `unknown` for
//     the whole team, counted as spent in the team's day, so dave's next create is refused by the
//     team's database although alice approved it;
//   - alice's app shows carol's create with the catalog search already run ("no resource has
//     this name"); carol's own app could not mark it; alice marks it not created, signed over the
//     text she saw; the row, its signed statement and the team audit chain record it;
//   - the team's day no longer counts it: dave's create goes through, once; `team verify` checks
//     the resolution's signature and fails, naming it, after a one-byte change to its statement.
//
// Skips, with the reason, when PostgreSQL, Xvfb, xdotool, dbus-run-session, python3-pyatspi or
// gnome-keyring is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { execFile } from 'node:child_process';
import { BIN, baseEnv, connectionSpec, scratchDir, sleep, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase } from './pg.mjs';
import {
  teamSigningSkip, startWorkstation, proposerEnv, startProposer, waitForState, proposalRow,
  createsNamed, hasDecided, adminPolicyEnv,
} from './team.mjs';

const skip = teamSigningSkip();
const usd = (amount) => ({ amount, currency: 'USD' });
let team; let sandbox; let alice; let policy;

before(async () => {
  if (skip) return;
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
  alice = await startWorkstation('alice', team, { keyring: true, fabric: sandbox });
  // The administrator's trust anchor and the team's day: one sandbox connection (USD 150) fits,
  // two do not.
  policy = {
    team: { approver_keys: [{ role: 'alice', ...alice.key }] },
    spend: { max_monthly_recurring_per_day: usd(200) },
  };
});

after(async () => {
  if (alice) await alice.stop();
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
});

const escapeRx = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const named = (spec) => escapeRx(`"name": "${spec.name}"`);

async function propose(client, spec) {
  const p = await client.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
  assert.match(p.structuredContent.team?.proposal_id ?? '', /^[0-9a-f-]{36}$/);
  return p.structuredContent;
}

function teamVerify(role) {
  const dir = scratchDir('fb-e2e-verify-');
  // The approver keys are the administrator's: an administrator-layer policy file.
  const adminEnv = adminPolicyEnv(dir, policy);
  return new Promise((resolve) => {
    execFile(BIN, ['team', 'verify', team.uri(role)], { env: baseEnv(adminEnv), encoding: 'utf8', timeout: 120000 },
      (err, stdout, stderr) => { fs.rmSync(dir, { recursive: true, force: true }); resolve({ code: err ? (err.code ?? 1) : 0, out: `${stdout}${stderr}` }); });
  });
}

test('an unknown create resolved not_created by a second person frees the team\'s day', { skip, timeout: 300000 }, async () => {
  const carol = await startProposer(proposerEnv(team, sandbox, { role: 'carol', policy }), { name: 'team-e2e-carol' });
  const dave = await startProposer(proposerEnv(team, sandbox, { role: 'dave', policy }), { name: 'team-e2e-dave' });
  try {
    // carol's create: its request is read and dropped, never made; the outcome is unknown.
    const lost = connectionSpec();
    const p1 = await propose(carol, lost);
    const id1 = p1.team.proposal_id;
    const pending1 = carol.confirm(p1.confirm_token);
    await waitForState(team, id1, 'consumed');
    await sandbox.admin('POST', '/sandbox/v1/faults', { drop: { count: 1, onlyRealCreates: true, applyRequest: false } });
    await alice.decide(named(lost), 'Approve', () => hasDecided(team, id1, 'alice'));
    const r1 = (await pending1).structuredContent;
    assert.equal(r1.execution?.outcome, 'unknown', JSON.stringify(r1).slice(0, 2000));
    await waitForState(team, id1, 'unknown', 30000);
    assert.equal((await createsNamed(sandbox, lost.name)).length, 1); // it reached the sandbox, not made
    // While unknown it counts as spent: dave's create, approved by alice, is refused by the team's
    // database (his own workstation's ledger is empty).
    const blocked = connectionSpec();
    const p2 = await propose(dave, blocked);
    const pending2 = dave.confirm(p2.confirm_token);
    await waitForState(team, p2.team.proposal_id, 'consumed');
    await alice.decide(named(blocked), 'Approve', () => hasDecided(team, p2.team.proposal_id, 'alice'));
    const r2 = (await pending2).structuredContent;
    assert.equal(r2.executed, false, JSON.stringify(r2).slice(0, 2000));
    assert.match(r2.message, /team's database did not let it be sent/);
    assert.equal((await createsNamed(sandbox, blocked.name)).length, 0);

    // alice's app: carol's create with the search already run, nothing found.
    const shown = await alice.choose(`${named(lost)}[\\s\\S]*no resource has this name`, 60);
    assert.match(shown, /State: unknown/);
    assert.match(shown, new RegExp(escapeRx(`Lookup: fabric_search_connections {"name":"${lost.name}"}`)));
    if (process.env.FB_E2E_SCREENSHOT_DIR) alice.screenshot(path.join(process.env.FB_E2E_SCREENSHOT_DIR, 'team-resolve-alice.png'), await alice.dialog());
    const controls = (await alice.atspi({ cmd: 'walk', window: '^Team approvals' })).controls;
    const created = controls.find((c) => c.role === 'push button' && /Mark .?created/.test(c.name));
    assert.ok(created, controls.map((c) => c.name).join(' | '));
    assert.equal(created.enabled, false, 'Mark created is enabled although nothing was found');
    await alice.atspi({ cmd: 'press', window: '^Team approvals', role: 'push button', name: '^Mark &?not created$' });
    await waitForState(team, id1, 'not_created', 20000);
    await alice.atspi({ cmd: 'text', window: '^Team approvals', contains: `The outcome \\(not_created\\) is recorded for the team, signed with key ${escapeRx(alice.key.fingerprint)}` });

    // The ledger and the chain record it, signed, over exactly the text alice saw.
    const [row] = await team.query('fb_owner', "SELECT resolver, outcome, encode(dialog_sha256, 'hex'), statement IS NOT NULL, host FROM fabric_team.resolutions WHERE proposal_id = :'id'::uuid", { id: id1 });
    assert.deepEqual(row.slice(0, 2), ['alice', 'not_created']);
    assert.equal(row[3], 't');
    assert.equal(row[4], 'ws-alice');
    const audit = await team.query('fb_owner', "SELECT actor, detail FROM fabric_team.team_audit WHERE event = 'outcome_resolved'");
    assert.ok(audit.some(([, d]) => d.includes(id1) && d.includes('not_created')), JSON.stringify(audit));

    // The team's day no longer counts it: dave's next create goes, once.
    const freed = connectionSpec();
    const p3 = await propose(dave, freed);
    const pending3 = dave.confirm(p3.confirm_token);
    await waitForState(team, p3.team.proposal_id, 'consumed');
    await alice.decide(named(freed), 'Approve', () => hasDecided(team, p3.team.proposal_id, 'alice'));
    const r3 = (await pending3).structuredContent;
    assert.equal(r3.executed, true, JSON.stringify(r3).slice(0, 2000));
    await sleep(300);
    assert.equal((await createsNamed(sandbox, freed.name)).length, 1);
    assert.equal((await proposalRow(team, p3.team.proposal_id)).state, 'created');

    // Anyone can check it: team verify passes, then fails naming the resolution after one byte.
    const honest = await teamVerify('alice');
    assert.equal(honest.code, 0, honest.out);
    assert.match(honest.out, /not_created/);
    const [[rid]] = await team.query('fb_owner', "SELECT id FROM fabric_team.resolutions WHERE proposal_id = :'id'::uuid", { id: id1 });
    await team.query('fb_owner', "UPDATE fabric_team.resolutions SET statement = replace(statement, 'not_created', 'not_createD') WHERE id = :'id'::uuid", { id: rid })
    const forged = await teamVerify('alice');
    assert.notEqual(forged.code, 0, forged.out);
    assert.match(forged.out, new RegExp(rid), forged.out);
  } finally {
    await carol.close();
    await dave.close();
    await sandbox.admin('POST', '/sandbox/v1/faults', { latencyMs: 0 });
  }
});
