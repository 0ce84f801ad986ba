// Issue #34's attack suite, written by a helper who did not write the fixes: items 1–9 of
// "What was reproduced", each run end to end against the real binary (`fabric-broker --stdio`
// through the official SDK client), a real PostgreSQL 15 cluster with the schema `team init`
// makes (pg.mjs), and a separate sandbox process whose request log says what reached Fabric.
// Each subtest asserts that its attack FAILS (nothing created, the limit holds, verify exits
// non-zero) and why. An attack that gets through is kept, marked `todo` with what happened.
// Skips, with the reason, without PostgreSQL or when not run as root (administrator policy).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, execFile } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, baseEnv, connectionSpec, scratchDir, sleep, startBroker, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase, pgSkip, PG_BINDIR, SUPERUSER } from './pg.mjs';
import {
  proposerEnv, startProposer, until, adminPolicySkip, adminPolicyEnv, rewriteAdminPolicy,
  proposalRow, waitForState, createsNamed, decisions,
} from './team.mjs';
import { nodeApprover, approveSigned, proposalFacts, statementFor, insertSigned, sha256hex } from './team-signing.mjs';

const skip = pgSkip() || adminPolicySkip();
const usd = (amount) => ({ amount, currency: 'USD' });
const alice = nodeApprover('alice');
const bob = nodeApprover('bob');
const dave = nodeApprover('dave');
const KEYS = [alice.listed, bob.listed, dave.listed];
const TTL_MS = 10000;
let team; let sandbox;
const open = []; // proposers to close

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

// Every real (not dry-run) create that reached the sandbox.
async function realCreates() {
  const log = await sandbox.admin('GET', '/sandbox/v1/requests');
  return log.data.filter((r) => r.method === 'POST' && r.path === '/fabric/v4/connections' && !r.dryRun);
}

async function proposer(role, opts = {}) {
  const p = await startProposer(proposerEnv(team, sandbox, { role, keys: KEYS, ...opts }), { name: `attack-${role}` });
  open.push(p);
  return p;
}

async function propose(p, spec = connectionSpec({ name: `atk-${crypto.randomUUID().slice(0, 8)}` })) {
  const r = await p.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 1500));
  assert.match(r.structuredContent.team?.proposal_id ?? '', /^[0-9a-f-]{36}$/, JSON.stringify(r.structuredContent).slice(0, 1500));
  return { spec, token: r.structuredContent.confirm_token, id: r.structuredContent.team.proposal_id, s: r.structuredContent };
}

// A statement's error as psql reports it (the query rejects): its message.
async function refused(promise) {
  try { await promise; } catch (e) { return e.message; }
  return null;
}

// `fabric-broker --stdio` spawned like a client configuration would, without waiting for team
// mode (it must not come up).
async function startAgent(env, { headless = true } = {}) {
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio', ...(headless ? ['--headless'] : []), '--toolsets', 'read,mutate'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'attack-agent', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const a = {
    get stderr() { return stderr; },
    call: (tool, args = {}) => client.callTool({ name: tool, arguments: args }, CallToolResultSchema, { timeout: 120000 }),
    async close() { try { await client.close(); } catch { /* gone */ } },
  };
  open.push(a);
  return a;
}

// An agent's environment with no administrator policy: its own HOME, runtime folder, sandbox.
function agentEnv(extra = {}) {
  const runtime = scratchDir('fb-e2e-agent-');
  fs.chmodSync(runtime, 0o700);
  return {
    HOME: scratchDir('fb-e2e-home-carol-'), USER: 'carol', LOGNAME: 'carol', PATH: process.env.PATH, LANG: 'C.UTF-8',
    XDG_RUNTIME_DIR: runtime, XDG_DATA_HOME: path.join(runtime, 'data'), XDG_CONFIG_HOME: path.join(runtime, 'config'),
    XDG_STATE_HOME: path.join(runtime, 'state'), QT_QPA_PLATFORM: 'offscreen', ...sandbox.env, ...extra,
  };
}

const rowsNamed = async (name) => Number((await team.query('fb_owner', "SELECT count(*) FROM fabric_team.proposals WHERE request LIKE '%' || :'n' || '%'", { n: name }))[0][0]);

// The owner's own psql session, held open (LISTEN, locks) until end() is called.
function heldSession(role, sql) {
  const proc = spawn(path.join(PG_BINDIR, 'psql'), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', team.uri(role)], { env: { PATH: process.env.PATH, LANG: 'C.UTF-8' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  proc.stdin.write(sql);
  return { get out() { return out; }, end() { proc.stdin.end(); proc.kill('SIGTERM'); } };
}

function teamVerify(args, env) {
  return new Promise((resolve) => {
    execFile(BIN, ['team', 'verify', ...args], { env: baseEnv(env), encoding: 'utf8', timeout: 120000 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, out: `${stdout}${stderr}` }));
  });
}

// The owner walks a proposal along the state graph (the guard trigger on: the chain records each
// step), as if it had been sent: a create nobody's broker made.
async function ownerWalkToCreated(id) {
  for (const [from, to] of [['pending', 'consumed'], ['consumed', 'sending'], ['sending', 'created']]) {
    await team.query('fb_owner', "UPDATE fabric_team.proposals SET state = :'to' WHERE id = :'id'::uuid AND state = :'from'", { id, from, to });
  }
  await team.query('fb_owner', 'ALTER TABLE fabric_team.proposals DISABLE TRIGGER USER');
  try {
    await team.query('fb_owner', "UPDATE fabric_team.proposals SET sent_at = now() WHERE id = :'id'::uuid", { id });
  } finally { await team.query('fb_owner', 'ALTER TABLE fabric_team.proposals ENABLE TRIGGER USER'); }
}

test('7: team verify fails a create with no approval, one approved by its proposer only, and an unkeyed --bundle', { skip, timeout: 180000 }, async () => {
  const dir = scratchDir('fb-e2e-verify-');
  const adminEnv = adminPolicyEnv(dir, { team: { approver_keys: KEYS } });
  const carol = await proposer('carol');
  const davep = await proposer('dave');
  const clean = await teamVerify([team.uri('alice')], adminEnv);
  assert.equal(clean.code, 0, clean.out);

  // (a) a created proposal with no approval at all, walked there by the owner.
  const a = await propose(carol);
  await ownerWalkToCreated(a.id);
  // (b) dave's proposal, approved (signed with dave's listed key) by dave's role only.
  const b = await propose(davep);
  const own = await refused(approveSigned(team, dave, b.id));
  if (own) { // the database refuses a proposer's approval of its own: the owner forges it
    const facts = await proposalFacts(team, b.id);
    const dialogSha256 = sha256hex('dave sees his own');
    await insertSigned(team, 'fb_owner', b.id, { approver: 'dave', dialogSha256, statement: statementFor(facts, { approver: 'dave', dialogSha256 }), privateKey: dave.privateKey, publicKey: dave.publicKey });
  }
  await ownerWalkToCreated(b.id);

  const bundle = path.join(dir, 'bundle.jsonl');
  const v = await teamVerify([team.uri('alice'), '--export', bundle], adminEnv);
  assert.notEqual(v.code, 0, v.out);
  assert.match(v.out, /BROKEN/);
  assert.match(v.out, new RegExp(`FAIL:.*${a.id}.*sent with 0 verified approval`), v.out);
  assert.match(v.out, new RegExp(`FAIL:.*${b.id}.*sent with 0 verified approval`), v.out);
  assert.equal((await realCreates()).length, 0, 'nothing reached the sandbox');

  // --bundle without policy keys: UNVERIFIED, non-zero.
  assert.ok(fs.existsSync(bundle), v.out);
  const u = await teamVerify(['--bundle', bundle], {});
  assert.notEqual(u.code, 0, u.out);
  assert.match(u.out, /UNVERIFIED/);
  // With the policy's keys the bundle fails like the database.
  const k = await teamVerify(['--bundle', bundle], adminEnv);
  assert.notEqual(k.code, 0, k.out);
  assert.match(k.out, new RegExp(a.id));
});

test('1a: the agent\'s own user policy file {"team":{"database":…}} does not turn team mode on', { skip, timeout: 120000 }, async () => {
  const dir = scratchDir('fb-e2e-userpol-');
  const user = path.join(dir, 'policy.json');
  fs.writeFileSync(user, JSON.stringify({ team: { database: team.uri('carol') } }));
  const agent = await startAgent(agentEnv({ FABRIC_BROKER_POLICY: user }));
  const spec = connectionSpec({ name: `atk-user-${crypto.randomUUID().slice(0, 8)}` });
  const p = await agent.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.structuredContent.team, undefined, JSON.stringify(p.structuredContent).slice(0, 800));
  assert.equal(await rowsNamed(spec.name), 0, 'the proposal left for the agent\'s database');
  // The agent's database "approves": there is no row to approve; the confirm is not the team's.
  const c = await agent.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
  assert.equal(c.structuredContent.executed, false, JSON.stringify(c.structuredContent).slice(0, 1200));
  assert.notEqual(c.structuredContent.human_confirmation?.channel, 'team');
  assert.equal((await createsNamed(sandbox, spec.name)).length, 0);
  assert.match(agent.stderr, /team\.database.*ignored/i);
  console.error('1a:', JSON.stringify({ status: c.structuredContent.human_confirmation, reason: c.structuredContent.execution?.reason }), agent.stderr.split('\n').find((l) => /team\.database/i.test(l)));
});

test('1b: FABRIC_BROKER_TEAM_DATABASE in a client\'s server env does not turn team mode on', { skip, timeout: 120000 }, async () => {
  const agent = await startAgent(agentEnv({ FABRIC_BROKER_TEAM_DATABASE: team.uri('carol') }));
  const spec = connectionSpec({ name: `atk-env-${crypto.randomUUID().slice(0, 8)}` });
  const p = await agent.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.structuredContent.team, undefined, JSON.stringify(p.structuredContent).slice(0, 800));
  assert.equal(await rowsNamed(spec.name), 0);
  const c = await agent.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
  assert.equal(c.structuredContent.executed, false, JSON.stringify(c.structuredContent).slice(0, 1200));
  assert.equal((await createsNamed(sandbox, spec.name)).length, 0);
  assert.match(agent.stderr, /FABRIC_BROKER_TEAM_DATABASE is IGNORED: team mode is set by the administrator's policy alone/);
});

test('1e: the saved team/database setting (QSettings) does not turn team mode on', { skip, timeout: 120000 }, async () => {
  const env = agentEnv();
  fs.mkdirSync(path.join(env.XDG_CONFIG_HOME, 'fabric-broker'), { recursive: true });
  fs.writeFileSync(path.join(env.XDG_CONFIG_HOME, 'fabric-broker', 'fabric-broker.conf'), `[team]\ndatabase=${team.uri('carol')}\n`);
  const agent = await startAgent(env, { headless: false });
  const spec = connectionSpec({ name: `atk-saved-${crypto.randomUUID().slice(0, 8)}` });
  const p = await agent.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.structuredContent.team, undefined, JSON.stringify(p.structuredContent).slice(0, 800));
  assert.equal(await rowsNamed(spec.name), 0);
  assert.equal((await createsNamed(sandbox, spec.name)).length, 0);
  // (A --stdio without a desktop app serves headless; the desktop app's own path is not run here.)
});

test('1c: an administrator policy with team.database but no team.approver_keys: proposals refused team_unavailable', { skip, timeout: 120000 }, async () => {
  const env = proposerEnv(team, sandbox, { role: 'carol' }); // no keys
  const agent = await startAgent(env);
  const spec = connectionSpec({ name: `atk-nokeys-${crypto.randomUUID().slice(0, 8)}` });
  let p;
  await until(async () => {
    p = await agent.call('fabric_propose_change', { change_type: 'connection_create', spec });
    return !/not connected yet/.test(JSON.stringify(p.structuredContent));
  }, 15000, () => JSON.stringify(p?.structuredContent).slice(0, 800));
  assert.equal(p.isError, true, JSON.stringify(p.structuredContent).slice(0, 800));
  assert.equal(p.structuredContent.error?.kind, 'team_unavailable', JSON.stringify(p.structuredContent).slice(0, 800));
  assert.equal(p.structuredContent.confirm_token, undefined);
  assert.match(agent.stderr, /team\.database is set but team\.approver_keys is not/);
  assert.equal(await rowsNamed(spec.name), 0);
});

test('1d: an unsigned approval (a plain INSERT by another role) never counts', { skip, timeout: 120000 }, async () => {
  const carol = await proposer('carol', { extra: { EQUINIX_MCP_PROPOSAL_TTL_MS: String(TTL_MS) } });
  const p = await propose(carol);
  const pending = carol.confirm(p.token);
  await waitForState(team, p.id, 'consumed');
  await team.query('alice', "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256, os_user, host) VALUES (:'id'::uuid, 'approve', sha256('x'::bytea), 'alice', 'ws-alice')", { id: p.id });
  const s = (await pending).structuredContent;
  assert.equal(s.executed, false, JSON.stringify(s).slice(0, 1500));
  assert.equal(s.human_confirmation.status, 'timed_out');
  assert.deepEqual(s.team.approvals, []);
  console.error('1d:', JSON.stringify(s.team.not_counted).slice(0, 600));
  assert.ok(s.team.not_counted.some((n) => n.approver === 'alice' && /not signed/.test(n.why)), JSON.stringify(s.team));
  assert.equal((await createsNamed(sandbox, p.spec.name)).length, 0);
});

// The owner swaps the row's body and price (trigger disabled) while approvers look, then back.
async function swapShown(id, name) {
  await team.query('fb_owner', 'ALTER TABLE fabric_team.proposals DISABLE TRIGGER USER');
  await team.query('fb_owner', `UPDATE fabric_team.proposals SET request = replace(request, :'n', 'lab-test'),
      request_sha256 = sha256(convert_to(replace(request, :'n', 'lab-test'), 'UTF8')),
      price = jsonb_set(price, '{monthly_recurring}', '12') WHERE id = :'id'::uuid`, { id, n: name });
}
async function swapBack(id, name) {
  await team.query('fb_owner', `UPDATE fabric_team.proposals SET request = replace(request, 'lab-test', :'n'),
      request_sha256 = sha256(convert_to(replace(request, 'lab-test', :'n'), 'UTF8')), price = :'price'::jsonb WHERE id = :'id'::uuid`, { id, n: name, price: swapBack.price });
  await team.query('fb_owner', 'ALTER TABLE fabric_team.proposals ENABLE TRIGGER USER');
}

test('2: the owner shows a harmless body and price, two approvers sign it, the owner swaps back: their approvals do not count', { skip, timeout: 120000 }, async () => {
  const carol = await proposer('carol', { extra: { EQUINIX_MCP_PROPOSAL_TTL_MS: String(TTL_MS) } });
  const p = await propose(carol);
  const pending = carol.confirm(p.token);
  await waitForState(team, p.id, 'consumed');
  swapBack.price = (await team.query('fb_owner', "SELECT price::text FROM fabric_team.proposals WHERE id = :'id'::uuid", { id: p.id }))[0][0];
  await swapShown(p.id, p.spec.name);
  try {
    const shown = await proposalFacts(team, p.id);
    assert.match(shown.request.toString(), /lab-test/);
    await approveSigned(team, alice, p.id);
    await approveSigned(team, bob, p.id);
  } finally { await swapBack(p.id, p.spec.name); }
  const s = (await pending).structuredContent;
  assert.equal(s.executed, false, JSON.stringify(s).slice(0, 2000));
  assert.equal(s.human_confirmation.status, 'timed_out');
  assert.deepEqual(s.team.approvals, []);
  console.error('2:', JSON.stringify(s.team.not_counted).slice(0, 1200));
  for (const who of ['alice', 'bob']) {
    assert.ok(s.team.not_counted.some((n) => n.approver === who && n.rejected === true && /request_sha256|price/.test(n.why)), JSON.stringify(s.team));
  }
  assert.equal((await createsNamed(sandbox, p.spec.name)).length, 0);
});

test('2b: a body swapped before the confirm: the consume refuses the row (request_matches_binding false)', { skip, timeout: 120000 }, async () => {
  const carol = await proposer('carol');
  const p = await propose(carol);
  swapBack.price = (await team.query('fb_owner', "SELECT price::text FROM fabric_team.proposals WHERE id = :'id'::uuid", { id: p.id }))[0][0];
  await swapShown(p.id, p.spec.name);
  let s;
  try {
    await approveSigned(team, alice, p.id);
    s = (await carol.confirm(p.token)).structuredContent;
  } finally { await swapBack(p.id, p.spec.name); }
  assert.equal(s.executed, false, JSON.stringify(s).slice(0, 2000));
  assert.equal(s.confirm_checks?.request_matches_binding, false, JSON.stringify(s).slice(0, 2000));
  assert.equal((await createsNamed(sandbox, p.spec.name)).length, 0);
});

test('3: a fresh proposal\'s token moved onto an older signed-approved row of the same request: nothing created', { skip, timeout: 120000 }, async () => {
  const carol = await proposer('carol');
  const spec = connectionSpec({ name: `atk-replay-${crypto.randomUUID().slice(0, 8)}` });
  const old = await propose(carol, spec);
  await approveSigned(team, alice, old.id); // the older row's quorum (signed over its own token)
  const fresh = await propose(carol, spec);
  await team.query('fb_owner', 'ALTER TABLE fabric_team.proposals DISABLE TRIGGER USER');
  try {
    await team.query('fb_owner', `UPDATE fabric_team.proposals SET token_sha256 = sha256(gen_random_uuid()::text::bytea) WHERE id = :'fresh'::uuid;
      UPDATE fabric_team.proposals SET token_sha256 = sha256(convert_to(:'tok', 'UTF8')), state = 'pending', expires_at = now() + interval '10 minutes' WHERE id = :'old'::uuid`,
    { fresh: fresh.id, old: old.id, tok: fresh.token });
  } finally { await team.query('fb_owner', 'ALTER TABLE fabric_team.proposals ENABLE TRIGGER USER'); }
  // The moved token is what the fresh proposal's confirm consumes (sha256 of the token's text).
  const [[moved]] = await team.query('fb_owner', "SELECT encode(token_sha256, 'hex') = :'h' FROM fabric_team.proposals WHERE id = :'old'::uuid", { old: old.id, h: sha256hex(fresh.token) });
  assert.equal(moved, 't', 'the token hash is the SHA-256 of the token text');
  const c = await carol.call('fabric_confirm_change', { confirm_token: fresh.token }, { timeout: 60000 });
  const s = c.structuredContent;
  assert.equal(s.executed, false, JSON.stringify(s).slice(0, 2000));
  assert.equal((await createsNamed(sandbox, spec.name)).length, 0);
  assert.match(JSON.stringify(s), /published|not the one|another proposal|request_matches_binding|binding_mismatch/, JSON.stringify(s).slice(0, 2000));
  console.error('3: refused with', JSON.stringify({ reason: s.execution?.reason, checks: s.confirm_checks, message: s.message }).slice(0, 800));
});

test('4a: the proposer role moves its own in-flight rows with plain SQL or the functions from a second session: refused', { skip, timeout: 120000 }, async () => {
  const carol = await proposer('carol');
  const p = await propose(carol);
  const pending = carol.confirm(p.token);
  await waitForState(team, p.id, 'consumed');
  let e = await refused(team.query('carol', "UPDATE fabric_team.proposals SET state = 'failed' WHERE id = :'id'::uuid", { id: p.id }));
  assert.match(e ?? 'accepted', /permission denied/);
  e = await refused(team.query('carol', "SELECT fabric_team.transition(:'id'::uuid, 'consumed', 'cancelled')", { id: p.id }));
  assert.match(e ?? 'accepted', /permission denied|42501|holds|another/i);
  assert.equal((await proposalRow(team, p.id)).state, 'consumed');
  // Now in flight: the sandbox answers slowly, so the row stays sending while carol attacks it.
  await sandbox.admin('POST', '/sandbox/v1/faults', { latencyMs: 4000 });
  try {
    await approveSigned(team, alice, p.id);
    await waitForState(team, p.id, 'sending', 20000);
    e = await refused(team.query('carol', "UPDATE fabric_team.proposals SET state = 'failed' WHERE id = :'id'::uuid", { id: p.id }));
    assert.match(e ?? 'accepted', /permission denied/);
    e = await refused(team.query('carol', "SELECT fabric_team.finish_send(:'id'::uuid, 'failed')", { id: p.id }));
    assert.match(e ?? 'accepted', /only the session that began sending proposal .* records its outcome/);
    const [[spent]] = await team.query('fb_owner', "SELECT fabric_team.day_spent('USD')");
    assert.ok(Number(spent) >= 150, `the in-flight create is in the team's day: ${spent}`);
  } finally { await sandbox.admin('POST', '/sandbox/v1/faults', { latencyMs: 0 }); }
  const s = (await pending).structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 1500));
  await waitForState(team, p.id, 'created');
});

test('4b: an unknown create resolved not_created unsigned: the team\'s day still counts it', { skip, timeout: 180000 }, async () => {
  const policy = { spend: { max_monthly_recurring_per_day: usd(1e9) } };
  const carol = await proposer('carol', { policy });
  const p = await propose(carol);
  const pending = carol.confirm(p.token);
  await waitForState(team, p.id, 'consumed');
  await sandbox.admin('POST', '/sandbox/v1/faults', { drop: { count: 1, onlyRealCreates: true, applyRequest: false } });
  await approveSigned(team, alice, p.id);
  const s = (await pending).structuredContent;
  assert.equal(s.execution?.outcome, 'unknown', JSON.stringify(s).slice(0, 1500));
  await waitForState(team, p.id, 'unknown', 30000);
  const day = async () => Number((await team.query('fb_owner', "SELECT fabric_team.day_spent('USD')"))[0][0]);
  const before = await day();
  const [[amount]] = await team.query('fb_owner', "SELECT monthly_amount FROM fabric_team.proposals WHERE id = :'id'::uuid", { id: p.id });
  // bob resolves it not_created without a signature (a plain INSERT).
  const e = await refused(team.query('bob', "INSERT INTO fabric_team.resolutions (proposal_id, outcome, dialog_sha256, os_user, host) VALUES (:'id'::uuid, 'not_created', sha256('b'::bytea), 'bob', 'ws-bob')", { id: p.id }));
  const after = await day();
  assert.equal(after, before, `the team's day dropped from ${before} to ${after} (resolution ${e ? `refused: ${e}` : 'accepted'})`);
  assert.ok(after >= Number(amount), `day ${after} does not hold the unknown create's ${amount}`);
  // team verify names it: an unsigned resolution does not hold.
  const v = await teamVerify([team.uri('alice')], adminPolicyEnv(scratchDir('fb-e2e-verify-'), { team: { approver_keys: KEYS } }));
  assert.notEqual(v.code, 0);
  assert.match(v.out, new RegExp(`FAIL:.*(${p.id}).*|FAIL: resolution .*\\(proposal ${p.id}.*not signed`), v.out.slice(-3000));
  console.error('4b verify:', v.out.split('\n').filter((l) => l.includes(p.id)).join(' | ').slice(0, 800));
  console.error('4b: unsigned resolution', e ? `refused: ${e.split('\n')[0]}` : 'inserted', '; day', before, '->', after, 'state', (await proposalRow(team, p.id)).state);
});

test('5a: a proposer inserts a row straight to unknown, or gives a huge monthly_amount: refused; begin_send will not walk it', { skip, timeout: 120000 }, async () => {
  const carol = await proposer('carol');
  const p = await propose(carol);
  const copy = (extraCols, extraVals) => `INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, price, dry_run, os_user, host, mcp_client, token_sha256, expires_at${extraCols})
    SELECT change_type, request, request_sha256, binding, jsonb_set(price, '{monthly_recurring}', '1000000000000'), dry_run, os_user, host, mcp_client,
      sha256(gen_random_uuid()::text::bytea), now() + interval '1 hour'${extraVals} FROM fabric_team.proposals WHERE id = :'id'::uuid RETURNING id`;
  let e = await refused(team.query('carol', copy(', state', ", 'unknown'"), { id: p.id }));
  assert.match(e ?? 'accepted', /permission denied|row-level security/);
  e = await refused(team.query('carol', copy(', monthly_amount, monthly_currency', ", 1000000000000, 'USD'"), { id: p.id }));
  assert.match(e ?? 'accepted', /permission denied/);
  // A pending row worth USD 10^12 is insertable; walking it to sending without another role's approval is not.
  const [[huge]] = await team.query('carol', copy('', ''), { id: p.id });
  const consumed = await refused(team.query('carol', "SELECT fabric_team.begin_send(:'id'::uuid, 1000000000000000, 'USD')", { id: huge }));
  const row = await proposalRow(team, huge);
  assert.equal(row.state, 'pending', `begin_send moved it: ${consumed}`);
  const [[spent]] = await team.query('fb_owner', "SELECT fabric_team.day_spent('USD')");
  assert.ok(Number(spent) < 1e12, `the team's day holds ${spent}`);
  // Fake "does not count" reports: only the proposal's own proposer may report one.
  const detail = JSON.stringify({ approver: 'bob', reason: 'bob may be compromised' });
  e = await refused(team.query('dave', "SELECT fabric_team.report_rejected(:'id'::uuid, :'d')", { id: p.id, d: detail }));
  assert.match(e ?? 'accepted', /permission denied|42501|own/i);
  e = await refused(team.query('alice', "SELECT fabric_team.report_rejected(:'id'::uuid, :'d')", { id: p.id, d: detail }));
  assert.match(e ?? 'accepted', /permission denied/);
  e = await refused(team.query('alice', "INSERT INTO fabric_team.team_audit (event, proposal_id, detail) VALUES ('approval_rejected', :'id'::uuid, :'d')", { id: p.id, d: detail }));
  assert.match(e ?? 'accepted', /row-level security|permission denied/);
});

test('5b: 210 junk pending rows of one proposer do not push another\'s proposal off an approver\'s first page', { skip, timeout: 120000 }, async () => {
  const carol = await proposer('carol');
  const p = await propose(carol);
  await team.query('carol', `INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, price, dry_run, os_user, host, mcp_client, token_sha256, expires_at)
    SELECT change_type, request, request_sha256, binding, price, dry_run, os_user, host, mcp_client, sha256(gen_random_uuid()::text::bytea), now() + interval '1 hour'
    FROM fabric_team.proposals, generate_series(1, 210) WHERE id = :'id'::uuid`, { id: p.id });
  const davep = await proposer('dave');
  const real = await propose(davep);
  // The first page as TeamQueue::listOpen reads it (PerProposer 20, PageSize 200), as alice.
  const open = "(state IN ('pending', 'consumed') AND expires_at > now())";
  const page = await team.query('alice', `SELECT id FROM (SELECT id, proposer, created_at AS created, ${open} AS open,
      row_number() OVER (PARTITION BY proposer, ${open} ORDER BY created_at DESC, id) AS nth FROM fabric_team.proposals
      WHERE ${open} OR state = 'unknown') o ORDER BY o.open DESC, (o.nth > 20), o.created DESC, o.id LIMIT 200`);
  assert.ok(page.some(([id]) => id === real.id), 'dave\'s proposal is not on the first page');
  // And it can still be approved and sent.
  const pending = davep.confirm(real.token);
  await waitForState(team, real.id, 'consumed');
  await approveSigned(team, alice, real.id);
  const s = (await pending).structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 1500));
});

test('6: a stranger login role cannot connect; a member\'s LISTEN, NOTIFY flood and advisory locks do not stall a send', { skip, timeout: 120000 }, async () => {
  await team.cluster.query(SUPERUSER, 'postgres', 'CREATE ROLE mallory LOGIN');
  const e = await refused(team.query('mallory', 'SELECT 1'));
  assert.match(e ?? 'connected', /permission denied for database/);
  const carol = await proposer('carol');
  const p = await propose(carol);
  // bob holds the old team-day and sending advisory keys, listens, and floods NOTIFY.
  const held = heldSession('bob', `LISTEN fabric_team;
    SELECT pg_advisory_lock(hashtext('fabric_team.team_day'));
    SELECT pg_advisory_lock(hashtext(:'id'));
    SELECT pg_advisory_lock(hashtext('fabric_team.sending.' || :'id'));
    SELECT 'held';
    SELECT pg_sleep(90);\n`.replaceAll(":'id'", `'${p.id}'`));
  try {
    await until(() => /held/.test(held.out), 10000, () => held.out);
    const pending = carol.confirm(p.token);
    await waitForState(team, p.id, 'consumed');
    await team.query('bob', "SELECT count(pg_notify('fabric_team', gen_random_uuid()::text)) FROM generate_series(1, 5000)");
    const t0 = Date.now();
    await approveSigned(team, alice, p.id);
    const s = (await pending).structuredContent;
    assert.equal(s.executed, true, JSON.stringify(s).slice(0, 1500));
    assert.ok(Date.now() - t0 < 5000, `the send took ${Date.now() - t0} ms after the approval`);
    assert.equal((await createsNamed(sandbox, p.spec.name)).length, 1);
  } finally { held.end(); }
});

test('8: the local day survives deleting audit.jsonl and its head between runs, and a fresh log path', { skip, timeout: 180000 }, async () => {
  const dir = scratchDir('fb-e2e-localday-');
  const policyFile = path.join(dir, 'policy.json');
  fs.writeFileSync(policyFile, JSON.stringify({ spend: { max_monthly_recurring_per_day: usd(200) } }));
  const env = { ...sandbox.env, FABRIC_BROKER_POLICY: policyFile, EQUINIX_MCP_AUDIT_LOG: path.join(dir, 'audit.jsonl'), XDG_STATE_HOME: path.join(dir, 'state') };
  const elicit = async () => ({ action: 'accept', content: { confirm: true } });
  const names = [];
  const run = async (e) => {
    const b = await startBroker({ args: ['--toolsets', 'read,mutate'], env: e, elicit });
    try {
      const spec = connectionSpec({ name: `atk-day-${crypto.randomUUID().slice(0, 8)}` });
      names.push(spec.name);
      const p = await b.call('fabric_propose_change', { change_type: 'connection_create', spec });
      assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1000));
      return (await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token })).structuredContent;
    } finally { await b.close(); }
  };
  let c = await run(env);
  assert.equal(c.executed, true, JSON.stringify(c).slice(0, 800));
  c = await run(env);
  assert.equal(c.execution.reason, 'policy_denied', JSON.stringify(c).slice(0, 800));
  for (let i = 0; i < 2; i++) {
    fs.rmSync(env.EQUINIX_MCP_AUDIT_LOG, { force: true });
    fs.rmSync(`${env.EQUINIX_MCP_AUDIT_LOG}.head`, { force: true });
    c = await run(env);
    assert.equal(c.executed, false, JSON.stringify(c).slice(0, 800));
    assert.equal(c.execution.reason, 'policy_denied');
    assert.match(c.message, /missing|reset-ledger/);
    console.error('8:', c.message.slice(0, 400));
  }
  c = await run({ ...env, EQUINIX_MCP_AUDIT_LOG: path.join(dir, 'fresh', 'audit.jsonl') });
  assert.equal(c.executed, false, JSON.stringify(c).slice(0, 800));
  assert.equal(c.execution.reason, 'policy_denied');
  console.error('8 fresh:', c.message.slice(0, 400));
  let made = 0;
  for (const n of names) made += (await createsNamed(sandbox, n)).length;
  assert.equal(made, 1, 'only the first create reached the sandbox');
});

// Beyond item 8 as filed: the marker outside the log's folder is still the same OS user's file.
test('8b: the agent also deletes the day\'s marker in XDG_STATE_HOME (same OS user): the local day holds', {
  skip, timeout: 180000,
  todo: 'got through: rm audit.jsonl audit.jsonl.head $XDG_STATE_HOME/fabric-broker/audit-day, and the next run created a second USD 150 connection under a USD 200 daily limit (executed=true)',
}, async () => {
  const dir = scratchDir('fb-e2e-localday-');
  const policyFile = path.join(dir, 'policy.json');
  fs.writeFileSync(policyFile, JSON.stringify({ spend: { max_monthly_recurring_per_day: usd(200) } }));
  const env = { ...sandbox.env, FABRIC_BROKER_POLICY: policyFile, EQUINIX_MCP_AUDIT_LOG: path.join(dir, 'audit.jsonl'), XDG_STATE_HOME: path.join(dir, 'state') };
  const elicit = async () => ({ action: 'accept', content: { confirm: true } });
  const names = [];
  const run = async (e) => {
    const b = await startBroker({ args: ['--toolsets', 'read,mutate'], env: e, elicit });
    try {
      const spec = connectionSpec({ name: `atk-day2-${crypto.randomUUID().slice(0, 8)}` });
      names.push(spec.name);
      const p = await b.call('fabric_propose_change', { change_type: 'connection_create', spec });
      return (await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token })).structuredContent;
    } finally { await b.close(); }
  };
  assert.equal((await run(env)).executed, true);
  fs.rmSync(env.EQUINIX_MCP_AUDIT_LOG, { force: true });
  fs.rmSync(`${env.EQUINIX_MCP_AUDIT_LOG}.head`, { force: true });
  fs.rmSync(path.join(env.XDG_STATE_HOME, 'fabric-broker', 'audit-day'), { force: true });
  const c = await run(env);
  console.error('8b:', JSON.stringify({ executed: c.executed, reason: c.execution?.reason, message: c.message }).slice(0, 600));
  let made = 0;
  for (const n of names) made += (await createsNamed(sandbox, n)).length;
  assert.equal(c.executed, false, JSON.stringify(c).slice(0, 600));
  assert.equal(made, 1, 'a second create reached the sandbox under the daily limit');
});

test('9a: a team confirm nobody approves ends timed_out at its expiry', { skip, timeout: 120000 }, async () => {
  const carol = await proposer('carol', { extra: { EQUINIX_MCP_PROPOSAL_TTL_MS: String(TTL_MS) } });
  const p = await propose(carol);
  const expiresAt = Date.parse(p.s.expires_at);
  const s = (await carol.confirm(p.token)).structuredContent;
  assert.equal(s.executed, false);
  assert.equal(s.human_confirmation.status, 'timed_out', JSON.stringify(s).slice(0, 1000));
  assert.match(s.message, /expired at/);
  assert.doesNotMatch(s.message, /300000/);
  assert.ok(Date.now() - expiresAt < 7000, `ended ${Date.now() - expiresAt} ms after the expiry`);
  assert.equal((await proposalRow(team, p.id)).state, 'expired');
  assert.equal((await createsNamed(sandbox, p.spec.name)).length, 0);
});

test('9b: a key revoked in the administrator\'s file while a confirm waits no longer counts', { skip, timeout: 120000 }, async () => {
  const quorum = [{ unpriced: true, approvals: 2 }, { above_monthly: usd(0), approvals: 2 }];
  const env = proposerEnv(team, sandbox, { role: 'carol', keys: KEYS, policy: { team: { quorum } }, extra: { EQUINIX_MCP_PROPOSAL_TTL_MS: String(15000) } });
  const carol = await startProposer(env, { name: 'attack-revoke' });
  open.push(carol);
  const p = await propose(carol);
  assert.equal(p.s.team.required, 2);
  const pending = carol.confirm(p.token);
  await waitForState(team, p.id, 'consumed');
  await approveSigned(team, alice, p.id); // 1 of 2
  const admin = JSON.parse(fs.readFileSync(env.FABRIC_BROKER_EXTRA_ADMIN_POLICY, 'utf8'));
  admin.team.approver_keys = [bob.listed, dave.listed]; // alice's key revoked
  rewriteAdminPolicy(env, admin);
  await sleep(3000); // the app reloads its policy files
  await approveSigned(team, bob, p.id); // would be 2 of 2 with the old list
  const s = (await pending).structuredContent;
  console.error('9b:', JSON.stringify({ executed: s.executed, hc: s.human_confirmation, execution: s.execution, message: s.message, team: s.team }).slice(0, 1500));
  assert.equal(s.executed, false, JSON.stringify(s).slice(0, 2000));
  assert.equal((await createsNamed(sandbox, p.spec.name)).length, 0);
  assert.deepEqual((await decisions(team, p.id)).map((d) => d.approver).sort(), ['alice', 'bob']);
  // The reload reaches the waiting confirm: alice's approval stops counting; it ends at the expiry.
  assert.equal(s.execution.reason, 'not_approved');
  assert.match(`${s.human_confirmation.status} ${s.human_confirmation.detail}`, /^timed_out .*with 1 of 2 approvals/);
  assert.deepEqual(s.team.approvals, ['bob']);
});

test('9c: a key revoked before its approval arrives: that approval does not count (quorum 1)', { skip, timeout: 120000 }, async () => {
  const env = proposerEnv(team, sandbox, { role: 'carol', keys: KEYS, extra: { EQUINIX_MCP_PROPOSAL_TTL_MS: String(TTL_MS) } });
  const carol = await startProposer(env, { name: 'attack-revoke-first' });
  open.push(carol);
  const p = await propose(carol);
  const pending = carol.confirm(p.token);
  await waitForState(team, p.id, 'consumed');
  const admin = JSON.parse(fs.readFileSync(env.FABRIC_BROKER_EXTRA_ADMIN_POLICY, 'utf8'));
  admin.team.approver_keys = [bob.listed, dave.listed];
  rewriteAdminPolicy(env, admin);
  await sleep(3000);
  await approveSigned(team, alice, p.id);
  const s = (await pending).structuredContent;
  console.error('9c:', JSON.stringify({ executed: s.executed, hc: s.human_confirmation, execution: s.execution, message: s.message, team: s.team }).slice(0, 1500));
  assert.equal(s.executed, false, JSON.stringify(s).slice(0, 2000));
  assert.equal((await createsNamed(sandbox, p.spec.name)).length, 0);
});

test('9d: a second broker of the same role, OS user and host starting up leaves a live broker\'s waiting row alone', { skip, timeout: 120000 }, async () => {
  const first = await proposer('carol');
  const p = await propose(first);
  const pending = first.confirm(p.token);
  await waitForState(team, p.id, 'consumed');
  await proposer('carol'); // its own runtime folder: another instance, recovering its own rows on connect
  await sleep(1500);
  assert.equal((await proposalRow(team, p.id)).state, 'consumed');
  await approveSigned(team, alice, p.id);
  const s = (await pending).structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 1500));
  assert.equal((await createsNamed(sandbox, p.spec.name)).length, 1);
});

test('nothing in this file reached the sandbox but what was approved', { skip }, async () => {
  // 4a, 5b and 6 send one honestly approved create each; 4b one whose answer was dropped; 8 one.
  const all = await realCreates();
  const names = all.map((r) => JSON.parse(r.body).name);
  console.error('sandbox creates:', names.join(', '));
  assert.ok(names.every((n) => !/atk-(user|env|nokeys|replay)/.test(n)), names.join(', '));
});
