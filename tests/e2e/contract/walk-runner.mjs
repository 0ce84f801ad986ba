// Runs the example walk (spec-examples.mjs) as Node tests: a `fabric-broker --sandbox-only`
// process is the sandbox, and the real broker, pointed at it with client credentials, proposes
// every create example through the official MCP SDK client. With { prism: true } every example
// also goes to a validating Prism mock of the official spec (the CI contract step).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  loadRequestExamples, walkExamples, compareWithContract, contractList, skipReason,
  OUTSIDE_HEADING, INVALID_HEADING,
  specFile, specRelative, repoRoot,
} from './spec-examples.mjs';
import { startBroker, startSandboxProcess } from '../lib.mjs';
import { Prism, PRISM_START_TIMEOUT_MS } from './prism.mjs';

export function registerWalk({ prism: withPrism = false } = {}) {
  if (skipReason) console.log(`# example walk: ${skipReason}`);
  const state = { results: [] };

  before(async () => {
    if (skipReason) return;
    state.loaded = loadRequestExamples();
    if (withPrism) {
      state.prism = new Prism(specFile);
      await state.prism.start();
      console.log(`# example walk: Prism loaded ${specRelative} in ${state.prism.startupMs} ms`);
    }
    state.sandbox = await startSandboxProcess();
    const tok = await fetch(`${state.sandbox.url}/oauth2/v1/token`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'walk', client_secret: 'walk-secret' }),
    });
    state.token = (await tok.json()).access_token;
    state.estate = await state.sandbox.admin('GET', '/sandbox/v1/estate');
    state.broker = await startBroker({ args: ['--toolsets', 'read,mutate'], env: { ...state.sandbox.env, EQUINIX_MCP_MAX_PENDING: '500' } });
  }, { timeout: PRISM_START_TIMEOUT_MS + 60000 });

  after(async () => {
    if (state.broker) await state.broker.close();
    if (state.sandbox) await state.sandbox.stop();
    if (state.prism) await state.prism.stop();
  });

  test(`example walk: every request example of the official spec${withPrism ? ' (sandbox, broker and Prism)' : ' (sandbox and broker)'}`, { skip: skipReason, timeout: 600000 }, async () => {
    const { info, examples } = state.loaded;
    assert.ok(examples.length >= 100, `expected the spec's 100+ request examples, found ${examples.length}`);
    const listed = contractList(OUTSIDE_HEADING);
    const specInvalid = contractList(INVALID_HEADING);
    const results = await walkExamples({
      examples, estate: state.estate, specInvalid: specInvalid ?? new Map(),
      sandbox: { url: state.sandbox.url, token: state.token },
      broker: state.broker,
      prism: state.prism ?? null,
    });
    const drift = compareWithContract(results, listed, specInvalid);
    const inside = results.filter((r) => r.subset === 'inside');
    const outside = results.filter((r) => r.subset === 'outside' && !r.specInvalid);
    const invalid = results.filter((r) => r.specInvalid);
    const prices = results.filter((r) => r.subset === 'price-search');
    const bad = results.filter((r) => r.problems.length);
    console.log(`# example walk: spec ${path.relative(repoRoot, specFile)} (info.version ${info?.version}): ${results.length} request examples; `
      + `${inside.length} inside the typed subset (schema-valid, proposed), ${outside.length} outside, `
      + `${invalid.length} contradicting the spec's own schema (refused by all), ${prices.length} price searches`);
    const conns = inside.filter((r) => r.collection === '/fabric/v4/connections');
    const unpriced = conns.filter((r) => !r.price?.priced);
    console.log(`# example walk: ${conns.length - unpriced.length}/${conns.length} connection examples inside the subset are priced by the sandbox's rate card`
      + (unpriced.length ? ` (unpriced: ${unpriced.map((r) => `${r.name}: ${r.price?.summary}`).join('; ')})` : ''));
    console.log('# example walk: examples outside the typed subset (the reason each is outside; listed in src/sandbox/CONTRACT.md):');
    for (const r of outside) console.log(`#   - ${r.key}: ${listed?.get(r.key) ?? '(not listed)'}\n#       broker: ${r.reason}${r.nameOnly ? ' (with the name cut to 24 characters it proposes)' : ''}`);
    console.log('# example walk: examples that contradict the spec\'s own schema (sandbox, broker and Prism refuse them):');
    for (const r of invalid) console.log(`#   - ${r.key}: ${specInvalid.get(r.key)}`);
    for (const r of bad) console.log(`# example walk: DISAGREEMENT ${r.key}\n#   ${r.problems.join('\n#   ')}\n#   mapped: ${r.notes.join('; ')}\n#   bytes: ${r.bytes.slice(0, 1500)}`);
    for (const d of drift) console.log(`# example walk: CONTRACT.md ${d}`);
    console.log(`# example walk: ${bad.length + drift.length} disagreements`);
    assert.equal(bad.length + drift.length, 0, `${bad.length} examples disagree, ${drift.length} CONTRACT.md list differences (see the log above)`);
    // A priced estate: every official connection example the broker proposes gets a price.
    assert.deepEqual(unpriced.map((r) => r.name), [], 'connection examples without a rate-card price');
  });
}
