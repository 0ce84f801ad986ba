// Operator-signed team approvals (issue #26, docs/team-signing.md), end to end on a real
// PostgreSQL 15 (pg.mjs) with two real desktop apps under Xvfb, alice's and bob's workstations,
// each with its own Secret Service (gnome-keyring-daemon on the workstation's session bus) in
// which `fabric-broker team key` made the operator's Ed25519 approval key before the app started;
// read and operated through AT-SPI as a screen reader and a person do. carol's agent proposes
// through the official SDK client (`fabric-broker --stdio`, its own instance) against a separate
// Fabric sandbox process; her administrator's policy (FABRIC_BROKER_EXTRA_ADMIN_POLICY) lists alice's, bob's
// and dave's keys in team.approver_keys. dave has no app: this file holds his key (node:crypto)
// and writes his rows with psql as his role, as his app would.
//
//   - the keys: each workstation's `team key` prints its public key and OpenSSH fingerprint;
//   - an approval the schema owner inserts in bob's name (a statement exactly right for the
//     proposal, signed with the owner's own key) does not count: nothing is sent, the proposer
//     reports it (team audit chain `approval_rejected`, alice's dialog, the confirm's result),
//     and alice's honest signed approval then sends the create once;
//   - dave's statement signed over another dialog text than his row's does not count (the reason
//     names dialog_sha256); his correct statement, built the same way, counts and sends once;
//   - `fabric-broker team verify` passes on an honest history, names the forged rows of the
//     whole history, and names the row whose stored statement the owner changed by one byte.
//
// Skips, with the reason, when PostgreSQL, Xvfb, xdotool, dbus-run-session, python3-pyatspi or
// gnome-keyring is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, baseEnv, connectionSpec, scratchDir, sleep, startSandboxProcess } from './lib.mjs';
import { startTeamDatabase } from './pg.mjs';
import * as signing from './team-signing.mjs';
import { sha256hex, rawPublic, fingerprintOf, publicKeyFromBase64, statementFor } from './team-signing.mjs';
import {
  teamSigningSkip, startWorkstations, proposerEnv, startProposer, waitForState, proposalRow,
  createsNamed, hasDecided, until,
} from './team.mjs';

const skip = teamSigningSkip();
// Above USD 500 a month two approvals (the 1000 Mbps connection, USD 600); one otherwise.
const QUORUM = [{ above_monthly: { amount: 500, currency: 'USD' }, approvals: 2 }];
let team; let sandbox; let alice; let bob; let carol; let keys; let policyFile;
// dave's key (he has no app) and the schema owner's own key (not in any policy).
const dave = crypto.generateKeyPairSync('ed25519');
const owner = crypto.generateKeyPairSync('ed25519');
// The approvals that do not count, made by the subtests below: { forged, daveBad } (ids).
const notCounting = {};

const escapeRx = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// The details pane shows the request's name as "name": "...".
const named = (spec) => escapeRx(`"name": "${spec.name}"`);

// The statement's pieces and the signed row: the e2e suites' one signer (team-signing.mjs).
const proposalFacts = (id) => signing.proposalFacts(team, id);
const insertSigned = (role, id, row) => signing.insertSigned(team, role, id, row);

// role's approval row of proposal id, with its signed columns, or null.
async function approvalOf(id, role) {
  const rows = await team.query('fb_owner', `SELECT id, decision, encode(dialog_sha256, 'hex'), coalesce(statement, ''),
      coalesce(encode(signature, 'hex'), ''), coalesce(encode(public_key, 'hex'), '')
    FROM fabric_team.approvals WHERE proposal_id = :'id'::uuid AND approver = :'role'`, { id, role });
  if (!rows.length) return null;
  const [aid, decision, dialogSha256, statement, sig, pub] = rows[0];
  return { id: aid, decision, dialog_sha256: dialogSha256, statement, signature: Buffer.from(sig, 'hex'), public_key: Buffer.from(pub, 'hex').toString('base64') };
}

// The team audit chain's approval_rejected events of proposal id: [{ actor, detail }].
async function rejections(id) {
  const rows = await team.query('fb_owner', "SELECT actor, detail FROM fabric_team.team_audit WHERE event = 'approval_rejected' AND proposal_id = :'id'::uuid ORDER BY seq", { id });
  return rows.map(([actor, detail]) => ({ actor, detail: JSON.parse(detail) }));
}

async function rejectionOf(id, approvalId) {
  return until(async () => (await rejections(id)).find((r) => r.detail.approval_id === approvalId), 60000,
    async () => `no approval_rejected for approval ${approvalId} of proposal ${id}: ${JSON.stringify(await rejections(id))}\ncarol's log:\n${carol.stderr.slice(-3000)}`);
}

async function propose(spec) {
  const p = await carol.call('fabric_propose_change', { change_type: 'connection_create', spec });
  assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1500));
  const s = p.structuredContent;
  assert.ok(s.confirm_token, JSON.stringify(s).slice(0, 1500));
  assert.match(s.team?.proposal_id ?? '', /^[0-9a-f-]{36}$/, `structuredContent.team: ${JSON.stringify(s.team)}`);
  return s;
}

// Proposes spec and starts its confirm; resolves once the confirm waits for the team (consumed).
async function proposeAndConfirm(spec) {
  const p = await propose(spec);
  const id = p.team.proposal_id;
  const c = { id, settled: false, requestSha256: p.request_sha256 };
  c.result = carol.confirm(p.confirm_token).finally(() => { c.settled = true; });
  await waitForState(team, id, 'consumed', 60000);
  return c;
}

// Nothing is sent for ms: no create of spec reached the sandbox, the proposal still waits and
// its confirm has not ended.
async function nothingSentFor(ms, spec, c) {
  await sleep(ms);
  assert.equal((await createsNamed(sandbox, spec.name)).length, 0, 'a create reached the sandbox');
  assert.equal((await proposalRow(team, c.id)).state, 'consumed');
  assert.equal(c.settled, false, 'the confirm ended');
}

// Checks whose failure is reported at the end of the subtest, so that what follows them still
// runs (the dialog's labels are read there; the flow goes on through the database).
function laterChecks() {
  const failed = [];
  return {
    async check(what, fn) { try { await fn(); } catch (e) { failed.push(`${what}: ${e.message.slice(0, 2000)}`); } },
    done() { if (failed.length) assert.fail(failed.join('\n\n')); },
  };
}

// ws picks the proposal showing spec in its Team approvals dialog and presses Approve, as a
// person does; waits until the row is in the database and checks it is signed, with the key in
// the workstation's keychain, over exactly the text shown. The dialog's status line saying so is
// a later check (later.check).
async function approveInDialog(ws, spec, id, later) {
  const shown = await ws.choose(named(spec));
  await ws.atspi({ cmd: 'press', window: '^Team approvals', role: 'push button', name: '^&?Approve$' });
  await until(() => hasDecided(team, id, ws.role), 30000, `${ws.role}'s approval was not recorded; app log:\n${ws.log.slice(-2000)}`);
  const row = await approvalOf(id, ws.role);
  assert.equal(row.decision, 'approve');
  assert.equal(row.dialog_sha256, sha256hex(shown), 'the decision is bound to the text the screen reader read');
  assert.ok(row.statement, `${ws.role}'s approval is not signed; app log:\n${ws.log.slice(-2000)}`);
  assert.equal(row.public_key, ws.key.public_key, 'signed with the key `team key` made in the workstation\'s keychain');
  assert.ok(crypto.verify(null, Buffer.from(row.statement, 'utf8'), publicKeyFromBase64(ws.key.public_key), row.signature), 'the signature verifies with that key');
  const st = JSON.parse(row.statement);
  assert.equal(st.proposal_id, id);
  assert.equal(st.approver, ws.role);
  assert.equal(st.dialog_sha256, row.dialog_sha256);
  if (later) {
    await later.check(`${ws.role}'s dialog says her decision is recorded and signed with her key`, () =>
      ws.atspi({ cmd: 'text', window: '^Team approvals', timeout: 15,
        contains: `Your decision \\(approve\\) is recorded, signed with key ${escapeRx(ws.key.fingerprint)}|never sent again` }));
  }
  return { shown, row };
}

// `fabric-broker team verify uri [args]` with a policy listing the three keys.
function teamVerify(uri, args = []) {
  return new Promise((resolve) => {
    execFile(BIN, ['team', 'verify', uri, ...args], { env: baseEnv({ FABRIC_BROKER_EXTRA_ADMIN_POLICY: policyFile }), encoding: 'utf8', timeout: 120000 },
      (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr }));
  });
}

before(async () => {
  if (skip) return;
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
  [alice, bob] = await startWorkstations(['alice', 'bob'], team, { keyring: true });
  const daveRaw = rawPublic(dave.publicKey);
  keys = [
    { role: 'alice', fingerprint: alice.key.fingerprint, public_key: alice.key.public_key },
    { role: 'bob', fingerprint: bob.key.fingerprint, public_key: bob.key.public_key },
    { role: 'dave', fingerprint: fingerprintOf(daveRaw), public_key: daveRaw.toString('base64') },
  ];
  const policy = { team: { approver_keys: keys, quorum: QUORUM } };
  policyFile = path.join(scratchDir('fb-e2e-verify-policy-'), 'policy.json');
  fs.writeFileSync(policyFile, JSON.stringify({ team: { approver_keys: keys } }));
  carol = await startProposer(proposerEnv(team, sandbox, { role: 'carol', policy }),
    { name: 'team-e2e-signed-carol', args: ['--http', '127.0.0.1:0'] });
});

after(async () => {
  if (carol) await carol.close();
  for (const ws of [alice, bob]) if (ws) await ws.stop();
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
});

test('each workstation has its own approval key in its keychain; the proposer\'s policy lists them', { skip, timeout: 60000 }, () => {
  for (const ws of [alice, bob]) {
    const raw = Buffer.from(ws.key.public_key, 'base64');
    assert.equal(raw.length, 32, ws.role);
    assert.equal(ws.key.fingerprint, fingerprintOf(raw), `${ws.role}: the fingerprint is OpenSSH's form of the key printed`);
    publicKeyFromBase64(ws.key.public_key); // a real Ed25519 key
  }
  assert.notEqual(alice.key.public_key, bob.key.public_key, 'two keychains, two keys');
  assert.deepEqual(keys.map((k) => k.role), ['alice', 'bob', 'dave']);
  assert.ok(!keys.some((k) => k.public_key === rawPublic(owner.publicKey).toString('base64')), 'the schema owner\'s key is not listed');
});

test('an approval the schema owner forges in bob\'s name does not count and is reported; alice\'s signed approval sends once', { skip, timeout: 300000 }, async () => {
  const later = laterChecks();
  const spec = connectionSpec(); // USD 150: one approval
  const c = await proposeAndConfirm(spec);
  const facts = await proposalFacts(c.id);

  // The owner can insert any row: a statement exactly right for this proposal, in bob's name,
  // signed with the owner's own key (it has no listed private key).
  const forgedText = sha256hex('what bob never saw');
  const forgedId = await insertSigned('fb_owner', c.id, {
    approver: 'bob', dialogSha256: forgedText, privateKey: owner.privateKey, publicKey: owner.publicKey,
    statement: statementFor(facts, { approver: 'bob', dialogSha256: forgedText }),
  });
  notCounting.forged = forgedId;
  const ownerFingerprint = fingerprintOf(rawPublic(owner.publicKey));
  const reported = await rejectionOf(c.id, forgedId);
  assert.equal(reported.actor, 'carol', 'the proposing broker reported it');
  assert.equal(reported.detail.approver, 'bob');
  assert.equal(reported.detail.decision, 'approve');
  assert.match(reported.detail.reason, new RegExp(`^signed with key ${escapeRx(ownerFingerprint)}, which the policy \\(team\\.approver_keys\\) does not list for role bob$`));
  await nothingSentFor(4000, spec, c);
  // The metrics say the same (docs/observability.md): this confirm waits with 0 of 1 approvals.
  const metrics = await carol.metrics();
  assert.match(c.requestSha256 ?? '', /^[0-9a-f]{64}$/);
  const label = `{fabric_broker_request_sha256="${c.requestSha256.slice(0, 16)}"}`;
  assert.ok(metrics.includes(`fabric_broker_team_quorum_approvals${label} 0\n`), metrics.slice(0, 3000));
  assert.ok(metrics.includes(`fabric_broker_team_quorum_required${label} 1\n`), metrics.slice(0, 3000));

  // alice's dialog says so under the proposal's details, where a screen reader reads.
  await alice.choose(named(spec));
  await later.check('alice\'s dialog lists bob\'s approval as not counting', () =>
    alice.atspi({ cmd: 'text', window: '^Team approvals', timeout: 15, contains: `bob's approval does not count: signed with key ${escapeRx(ownerFingerprint)}` }));

  const { row } = await approveInDialog(alice, spec, c.id);
  // The statement alice's app signed is, byte for byte, what this file's builder makes of the
  // same proposal row: the builder (used for dave below) is right.
  const st = JSON.parse(row.statement);
  assert.equal(statementFor(facts, { approver: 'alice', dialogSha256: st.dialog_sha256, decidedAt: new Date(st.decided_at) }), row.statement);

  const s = (await c.result).structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
  assert.deepEqual(s.team.approvals, ['alice']);
  assert.equal(s.team.signed_approvals, true, JSON.stringify(s.team));
  const forged = s.team.not_counted.filter((n) => n.approval_id === forgedId);
  assert.equal(forged.length, 1, JSON.stringify(s.team));
  assert.equal(forged[0].approver, 'bob');
  assert.equal(forged[0].rejected, true);
  assert.equal(forged[0].why, reported.detail.reason);
  assert.equal((await proposalRow(team, c.id)).state, 'created');
  await sleep(500);
  assert.equal((await createsNamed(sandbox, spec.name)).length, 1, 'one create reached the sandbox');
  assert.equal((await rejections(c.id)).filter((r) => r.detail.approval_id === forgedId).length, 1, 'reported once');
  later.done();
});

test('a signature over another dialog text than the row\'s does not count; the same statement made right counts', { skip, timeout: 300000 }, async () => {
  // dave's row says he saw text A; his signed statement says text B.
  const bad = connectionSpec();
  const c1 = await proposeAndConfirm(bad);
  const f1 = await proposalFacts(c1.id);
  const textA = sha256hex(`text A for ${bad.name}`);
  const textB = sha256hex(`text B for ${bad.name}`);
  const badId = await insertSigned('dave', c1.id, {
    dialogSha256: textA, privateKey: dave.privateKey, publicKey: dave.publicKey,
    statement: statementFor(f1, { approver: 'dave', dialogSha256: textB }),
  });
  notCounting.daveBad = badId;
  const reported = await rejectionOf(c1.id, badId);
  assert.equal(reported.actor, 'carol');
  assert.equal(reported.detail.approver, 'dave');
  assert.equal(reported.detail.reason, 'the statement\'s dialog_sha256 is not the row\'s dialog text');
  await nothingSentFor(3000, bad, c1);
  // bob ends it: a deny needs no quorum. Nothing is sent.
  await bob.choose(named(bad));
  await bob.atspi({ cmd: 'press', window: '^Team approvals', role: 'push button', name: '^&?Deny$' });
  const s1 = (await c1.result).structuredContent;
  assert.equal(s1.executed, false, JSON.stringify(s1).slice(0, 2000));
  assert.equal(s1.team.denied_by, 'bob');
  assert.deepEqual(s1.team.approvals, []);
  assert.ok(s1.team.not_counted.some((n) => n.approval_id === badId && n.rejected === true && /dialog_sha256/.test(n.why)), JSON.stringify(s1.team));
  assert.equal((await approvalOf(c1.id, 'bob')).public_key, bob.key.public_key, 'bob\'s deny is signed too');
  assert.equal((await createsNamed(sandbox, bad.name)).length, 0);

  // The control: the same builder, the same key, one text for both: it counts.
  const good = connectionSpec();
  const c2 = await proposeAndConfirm(good);
  const text = sha256hex(`the text dave saw for ${good.name}`);
  const goodId = await insertSigned('dave', c2.id, {
    dialogSha256: text, privateKey: dave.privateKey, publicKey: dave.publicKey,
    statement: statementFor(await proposalFacts(c2.id), { approver: 'dave', dialogSha256: text }),
  });
  const s2 = (await c2.result).structuredContent;
  assert.equal(s2.executed, true, JSON.stringify(s2).slice(0, 2000));
  assert.deepEqual(s2.team.approvals, ['dave']);
  assert.ok(!s2.team.not_counted.some((n) => n.rejected), JSON.stringify(s2.team));
  assert.deepEqual(await rejections(c2.id), []);
  assert.equal((await proposalRow(team, c2.id)).state, 'created');
  await sleep(500);
  assert.equal((await createsNamed(sandbox, good.name)).length, 1, 'one create reached the sandbox');
  assert.ok(goodId);
});

test('team verify: an honest history passes; the forged rows and a statement changed by one byte are named', { skip, timeout: 300000 }, async () => {
  const later = laterChecks();
  const [[since]] = await team.query('fb_owner', "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')");
  await sleep(20);
  // A USD 600 proposal: both alice and bob approve in their dialogs.
  const spec = connectionSpec({ bandwidth: 1000 });
  const c = await proposeAndConfirm(spec);
  await approveInDialog(alice, spec, c.id, later);
  await nothingSentFor(1000, spec, c); // one approval of two
  const { row: bobRow } = await approveInDialog(bob, spec, c.id);
  const s = (await c.result).structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
  assert.deepEqual([...s.team.approvals].sort(), ['alice', 'bob']);
  const line = (out) => out.split('\n').find((l) => l.includes(`proposal ${c.id} connection_create (created`)) ?? '';

  // The honest history (from this proposal on), read with an approver's own database role.
  const honest = await teamVerify(team.uri('alice'), ['--since', since]);
  assert.equal(honest.code, 0, honest.stdout + honest.stderr);
  assert.match(honest.stdout, /^OK: team history: 1 create\(s\), every approval verified$/m, honest.stdout);
  assert.doesNotMatch(honest.stdout, /FAIL:/);
  assert.match(line(honest.stdout), new RegExp(`approved by alice \\[${escapeRx(alice.key.fingerprint)}\\]`), honest.stdout);
  assert.match(line(honest.stdout), new RegExp(`approved by bob \\[${escapeRx(bob.key.fingerprint)}\\]`), honest.stdout);

  // The whole history: every create listed with who approved it; exactly the two rows that did
  // not count (the owner's forgery, dave's statement over another text) fail, by id.
  assert.ok(notCounting.forged && notCounting.daveBad, 'the subtests before made the rows that do not count');
  const all = await teamVerify(team.uri('fb_owner'));
  assert.equal(all.code, 1, all.stdout + all.stderr);
  const fails = all.stdout.split('\n').filter((l) => l.startsWith('FAIL: '));
  assert.equal(fails.length, 2, all.stdout);
  assert.ok(fails.some((l) => l.startsWith(`FAIL: approval ${notCounting.forged} (`) && /, bob, approve\): signed with key SHA256:\S+, which the policy/.test(l)), all.stdout);
  assert.ok(fails.some((l) => l.startsWith(`FAIL: approval ${notCounting.daveBad} (`) && /, dave, approve\): the statement's dialog_sha256 is not the row's dialog text/.test(l)), all.stdout);
  const creates = all.stdout.split('\n').filter((l) => / connection_create \(created, proposed by carol;/.test(l));
  assert.equal(creates.length, 3, all.stdout);
  assert.ok(creates.some((l) => new RegExp(`: approved by dave \\[${escapeRx(keys[2].fingerprint)}\\]`).test(l)), all.stdout);

  // The owner changes a single character of bob's stored statement (a digit of its dialog
  // SHA-256: still a well-formed statement, its signature no longer verifies).
  const at = bobRow.statement.indexOf('"dialog_sha256":"') + '"dialog_sha256":"'.length;
  const changed = bobRow.statement.slice(0, at) + (bobRow.statement[at] === '0' ? '1' : '0') + bobRow.statement.slice(at + 1);
  assert.equal(changed.length, bobRow.statement.length);
  await team.query('fb_owner', "UPDATE fabric_team.approvals SET statement = :'s' WHERE id = :'id'::uuid", { s: changed, id: bobRow.id });
  const broken = await teamVerify(team.uri('fb_owner'), ['--since', since]);
  assert.equal(broken.code, 1, broken.stdout + broken.stderr);
  const brokenFails = broken.stdout.split('\n').filter((l) => l.startsWith('FAIL: '));
  // Named twice: its signature, and the chain, which recorded the statement's SHA-256 with it.
  assert.equal(brokenFails.length, 2, broken.stdout);
  assert.ok(brokenFails.includes(`FAIL: approval ${bobRow.id} (proposal ${c.id}, bob, approve): the signature is invalid for every key the policy lists for role bob`), broken.stdout);
  assert.ok(brokenFails.some((l) => l.startsWith(`FAIL: approval ${bobRow.id} (proposal ${c.id}, bob, approve): differs from its approval_recorded event (seq `) && l.includes('in its statement: changed after it was recorded')), broken.stdout);
  assert.match(broken.stdout, /^BROKEN: team history: 2 failure\(s\)$/m);
  assert.doesNotMatch(line(broken.stdout), /approved by bob/, 'the changed approval is no longer listed as verified');
  assert.match(line(broken.stdout), /approved by alice/);

  // Restored, it verifies again.
  await team.query('fb_owner', "UPDATE fabric_team.approvals SET statement = :'s' WHERE id = :'id'::uuid", { s: bobRow.statement, id: bobRow.id });
  const restored = await teamVerify(team.uri('fb_owner'), ['--since', since]);
  assert.equal(restored.code, 0, restored.stdout + restored.stderr);
  later.done();
});
