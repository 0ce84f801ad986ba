// Team mode's faults (issue #25, "Done when"), end to end on a real PostgreSQL 15 (pg.mjs) with
// alice's desktop app under Xvfb (read and operated through AT-SPI) and carol's agent proposing
// through the official SDK client (`fabric-broker --stdio`, its own instance) against a separate
// Fabric sandbox process:
//
//   - the proposer's broker killed after `sending` was committed: the proposal is `unknown` for
//     the whole team, shown so in alice's dialog, and never sent again;
//   - the database restarted (pg_ctl restart) while a confirm waits for the approval: nothing is
//     lost, alice's app reconnects by itself, her approval completes the confirm, sent once.
//
// Skips, with the reason, when PostgreSQL, Xvfb, xdotool, dbus-run-session or python3-pyatspi is
// missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BIN, baseEnv, connectionSpec, sleep, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase } from './pg.mjs';
import {
  teamSigningSkip, startWorkstation, proposerEnv, startProposer, waitForState, proposalRow,
  decisions, createsNamed, hasDecided,
} from './team.mjs';

const skip = teamSigningSkip();
let team; let sandbox; let alice; let carolEnv;

before(async () => {
  if (skip) return;
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
  alice = await startWorkstation('alice', team, { keyring: true });
  carolEnv = proposerEnv(team, sandbox, { role: 'carol', keys: [{ role: 'alice', ...alice.key }] });
});

after(async () => {
  if (alice) await alice.stop();
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
});

const escapeRx = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// The details pane shows the request's name as "name": "...".
const named = (spec) => escapeRx(`"name": "${spec.name}"`);

async function propose(client, spec) {
  const p = await client.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
  const s = p.structuredContent;
  assert.match(s.team?.proposal_id ?? '', /^[0-9a-f-]{36}$/, `structuredContent.team: ${JSON.stringify(s.team)}`);
  return s;
}

test('the proposer killed after sending: unknown in the other workstation\'s app, never sent again', { skip, timeout: 240000 }, async () => {
  const carol = await startProposer(carolEnv, { name: 'team-e2e-killed' });
  const pid = carol.pid;
  try {
    const spec = connectionSpec();
    const p = await propose(carol, spec);
    const id = p.team.proposal_id;
    const pending = carol.confirm(p.confirm_token).catch((e) => e); // ends with the process
    await waitForState(team, id, 'consumed');
    // The create will hang in the sandbox (every Fabric response delayed), so that the broker is
    // caught between `sending` and an outcome.
    await sandbox.admin('POST', '/sandbox/v1/faults', { latencyMs: 20000 });
    await alice.decide(named(spec), 'Approve', () => hasDecided(team, id, 'alice'));
    await waitForState(team, id, 'sending', 60000);
    process.kill(pid, 'SIGKILL');
    await pending;
    await sandbox.admin('POST', '/sandbox/v1/faults', { latencyMs: 0 });

    // The whole team sees it: the row, and alice's dialog.
    await waitForState(team, id, 'unknown', 60000);
    const names = await alice.items('connection_create by carol \\(USD 150\\.00 monthly recurring\\), unknown', 30);
    assert.ok(names.some((n) => /unknown/.test(n)), names.join(' | '));
    const shown = await alice.choose(named(spec));
    assert.match(shown, /State: unknown/);
    // ...with the catalog call that finds it, where a person (and a screen reader) reads.
    const said = await alice.atspi({ cmd: 'text', window: '^Team approvals', contains: 'never sent again' });
    const lookup = `fabric_search_connections {"name":"${spec.name}"}`;
    assert.ok(said.texts.some((t) => t.includes(lookup)), said.texts.join(' | '));
    if (process.env.FB_E2E_SCREENSHOT_DIR) alice.screenshot(path.join(process.env.FB_E2E_SCREENSHOT_DIR, 'team-unknown-alice.png'), await alice.dialog());
    // Nothing to decide on it.
    const buttons = await alice.atspi({ cmd: 'walk', window: '^Team approvals' });
    for (const b of buttons.controls.filter((c) => c.role === 'push button' && /Approve|Deny/.test(c.name))) {
      assert.equal(b.enabled, false, `${b.name} is enabled on an unknown proposal`);
    }
    // Sent at most once (it left before the kill), never again.
    await sleep(500);
    assert.ok((await createsNamed(sandbox, spec.name)).length <= 1);
    assert.equal((await proposalRow(team, id)).state, 'unknown');
  } finally {
    await carol.close();
    await sandbox.admin('POST', '/sandbox/v1/faults', { latencyMs: 0 });
  }
});

test('the database restarted while the approval waits: nothing lost, the approval completes, sent once', { skip, timeout: 240000 }, async () => {
  const carol = await startProposer(carolEnv, { name: 'team-e2e-restart' });
  try {
    const spec = connectionSpec();
    const p = await propose(carol, spec);
    const id = p.team.proposal_id;
    let settled = false;
    const pending = carol.confirm(p.confirm_token).finally(() => { settled = true; });
    await waitForState(team, id, 'consumed');
    await alice.choose(named(spec));

    await team.cluster.restart();
    // alice's dialog said so while it was down, or notices now; either way it comes back.
    await alice.atspi({ cmd: 'find', window: '^Team approvals', role: 'push button', name: '^&?Approve$', timeout: 30 });
    assert.equal((await proposalRow(team, id)).state, 'consumed', 'the restart lost the wait');
    assert.equal(settled, false, 'the restart ended the confirm');

    await alice.decide(named(spec), 'Approve', () => hasDecided(team, id, 'alice'));
    assert.equal((await decisions(team, id)).length, 1);
    const s = (await pending).structuredContent;
    assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
    assert.deepEqual(s.team.approvals, ['alice']);
    assert.equal((await proposalRow(team, id)).state, 'created');
    await sleep(300);
    assert.equal((await createsNamed(sandbox, spec.name)).length, 1);
  } finally { await carol.close(); }
});
