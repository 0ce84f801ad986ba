// Keeps the README's example session true: runs it against the real executable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, IDS, baseEnv, nextVlan, startBroker, scratchDir } from './lib.mjs';

test('README example: propose, approve, create, replay refused', async () => {
  // The example leaves nothing behind: not in its temporary folder, not in /tmp (it once wrote
  // its audit log to /tmp/fabric-broker-example-audit.jsonl and left it there).
  const tmp = scratchDir('fb-example-tmp-');
  const legacy = '/tmp/fabric-broker-example-audit.jsonl';
  const started = Date.now() - 1000;
  const { stdout } = await promisify(execFile)(process.execPath, ['examples/propose-confirm.mjs', BIN],
    { env: { ...process.env, ...baseEnv(), TMPDIR: tmp }, timeout: 60000 });
  assert.deepEqual(fs.readdirSync(tmp), [], 'the example left files in its temporary folder');
  assert.ok(!fs.existsSync(legacy) || fs.statSync(legacy).mtimeMs < started, `the example wrote ${legacy}`);
  assert.match(stdout, /"confirm_token": "chg-[0-9a-f]{32}"/);
  assert.match(stdout, /"target": "EVPL_VC 50 Mbps port \\"SV-DOT1Q-PRI\\" \[50000000…0001\] \(SV\) → service profile \\"AWS Direct Connect\\" \[5e000000…0001\] \(provider \\"Sandbox Cloud Provider A\\"\) us-west-1"/);
  assert.match(stdout, /^Target: EVPL_VC 50 Mbps port "SV-DOT1Q-PRI" \[50000000…0001\] \(SV\) → service profile "AWS Direct Connect" \[5e000000…0001\] \(provider "Sandbox Cloud Provider A"\) us-west-1$/m);
  assert.match(stdout, /"status": "accepted"/);
  assert.match(stdout, /"outcome": "created"/);
  assert.match(stdout, /"not_previously_used": false/);
  // The first connection is priced; the spec's LOCAL EVPLAN network example proposes (issue 15).
  assert.match(stdout, /"priced": true/);
  assert.match(stdout, /Price: rate card: USD 150\.00\/month/);
  assert.match(stdout, /fabric_propose_change \(a LOCAL EVPLAN network\) -> \{\n  "confirm_token": "chg-[0-9a-f]{32}",\n  "target": "EVPLAN network \(LOCAL\)"/);
  assert.match(stdout, /"summary": "networks have no rate-card price"/);
});

test('a new user\'s simplest connection (10 Mbps to the managed-services profile) is priced', async () => {
  const prompts = [];
  const auditLog = path.join(scratchDir('fb-price-'), 'audit.jsonl');
  const b = await startBroker({
    env: { EQUINIX_MCP_AUDIT_LOG: auditLog },
    elicit: async (req) => { prompts.push(req.params.message); return { action: 'decline' }; },
  });
  try {
    const spec = {
      type: 'EVPL_VC', name: 'first-try', bandwidth: 10,
      aSide: { accessPoint: { type: 'COLO', port: { uuid: IDS.portSvPrimary }, linkProtocol: { type: 'DOT1Q', vlanTag: nextVlan() } } },
      zSide: { accessPoint: { type: 'SP', profile: { type: 'L2_PROFILE', uuid: IDS.profileGenericL2 }, location: { metroCode: 'SV' } } },
      notifications: [{ type: 'ALL', emails: ['netops@example.com'] }],
    };
    const r = await b.call('fabric_propose_change', { change_type: 'connection_create', spec });
    assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 800));
    assert.equal(r.structuredContent.price.priced, true, JSON.stringify(r.structuredContent.price));
    assert.equal(r.structuredContent.price.monthly_recurring, 100);
    await b.call('fabric_confirm_change', { confirm_token: r.structuredContent.confirm_token });
    assert.equal(prompts.length, 1);
    assert.match(prompts[0], /^Price: rate card: USD 100\.00\/month/m);
    // A network has no rate-card product: the person reads one short line, the details stay in
    // the proposal's price.reason.
    const net = await b.call('fabric_propose_change', { change_type: 'network_create', spec: {
      type: 'EVPLAN', name: 'first-net', scope: 'LOCAL', notifications: [{ type: 'ALL', emails: ['netops@example.com'] }] } });
    assert.equal(net.isError, undefined, JSON.stringify(net).slice(0, 800));
    assert.match(net.structuredContent.price.reason, /no price product for networks/);
    await b.call('fabric_confirm_change', { confirm_token: net.structuredContent.confirm_token });
    assert.equal(prompts.length, 2);
    assert.match(prompts[1], /^Price: unpriced: networks have no rate-card price$/m);
    // A bandwidth the rate card lacks (port to port, 25 Mbps): one short line for the person;
    // the raw Fabric error in the proposal's price.reason and in the audit log.
    const odd = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: {
      type: 'EVPL_VC', name: 'odd-size', bandwidth: 25,
      aSide: { accessPoint: { type: 'COLO', port: { uuid: IDS.portSvPrimary }, linkProtocol: { type: 'DOT1Q', vlanTag: nextVlan() } } },
      zSide: { accessPoint: { type: 'COLO', port: { uuid: IDS.portDc }, linkProtocol: { type: 'DOT1Q', vlanTag: nextVlan() } } },
      notifications: [{ type: 'ALL', emails: ['netops@example.com'] }] } });
    assert.equal(odd.isError, undefined, JSON.stringify(odd).slice(0, 800));
    const price = odd.structuredContent.price;
    assert.equal(price.priced, false);
    assert.equal(price.summary, 'no rate-card price for 25 Mbps');
    assert.match(price.reason, /EQ-3038022.*No rate for bandwidth 25/);
    assert.match(odd.content[0].text, /Price: unpriced: no rate-card price for 25 Mbps\n/);
    await b.call('fabric_confirm_change', { confirm_token: odd.structuredContent.confirm_token });
    assert.match(prompts[2], /^Price: unpriced: no rate-card price for 25 Mbps$/m);
    assert.doesNotMatch(prompts[2], /EQ-3038022/);
    const proposed = fs.readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      .filter((r) => JSON.stringify(r).includes('odd-size') && /proposed/.test(JSON.stringify(r)));
    assert.ok(proposed.some((r) => /EQ-3038022/.test(JSON.stringify(r))), 'the audit log keeps the raw Fabric error');
  } finally {
    await b.close();
  }
});

// Issue #36: three operator questions answered by a scripted agent with the spec's read toolsets
// only (routing, observability): a cloud router's routes and BGP state, a port's traffic, the
// last events of a connection.
test('operator questions: routes and BGP, a port\'s traffic, a connection\'s events, from the new tools', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['examples/operator-questions.mjs', BIN],
    { env: { ...process.env, ...baseEnv() }, timeout: 60000 });
  const answers = stdout.slice(stdout.indexOf('--- answers'));
  assert.match(answers, /learns 3 routes: 10\.10\.0\.0\/16 via 169\.254\.10\.1 \(sv-aws-primary, ACTIVE\); 10\.20\.0\.0\/16 via [0-9.]+ \(sv-aws-secondary, ACTIVE\); 172\.16\.0\.0\/24/);
  assert.match(answers, /BGP sessions: sv-aws-primary: UP; sv-aws-secondary: DOWN\./);
  assert.match(answers, /rx average 127\.5 Mbps, peak 135 Mbps \(3 samples\); tx average 87\.5 Mbps, peak 95 Mbps \(3 samples\)/);
  assert.match(answers, /2026-01-15T01:00:00Z INFO equinix\.fabric\.connection\.state\.provisioned: Connection sv-aws-primary provisioned/);
  // Only tools of the new toolsets answered (the core catalog is not even served).
  assert.match(answers, /Tools used: fabric_get_connection_routing_protocols, fabric_get_metric_by_asset_id, fabric_search_cloud_events, fabric_search_cloud_router_routes\./);
});
