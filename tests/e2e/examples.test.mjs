// Keeps the README's example session true: runs it against the real executable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BIN, baseEnv } from './lib.mjs';

test('README example: propose, approve, create, replay refused', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['examples/propose-confirm.mjs', BIN],
    { env: { ...process.env, ...baseEnv() }, timeout: 60000 });
  assert.match(stdout, /"confirm_token": "chg-[0-9a-f]{32}"/);
  assert.match(stdout, /"target": "EVPL_VC 50 Mbps port \\"SV-DOT1Q-PRI\\" \[50000000…0001\] \(SV\) → service profile \\"AWS Direct Connect\\" \[5e000000…0001\] us-west-1"/);
  assert.match(stdout, /^Target: EVPL_VC 50 Mbps port "SV-DOT1Q-PRI" \[50000000…0001\] \(SV\) → service profile "AWS Direct Connect" \[5e000000…0001\] us-west-1$/m);
  assert.match(stdout, /"status": "accepted"/);
  assert.match(stdout, /"outcome": "created"/);
  assert.match(stdout, /"not_previously_used": false/);
});
