// A policy reload reaches team confirms that are already waiting (issue #34, item 9): the
// administrator raises the quorum or revokes a key while a confirm waits, and the waiting confirm
// counts with the new policy at once — it waits for the approvals the new policy needs instead
// of counting by the old one until the re-check right before sending. Real binary
// (`fabric-broker --stdio` through the SDK client), a real PostgreSQL 15, a sandbox process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { BIN, baseEnv, connectionSpec, sleep, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase, pgSkip } from './pg.mjs';
import {
  proposerEnv, startProposer, adminPolicySkip, rewriteAdminPolicy, proposalRow, waitForState, createsNamed, until,
} from './team.mjs';
import { nodeApprover, approveSigned } from './team-signing.mjs';

const skip = pgSkip() || adminPolicySkip();
const usd = (amount) => ({ amount, currency: 'USD' });
const quorumOf = (n) => [{ unpriced: true, approvals: n }, { above_monthly: usd(0), approvals: n }];
const alice = nodeApprover('alice');
const bob = nodeApprover('bob');
const dave = nodeApprover('dave');
const KEYS = [alice.listed, bob.listed, dave.listed];
let team; let sandbox;
const open = [];

before(async () => {
  if (skip) return;
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
});

after(async () => {
  for (const p of open.reverse()) await p.close();
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
});

async function waitingConfirm(quorum) {
  const env = proposerEnv(team, sandbox, { role: 'carol', keys: KEYS, policy: { team: { quorum } },
    extra: { EQUINIX_MCP_PROPOSAL_TTL_MS: String(60000) } });
  const carol = await startProposer(env, { name: 'policy-reload' });
  open.push(carol);
  const spec = connectionSpec({ name: `reload-${crypto.randomUUID().slice(0, 8)}` });
  const r = await carol.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 1500));
  const id = r.structuredContent.team.proposal_id;
  const progress = [];
  const pending = carol.confirm(r.structuredContent.confirm_token, progress);
  await waitForState(team, id, 'consumed');
  return { env, carol, spec, id, pending, progress };
}

function reload(env, change) {
  const admin = JSON.parse(fs.readFileSync(env.FABRIC_BROKER_EXTRA_ADMIN_POLICY, 'utf8'));
  change(admin);
  rewriteAdminPolicy(env, admin);
}

// The count the last "N of M team approvals" message says (the text may go on: who could act).
const lastCount = (progress) => [...progress].reverse()
  .map((p) => /^\d+ of \d+ team approvals/.exec(p.message ?? '')?.[0]).find(Boolean);

test('a quorum raised while a confirm waits: one approval no longer sends, the second does', { skip, timeout: 120000 }, async () => {
  const w = await waitingConfirm(quorumOf(1));
  reload(w.env, (admin) => { admin.team.quorum = quorumOf(2); });
  await until(() => /of 2 team approvals/.test(lastCount(w.progress) ?? ''), 10000,
    () => `no progress with the raised quorum: ${JSON.stringify(w.progress.slice(-3))}`);
  await approveSigned(team, alice, w.id); // enough under the old quorum
  await until(() => lastCount(w.progress) === '1 of 2 team approvals', 10000, () => JSON.stringify(w.progress.slice(-3)));
  await sleep(1500);
  assert.equal((await proposalRow(team, w.id)).state, 'consumed', 'still waiting for the second approval');
  await until(() => w.progress.some((p) => /^waiting for 2 team approval/.test(p.message ?? '')), 10000,
    () => `the keep-alive still says the old quorum: ${JSON.stringify(w.progress.slice(-3))}`);
  assert.equal((await createsNamed(sandbox, w.spec.name)).length, 0);
  await approveSigned(team, bob, w.id);
  const s = (await w.pending).structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
  assert.equal(s.team.required, 2, JSON.stringify(s.team));
  assert.deepEqual([...s.team.approvals].sort(), ['alice', 'bob']);
  assert.equal((await createsNamed(sandbox, w.spec.name)).length, 1);
});

test('a key revoked while a confirm waits: its approval stops counting at once, and another completes the quorum', { skip, timeout: 120000 }, async () => {
  const w = await waitingConfirm(quorumOf(2));
  await approveSigned(team, alice, w.id);
  await until(() => lastCount(w.progress) === '1 of 2 team approvals', 10000, () => JSON.stringify(w.progress.slice(-3)));
  reload(w.env, (admin) => { admin.team.approver_keys = [bob.listed, dave.listed]; }); // alice's key revoked
  await until(() => lastCount(w.progress) === '0 of 2 team approvals', 10000,
    () => `alice's approval still counted after the reload: ${JSON.stringify(w.progress.slice(-3))}`);
  await approveSigned(team, bob, w.id); // 2 with the old key list; 1 now
  await until(() => lastCount(w.progress) === '1 of 2 team approvals', 10000, () => JSON.stringify(w.progress.slice(-3)));
  await sleep(1500);
  assert.equal((await proposalRow(team, w.id)).state, 'consumed', 'still waiting: alice no longer counts');
  await approveSigned(team, dave, w.id);
  const s = (await w.pending).structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
  assert.deepEqual([...s.team.approvals].sort(), ['bob', 'dave']);
  assert.equal((await createsNamed(sandbox, w.spec.name)).length, 1);
});
