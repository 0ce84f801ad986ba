// Team mode and the confirm as a task (issue #37, "Say who can act"), on a real PostgreSQL 15
// (pg.mjs) with a real approver's desktop app under Xvfb (team.mjs), and carol's agent through
// the official SDK client:
//   - while no approver other than carol is connected to the team database, the task's status
//     message (tasks/get) says so, and the confirm keeps waiting;
//   - once alice's app connects it no longer says so (read again within PresenceRecheckMs);
//   - tasks/cancel withdraws the team proposal (its row cancelled), and nothing is sent.
// Skips, with the reason, when PostgreSQL, Xvfb, xdotool or python3-pyatspi is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, baseEnv, connectionSpec, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase } from './pg.mjs';
import {
  teamDesktopSkip, startWorkstation, proposerEnv, startProposer, waitForState, createsNamed, until,
} from './team.mjs';

const skip = teamDesktopSkip();
const DETAIL = 'fabric-broker/task-detail';
const NOBODY = /no approver other than the proposer is connected to the team database now/;
let team; let sandbox; let carol; let alice;

before(async () => {
  if (skip) return;
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
});

after(async () => {
  if (carol) await carol.close();
  if (alice) await alice.stop();
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
});

test('team: a task says while no approver is connected, then not; tasks/cancel withdraws it', { skip, timeout: 180000 }, async () => {
  carol = await startProposer(proposerEnv(team, sandbox, { role: 'carol', keys: [] }), { name: 'team-tasks-e2e' });
  const spec = connectionSpec();
  const p = await carol.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
  const proposalId = p.structuredContent.team.proposal_id;
  const created = await carol.client.request({
    method: 'tools/call',
    params: { name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token }, task: { ttl: 900000 } },
  }, CreateTaskResultSchema);
  const taskId = created.task.taskId;
  const get = () => carol.client.experimental.tasks.getTask(taskId);

  const alone = await until(async () => { const t = await get(); return NOBODY.test(t.statusMessage ?? '') ? t : null; }, 30000,
    async () => `no "nobody connected" status: ${JSON.stringify(await get())}`);
  assert.equal(alone.status, 'working');
  assert.match(alone.statusMessage, /^0 of 1 team approvals/);
  assert.equal(alone._meta?.[DETAIL]?.channel, 'team');
  assert.equal(alone._meta?.[DETAIL]?.request_sha256, p.structuredContent.request_sha256);

  // alice's app connects to the team database: someone could act now.
  alice = await startWorkstation('alice', team);
  const seen = await until(async () => {
    const t = await get();
    return /team approvals/.test(t.statusMessage ?? '') && !NOBODY.test(t.statusMessage) ? t : null;
  }, 30000, async () => `still "nobody connected": ${JSON.stringify(await get())}`);
  assert.equal(seen.status, 'working');

  // The agent cancels: the proposal is withdrawn in the team's database, nothing is sent.
  const cancelled = await carol.client.experimental.tasks.cancelTask(taskId);
  assert.equal(cancelled.status, 'cancelled');
  const r = await carol.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  assert.equal(r.structuredContent.executed, false, JSON.stringify(r).slice(0, 1500));
  // In team mode the proposer's withdrawal ends the quorum as a refusal (TeamConfirm::withdraw),
  // its detail naming the cancel, as for a client's notifications/cancelled.
  assert.equal(r.structuredContent.human_confirmation.status, 'declined');
  assert.match(r.structuredContent.human_confirmation.detail ?? '', /cancel/, JSON.stringify(r.structuredContent.human_confirmation));
  await waitForState(team, proposalId, 'cancelled');
  assert.equal((await createsNamed(sandbox, spec.name)).length, 0);
});
