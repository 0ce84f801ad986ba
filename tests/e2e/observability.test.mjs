// Observability end to end (issue #38): the real broker, driven by the official SDK client over
// stdio, exports to real receivers on loopback only:
//  1. OTLP/HTTP JSON to a Node receiver in this file: the confirm's server span continues the
//     client's W3C trace (params._meta.traceparent), its child spans hang under it, metrics
//     arrive, and no argument value, token or credential is in any exported byte;
//  2. Prometheus (Debian's `prometheus`) scrapes GET /metrics on the --http listener with the
//     bearer token file, and the query API returns the broker's series; /metrics without the
//     token is 401;
//  3. rsyslog (Debian's `rsyslogd`, imtcp) receives every audit record as RFC 5424 with its
//     chain position; killing it records export_interrupted, the creates still succeed, the
//     export lag shows the queue, and once it is back every record arrives (export_resumed).
// Needs /usr/bin/prometheus and /usr/sbin/rsyslogd (FB_PROMETHEUS_BIN, FB_RSYSLOGD_BIN override)
// for tests 2 and 3: skipped with a message when missing, failed when missing and CI=true.
// FB_OBS_DEBUG=1 prints the confirm's spans and every exported value of test 1.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, baseEnv, connectionSpec, scratchDir, sleep, startSandboxProcess } from './lib.mjs';

const PROMETHEUS = process.env.FB_PROMETHEUS_BIN || '/usr/bin/prometheus';
const RSYSLOGD = process.env.FB_RSYSLOGD_BIN || '/usr/sbin/rsyslogd';
const inCI = process.env.CI === 'true';

// Every helper process this file starts (receivers, brokers' clients): stopped in after(),
// whatever the tests did.
const children = new Set();
const clients = new Set();
const servers = new Set();

async function stopChild(proc, signal = 'SIGTERM') {
  if (proc.exitCode !== null || proc.signalCode !== null) { children.delete(proc); return; }
  const exited = once(proc, 'exit');
  try { proc.kill(signal); } catch { /* gone */ }
  const timer = setTimeout(() => { try { proc.kill('SIGKILL'); } catch { /* gone */ } }, 5000);
  await exited;
  clearTimeout(timer);
  children.delete(proc);
}

after(async () => {
  for (const c of [...clients]) { try { await c.close(); } catch { /* already closed */ } }
  for (const p of [...children]) await stopChild(p, 'SIGKILL');
  for (const s of [...servers]) { s.closeAllConnections?.(); await new Promise((r) => s.close(() => r())); }
});

// Polls fn until it returns a truthy value; fails with what() after ms.
async function until(fn, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await sleep(100);
  }
}

async function freePort() {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  await new Promise((r) => srv.close(() => r()));
  return port;
}

// A missing receiver: a skip with the reason outside CI, a failure in CI.
function missing(t, program, pkg) {
  const why = `${program} is missing (apt-get install --no-install-recommends ${pkg})`;
  if (inCI) assert.fail(`${why}; CI=true requires it`);
  t.skip(why);
}

// The broker over stdio with the SDK client that accepts every approval. http: also serve
// --http 127.0.0.1:0 (for /metrics). Returns the client, its env, stderr and the HTTP base.
async function startObservedBroker({ env: extra = {}, args = ['--sandbox'], http: withHttp = false } = {}) {
  const env = baseEnv({ EQUINIX_MCP_TOOLSETS: 'read,mutate', ...extra });
  const transport = new StdioClientTransport({
    command: BIN, args: ['--headless', '--stdio', ...args, ...(withHttp ? ['--http', '127.0.0.1:0'] : [])],
    env, stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'observability-e2e', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  let asked = 0;
  client.setRequestHandler(ElicitRequestSchema, async () => { asked += 1; return { action: 'accept', content: { confirm: true } }; });
  clients.add(client);
  await client.connect(transport);
  const b = {
    client, env, get stderr() { return stderr; }, get asked() { return asked; },
    auditLog: path.join(env.XDG_DATA_HOME, 'fabric-broker', 'audit.jsonl'),
    tokenFile: path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token'),
    async close() { clients.delete(client); await client.close(); },
  };
  if (withHttp) {
    const re = /MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+)\/mcp/;
    await until(() => re.test(stderr), 15000, () => `the HTTP listener's URL on stderr: ${stderr}`);
    b.base = re.exec(stderr)[1];
    b.token = fs.readFileSync(b.tokenFile, 'utf8').trim();
  }
  return b;
}

// Propose + confirm of one connection; both calls may carry params._meta. Asserts "created".
async function proposeAndConfirm(b, spec, meta = {}) {
  const p = await b.client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec }, _meta: meta.propose },
    CallToolResultSchema);
  assert.notEqual(p.isError, true, JSON.stringify(p).slice(0, 1500));
  const token = p.structuredContent.confirm_token;
  assert.match(token, /^chg-[0-9a-f]{32}$/);
  const asked = b.asked;
  const c = await b.client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: token }, _meta: meta.confirm },
    CallToolResultSchema);
  assert.notEqual(c.isError, true, JSON.stringify(c).slice(0, 1500));
  assert.equal(b.asked, asked + 1, 'the person was asked once');
  assert.equal(c.structuredContent.executed, true, JSON.stringify(c.structuredContent).slice(0, 1500));
  assert.equal(c.structuredContent.execution.outcome, 'created');
  return { proposal: p.structuredContent, confirmation: c.structuredContent, token };
}

async function getMetrics(b, headers = { authorization: `Bearer ${b.token}` }) {
  const res = await fetch(`${b.base}/metrics`, { headers });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

// The value of an unlabelled (or first labelled) sample of name in Prometheus text; null if none.
function sampleValue(text, name) {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)/.exec(line);
    if (m && m[1] === name) return Number(m[3]);
  }
  return null;
}

function readAudit(file) {
  let text = '';
  try { text = fs.readFileSync(file, 'utf8'); } catch { return []; }
  return text.split('\n').filter((l) => l !== '').map((line) => ({ line, rec: JSON.parse(line) }));
}

// ---------------------------------------------------------------------------------------------
// 1. OTLP/HTTP JSON

// Captures every POST body (gunzipped when sent with Content-Encoding: gzip) and its headers.
async function startOtlpReceiver() {
  const bodies = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let buf = Buffer.concat(chunks);
      if ((req.headers['content-encoding'] ?? '').toLowerCase() === 'gzip') buf = zlib.gunzipSync(buf);
      const text = buf.toString('utf8');
      let json = null;
      try { json = JSON.parse(text); } catch { /* kept as text; the test fails on it below */ }
      bodies.push({ method: req.method, path: req.url, headers: req.headers, text, json });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  servers.add(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, bodies, url: `http://127.0.0.1:${server.address().port}` };
}

function attrValue(v) {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return String(v.intValue);
  if ('boolValue' in v) return v.boolValue;
  if ('doubleValue' in v) return v.doubleValue;
  return v;
}
const attrs = (list = []) => Object.fromEntries(list.map((a) => [a.key, attrValue(a.value)]));

function spansOf(bodies) {
  const out = [];
  for (const b of bodies) {
    if (b.path !== '/v1/traces' || !b.json) continue;
    for (const rs of b.json.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) out.push({ ...s, a: attrs(s.attributes) });
  }
  return out;
}

function metricsOf(bodies) {
  const out = [];
  for (const b of bodies) {
    if (b.path !== '/v1/metrics' || !b.json) continue;
    for (const rm of b.json.resourceMetrics ?? []) for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) out.push(m);
  }
  return out;
}

// Every string or number an exported payload holds as content: attribute values (also nested in
// arrays and key-value lists), names, status messages.
function contentLeaves(node, out = []) {
  if (Array.isArray(node)) { for (const x of node) contentLeaves(x, out); return out; }
  if (node && typeof node === 'object') {
    if (typeof node.key === 'string' && node.value && typeof node.value === 'object') {
      const v = node.value;
      for (const k of ['stringValue', 'intValue', 'doubleValue', 'boolValue', 'bytesValue']) if (k in v) out.push(v[k]);
      if (v.arrayValue) contentLeaves(v.arrayValue.values?.map((x) => ({ key: '', value: x })), out);
      if (v.kvlistValue) contentLeaves(v.kvlistValue.values, out);
      out.push(node.key);
      return out;
    }
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'name' || k === 'message' || k === 'description') && typeof v === 'string') out.push(v);
      else contentLeaves(v, out);
    }
  }
  return out;
}

// Leaves of the spec: [json path, value].
function specLeaves(node, p = 'spec', out = []) {
  if (Array.isArray(node)) node.forEach((x, i) => specLeaves(x, `${p}[${i}]`, out));
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) specLeaves(v, `${p}.${k}`, out);
  else out.push([p, node]);
  return out;
}

// OpenTelemetry SDKs flush at shutdown; so does the broker: a client that closes right after its
// call still gets that call's span and the session's duration to the collector, although the
// batch delay and the metric interval (60 s) are far away.
test('OTLP: what is queued is exported when the client closes the session', async () => {
  const receiver = await startOtlpReceiver();
  const b = await startObservedBroker({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_METRIC_EXPORT_INTERVAL: '60000' },
  });
  const r = await b.client.callTool({ name: 'fabric_list_metros', arguments: {} }, CallToolResultSchema);
  assert.notEqual(r.isError, true);
  assert.equal(receiver.bodies.length, 0, 'nothing is exported before the batch delay');
  await b.close(); // end of input: the broker exits
  await until(() => spansOf(receiver.bodies).some((s) => s.name === 'tools/call fabric_list_metros'), 5000,
    () => `the call's span after exit; bodies: ${receiver.bodies.map((x) => x.path).join(', ')}`);
  await until(() => metricsOf(receiver.bodies).some((m) => m.name === 'mcp.server.session.duration'), 5000,
    'mcp.server.session.duration after exit');
});

test('OTLP: the confirm continues the client trace, its steps are child spans, and nothing sent is an argument, token or secret', async () => {
  const receiver = await startOtlpReceiver();
  const sandbox = await startSandboxProcess();
  children.add(sandbox.proc);
  let b;
  try {
    const credentials = { ...sandbox.env, EQUINIX_API_CLIENTID: `obs-client-${randomBytes(6).toString('hex')}`, EQUINIX_API_CLIENTSECRET: `obs-secret-${randomBytes(12).toString('hex')}` };
    b = await startObservedBroker({
      args: [],
      env: { ...credentials, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_METRIC_EXPORT_INTERVAL: '300', OTEL_SERVICE_NAME: 'fabric-broker-e2e' },
    });
    const spec = connectionSpec({ name: `obs-otlp-${randomBytes(5).toString('hex')}` });
    const traceId = randomBytes(16).toString('hex');
    const proposeParent = randomBytes(8).toString('hex');
    const confirmParent = randomBytes(8).toString('hex');
    const { proposal, token } = await proposeAndConfirm(b, spec, {
      propose: { traceparent: `00-${traceId}-${proposeParent}-01` },
      confirm: { traceparent: `00-${traceId}-${confirmParent}-01` },
    });

    const childNames = ['fabric_broker.dry_run', 'fabric_broker.wait_for_person', 'fabric_broker.send'];
    const found = await until(() => {
      const spans = spansOf(receiver.bodies);
      const confirm = spans.find((s) => s.name === 'tools/call fabric_confirm_change');
      if (!confirm) return null;
      const kids = spans.filter((s) => s.parentSpanId === confirm.spanId);
      return childNames.every((n) => kids.some((k) => k.name === n)) ? { spans, confirm, kids } : null;
    }, 20000, () => `the confirm's server span and its children; spans so far: ${JSON.stringify(spansOf(receiver.bodies).map((s) => [s.name, s.spanId, s.parentSpanId]))}; stderr: ${b.stderr.slice(-2000)}`);
    const { spans, confirm, kids } = found;

    // The server span of the confirm continues the client's trace.
    assert.equal(confirm.kind, 2, 'SERVER');
    assert.equal(confirm.traceId, traceId, "the client's trace id");
    assert.equal(confirm.parentSpanId, confirmParent, "the client's span is the parent");
    assert.match(confirm.spanId, /^[0-9a-f]{16}$/);
    assert.notEqual(confirm.spanId, confirmParent);
    assert.equal(confirm.flags, 0x301, 'sampled, parent remote');
    assert.equal(confirm.a['mcp.method.name'], 'tools/call');
    assert.equal(confirm.a['gen_ai.tool.name'], 'fabric_confirm_change');
    assert.equal(confirm.a['network.transport'], 'pipe');
    assert.ok(confirm.a['jsonrpc.request.id'] !== undefined, JSON.stringify(confirm.a));
    assert.ok(confirm.a['mcp.protocol.version'], JSON.stringify(confirm.a));
    assert.equal(confirm.a['error.type'], undefined, 'the confirm did not fail');
    assert.equal(confirm.a['fabric_broker.change_type'], 'connection_create');
    assert.equal(confirm.a['fabric_broker.request.sha256'], proposal.request_sha256);
    assert.equal(confirm.a['fabric_broker.outcome'], 'created', JSON.stringify(confirm.a));

    for (const n of childNames) {
      const k = kids.find((s) => s.name === n);
      assert.equal(k.kind, 1, `${n} is INTERNAL`);
      assert.equal(k.traceId, traceId, `${n} is in the client's trace`);
      assert.equal(k.parentSpanId, confirm.spanId, `${n} is a child of the confirm's server span`);
      assert.ok(BigInt(k.startTimeUnixNano) >= BigInt(confirm.startTimeUnixNano) && BigInt(k.endTimeUnixNano) <= BigInt(confirm.endTimeUnixNano),
        `${n} lies within the confirm`);
    }
    assert.ok(kids.find((s) => s.name === 'fabric_broker.wait_for_person').a['fabric_broker.channel'], 'wait_for_person names its channel');
    assert.equal(kids.find((s) => s.name === 'fabric_broker.send').a['fabric_broker.outcome'], 'created');

    // The propose: its own server span under its own client span, with dry_run and price inside.
    const propose = spans.find((s) => s.name === 'tools/call fabric_propose_change');
    assert.ok(propose, 'the propose has a server span');
    assert.equal(propose.kind, 2);
    assert.equal(propose.traceId, traceId);
    assert.equal(propose.parentSpanId, proposeParent);
    await until(() => ['fabric_broker.dry_run', 'fabric_broker.price'].every((n) => spansOf(receiver.bodies).some((s) => s.name === n && s.parentSpanId === propose.spanId)),
      10000, "the propose's dry_run and price spans");

    // Metrics arrive as OTLP too: the operation histogram with the confirm's point.
    await until(() => metricsOf(receiver.bodies).some((m) => m.name === 'mcp.server.operation.duration'
      && (m.histogram?.dataPoints ?? []).some((d) => { const a = attrs(d.attributes); return a['mcp.method.name'] === 'tools/call' && a['gen_ai.tool.name'] === 'fabric_confirm_change' && Number(d.count) >= 1; })),
    15000, () => `mcp.server.operation.duration in /v1/metrics; metric names so far: ${[...new Set(metricsOf(receiver.bodies).map((m) => m.name))]}`);

    // Close the broker so that its last batch is flushed too, then look at every byte sent.
    await b.close();
    b = undefined;
    for (const body of receiver.bodies) {
      assert.equal(body.method, 'POST');
      assert.ok(['/v1/traces', '/v1/metrics'].includes(body.path), body.path);
      assert.ok(body.json, `every body is JSON: ${body.text.slice(0, 200)}`);
    }
    const raw = receiver.bodies.map((x) => `${JSON.stringify(x.headers)}\n${x.text}`).join('\n');
    const leaves = receiver.bodies.flatMap((x) => contentLeaves(x.json)).map(String);
    const leafSet = new Set(leaves);
    const leaks = [];
    for (const [where, value] of specLeaves(spec)) {
      const s = String(value);
      if (leafSet.has(s)) leaks.push(`${where} = ${JSON.stringify(value)} is an exported value`);
      if (s.length >= 8 && raw.includes(s)) leaks.push(`${where} = ${JSON.stringify(value)} is in an exported payload`);
    }
    for (const [what, s] of [['the confirm token', token], ['the token prefix', 'chg-'], ['the token hex', token.slice(4)],
      ['EQUINIX_API_CLIENTSECRET', credentials.EQUINIX_API_CLIENTSECRET], ['EQUINIX_API_CLIENTID', credentials.EQUINIX_API_CLIENTID]]) {
      if (raw.includes(s)) leaks.push(`${what} (${s}) is in an exported payload`);
    }
    assert.deepEqual(leaks, [], 'no argument value, token or credential is exported');
    // The search can fail: allowed values are found the same way.
    assert.ok(raw.includes(proposal.request_sha256));
    assert.ok(leafSet.has(proposal.request_sha256) && leafSet.has('fabric_confirm_change') && leafSet.has('pipe'), 'the walk sees attribute values');
    if (process.env.FB_OBS_DEBUG) console.log(JSON.stringify({ confirm, kids, leaves: [...leafSet] }, null, 1));
  } finally {
    if (b) await b.close();
    await sandbox.stop();
    children.delete(sandbox.proc);
  }
});

// ---------------------------------------------------------------------------------------------
// 2. Prometheus scrapes /metrics

test('Prometheus scrapes /metrics with the bearer token file and returns the broker series', async (t) => {
  if (!fs.existsSync(PROMETHEUS)) return missing(t, PROMETHEUS, 'prometheus');
  const b = await startObservedBroker({ http: true });
  let prom;
  try {
    // The token is required.
    assert.equal((await getMetrics(b, {})).status, 401, '/metrics without the token');
    assert.equal((await getMetrics(b, { authorization: `Bearer ${'x'.repeat(43)}` })).status, 401, '/metrics with a wrong token');
    const ok = await getMetrics(b);
    assert.equal(ok.status, 200);
    assert.match(ok.type, /^text\/plain/);
    assert.match(ok.text, /^# TYPE mcp_server_operation_duration_seconds histogram$/m);

    const dir = scratchDir('fb-obs-prom-');
    const port = await freePort();
    const config = {
      global: { scrape_interval: '1s', scrape_timeout: '1s' },
      scrape_configs: [{
        job_name: 'fabric-broker', metrics_path: '/metrics', scheme: 'http',
        authorization: { type: 'Bearer', credentials_file: b.tokenFile },
        static_configs: [{ targets: [new URL(b.base).host] }],
      }],
    };
    // JSON is YAML.
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), JSON.stringify(config, null, 1));
    prom = spawn(PROMETHEUS, [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(prom);
    let promLog = '';
    prom.stdout.on('data', (d) => { promLog += d; });
    prom.stderr.on('data', (d) => { promLog += d; });
    const api = `http://127.0.0.1:${port}`;
    await until(async () => {
      if (prom.exitCode !== null) throw new Error(`prometheus exited ${prom.exitCode}: ${promLog}`);
      try { return (await fetch(`${api}/-/ready`)).status === 200; } catch { return false; }
    }, 20000, () => `prometheus ready: ${promLog}`);

    await proposeAndConfirm(b, connectionSpec());

    const query = async (q) => {
      const res = await fetch(`${api}/api/v1/query?${new URLSearchParams({ query: q })}`);
      const j = await res.json();
      return j.status === 'success' ? j.data.result : [];
    };
    const targets = async () => JSON.stringify((await (await fetch(`${api}/api/v1/targets`)).json()).data?.activeTargets?.map((x) => ({ health: x.health, lastError: x.lastError, url: x.scrapeUrl })));
    let lastTargets = '';
    const [creates, ops] = await until(async () => {
      lastTargets = await targets();
      const c = await query('fabric_broker_creates_total{job="fabric-broker"}');
      const o = await query('mcp_server_operation_duration_seconds_count{job="fabric-broker",mcp_method_name="tools/call"}');
      const confirmed = o.some((r) => r.metric.gen_ai_tool_name === 'fabric_confirm_change');
      return c.length && confirmed ? [c, o] : null;
    }, 30000, () => `fabric_broker_creates_total and mcp_server_operation_duration_seconds_count from Prometheus; targets: ${lastTargets}; log: ${promLog.slice(-1500)}`);

    const created = creates.find((r) => r.metric.fabric_broker_change_type === 'connection_create' && r.metric.fabric_broker_outcome === 'created');
    assert.ok(created, JSON.stringify(creates));
    assert.equal(created.metric.job, 'fabric-broker');
    assert.equal(Number(created.value[1]), 1, 'one create');
    const confirmOp = ops.find((r) => r.metric.gen_ai_tool_name === 'fabric_confirm_change');
    assert.equal(confirmOp.metric.job, 'fabric-broker');
    assert.equal(confirmOp.metric.network_transport, 'pipe');
    assert.ok(Number(confirmOp.value[1]) >= 1);
    assert.ok(ops.some((r) => r.metric.gen_ai_tool_name === 'fabric_propose_change'), JSON.stringify(ops));
    const up = await query('up{job="fabric-broker"}');
    assert.equal(up[0]?.value[1], '1', 'the target is up (the token file was accepted)');

    // The token never appears in what is served.
    assert.ok(!(await getMetrics(b)).text.includes(b.token));
  } finally {
    if (prom) await stopChild(prom);
    await b.close();
  }
});

// ---------------------------------------------------------------------------------------------
// 3. The audit trail to rsyslog, through an outage

// Whether something listens on 127.0.0.1:port (TCP state 0A in /proc/net/tcp).
function listening(port) {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  try {
    return fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').some((l) => { const f = l.trim().split(/\s+/); return f[1] === local && f[3] === '0A'; });
  } catch { return false; }
}

// A private rsyslogd: imtcp on 127.0.0.1 (port 0 = a free one, written to a file), every message
// written as "<PRI> <APP-NAME> <MSGID> <STRUCTURED-DATA> <MSG>" per line.
async function startRsyslog(dir, port = 0) {
  const portFile = path.join(dir, 'port');
  fs.rmSync(portFile, { force: true });
  fs.mkdirSync(path.join(dir, 'work'), { recursive: true });
  const conf = path.join(dir, 'rsyslog.conf');
  fs.writeFileSync(conf, [
    `global(workDirectory="${path.join(dir, 'work')}" net.enableDNS="off" maxMessageSize="1m")`,
    'module(load="imtcp")',
    `input(type="imtcp" address="127.0.0.1" port="${port}" listenPortFileName="${portFile}" ruleset="audit")`,
    'template(name="auditfile" type="string" string="%pri% %app-name% %msgid% %structured-data% %msg%\\n")',
    `ruleset(name="audit") { action(type="omfile" file="${path.join(dir, 'audit.log')}" template="auditfile") }`,
    '',
  ].join('\n'));
  const proc = spawn(RSYSLOGD, ['-n', '-iNONE', '-f', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(proc);
  let log = '';
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  // With port 0 rsyslogd writes the port it chose to the file; with a given port it writes no
  // file, and the listening socket (in /proc/net/tcp) says it is ready.
  const got = await until(() => {
    if (proc.exitCode !== null) throw new Error(`rsyslogd exited ${proc.exitCode}: ${log}`);
    if (port) return listening(port) ? port : null;
    try { return Number(fs.readFileSync(portFile, 'utf8').trim()) || null; } catch { return null; }
  }, 15000, () => `rsyslogd listening${port ? ` on ${port}` : ' (its port file)'}: ${log}`);
  return { proc, port: got, file: path.join(dir, 'audit.log'), get log() { return log; } };
}

// seq -> [{ pri, app, msgid, prev, hash, msg }] from rsyslog's file.
function syslogRecords(file) {
  const bySeq = new Map();
  let text = '';
  try { text = fs.readFileSync(file, 'utf8'); } catch { return bySeq; }
  for (const line of text.split('\n')) {
    const m = /^(\d+) (\S+) (\S+) \[fb@32473 seq="(\d+)" prev="([0-9a-f]{64})" hash="([0-9a-f]{64})"\] ?(.*)$/.exec(line);
    if (!m) continue;
    const msg = m[7].replace(/^\uFEFF/, '');
    const seq = Number(m[4]);
    if (!bySeq.has(seq)) bySeq.set(seq, []);
    bySeq.get(seq).push({ pri: Number(m[1]), app: m[2], msgid: m[3], prev: m[5], hash: m[6], msg });
  }
  return bySeq;
}

// The local records that rsyslog does not hold: a message <110> (log audit, info) from
// fabric-broker, MSGID the record's type, with the same seq, prev, hash = sha256(line) and line.
function missingFromSyslog(auditFile, syslogFile) {
  const got = syslogRecords(syslogFile);
  const missed = [];
  for (const { line, rec } of readAudit(auditFile)) {
    const hash = createHash('sha256').update(line).digest('hex');
    const copies = got.get(rec.seq) ?? [];
    if (!copies.some((c) => c.pri === 110 && c.app === 'fabric-broker' && c.msgid === rec.type && c.hash === hash && c.prev === rec.prev && c.msg === line)) {
      missed.push({ seq: rec.seq, type: rec.type, hash, copies: copies.map((c) => ({ ...c, msg: c.msg.slice(0, 120) })) });
    }
  }
  return missed;
}

test('audit records reach rsyslog with their chain position, and an outage is recorded, queued and delivered', async (t) => {
  if (!fs.existsSync(RSYSLOGD)) return missing(t, RSYSLOGD, 'rsyslog');
  const dir = scratchDir('fb-obs-rsyslog-');
  let rs = await startRsyslog(dir);
  const sink = `tcp://127.0.0.1:${rs.port}`;
  const b = await startObservedBroker({ http: true, env: { FABRIC_BROKER_AUDIT_SYSLOG: sink } });
  try {
    await proposeAndConfirm(b, connectionSpec());
    const types = () => readAudit(b.auditLog).map((r) => r.rec.type);
    assert.ok(types().includes('executed'), types().join(','));
    let missed;
    await until(() => { missed = missingFromSyslog(b.auditLog, rs.file); return missed.length === 0; },
      15000, () => `every local record in rsyslog; missing: ${JSON.stringify(missed).slice(0, 1500)}; rsyslog: ${rs.log}; broker: ${b.stderr.slice(-1500)}`);
    const before = readAudit(b.auditLog).length;

    // The sink dies; the broker keeps working and records the interruption.
    await stopChild(rs.proc, 'SIGKILL');
    await proposeAndConfirm(b, connectionSpec());
    const interrupted = await until(() => readAudit(b.auditLog).find((r) => r.rec.type === 'export_interrupted'),
      15000, () => `export_interrupted in the local log: ${types().join(',')}; broker: ${b.stderr.slice(-1500)}`);
    assert.equal(interrupted.rec.data.sink, sink, JSON.stringify(interrupted.rec.data));
    assert.ok(interrupted.rec.seq > before, 'recorded after the records rsyslog already holds');
    let lag = null;
    await until(async () => { lag = sampleValue((await getMetrics(b)).text, 'fabric_broker_audit_export_lag'); return lag > 0; },
      10000, () => `fabric_broker_audit_export_lag > 0 while rsyslog is down (last: ${lag})`);

    // Back on the same port: the queue is delivered and the resumption recorded.
    rs = await startRsyslog(dir, rs.port);
    const resumed = await until(() => readAudit(b.auditLog).find((r) => r.rec.type === 'export_resumed'),
      40000, () => `export_resumed in the local log: ${types().join(',')}; broker: ${b.stderr.slice(-1500)}`);
    assert.equal(resumed.rec.data.sink, sink);
    assert.ok(resumed.rec.seq > interrupted.rec.seq);
    await until(() => { missed = missingFromSyslog(b.auditLog, rs.file); return missed.length === 0; },
      20000, () => `every local record in rsyslog after the outage; missing: ${JSON.stringify(missed).slice(0, 1500)}; rsyslog: ${rs.log}`);
    const local = readAudit(b.auditLog);
    assert.ok(local.length > before + 4, `the second create's records were written (${before} -> ${local.length})`);
    await until(async () => { lag = sampleValue((await getMetrics(b)).text, 'fabric_broker_audit_export_lag'); return lag === 0; },
      10000, () => `fabric_broker_audit_export_lag back to 0 (last: ${lag})`);
    assert.equal(sampleValue((await getMetrics(b)).text, 'fabric_broker_audit_export_gaps'), 0, 'no record was dropped');
  } finally {
    await b.close();
    await stopChild(rs.proc);
  }
});

// ---------------------------------------------------------------------------------------------
// 4. Where the exports go: the administrator's policy wins

// A TCP listener that keeps what it receives (an RFC 5424 receiver stand-in) and counts
// connections.
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
  sink.url = `tcp://127.0.0.1:${server.address().port}`;
  return sink;
}

// A root-owned administrator-layer policy file (FABRIC_BROKER_EXTRA_ADMIN_POLICY) in a directory
// only root writes, as the policy loader demands.
function adminPolicyFile(policy) {
  const dir = scratchDir('fb-obs-admin-');
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  fs.chmodSync(file, 0o644);
  return file;
}

function skipUnlessRoot(t) {
  if (process.getuid?.() === 0) return false;
  if (inCI) assert.fail('CI runs as root: the administrator policy file must be root-owned');
  t.skip('needs root for a root-owned administrator policy file');
  return true;
}

test("the administrator's policy names the collector and the SIEM: neither the environment nor a user's file can send them elsewhere or switch them off", async (t) => {
  if (skipUnlessRoot(t)) return;
  const adminOtlp = await startOtlpReceiver();
  const agentOtlp = await startOtlpReceiver();
  const adminSiem = await startTcpSink();
  const agentSiem = await startTcpSink();
  const userSiem = await startTcpSink();
  const admin = adminPolicyFile({ observability: { otlp_endpoint: adminOtlp.url }, audit: { syslog: adminSiem.url } });
  const userDir = scratchDir('fb-obs-user-');
  const user = path.join(userDir, 'policy.json');
  fs.writeFileSync(user, JSON.stringify({ audit: { syslog: userSiem.url } }));
  const b = await startObservedBroker({
    env: {
      FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin, FABRIC_BROKER_POLICY: user,
      FABRIC_BROKER_AUDIT_SYSLOG: agentSiem.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: agentOtlp.url, OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
  });
  try {
    await proposeAndConfirm(b, connectionSpec());
    await until(() => spansOf(adminOtlp.bodies).some((s) => s.name === 'tools/call fabric_confirm_change'), 10000,
      () => `the confirm's span at the administrator's collector; stderr: ${b.stderr.slice(-1500)}`);
    const records = readAudit(b.auditLog);
    await until(() => records.every((r) => adminSiem.data.includes(`seq="${r.rec.seq}"`)), 10000,
      () => `every audit record at the administrator's SIEM; got ${adminSiem.data.length} bytes: ${adminSiem.data.slice(0, 600)}`);
    for (const [what, re] of [
      ['the environment\'s endpoint', /OTEL_EXPORTER_OTLP_ENDPOINT is ignored: the policy's observability\.otlp_endpoint wins/],
      ['OTEL_SDK_DISABLED', /OTEL_SDK_DISABLED is ignored/],
      ['OTEL_TRACES_EXPORTER=none', /OTEL_TRACES_EXPORTER is ignored/],
      ['the environment\'s SIEM', /FABRIC_BROKER_AUDIT_SYSLOG is ignored: audit\.syslog in .* wins/],
      ['the user file\'s SIEM', /audit\.syslog: the value .* is ignored: the audit export is set by the administrator's policy alone/],
    ]) assert.match(b.stderr, re, `${what} is reported`);
  } finally {
    await b.close();
  }
  assert.equal(agentOtlp.bodies.length, 0, 'nothing reached the environment\'s collector');
  assert.equal(agentSiem.connections, 0, 'nothing connected to the environment\'s SIEM');
  assert.equal(userSiem.connections, 0, 'nothing connected to the user file\'s SIEM');
});

test("a malformed audit.syslog in the administrator's policy fails the start, naming the key and the file", async (t) => {
  if (skipUnlessRoot(t)) return;
  const admin = adminPolicyFile({ audit: { syslog: 'tcp://siem.example.com' } });
  const proc = spawn(BIN, ['--headless', '--stdio', '--sandbox'], {
    env: baseEnv({ FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin }), stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(proc);
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  const [code] = await once(proc, 'exit');
  children.delete(proc);
  assert.notEqual(code, 0, stderr);
  assert.match(stderr, new RegExp(`audit\\.syslog in ${admin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: syslog target "tcp://siem\\.example\\.com": no port`), stderr);
});
