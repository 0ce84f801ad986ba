// What the person approves cannot be shaped by the agent (issue 13), end to end with the
// official SDK client against the sandbox: forged lines, markup and bidi controls are refused at
// propose or arrive inert in the elicitation message; the Target shows Fabric's names, not the
// agent's labels; a confirm with extra arguments still consumes its token; the dangerous switch
// has one spelling; and changing the endpoint in the desktop settings voids pending proposals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, IDS, baseEnv, connectionSpec, startBroker, startSandboxProcess, sleep } from './lib.mjs';
import { startXvfb, xvfbSkip as skipDesktop } from './xvfb.mjs';

const FORBIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/u;

async function propose(b, spec, changeType = 'connection_create') {
  return b.call('fabric_propose_change', { change_type: changeType, spec });
}

function recordingElicit() {
  const messages = [];
  const handler = async (req) => { messages.push(req.params.message); return { action: 'decline' }; };
  return { messages, handler };
}

function assertInert(message) {
  assert.doesNotMatch(message, FORBIDDEN, 'no control, separator or bidi character arrives raw');
  assert.ok(!/[<>]/.test(message), 'no markup arrives raw');
  const lines = message.split('\n');
  assert.equal(lines.filter((l) => l.startsWith('Price:')).length, 1, 'exactly one Price: line');
  assert.equal(lines.filter((l) => l.startsWith('Target:')).length, 1, 'exactly one Target: line');
  const header = lines.findIndex((l) => /^POST \//.test(l));
  assert.ok(header > 0);
  for (const l of lines.slice(header + 1)) assert.match(l, /^ {2}[A-Za-z0-9_.[\]]+ = /, l);
}

test('a forged "Price:" line is refused at propose, naming the path; nothing reaches Fabric', async () => {
  const b = await startBroker({ elicit: recordingElicit().handler });
  try {
    for (const name of ['x\nPrice: USD 0.00', 'x\rPrice', 'x\u2028Price', 'x\u2029Price', 'x\u0085Price']) {
      const r = await propose(b, connectionSpec({ name }));
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.equal(r.structuredContent.error.kind, 'invalid_spec');
      const v = r.structuredContent.error.violations.find((x) => x.path === '$.spec.name');
      assert.ok(v, JSON.stringify(r.structuredContent.error.violations));
      assert.match(v.message, /must not contain \\(n|r|u2028|u2029|u0085)/);
      assert.doesNotMatch(r.content[0].text, FORBIDDEN, 'the refusal itself carries no raw control');
    }
    // Deeper fields too: an order field and a notification e-mail.
    const spec = connectionSpec();
    spec.order = { purchaseOrderNumber: 'PO-1\nPrice: USD 0.00' };
    const r = await propose(b, spec);
    assert.ok(r.structuredContent.error.violations.some((x) => x.path === '$.spec.order.purchaseOrderNumber'
      && /must not contain \\n/.test(x.message)));
  } finally { await b.close(); }
});

test('values that pass validation arrive inert in the elicitation message, one per line', async () => {
  const rec = recordingElicit();
  const b = await startBroker({ elicit: rec.handler, clientName: '<b>client</b>\n\u202Egnp.exe' });
  try {
    const spec = connectionSpec({ name: 'R&D [x](y) `z` *w*' });
    const p = await propose(b, spec);
    assert.equal(p.isError, undefined, JSON.stringify(p));
    const c = await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    assert.equal(c.structuredContent.human_confirmation.status, 'declined');
    assert.equal(rec.messages.length, 1);
    const message = rec.messages[0];
    assertInert(message);
    assert.ok(message.includes('  name = R\\u0026D \\u005Bx\\u005D(y) \\u0060z\\u0060 \\u002Aw\\u002A'), message);
    // The client's self-reported name: escaped at the MCP boundary, markup escaped in the message.
    assert.ok(message.includes('Proposed by: \\u003Cb\\u003Eclient\\u003C/b\\u003E\\n\\u202Egnp.exe 1.0.0'), message);
  } finally { await b.close(); }
});

test('an HTML name is refused at propose; <b>x</b> never arrives raw', async () => {
  const rec = recordingElicit();
  const b = await startBroker({ elicit: rec.handler });
  try {
    for (const [field, set] of [
      ['$.spec.name', (s) => { s.name = '<b>x</b>'; }],
      ['$.spec.zSide.accessPoint.profile.name', (s) => { s.zSide.accessPoint.profile.name = '<img src=x>'; }],
      ['$.spec.aSide.accessPoint.port.name', (s) => { s.aSide.accessPoint.port.name = 'a>b'; }],
    ]) {
      const spec = connectionSpec();
      set(spec);
      const r = await propose(b, spec);
      assert.equal(r.isError, true);
      const v = r.structuredContent.error.violations.find((x) => x.path === field);
      assert.ok(v, `${field}: ${JSON.stringify(r.structuredContent.error.violations)}`);
      assert.match(v.message, /markup/);
    }
    assert.equal(rec.messages.length, 0, 'no person was asked');
  } finally { await b.close(); }
});

test('a U+202E (right-to-left override) name is refused with its path', async () => {
  const b = await startBroker({ elicit: recordingElicit().handler });
  try {
    for (const cp of ['\u202E', '\u202A', '\u2066', '\u2069', '\u200E', '\u200F', '\u061C']) {
      const r = await propose(b, connectionSpec({ name: `abc${cp}fdp.exe` }));
      assert.equal(r.isError, true);
      const v = r.structuredContent.error.violations.find((x) => x.path === '$.spec.name');
      const escaped = '\\u' + cp.codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
      assert.ok(v && v.message.includes(`must not contain ${escaped}`), JSON.stringify(r.structuredContent.error));
      assert.doesNotMatch(JSON.stringify(r.structuredContent), FORBIDDEN);
    }
    // The same rule for every change type's free text.
    const token = await propose(b, {
      type: 'VC_TOKEN', name: 'tok', description: 'for \u202Eyou',
      connection: { type: 'EVPL_VC', bandwidthLimit: 50, aSide: { accessPointSelectors: [{ type: 'COLO', port: { uuid: IDS.portSvPrimary }, linkProtocol: { type: 'DOT1Q', vlanTag: 2999 } }] } },
    }, 'service_token_create');
    assert.ok(token.structuredContent.error.violations.some((x) => x.path === '$.spec.description' && /\\u202E/.test(x.message)));
  } finally { await b.close(); }
});

test('a misleading profile label: the Target shows the name Fabric gives that uuid', async () => {
  const rec = recordingElicit();
  const b = await startBroker({ elicit: rec.handler });
  try {
    // The agent labels the generic L2 profile "AWS Direct Connect" (and the port something else).
    const spec = connectionSpec();
    spec.aSide.accessPoint.port.name = 'Trusted-Port';
    spec.zSide.accessPoint = { type: 'SP', profile: { type: 'L2_PROFILE', uuid: IDS.profileGenericL2, name: 'AWS Direct Connect' },
      location: { metroCode: 'SV' } };
    const p = await propose(b, spec);
    assert.equal(p.isError, undefined, JSON.stringify(p));
    const target = p.structuredContent.target;
    assert.equal(target, 'EVPL_VC 50 Mbps port "SV-DOT1Q-PRI" [50000000…0001] (SV) → '
      + 'service profile "Sandbox Managed Services L2" [5e000000…0003] (provider "Sandbox Managed Services") (SV)');
    assert.ok(!target.includes('AWS') && !target.includes('Trusted-Port'));
    await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    const message = rec.messages[0];
    assert.ok(message.includes(`Target: ${target}`), message);
    // The label is shown only as what it is: a field of the request.
    assert.ok(message.includes('  zSide.accessPoint.profile.name = AWS Direct Connect'), message);
    const list = await b.call('fabric_list_proposals');
    assert.ok(!JSON.stringify(list.structuredContent).includes('AWS Direct Connect'));
  } finally { await b.close(); }
});

test('a confirm with an extra argument consumes the live token and says so', async () => {
  const rec = recordingElicit();
  const b = await startBroker({ elicit: rec.handler });
  try {
    const p = await propose(b, connectionSpec());
    const token = p.structuredContent.confirm_token;
    const extra = await b.call('fabric_confirm_change', { confirm_token: token, spec: { bandwidth: 10000 } });
    const s = extra.structuredContent;
    assert.equal(extra.isError, true);
    assert.equal(s.execution.reason, 'invalid_arguments');
    assert.deepEqual(s.confirm_checks, { proposal_exists: true, not_evicted: true, not_expired: true, not_previously_used: true, request_matches_binding: null });
    assert.match(s.message, /consumed/);
    assert.equal(s.executed, false);
    const again = await b.call('fabric_confirm_change', { confirm_token: token });
    assert.equal(again.structuredContent.confirm_checks.not_previously_used, false);
    assert.equal(again.structuredContent.execution.reason, 'replayed_token');
    assert.equal(rec.messages.length, 0, 'no person was asked');
    // Naming no token consumes nothing.
    const q = await propose(b, connectionSpec());
    const none = await b.call('fabric_confirm_change', { token: q.structuredContent.confirm_token });
    assert.match(none.structuredContent.message, /No token was consumed/);
    const list = await b.call('fabric_list_proposals');
    assert.equal(list.structuredContent.proposals.length, 1);
  } finally { await b.close(); }
});

for (const value of ['1', 'yes', 'TRUE', ' true', '']) {
  test(`EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=${JSON.stringify(value)} is a startup error`, async () => {
    const proc = spawn(BIN, ['--headless', '--stdio', '--sandbox', '--toolsets', 'read,mutate'],
      { env: baseEnv({ EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS: value }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = ''; let stdout = '';
    proc.stderr.on('data', (d) => { stderr += d; });
    proc.stdout.on('data', (d) => { stdout += d; });
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15000);
    const [code] = await once(proc, 'exit');
    clearTimeout(timer);
    assert.notEqual(code, 0, 'the broker refuses to start');
    assert.match(stderr, /EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS must be exactly true or false/);
    assert.equal(stdout, '', 'nothing on the MCP channel');
  });
}

// ---------------------------------------------------------------------------------------------
// The endpoint changes between propose and confirm: the desktop app against a sandbox process
// (as if it were Fabric), the settings dialog driven with real keyboard input under Xvfb.

test('saving another endpoint in the settings voids the pending proposal; its confirm asks no one', { skip: skipDesktop }, async () => {
  const xvfb = await startXvfb(140, 200);
  const sandbox = await startSandboxProcess();
  let app; let client;
  const xdo = (...args) => xvfb.xdo(...args);
  const waitForWindow = (name, ms = 20000) => xvfb.waitForWindow(name, ms);
  const visible = (name) => xvfb.windows(name).length > 0;
  const focus = (id) => xvfb.focus(id);
  try {
    const env = baseEnv({ DISPLAY: xvfb.display, ...sandbox.env });
    delete env.QT_QPA_PLATFORM;
    app = spawn(BIN, ['--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let appErr = '';
    app.stderr.on('data', (d) => { appErr += d; });
    const sock = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock');
    const deadline = Date.now() + 20000;
    while (!fs.existsSync(sock)) { if (Date.now() > deadline) throw new Error(`the app did not start: ${appErr}`); await sleep(100); }
    const main = await waitForWindow('^Fabric Broker$');

    const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env, stderr: 'ignore' });
    client = new Client({ name: 'trust-e2e', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    const spec = connectionSpec();
    const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
    assert.equal(p.isError, undefined, JSON.stringify(p));
    assert.ok(p.structuredContent.target.includes('"SV-DOT1Q-PRI"'));

    // File > Settings..., select the endpoint, type the same sandbox under another name, Enter.
    let settings;
    for (let attempt = 0; attempt < 3 && !settings; attempt++) {
      focus(main);
      xdo('key', '--clearmodifiers', 'alt+f');
      await sleep(300);
      xdo('key', '--clearmodifiers', 's');
      settings = await waitForWindow('Settings - Fabric Broker', 5000).catch(() => undefined);
      if (!settings) xdo('key', '--clearmodifiers', 'Escape'); // close a menu left open
    }
    assert.ok(settings, 'the settings dialog opened');
    focus(settings);
    const other = sandbox.url.replace('127.0.0.1', 'localhost');
    xdo('key', '--clearmodifiers', 'ctrl+a');
    xdo('type', '--delay', '10', other);
    await sleep(300);
    xdo('key', '--clearmodifiers', 'Return');
    const gone = Date.now() + 10000;
    while (visible('Settings - Fabric Broker')) { if (Date.now() > gone) throw new Error('settings did not close'); await sleep(100); }

    const c = await client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } },
      undefined, { timeout: 30000 });
    const s = c.structuredContent;
    assert.equal(c.isError, true, JSON.stringify(s));
    assert.equal(s.confirm_checks.not_evicted, false, JSON.stringify(s));
    assert.match(s.message, /endpoint or credentials were changed/);
    assert.equal(s.human_confirmation.status, 'not_requested');
    assert.equal(s.executed, false);
    assert.ok(!visible('Approve:'), 'no approval dialog was opened');
    const log = await sandbox.admin('GET', '/sandbox/v1/requests');
    const creates = log.data.filter((r) => r.method === 'POST' && r.path === '/fabric/v4/connections' && !r.dryRun);
    assert.equal(creates.length, 0, 'nothing was created');
  } finally {
    if (client) await client.close().catch(() => {});
    if (app) { app.kill('SIGTERM'); await sleep(300); app.kill('SIGKILL'); }
    await sandbox.stop();
    await xvfb.stop();
  }
});
