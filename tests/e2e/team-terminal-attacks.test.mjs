// Attacks on `fabric-broker team pending/show/approve/deny` (issue #37) that need no database:
// the agent runs the command itself and tries to confirm by a flag, to name a key file, or to
// point it at a database of its own (an environment variable, the user's policy file, an
// "administrator" policy file it owns). Each must stop before anything is asked or read: exit 2.
// (Confirming on a pseudo-terminal of the agent's own is a documented limit, docs/team.md "From a
// terminal": the key's own confirmation — keychain prompt, `ssh-add -c` — is what stops it.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, baseEnv, scratchDir } from './lib.mjs';

function run(args, env) {
  const r = spawnSync(BIN, ['team', ...args], { env, input: 'abcdef12\ny\n', encoding: 'utf8', timeout: 30000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('attack 2a: confirming by a flag or naming a key file is a usage error; nothing is asked', () => {
  const dir = scratchDir('fb-e2e-tta-');
  const keyFile = path.join(dir, 'id_ed25519');
  fs.writeFileSync(keyFile, '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n', { mode: 0o600 });
  const env = baseEnv();
  const cases = [
    ['approve', 'abcdef12', '--yes'], ['approve', 'abcdef12', '-y'], ['approve', 'abcdef12', '--confirm-hash', 'abcdef12'],
    ['approve', 'abcdef12', '--confirm=abcdef12'], ['approve', '--key', 'keychain'], ['approve', 'abcdef12', '--key'],
    ['approve', 'abcdef12', '--key', keyFile], ['approve', 'abcdef12', `--key=${keyFile}`],
    ['approve', 'abcdef12', '--key', `ssh-agent:${keyFile}`], ['approve', 'abcdef12', '--key', 'ssh-agent:SHA256:../../id_ed25519'],
    ['approve', 'abcdef12', '--key', 'keychain', '--key', keyFile], ['approve', 'abcdef12', 'abcdef13'],
    ['deny', 'abcdef12', '--yes'], ['approve', '-abcdef12'], ['show'], ['pending', 'extra'],
  ];
  for (const args of cases) {
    const r = run(args, env);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.code}\n${r.err}`);
    assert.doesNotMatch(r.err, /no team database/, `${args.join(' ')}: refused at its arguments, before any database`);
    assert.doesNotMatch(r.out + r.err, /shown above to (approve|deny) it|Your decision \(/, args.join(' '));
  }
});

test('attack 2b: the database cannot be chosen by the agent: environment, user policy, an admin file it owns', () => {
  const dir = scratchDir('fb-e2e-tta-');
  fs.chmodSync(dir, 0o755);
  const uri = 'postgresql://agent@127.0.0.1:1/agentdb';
  const userPolicy = path.join(dir, 'user-policy.json');
  fs.writeFileSync(userPolicy, JSON.stringify({ team: { database: uri } }));
  const fakeAdmin = path.join(dir, 'admin-policy.json');
  fs.writeFileSync(fakeAdmin, JSON.stringify({ team: { database: uri } }), { mode: 0o644 });
  if (process.getuid() === 0) fs.chownSync(fakeAdmin, 65534, 65534); // the agent's file, not root's
  const tries = [
    baseEnv({ FABRIC_BROKER_TEAM_DATABASE: uri, PGHOST: '127.0.0.1', PGPORT: '1' }),
    baseEnv({ FABRIC_BROKER_POLICY: userPolicy }),
    baseEnv({ FABRIC_BROKER_EXTRA_ADMIN_POLICY: fakeAdmin }),
  ];
  for (const env of tries) {
    for (const args of [['pending'], ['show', 'abcdef12'], ['approve', 'abcdef12', '--key', 'ssh-agent']]) {
      const r = run(args, env);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.code}\n${r.out}\n${r.err}`);
      assert.match(r.err, /no team database/, r.err);
      assert.doesNotMatch(r.err, /agentdb|cannot use the team database/, 'it never connected to the agent\'s database');
    }
  }
});
