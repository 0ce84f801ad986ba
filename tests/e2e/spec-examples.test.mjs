// The example walk without Prism (issue 15): every request example of the official Fabric v4
// spec, mapped onto the sandbox estate, is accepted by the sandbox's dry run, and the broker
// either proposes it (inside the typed subset) or refuses it with a reason CONTRACT.md lists.
// The same walk with Prism on the official spec runs in the CI contract step
// (tests/e2e/contract/examples.test.mjs, .ci/steps/30-contract.sh). Skips with a message when
// ../shared (the official spec) is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { registerWalk } from './contract/walk-runner.mjs';
import { BIN, baseEnv } from './lib.mjs';

registerWalk({ prism: false });

// A priced estate (issue 15): every bandwidth `fabric-broker --print-estate` lists for a service
// profile or a port is on the rate card it prints, and networks and tokens are named unpriced.
test('--print-estate: the rate card prices every bandwidth the seeded estate offers', async () => {
  const { stdout } = await promisify(execFile)(BIN, ['--print-estate'], { env: baseEnv(), timeout: 30000 });
  const card = new Set([...stdout.matchAll(/ (\d+)M=\d+/g)].map((m) => Number(m[1])));
  assert.ok(card.size >= 8, `no rate card in:\n${stdout}`);
  const offered = new Set();
  for (const m of stdout.matchAll(/^\s+bandwidths: ([\d ]+)$/gm)) for (const b of m[1].trim().split(/\s+/)) offered.add(Number(b));
  for (const m of stdout.matchAll(/^\s+[0-9a-f-]{36}\s+\S+\s+[A-Z]{2}\/\S+\s+(?:DOT1Q|QINQ|UNTAGGED)\s+(\d+)\s/gm)) offered.add(Number(m[1]));
  assert.ok(offered.has(10) && offered.has(10000), `parsed bandwidths: ${[...offered]}`);
  const missing = [...offered].filter((b) => !card.has(b));
  assert.deepEqual(missing, [], `bandwidths offered but not on the rate card: ${missing}`);
  assert.match(stdout, /Networks and service tokens have no rate-card product/);
});
