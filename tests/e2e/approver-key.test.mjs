// `fabric-broker team key` (issue #26) against a real Secret Service: gnome-keyring-daemon on a
// private session bus, with its own scratch HOME (never the real user's keyrings). The first run
// makes the Ed25519 key in the keychain and prints its public key and fingerprint; the second
// prints the same key (it was kept, not made again); the private key is in the keychain, never
// printed and never in a file under HOME; without any keychain the command fails with exit 2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, baseEnv, scratchDir } from './lib.mjs';
import { keyringSkip, startKeyring, startSessionBus, stopSessionBus } from './atspi.mjs';

const skip = keyringSkip();
let bus; let keyring; let env;

const run = (args, extraEnv = env) => new Promise((resolve) => {
  execFile(BIN, args, { env: extraEnv, encoding: 'utf8', timeout: 60000 }, (err, stdout, stderr) =>
    resolve({ code: err ? err.code : 0, stdout, stderr }));
});

function filesUnder(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

before(async () => {
  if (skip) return;
  const base = baseEnv();
  bus = await startSessionBus(base.XDG_RUNTIME_DIR);
  keyring = await startKeyring(bus, scratchDir('fb-e2e-keyring-'));
  env = { ...base, HOME: base.XDG_RUNTIME_DIR, DBUS_SESSION_BUS_ADDRESS: bus.address };
});

after(async () => {
  if (keyring) await keyring.stop();
  if (bus) await stopSessionBus(bus);
});

test('team key makes the approval key in the keychain once and prints only its public half', { skip, timeout: 120000 }, async () => {
  const first = await run(['team', 'key']);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stderr, /made a new approval key in the keychain/);
  const m = first.stdout.match(/^public_key {2}([A-Za-z0-9+/]{43}=)\nfingerprint (SHA256:[A-Za-z0-9+/]{43})\n$/);
  assert.ok(m, first.stdout);
  // The fingerprint is OpenSSH's: SHA256 of the raw 32-byte key, unpadded base64.
  const raw = Buffer.from(m[1], 'base64');
  assert.equal(raw.length, 32);
  assert.equal(m[2], `SHA256:${crypto.createHash('sha256').update(raw).digest('base64').replace(/=+$/, '')}`);
  // It is a real Ed25519 public key (Node's own OpenSSL takes it).
  crypto.createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });

  const second = await run(['team', 'key']);
  assert.equal(second.code, 0, second.stderr);
  assert.equal(second.stdout, first.stdout, 'the same key, read back from the keychain');
  assert.doesNotMatch(second.stderr, /made a new/);

  // The secret is the keychain's: no file under the app's HOME (its XDG folders included)
  // holds it
  // (QtKeychain's plaintext fallback would be a QSettings file there: it is off).
  for (const f of filesUnder(env.HOME)) {
    const text = fs.readFileSync(f, 'utf8');
    assert.ok(!text.includes('team-approver'), `${f} mentions the key`);
  }

  // No keychain at all (no session bus): exit 2 with the reason, nothing printed on stdout.
  const none = await run(['team', 'key'], baseEnv());
  assert.equal(none.code, 2, none.stdout + none.stderr);
  assert.equal(none.stdout, '');
  assert.match(none.stderr, /fabric-broker team key: /);
});
