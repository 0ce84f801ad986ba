// scripts/dev.sh, the README's two commands: `run` builds only what running needs (the
// fabric-broker target, not the tests and benchmarks) and says how long a first build takes;
// `test` builds everything. Driven with stand-ins for cmake and ctest that record their
// arguments, so nothing is built or installed here (FB_SKIP_DEPS=1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scratchDir } from './lib.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function runDevSh(args) {
  const dir = scratchDir('fb-devsh-');
  const log = path.join(dir, 'calls.log');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  for (const tool of ['cmake', 'ctest']) {
    fs.writeFileSync(path.join(bin, tool), `#!/bin/sh\necho "${tool} $*" >> '${log}'\n`, { mode: 0o755 });
  }
  // A preset nobody has, so no build folder exists and `run` has no binary to exec.
  const preset = `fbtest-${process.pid}`;
  const r = spawnSync('bash', [path.join(repo, 'scripts/dev.sh'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, FB_SKIP_DEPS: '1', FB_PRESET: preset },
  });
  const calls = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
  return { ...r, calls, preset };
}

test('dev.sh run builds only the fabric-broker target and says how long the first build takes', () => {
  const r = runDevSh(['run', '--version']);
  assert.deepEqual(r.calls, [`cmake --preset ${r.preset}`, `cmake --build --preset ${r.preset} --target fabric-broker`], r.stderr);
  assert.match(r.stdout, /== building fabric-broker: the first build compiles \d+ files, about \d+ minutes on 2 cores; later runs rebuild only what changed/);
  assert.ok(!fs.existsSync(path.join(repo, 'build', r.preset)), 'the stand-in cmake created no build folder');
});

test('dev.sh test still builds everything, then runs ctest', () => {
  const r = runDevSh(['test']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.calls[0], `cmake --preset ${r.preset}`);
  assert.equal(r.calls[1], `cmake --build --preset ${r.preset}`);
  assert.match(r.calls[2], new RegExp(`^ctest --preset ${r.preset} -j\\d+$`));
});
