// Attacks on "where the exports go" (issue #38): the agent (same Unix user: it writes the user's
// policy file, the environment of any broker it starts, and may relay into a running instance)
// tries to send the audit records nowhere or to its own server, and to starve the
// administrator's OTLP collector. Each test asserts the SAFE behaviour against the real binary.
// Written by a reviewer who did not build the feature: 27 attacks, 5 got through (a malformed
// administrator target let the environment's sink in; four tuning variables starved the
// administrator's collector or renamed the service); each is fixed and its test now asserts
// the fix.
// The administrator's file is FABRIC_BROKER_EXTRA_ADMIN_POLICY (root-owned, in a root-only
// directory), standing in for /etc/fabric-broker/policy.json: the agent never removes it.
// Needs root (skipped with a message otherwise, failed in CI).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, baseEnv, connectionSpec, scratchDir, sleep } from './lib.mjs';

const inCI = process.env.CI === 'true';
// Fixed after the review (ServerHost::startObservability, LiveSettings::setAuditExport):
// was: 'finding: an administrator audit.syslog that fails the shape check (udp://) makes the whole administrator file IGNORED; the start succeeds (read only) and the sink is made from the agent\'s FABRIC_BROKER_AUDIT_SYSLOG ("audit records also to syslog at <agent>")';
const clients = new Set();
const servers = new Set();
const children = new Set();

after(async () => {
  for (const c of [...clients]) { try { await c.close(); } catch { /* closed */ } }
  for (const p of [...children]) { try { p.kill('SIGKILL'); } catch { /* gone */ } }
  for (const s of [...servers]) { s.closeAllConnections?.(); await new Promise((r) => s.close(() => r())); }
});

async function until(fn, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

function skipUnlessRoot(t) {
  if (process.getuid?.() === 0) return false;
  if (inCI) assert.fail('CI runs as root: the administrator policy file must be root-owned');
  t.skip('needs root for a root-owned administrator policy file');
  return true;
}

// --- receivers (loopback only) ----------------------------------------------------------------

async function startOtlpReceiver() {
  const bodies = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let buf = Buffer.concat(chunks);
      try { if ((req.headers['content-encoding'] ?? '').toLowerCase() === 'gzip') buf = zlib.gunzipSync(buf); } catch { /* kept raw */ }
      let json = null;
      try { json = JSON.parse(buf.toString('utf8')); } catch { /* not JSON */ }
      bodies.push({ method: req.method, path: req.url, headers: req.headers, json });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  // A proxy's CONNECT also lands here (an agent's proxy sees the tunnel request).
  server.on('connect', (req, socket) => { bodies.push({ method: 'CONNECT', path: req.url, headers: req.headers, json: null }); socket.destroy(); });
  servers.add(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, bodies, url: `http://127.0.0.1:${server.address().port}` };
}

function spanNames(bodies) {
  const out = [];
  for (const b of bodies) {
    if (!b.json) continue;
    for (const rs of b.json.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) out.push(s.name);
  }
  return out;
}
const metricsBodies = (bodies) => bodies.filter((b) => b.json && Array.isArray(b.json.resourceMetrics));

async function startTcpSink() {
  const sink = { data: '', connections: 0 };
  const server = net.createServer((socket) => {
    sink.connections += 1;
    socket.on('data', (d) => { sink.data += d.toString('utf8'); });
    socket.on('error', () => {});
  });
  servers.add(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  sink.port = server.address().port;
  sink.url = `tcp://127.0.0.1:${sink.port}`;
  return sink;
}

// A root-owned administrator-layer file in a directory only root writes. raw: the bytes as is.
function adminPolicyFile(policy, { raw } = {}) {
  const dir = scratchDir('fb-obsatk-admin-');
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, raw ?? JSON.stringify(policy));
  fs.chmodSync(file, 0o644);
  return file;
}

// The agent's own user policy file (it can write it).
function userPolicyFile(text) {
  const file = path.join(scratchDir('fb-obsatk-user-'), 'policy.json');
  fs.writeFileSync(file, text);
  return file;
}

function readAudit(file) {
  let text = '';
  try { text = fs.readFileSync(file, 'utf8'); } catch { return []; }
  return text.split('\n').filter((l) => l !== '').map((line) => JSON.parse(line));
}

// --- the broker -------------------------------------------------------------------------------

async function startBroker({ env: extra = {}, sharedEnv } = {}) {
  const env = sharedEnv ? { ...sharedEnv, ...extra } : baseEnv({ EQUINIX_MCP_TOOLSETS: 'read,mutate', ...extra });
  const transport = new StdioClientTransport({ command: BIN, args: ['--headless', '--stdio', '--sandbox'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'obs-attacks', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: true } }));
  clients.add(client);
  await client.connect(transport);
  const pid = transport.pid;
  return {
    client, env, pid, get stderr() { return stderr; },
    auditLog: path.join(env.XDG_DATA_HOME, 'fabric-broker', 'audit.jsonl'),
    async close() {
      clients.delete(client);
      await client.close();
      for (let i = 0; i < 100 && pid && alive(pid); i++) await sleep(50);
    },
  };
}

function alive(pid) { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } }

// propose + confirm; returns whether the create happened (never throws on a refusal).
async function tryCreate(b) {
  const call = async (...a) => { try { return await b.client.callTool(...a); } catch (e) { return { isError: true, thrown: String(e) }; } };
  const p = await call({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec: connectionSpec() } }, CallToolResultSchema);
  if (p.isError || !p.structuredContent?.confirm_token) return { created: false, why: JSON.stringify(p).slice(0, 400) };
  const c = await call({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } }, CallToolResultSchema);
  return { created: c.structuredContent?.execution?.outcome === 'created', why: JSON.stringify(c).slice(0, 400) };
}

// Every local audit record of this run at the SIEM (by chain position)?
function missingAtSink(sink, records) {
  return records.filter((r) => !sink.data.includes(`seq="${r.seq}"`)).map((r) => `${r.seq}:${r.type}`);
}

// ---------------------------------------------------------------------------------------------
// 1. The user's policy file (the agent writes it)

test('user file: flat "audit.syslog" key, duplicate keys and the nested form cannot redirect the administrator\'s SIEM', async (t) => {
  if (skipUnlessRoot(t)) return;
  const adminSiem = await startTcpSink();
  const agentSiem = await startTcpSink();
  const admin = adminPolicyFile({ audit: { syslog: adminSiem.url } });
  // Duplicate "audit" objects, then a flat key after them: whichever a parser keeps, each names
  // the agent's server.
  const user = userPolicyFile(`{"audit":{"syslog":"${agentSiem.url}"},"audit":{"syslog":"${agentSiem.url}"},"audit.syslog":"${agentSiem.url}"}`);
  const b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, FABRIC_BROKER_POLICY: user } });
  try {
    const r = await tryCreate(b);
    assert.ok(r.created, r.why);
    const ok = await until(() => readAudit(b.auditLog).length > 0 && missingAtSink(adminSiem, readAudit(b.auditLog)).length === 0, 8000);
    assert.ok(ok, `every record at the administrator's SIEM; missing ${missingAtSink(adminSiem, readAudit(b.auditLog))}; ${b.stderr.slice(-800)}`);
  } finally { await b.close(); }
  assert.equal(agentSiem.connections, 0, 'the user file\'s SIEM got no connection');
});

test('user file alone (no administrator\'s audit.syslog): it cannot switch an export on to the agent\'s server', async (t) => {
  if (skipUnlessRoot(t)) return;
  const agentSiem = await startTcpSink();
  const admin = adminPolicyFile({ spend: { unpriced: 'deny' } }); // an administrator file without audit.syslog
  const user = userPolicyFile(`{"audit.syslog":"${agentSiem.url}","audit":{"syslog":"${agentSiem.url}"}}`);
  const b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, FABRIC_BROKER_POLICY: user } });
  try {
    await tryCreate(b);
    await sleep(1000);
  } finally { await b.close(); }
  assert.equal(agentSiem.connections, 0, 'nothing connected to the user file\'s SIEM');
});

// ---------------------------------------------------------------------------------------------
// 2. The environment, with the administrator's audit.syslog set

for (const [label, value] of [
  ['empty', ''], ['whitespace', '   '], ['a newline then the agent\'s target', '\nAGENT'],
  ['the agent\'s target', 'AGENT'], ['the administrator\'s target plus a trailing newline and junk', 'ADMIN\n;x'],
]) {
  test(`FABRIC_BROKER_AUDIT_SYSLOG=${label}: the administrator's SIEM still gets every record, the agent's none`, async (t) => {
    if (skipUnlessRoot(t)) return;
    const adminSiem = await startTcpSink();
    const agentSiem = await startTcpSink();
    const admin = adminPolicyFile({ audit: { syslog: adminSiem.url } });
    const v = value.replace('AGENT', agentSiem.url).replace('ADMIN', adminSiem.url);
    const b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, FABRIC_BROKER_AUDIT_SYSLOG: v } });
    try {
      const r = await tryCreate(b);
      assert.ok(r.created, r.why);
      const ok = await until(() => missingAtSink(adminSiem, readAudit(b.auditLog)).length === 0, 8000);
      assert.ok(ok, `missing at the administrator's SIEM: ${missingAtSink(adminSiem, readAudit(b.auditLog))}`);
    } finally { await b.close(); }
    assert.equal(agentSiem.connections, 0);
  });
}

// ---------------------------------------------------------------------------------------------
// 3. The administrator's file is broken (present, but invalid), and the agent names its own SIEM

test('administrator\'s audit.syslog with a bad shape (udp://): the file is not applied, mutate is refused, and the agent\'s FABRIC_BROKER_AUDIT_SYSLOG is not taken in its place', async (t) => {
  if (skipUnlessRoot(t)) return;
  const agentSiem = await startTcpSink();
  const admin = adminPolicyFile({ audit: { syslog: 'udp://127.0.0.1:514' } });
  let b;
  try {
    b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, FABRIC_BROKER_AUDIT_SYSLOG: agentSiem.url } });
  } catch { assert.equal(agentSiem.connections, 0); return; } // a failed start is safe too
  let r;
  try {
    r = await tryCreate(b);
    await sleep(1000);
  } finally { await b.close(); }
  await sleep(300);
  assert.equal(r.created, false, 'no create without the administrator\'s export');
  assert.equal(agentSiem.connections, 0, `the agent's SIEM got ${agentSiem.connections} connection(s), ${agentSiem.data.length} bytes`);
  assert.ok(!b.stderr.includes(`audit records also to syslog at ${agentSiem.url}`), `the agent's target became the audit sink: ${b.stderr.slice(0, 1500)}`);
  assert.match(b.stderr, /audit export: FABRIC_BROKER_AUDIT_SYSLOG is NOT used: the administrator's policy file .* could not be applied/);
});

test('administrator\'s file is invalid JSON: mutate is refused, so no create happens without the administrator\'s export', async (t) => {
  if (skipUnlessRoot(t)) return;
  const admin = adminPolicyFile(null, { raw: '{"audit": {"syslog": "tcp://127.0.0.1:1"}' }); // truncated
  let b;
  try {
    b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin } });
  } catch { return; } // a failed start is safe too
  try {
    const r = await tryCreate(b);
    assert.equal(r.created, false, 'a create happened while the administrator\'s policy (and its SIEM) was not in force');
  } finally { await b.close(); }
});

// ---------------------------------------------------------------------------------------------
// 4. The environment, with the administrator's otlp_endpoint set: does the collector receive?

const ADMIN_OTLP_ENV_ATTACKS = [
  ['OTEL_SDK_DISABLED=TRUE', { OTEL_SDK_DISABLED: 'TRUE' }],
  ['OTEL_SDK_DISABLED=1', { OTEL_SDK_DISABLED: '1' }],
  ['OTEL_TRACES_EXPORTER=none,otlp', { OTEL_TRACES_EXPORTER: 'none,otlp' }],
  ['OTEL_TRACES_EXPORTER=prometheus', { OTEL_TRACES_EXPORTER: 'prometheus' }],
  ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=agent', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'AGENT/v1/traces' }],
  ['OTEL_BSP_MAX_QUEUE_SIZE=0 and OTEL_BSP_MAX_EXPORT_BATCH_SIZE=0', { OTEL_BSP_MAX_QUEUE_SIZE: '0', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '0' }],
  ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE=2147483647', { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2147483647' }],
  ['OTEL_EXPORTER_OTLP_HEADERS with CR/LF and Host', { OTEL_EXPORTER_OTLP_HEADERS: 'Host=evil.example,x-a=1%0D%0AHost: evil,Content-Type=text/plain' }],
  ['OTEL_EXPORTER_OTLP_COMPRESSION=br', { OTEL_EXPORTER_OTLP_COMPRESSION: 'br' }],
  ['OTEL_EXPORTER_OTLP_PROTOCOL=grpc', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }],
];
// Tuning variables that starve the export (the collector receives nothing while the broker runs).
const STARVE = 'finding: a tuning variable the agent sets in the environment of a broker it starts keeps the administrator\'s collector from receiving';
// Fixed after the review (OtlpConfig::fromEnvironment clamps them under the policy's endpoint):
// each was a finding; now the collector receives while the broker runs, or the clamp is logged
// (metrics: the default interval, 60 s, is longer than a test waits).
const ADMIN_OTLP_STARVE = [
  ['OTEL_BSP_MAX_QUEUE_SIZE=1', { OTEL_BSP_MAX_QUEUE_SIZE: '1' }, 'spans', /OTEL_BSP_MAX_QUEUE_SIZE below 2048 is raised to 2048/],
  ['OTEL_EXPORTER_OTLP_TIMEOUT=1', { OTEL_EXPORTER_OTLP_TIMEOUT: '1', OTEL_BSP_EXPORT_TIMEOUT: '1' }, 'spans', /OTEL_EXPORTER_OTLP_TIMEOUT below 10000 is raised to 10000/],
  ['OTEL_BSP_SCHEDULE_DELAY=2147483647', { OTEL_BSP_SCHEDULE_DELAY: '2147483647' }, 'spans', /OTEL_BSP_SCHEDULE_DELAY above 5000 is lowered to 5000/],
  ['OTEL_METRIC_EXPORT_INTERVAL=2147483647', { OTEL_METRIC_EXPORT_INTERVAL: '2147483647' }, 'log', /OTEL_METRIC_EXPORT_INTERVAL above 60000 is lowered to 60000/],
];

// Starts with the administrator's collector and the attack's environment; a few calls; what the
// collector got within `window` ms while the broker still runs, and after it exits.
async function otlpRun(attackEnv, { window = 6000, what = 'spans' } = {}) {
  const adminOtlp = await startOtlpReceiver();
  const agentOtlp = await startOtlpReceiver();
  const admin = adminPolicyFile({ observability: { otlp_endpoint: adminOtlp.url } });
  const env = Object.fromEntries(Object.entries(attackEnv).map(([k, v]) => [k, v.replace('AGENT', agentOtlp.url)]));
  const b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, OTEL_METRIC_EXPORT_INTERVAL: '1000', ...env } });
  let whileRunning;
  try {
    for (let i = 0; i < 5; i++) await b.client.callTool({ name: 'fabric_list_metros', arguments: {} }, CallToolResultSchema);
    whileRunning = await until(() => (what === 'spans'
      ? spanNames(adminOtlp.bodies).filter((n) => n === 'tools/call fabric_list_metros').length >= 5
      : metricsBodies(adminOtlp.bodies).length > 0), window);
  } finally { await b.close(); }
  return { whileRunning, adminOtlp, agentOtlp, stderr: b.stderr };
}

for (const [label, env] of ADMIN_OTLP_ENV_ATTACKS) {
  test(`administrator's otlp_endpoint + ${label}: every span reaches the administrator's collector, none the agent's`, async (t) => {
    if (skipUnlessRoot(t)) return;
    const r = await otlpRun(env);
    assert.ok(r.whileRunning, `the administrator's collector got ${spanNames(r.adminOtlp.bodies).length} span(s); stderr: ${r.stderr.slice(-1000)}`);
    assert.equal(r.agentOtlp.bodies.length, 0, 'the agent\'s collector got nothing');
    for (const body of r.adminOtlp.bodies) assert.notEqual(body.headers.host, 'evil.example');
  });
}

for (const [label, env, what, logged] of ADMIN_OTLP_STARVE) {
  test(`administrator's otlp_endpoint + ${label}: the tuning cannot starve the collector (clamped, and said)`, async (t) => {
    if (skipUnlessRoot(t)) return;
    const r = await otlpRun(env, { what: what === 'log' ? 'spans' : what, window: 8000 });
    assert.match(r.stderr, logged, 'the clamp is in the log');
    if (what !== 'log')
      assert.ok(r.whileRunning, `the administrator's collector got ${spanNames(r.adminOtlp.bodies).length} span(s) within 8 s; stderr: ${r.stderr.slice(-600)}`);
  });
}

test('administrator\'s otlp_endpoint + OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES: the exported service.name stays fabric-broker', async (t) => {
  if (skipUnlessRoot(t)) return;
  const r = await otlpRun({ OTEL_SERVICE_NAME: 'payroll', OTEL_RESOURCE_ATTRIBUTES: 'service.name=payroll,host.name=not-this-host' });
  assert.ok(r.whileRunning);
  const names = new Set();
  for (const b of r.adminOtlp.bodies) for (const rs of b.json?.resourceSpans ?? []) for (const a of rs.resource?.attributes ?? []) if (a.key === 'service.name') names.add(a.value.stringValue);
  assert.deepEqual([...names], ['fabric-broker'], `service.name exported: ${[...names]}`);
});

// Proxies: the agent's http_proxy/all_proxy pointing at its own server.
test('administrator\'s otlp_endpoint and audit.syslog + http_proxy/https_proxy/all_proxy at the agent\'s server: nothing goes through the agent', async (t) => {
  if (skipUnlessRoot(t)) return;
  const adminOtlp = await startOtlpReceiver();
  const adminSiem = await startTcpSink();
  const proxy = await startOtlpReceiver();
  const admin = adminPolicyFile({ observability: { otlp_endpoint: adminOtlp.url.replace('127.0.0.1', '127.0.0.2') }, audit: { syslog: adminSiem.url.replace('127.0.0.1', '127.0.0.2') } });
  // The receivers listen on 127.0.0.1 only; 127.0.0.2 reaches them only if they listen on it.
  adminOtlp.server.close(); servers.delete(adminOtlp.server);
  const otlp2 = await new Promise((resolve) => { const s = http.createServer((req, res) => { const c = []; req.on('data', (d) => c.push(d)); req.on('end', () => { adminOtlp.bodies.push({ path: req.url }); res.end('{}'); }); }); servers.add(s); s.listen(Number(new URL(adminOtlp.url).port), '127.0.0.2', () => resolve(s)); });
  void otlp2;
  const siem2 = net.createServer((s) => { adminSiem.connections += 1; s.on('data', (d) => { adminSiem.data += d; }); s.on('error', () => {}); });
  servers.add(siem2);
  await new Promise((r) => siem2.listen(adminSiem.port, '127.0.0.2', r));
  const b = await startBroker({ env: {
    FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, OTEL_BSP_SCHEDULE_DELAY: '200',
    http_proxy: proxy.url, HTTP_PROXY: proxy.url, https_proxy: proxy.url, all_proxy: proxy.url, ALL_PROXY: proxy.url, no_proxy: '', NO_PROXY: '',
  } });
  try {
    const r = await tryCreate(b);
    assert.ok(r.created, r.why);
    await until(() => (adminOtlp.bodies.length > 0 && adminSiem.connections > 0) || proxy.bodies.length > 0, 5000);
    await sleep(500);
  } finally { await b.close(); }
  assert.equal(proxy.bodies.length, 0, `the agent's proxy saw ${JSON.stringify(proxy.bodies.map((x) => `${x.method} ${x.path}`))}`);
  assert.ok(adminOtlp.bodies.length > 0, 'the administrator\'s collector received spans');
  assert.ok(adminSiem.connections > 0, 'the administrator\'s SIEM got a connection');
});

// ---------------------------------------------------------------------------------------------
// 5. Relay: a relayed --stdio session with its own environment and user file

test('relay: a relayed --stdio with FABRIC_BROKER_AUDIT_SYSLOG, OTEL_* and a user file of its own changes nothing in the instance\'s exports', async (t) => {
  if (skipUnlessRoot(t)) return;
  const adminSiem = await startTcpSink();
  const adminOtlp = await startOtlpReceiver();
  const agentSiem = await startTcpSink();
  const agentOtlp = await startOtlpReceiver();
  const admin = adminPolicyFile({ observability: { otlp_endpoint: adminOtlp.url }, audit: { syslog: adminSiem.url } });
  const instance = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, OTEL_BSP_SCHEDULE_DELAY: '200' } });
  let relayed;
  try {
    const user = userPolicyFile(JSON.stringify({ audit: { syslog: agentSiem.url }, observability: { otlp_endpoint: agentOtlp.url } }));
    relayed = await startBroker({ sharedEnv: instance.env, env: {
      FABRIC_BROKER_AUDIT_SYSLOG: agentSiem.url, OTEL_EXPORTER_OTLP_ENDPOINT: agentOtlp.url, OTEL_SDK_DISABLED: 'true',
      FABRIC_BROKER_POLICY: user,
    } });
    const r = await tryCreate(relayed);
    // A relay may be refused (its own policy differs); what matters is where records go.
    void r;
    await sleep(1500);
    const missing = missingAtSink(adminSiem, readAudit(instance.auditLog));
    assert.deepEqual(missing, [], 'every record of the instance at the administrator\'s SIEM');
  } finally {
    if (relayed) await relayed.close();
    await instance.close();
  }
  assert.equal(agentSiem.connections, 0, 'the relayed session\'s SIEM got nothing');
  assert.equal(agentOtlp.bodies.length, 0, 'the relayed session\'s collector got nothing');
});

// ---------------------------------------------------------------------------------------------
// 6. Audit gap: records written before the sink is attached or after it is gone

test('audit gap: every record this run wrote to the local chain (start to exit, with a user file that provokes policy records) is at the administrator\'s SIEM after exit', async (t) => {
  if (skipUnlessRoot(t)) return;
  const adminSiem = await startTcpSink();
  const admin = adminPolicyFile({ audit: { syslog: adminSiem.url }, revalidate_before_send_after_ms: 60000 });
  // Looser than the administrator's (ignored), and an ignored audit.syslog: records at start?
  const user = userPolicyFile(JSON.stringify({ revalidate_before_send_after_ms: 600000, audit: { syslog: 'tcp://127.0.0.1:9' } }));
  const b = await startBroker({ env: { FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, FABRIC_BROKER_POLICY: user } });
  try {
    // A proposal left pending at exit (records at shutdown, e.g. expiry/eviction)?
    await b.client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec: connectionSpec() } }, CallToolResultSchema);
    const r = await tryCreate(b);
    assert.ok(r.created, r.why);
    // The user file changes while running (a live policy change is audited).
    fs.writeFileSync(b.env.FABRIC_BROKER_POLICY, JSON.stringify({ revalidate_before_send_after_ms: 1000 }));
    await sleep(1500);
  } finally { await b.close(); }
  await sleep(500);
  const records = readAudit(b.auditLog);
  const missing = missingAtSink(adminSiem, records);
  assert.deepEqual(missing, [], `records in the local chain the SIEM never got (no export_gap/export_interrupted for them: ${records.filter((x) => /^export_/.test(x.type)).map((x) => x.type)})`);
});
