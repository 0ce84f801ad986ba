// Approving from a terminal, signed (issue #37), end to end: a real PostgreSQL 15 (pg.mjs), alice's
// desktop app under Xvfb read and pressed through AT-SPI with the approval key in her keychain,
// carol's agent proposing through the official SDK client, and bob on a "headless box": the real
// `fabric-broker team pending/show/approve/deny` with Debian's ssh-agent holding two ssh-keygen
// Ed25519 keys (ssh-add), one of them listed for bob in the administrator's team.approver_keys.
// Bob types on a pseudo-terminal of his own (pty_run.py: the command's controlling terminal), in
// his own UTS namespace (host ws-bob: otherwise he would be the proposing OS user on the
// proposing host, whose approvals never count).
//
//   - `team show` prints exactly the text alice's dialog shows (the screen reader's text), agent
//     strings escaped (ANSI escapes, bidi overrides, line breaks); `team pending` lists it;
//   - quorum 2: alice approves in her dialog, bob with `team approve` signed by the agent's key:
//     the create is sent once; both rows carry the same dialog_sha256, the text's; before that,
//     a wrong prefix, a "y", type-ahead and no terminal at all record nothing;
//   - a key the policy does not list: the terminal says so before and after, the approval is
//     recorded, the proposing broker does not count it (approval_rejected), nothing is created;
//     alice denies it from a terminal, signed with her keychain's key (--key keychain).
//
// Skips, with the reason, without PostgreSQL, Xvfb/AT-SPI/keyring, unshare, root (the
// administrator's policy file), or ssh-agent/ssh-add/ssh-keygen (Debian openssh-client).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, baseEnv, connectionSpec, scratchDir, startSandboxProcess } from './lib.mjs';
import { PYTHON } from './atspi.mjs';
import { startTeamDatabase } from './pg.mjs';
import {
  teamSigningSkip, startWorkstation, proposerEnv, startProposer, waitForState, proposalRow,
  decisions, createsNamed, hasDecided, until, adminPolicyEnv,
} from './team.mjs';
import { fingerprintOf } from './team-signing.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function sshSkip() {
  for (const tool of ['ssh-agent', 'ssh-add', 'ssh-keygen']) {
    try { execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }); } catch {
      return `${tool} is missing (Debian: openssh-client)`;
    }
  }
  return fs.existsSync(PYTHON) ? false : `${PYTHON} is missing (the pseudo-terminal driver)`;
}

const skip = teamSigningSkip() || sshSkip();
const QUORUM = { team: { quorum: [{ above_monthly: { amount: 500, currency: 'USD' }, approvals: 2 }] } };
let team; let sandbox; let alice; let carol; let agent; let bobEnv; let keys;
let bobKey; let strayKey;

const sha256hex = (s) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');
const escapeRx = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const named = (spec) => escapeRx(`"name": "${spec.name}"`);

// An ssh-keygen Ed25519 key: its raw public key, the policy's fingerprint and OpenSSH's.
function sshKey(dir, name) {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@terminal`, '-f', file]);
  const blob = Buffer.from(fs.readFileSync(`${file}.pub`, 'utf8').split(' ')[1], 'base64');
  const raw = blob.subarray(-32);
  return {
    file, raw, fingerprint: fingerprintOf(raw),
    sshFingerprint: `SHA256:${crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`,
    listed: { role: 'bob', fingerprint: fingerprintOf(raw), public_key: raw.toString('base64') },
  };
}

// ssh-agent in the foreground on its own socket, holding the given key files.
async function startAgent(dir, files) {
  const socket = path.join(dir, 'agent.sock');
  const proc = spawn('ssh-agent', ['-D', '-a', socket], { stdio: ['ignore', 'ignore', 'pipe'] });
  await until(() => fs.existsSync(socket), 10000, 'ssh-agent did not make its socket');
  for (const f of files) execFileSync('ssh-add', ['-q', f], { env: { PATH: process.env.PATH, SSH_AUTH_SOCK: socket }, stdio: 'ignore' });
  return {
    socket,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) { proc.kill('SIGTERM'); await once(proc, 'exit'); }
    },
  };
}

// `fabric-broker team ...` as bob, without a terminal of its own (setsid: no controlling
// terminal, whatever the test runs under).
function bob(args) {
  return new Promise((resolve) => {
    execFile('setsid', ['-w', BIN, 'team', ...args], { env: bobEnv, encoding: 'utf8', timeout: 60000 }, (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stdout, stderr }));
  });
}

// `fabric-broker team ...` at a terminal of its own on its own host (ws-bob, as bob, unless
// given): answers typed once each prompt shows ({after, type}), typeahead typed before anything
// is shown. { exit, output } with the terminal's line ends made \n.
function atTerminal(args, { answers = [], typeahead, env = bobEnv, host = 'ws-bob' } = {}) {
  const argv = ['unshare', '--uts', 'sh', '-c', 'hostname "$0" && exec "$@"', host, BIN, 'team', ...args];
  const spec = JSON.stringify({ argv, env, answers, typeahead, timeout: 60 });
  return new Promise((resolve, reject) => {
    execFile(PYTHON, [path.join(here, 'pty_run.py'), spec], { encoding: 'utf8', timeout: 90000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`pty_run.py failed: ${err.message}\n${stderr}`));
      const r = JSON.parse(stdout);
      resolve({ ...r, output: r.output.replace(/\r\n/g, '\n') });
    });
  });
}
const bobAtTerminal = (args, opts = {}) => atTerminal(args, opts);

const PROMPT = 'Type the first 8 characters of the Request SHA-256 shown above';

before(async () => {
  if (skip) return;
  team = await startTeamDatabase(BIN, baseEnv());
  sandbox = await startSandboxProcess();
  alice = await startWorkstation('alice', team, { keyring: true });
  const dir = scratchDir('fb-e2e-ssh-');
  bobKey = sshKey(dir, 'bob');
  strayKey = sshKey(dir, 'stray');
  agent = await startAgent(dir, [strayKey.file, bobKey.file]);
  // The administrator lists alice's keychain key and bob's ssh key, never the stray one.
  keys = [{ role: 'alice', ...alice.key }, bobKey.listed];
  carol = await startProposer(proposerEnv(team, sandbox, { role: 'carol', policy: QUORUM, keys }), { name: 'team-terminal-carol' });
  // A box without a desktop session (no session bus, so no keychain) and its own HOME.
  const base = baseEnv();
  const home = base.XDG_RUNTIME_DIR;
  bobEnv = {
    ...base, HOME: home, USER: 'bob', LOGNAME: 'bob', TERM: 'dumb', SSH_AUTH_SOCK: agent.socket,
    ...adminPolicyEnv(home, { ...QUORUM, team: { ...QUORUM.team, database: team.uri('bob'), approver_keys: keys } }),
  };
});

after(async () => {
  if (carol) await carol.close();
  if (alice) await alice.stop();
  if (agent) await agent.stop();
  if (sandbox) await sandbox.stop();
  if (team) await team.cluster.stop();
});

async function propose(spec) {
  const p = await carol.call('fabric_propose_change', { change_type: 'connection_create', spec });
  const s = p.structuredContent;
  assert.ok(s?.confirm_token, JSON.stringify(p).slice(0, 1500));
  return s;
}

test('team show prints exactly the text alice\'s dialog shows, agent strings inert; team pending lists it', { skip, timeout: 120000 }, async () => {
  const name = `terminal-shown-${process.pid}`;
  const request = JSON.stringify({ type: 'EVPL_VC', name, bandwidth: 50 });
  // What an agent would put where a person reads: an ANSI clear screen and title, a bidi
  // override, a line that pretends to be the price.
  const client = 'evil\u001b[2J\u001b]0;owned\u0007 \u202Egnp.exe\nPrice: USD 0.00';
  const [[id]] = await team.query('carol', `INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, price, dry_run,
      os_user, host, mcp_client, token_sha256, expires_at) VALUES ('connection_create', :'req', sha256(convert_to(:'req', 'UTF8')),
      '{}'::jsonb, '{"priced":true,"currency":"USD","monthly_recurring":150}'::jsonb, '{}'::jsonb, 'carol', 'ws-carol', :'client',
      sha256(convert_to(:'tok', 'UTF8')), now() + interval '10 minutes') RETURNING id`, { req: request, client, tok: crypto.randomUUID() });

  const shown = await alice.choose(escapeRx(name));
  assert.match(shown, /^MCP client: evil\\u001B\[2J\\u001B\]0;owned\\u0007 \\u202Egnp\.exe\\nPrice: USD 0\.00$/m);
  const r = await bob(['show', id]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `${shown}\n`, 'the terminal prints exactly the dialog\'s text');
  assert.doesNotMatch(r.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  // By a prefix of its id, too.
  assert.equal((await bob(['show', id.slice(0, 8)])).stdout, r.stdout);

  const list = await bob(['pending']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^role bob \(member of fabric_approvers\): \d+ proposal\(s\) open to a decision$/m);
  assert.match(list.stdout, new RegExp(`^${id}  connection_create by carol \\(USD 150\\.00 monthly recurring\\), pending; expires \\S+; approvals 0 of 1$`, 'm'));
  assert.doesNotMatch(list.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  // Nobody confirms this one: end it so the dialog lists only the next tests' proposals.
  await team.query('fb_owner', "UPDATE fabric_team.proposals SET state = 'expired' WHERE id = :'id'::uuid", { id });
});

test('quorum 2: alice approves in her dialog, bob at his terminal with an ssh-agent key; a wrong prefix, a yes, type-ahead and no terminal record nothing', { skip, timeout: 240000 }, async () => {
  const spec = connectionSpec({ bandwidth: 1000 }); // USD 600: two approvals
  const p = await propose(spec);
  const id = p.team.proposal_id;
  assert.equal(p.team.required, 2);
  let settled = false;
  const pending = carol.confirm(p.confirm_token).finally(() => { settled = true; });
  await waitForState(team, id, 'consumed');

  const text = await alice.decide(named(spec), 'Approve', () => hasDecided(team, id, 'alice'));
  assert.match(text, new RegExp(`^Request SHA-256: ${p.request_sha256}$`, 'm'));
  const prefix = p.request_sha256.slice(0, 8);

  // pending counts alice's approval as the proposing broker would.
  const list = await bob(['pending']);
  assert.match(list.stdout, new RegExp(`^${id}  connection_create by carol \\(USD 600\\.00 monthly recurring\\), consumed; expires \\S+; approvals 1 of 2$`, 'm'));
  // show: the dialog's text, byte for byte.
  assert.equal((await bob(['show', id])).stdout, `${text}\n`);

  const bobDecided = () => hasDecided(team, id, 'bob');
  // No terminal (an agent's shell, a pipe): refused before anything is asked.
  const piped = await bob(['approve', id, '--key', 'ssh-agent']);
  assert.equal(piped.code, 2, piped.stdout + piped.stderr);
  assert.match(piped.stderr, /there is no terminal to confirm on/);
  // A wrong prefix, a bare "y", and the right prefix typed before the text was shown (then a
  // "y"): nothing recorded.
  for (const [what, run] of [
    ['a wrong prefix', { answers: [{ after: escapeRx(PROMPT), type: prefix === 'deadbeef' ? 'deadbee0' : 'deadbeef' }] }],
    ['y', { answers: [{ after: escapeRx(PROMPT), type: 'y' }] }],
    ['type-ahead', { typeahead: `${prefix}\r`, answers: [{ after: escapeRx(PROMPT), type: 'y' }] }],
  ]) {
    const r = await bobAtTerminal(['approve', id, '--key', 'ssh-agent'], run);
    assert.equal(r.timedOut, false, r.output);
    assert.equal(r.exit, 1, `${what}: ${r.output}`);
    assert.match(r.output, /not confirmed \(.*\): nothing is recorded/, what);
    assert.equal(await bobDecided(), false, `${what} recorded a decision`);
  }
  assert.equal(settled, false);

  // The person reads the text and types the prefix: recorded, signed by the agent's key (the one
  // of its two keys the policy lists for bob).
  const r = await bobAtTerminal(['approve', id, '--key', 'ssh-agent'], { answers: [{ after: escapeRx(PROMPT), type: prefix.toUpperCase() }] });
  assert.equal(r.exit, 0, r.output);
  assert.ok(r.output.includes(`${text}\n\nYour decision: APPROVE proposal ${id}, as role bob, signed with key ${bobKey.fingerprint} (ssh-agent; ssh-add -l: ${bobKey.sshFingerprint}).`),
    `the terminal shows exactly the dialog's text:\n${r.output}`);
  assert.doesNotMatch(r.output, /WARNING/);
  assert.match(r.output, new RegExp(`Your decision \\(approve\\) on proposal ${id} is recorded, signed with key ${escapeRx(bobKey.fingerprint)}\\.`));

  const s = (await pending).structuredContent;
  assert.equal(s.executed, true, JSON.stringify(s).slice(0, 2000));
  assert.deepEqual([...s.team.approvals].sort(), ['alice', 'bob']);
  assert.equal((await createsNamed(sandbox, spec.name)).length, 1, 'one create reached the sandbox');
  assert.equal((await proposalRow(team, id)).state, 'created');
  // Both decisions are bound to the same text: the one alice's screen reader read.
  const d = await decisions(team, id);
  assert.deepEqual(d.map((x) => x.approver).sort(), ['alice', 'bob']);
  for (const x of d) assert.equal(x.dialog_sha256, sha256hex(text), `${x.approver}'s dialog_sha256`);
  assert.equal(d.find((x) => x.approver === 'bob').host, 'ws-bob');
  const [[pub]] = await team.query('fb_owner', "SELECT encode(public_key, 'base64') FROM fabric_team.approvals WHERE proposal_id = :'id'::uuid AND approver = 'bob'", { id });
  assert.equal(pub, bobKey.raw.toString('base64'));
  // The same statement format the dialog signs: `team verify` takes the history as it is.
  const verified = await new Promise((resolve) => execFile(BIN, ['team', 'verify', team.uri('bob')], { env: bobEnv, encoding: 'utf8' },
    (err, stdout, stderr) => resolve({ code: err ? err.code : 0, out: stdout + stderr })));
  assert.equal(verified.code, 0, verified.out);
});

test('a key the policy does not list: the terminal says so, the approval is recorded, the broker does not count it, nothing is created; a deny signed with the keychain key ends it', { skip, timeout: 240000 }, async () => {
  const spec = connectionSpec(); // USD 150: one approval
  const p = await propose(spec);
  const id = p.team.proposal_id;
  assert.equal(p.team.required, 1);
  const pending = carol.confirm(p.confirm_token);
  await waitForState(team, id, 'consumed');

  // Chosen by OpenSSH's fingerprint, as ssh-add -l prints it.
  const r = await bobAtTerminal(['approve', id, '--key', `ssh-agent:${strayKey.sshFingerprint}`],
    { answers: [{ after: escapeRx(PROMPT), type: p.request_sha256.slice(0, 8) }] });
  assert.equal(r.exit, 0, r.output);
  const warning = r.output.indexOf(`WARNING: key ${strayKey.fingerprint} is not listed in team.approver_keys for role bob: the proposing broker will not count this approval.`);
  assert.ok(warning >= 0 && warning < r.output.indexOf(PROMPT), `warned before the prompt:\n${r.output}`);
  assert.match(r.output, /is recorded, signed with key /);
  assert.match(r.output, /WARNING: under this machine's team\.approver_keys it does not count: signed with key .* which the policy \(team\.approver_keys\) does not list for role bob/);
  assert.ok(await hasDecided(team, id, 'bob'), 'recorded');

  // The proposing broker reads it and reports it; the proposal still waits, nothing sent.
  await until(async () => (await team.query('fb_owner', "SELECT count(*) FROM fabric_team.team_audit WHERE event = 'approval_rejected' AND proposal_id = :'id'::uuid", { id }))[0][0] !== '0',
    30000, 'the proposing broker did not report bob\'s approval');
  assert.equal((await proposalRow(team, id)).state, 'consumed');
  assert.equal((await createsNamed(sandbox, spec.name)).length, 0);

  // alice ends it from a terminal too, signed with her keychain's key (the desktop app's).
  const deny = await atTerminal(['deny', id.slice(0, 13), '--key', 'keychain'],
    { env: alice.env, host: 'ws-alice', answers: [{ after: escapeRx(PROMPT), type: p.request_sha256.slice(0, 12) }] });
  assert.equal(deny.exit, 0, deny.output);
  assert.ok(deny.output.includes(`\n\nYour decision: DENY proposal ${id}, as role alice, signed with key ${alice.key.fingerprint} (the OS keychain).`), deny.output);
  assert.match(deny.output, new RegExp(`Your decision \\(deny\\) on proposal ${id} is recorded, signed with key ${escapeRx(alice.key.fingerprint)}\\.`));
  const s = (await pending).structuredContent;
  assert.equal(s.executed, false, JSON.stringify(s).slice(0, 2000));
  assert.deepEqual(s.team.approvals, []);
  const rejected = s.team.not_counted.find((n) => n.approver === 'bob');
  assert.ok(rejected?.rejected, JSON.stringify(s.team));
  assert.equal((await createsNamed(sandbox, spec.name)).length, 0);
});

test('team approve refuses without a key from the keychain or the agent, and never reads a key file', { skip, timeout: 60000 }, async () => {
  const file = await bob(['approve', '00000000', '--key', bobKey.file]);
  assert.equal(file.code, 2);
  assert.match(file.stderr, /a key file is never read/);
  const noDatabase = await new Promise((resolve) => execFile('setsid', ['-w', BIN, 'team', 'pending'], { env: { ...bobEnv, FABRIC_BROKER_EXTRA_ADMIN_POLICY: path.join(bobEnv.HOME, 'none.json') }, encoding: 'utf8' },
    (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stderr })));
  assert.equal(noDatabase.code, 2);
  assert.match(noDatabase.stderr, /no team database: team\.database is set by the administrator's policy alone/);
});
