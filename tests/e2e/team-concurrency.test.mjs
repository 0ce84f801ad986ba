// Team mode under load (issue #25, "Done when": 50 concurrent proposals from three sessions →
// every token single-use, no double send), end to end on a real PostgreSQL 15 (pg.mjs): carol's
// agent runs three MCP sessions through the official SDK client (`fabric-broker --stdio`: the
// first becomes the instance of its runtime folder, the other two relay into it), proposes 50
// connections at once, and confirms every token from its own session twice and from another
// session once, all at the same moment. alice approves every waiting proposal as her role in the
// team database (the row her dialog's Approve writes; team-approvals.test.mjs presses the real
// button). Exactly one confirm per token executes, and the separate sandbox's estate ends with
// exactly one connection per proposal. Skips, with the reason, without PostgreSQL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { BIN, baseEnv, connectionSpec, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase, pgSkip } from './pg.mjs';
import { proposerEnv, startProposer, until, adminPolicySkip } from './team.mjs';
import { nodeApprover, approveSigned } from './team-signing.mjs';

const skip = pgSkip() || adminPolicySkip();
const trace = (...a) => { if (process.env.FB_E2E_TRACE) console.error(new Date().toISOString(), ...a); };
const N = 50;
let team; let sandbox; let sessions = [];

before(async () => {
  if (skip) return;
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
});

after(async () => {
  for (const s of [...sessions].reverse()) await s.close(); // the relayed ones, then the instance
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
});

// alice's approvals of whatever of carol's proposals waits, until stop() is called; each signed
// with her key (the administrator lists it; in team mode only signed approvals count), as her
// dialog writes it.
const aliceKey = nodeApprover('alice');
function approveAsAlice() {
  let running = true;
  let approved = 0;
  const loop = (async () => {
    while (running) {
      const rows = await team.query('alice', `SELECT p.id FROM fabric_team.proposals p
        WHERE p.state = 'consumed' AND p.proposer = 'carol' AND NOT EXISTS (SELECT 1 FROM fabric_team.approvals a WHERE a.proposal_id = p.id)`);
      for (const [id] of rows) {
        await approveSigned(team, aliceKey, id);
        approved += 1;
      }
      if (rows.length) trace('approved', approved);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { async stop() { running = false; await loop; return approved; } };
}

test('50 concurrent proposals from three sessions: every token single-use, no double send', { skip, timeout: 480000 }, async () => {
  const env = proposerEnv(team, sandbox, { role: 'carol', keys: [aliceKey.listed], extra: { EQUINIX_MCP_MAX_PENDING: String(N + 10) } });
  sessions.push(await startProposer(env, { name: 'team-e2e-session-1' })); // the instance
  sessions.push(await startProposer(env, { name: 'team-e2e-session-2' })); // relayed
  sessions.push(await startProposer(env, { name: 'team-e2e-session-3' })); // relayed

  const specs = Array.from({ length: N }, (_, i) => connectionSpec({ name: `tl-${i}-${crypto.randomUUID().slice(0, 8)}` }));
  const proposals = await Promise.all(specs.map(async (spec, i) => {
    const session = sessions[i % 3];
    const p = await session.call('fabric_propose_change', { change_type: 'connection_create', spec });
    assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1200));
    assert.ok(p.structuredContent.team?.proposal_id, JSON.stringify(p.structuredContent).slice(0, 1200));
    return { i, spec, session: i % 3, token: p.structuredContent.confirm_token, id: p.structuredContent.team.proposal_id };
  }));
  trace('proposed', proposals.length);
  assert.equal(new Set(proposals.map((p) => p.id)).size, N, 'one row per proposal');
  const [[published]] = await team.query('fb_owner', "SELECT count(*) FROM fabric_team.proposals WHERE proposer = 'carol' AND state = 'pending'");
  assert.equal(Number(published), N);

  const alice = approveAsAlice();
  let done = 0;
  let results;
  try {
    // Every token three times at once: twice from its own session, once from the next one.
    results = await Promise.all(proposals.map(async (p) => {
      const from = [sessions[p.session], sessions[p.session], sessions[(p.session + 1) % 3]];
      const outs = await Promise.all(from.map((s) => s.confirm(p.token).then((r) => r, (e) => ({ error: String(e) }))));
      done += 1;
      trace('confirmed', done, p.spec.name);
      return { p, outs };
    }));
  } finally {
    trace('stopping alice');
    await alice.stop();
    trace('alice stopped');
  }

  for (const { p, outs } of results) {
    const executed = outs.filter((o) => o.structuredContent?.executed === true);
    assert.equal(executed.length, 1, `${p.spec.name}: ${JSON.stringify(outs).slice(0, 2000)}`);
    assert.deepEqual(executed[0].structuredContent.team.approvals, ['alice']);
    for (const o of outs.filter((x) => x !== executed[0])) {
      assert.notEqual(o.structuredContent?.executed, true);
    }
  }
  // The outcome reaches the row right after the result (the broker does not hold the result
  // for that write).
  const created = async () => Number((await team.query('fb_owner', "SELECT count(*) FROM fabric_team.proposals WHERE proposer = 'carol' AND state = 'created'"))[0][0]);
  await until(async () => (await created()) === N, 20000, async () => `${await created()} of ${N} rows are created`);

  // No double send: one create on the wire and one connection in the estate per proposal
  // (read once each: the request log and the sandbox's estate).
  const log = await sandbox.admin('GET', '/sandbox/v1/requests');
  const estate = await sandbox.admin('GET', '/sandbox/v1/estate');
  for (const { spec } of proposals) {
    const wire = log.data.filter((r) => r.method === 'POST' && r.path === '/fabric/v4/connections' && !r.dryRun && JSON.parse(r.body || '{}').name === spec.name);
    assert.equal(wire.length, 1, `${spec.name} was sent ${wire.length} times`);
    assert.equal(estate.connections.filter((c) => c.name === spec.name).length, 1, `${spec.name} in the estate`);
  }
  trace('checked');
});
