// The spec's read toolsets (issue #36) through the official SDK client over stdio: tools/list has
// a tool for every non-deprecated read operation of the table scripts/gen-read-operations.py
// derives from Fabric's spec, each with its strict schema and read-only annotations; each toolset
// serves exactly its rows; every tool sends exactly its operation's method, path, query and body
// (checked on the sandbox's request log) and gets the sandbox's answer; a bad argument of every
// kind is refused locally, with its JSON path, and never reaches Fabric.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker, startSandboxProcess } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const TABLE = JSON.parse(fs.readFileSync(path.join(here, '..', '..', 'src', 'broker', 'readops',
  'read_operations.json'), 'utf8'));
const OPS = TABLE.operations;
// The sandbox's sample request of each operation (ids of its seeded estate).
const SAMPLES = JSON.parse(fs.readFileSync(path.join(here, '..', '..', 'resources', 'sandbox',
  'readops.json'), 'utf8')).operations;
const READ_TOOLSETS = ['read', ...TABLE.toolsets.map((t) => t.name)];
const UUID = '3f1c0e62-2b4f-4a0e-9d55-0c7a4b1e9a01';

// The smallest value the schema accepts (required parts only).
export function minimal(schema, name = '') {
  if (schema === false || schema === undefined) return undefined;
  if (schema.anyOf) return minimal(schema.anyOf.find((b) => b !== false), name);
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const o = {};
      for (const r of schema.required ?? []) o[r] = minimal(schema.properties[r], r);
      return o;
    }
    case 'array': return Array.from({ length: schema.minItems ?? 0 }, () => minimal(schema.items));
    case 'integer': case 'number': return schema.minimum ?? 1;
    case 'boolean': return true;
    default:
      if (schema.pattern?.includes('[0-9a-fA-F]{8}')) return UUID;
      if (schema.format === 'date-time') return '2026-12-01T00:00:00Z';
      if (schema.format === 'uuid') return UUID;
      if (schema.pattern && !new RegExp(schema.pattern).test('SV1')) {
        // A literal pattern such as ^equinix\.fabric\.metro\.\*\..+ : its own text, made concrete.
        const s = schema.pattern.replace(/^\^/, '').replace(/\$$/, '').replace(/\((\w+)\|[^)]*\)/g, '$1')
          .replace(/\.\+/g, 'x').replace(/\\(.)/g, '$1');
        assert.match(s, new RegExp(schema.pattern), `no value made for ${name}`);
        return s;
      }
      return 'SV1'.padEnd(schema.minLength ?? 0, 'x');
  }
}

function argsFor(op) {
  const props = op.inputSchema.properties;
  const args = {};
  for (const r of op.inputSchema.required ?? []) args[r] = minimal(props[r], r);
  const sample = SAMPLES[op.operationId]?.sample;
  if (sample) {
    // The template's parameters, read back from the sample's path.
    const re = new RegExp('^' + op.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)') + '$');
    Object.assign(args, re.exec(sample.path)?.groups ?? {});
    Object.assign(args, sample.query ?? {});
    if (sample.body) args.body = sample.body;
  }
  // One optional query parameter too, when there is one: its value must reach Fabric as well.
  const q = op.queryParams.find((p) => !(op.inputSchema.required ?? []).includes(p.name));
  if (q) {
    const s = props[q.name];
    args[q.name] = s.type === 'array' ? [minimal(s.items), minimal(s.items)] : minimal(s);
  }
  return args;
}

function expectedRequest(op, args) {
  let p = op.path;
  for (const name of op.pathParams) p = p.replace(`{${name}}`, args[name]);
  const query = new URLSearchParams();
  for (const q of op.queryParams) {
    const v = args[q.name];
    if (v === undefined) continue;
    if (Array.isArray(v)) {
      if (q.array === 'csv') query.append(q.name, v.join(','));
      else for (const item of v) query.append(q.name, String(item));
    } else query.append(q.name, String(v));
  }
  return { method: op.method, path: p, query: decodeURIComponent(query.toString()), body: op.method === 'POST' ? (args.body ?? {}) : undefined };
}

test('tools/list with all-read lists a tool for every read operation, strict and read-only', async () => {
  const b = await startBroker({ args: ['--sandbox', '--toolsets', 'all-read'] });
  try {
    const tools = new Map((await b.client.listTools()).tools.map((t) => [t.name, t]));
    for (const op of OPS) {
      const t = tools.get(op.tool);
      assert.ok(t, `${op.operationId}: no tool ${op.tool}`);
      assert.equal(t.annotations.readOnlyHint, true, op.tool);
      assert.equal(t.annotations.openWorldHint, true, op.tool);
      assert.equal(t.annotations.destructiveHint, false, op.tool);
      if (op.core) continue;
      assert.deepEqual(t.inputSchema, op.inputSchema, op.tool);
      assert.equal(t.inputSchema.additionalProperties, false, op.tool);
      assert.ok(t.description.includes(`${op.method} ${op.path}`), op.tool);
    }
    const expected = new Set(OPS.map((o) => o.tool).concat(['fabric_list_proposals']));
    assert.deepEqual([...tools.keys()].filter((n) => !expected.has(n)), [], 'no tool beyond the table');
    assert.ok(!tools.has('fabric_propose_change'), 'all-read never implies mutate');
  } finally { await b.close(); }
});

for (const toolset of READ_TOOLSETS.filter((t) => t !== 'read')) {
  test(`--toolsets ${toolset} serves exactly its rows, and each sends its operation`, async () => {
    const sandbox = await startSandboxProcess();
    const b = await startBroker({ args: ['--toolsets', toolset], env: sandbox.env });
    try {
      const rows = OPS.filter((o) => o.toolset === toolset);
      const names = (await b.client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, rows.map((o) => o.tool).sort());
      for (const op of rows) {
        const args = argsFor(op);
        await sandbox.admin('POST', '/sandbox/v1/requests/clear');
        const r = await b.call(op.tool, args);
        const want = expectedRequest(op, args);
        const sent = (await sandbox.admin('GET', '/sandbox/v1/requests')).data
          .filter((x) => x.path.startsWith('/fabric/v4/'));
        assert.equal(sent.length, 1, `${op.tool}: one request (${JSON.stringify(r).slice(0, 300)})`);
        assert.equal(r.isError, undefined, `${op.tool}: ${JSON.stringify(r).slice(0, 500)}`);
        assert.equal(typeof r.structuredContent, 'object', op.tool);
        if (op.answer === 'file') {
          assert.match(r.structuredContent.file.content_type, /^image\//, op.tool);
          assert.match(r.structuredContent.file.sha256, /^[0-9a-f]{64}$/, op.tool);
        }
        assert.equal(sent[0].method, want.method, op.tool);
        assert.equal(sent[0].path, want.path, op.tool);
        assert.equal(sent[0].query, want.query, op.tool);
        if (want.body !== undefined) assert.deepEqual(JSON.parse(sent[0].body), want.body, op.tool);
      }
    } finally { await b.close(); await sandbox.stop(); }
  });
}

test('a bad argument of every kind is refused with its JSON path and never reaches Fabric', async () => {
  const sandbox = await startSandboxProcess();
  const b = await startBroker({ args: ['--toolsets', 'all-read'], env: sandbox.env });
  const ROUTER = 'fabric_get_cloud_router_by_uuid';
  const METRO = 'fabric_get_metro_by_code';
  const routes = OPS.find((o) => o.operationId === 'searchCloudRouterRoutes');
  const paged = OPS.find((o) => !o.core && o.method === 'GET' && o.queryParams.some((q) => q.name === 'limit'));
  const cases = [
    [ROUTER, { routerId: 'not-a-uuid' }, /routerId: must match/],
    [ROUTER, {}, /routerId: .*required/],
    [ROUTER, { routerId: UUID, extra: 1 }, /extra: unknown field/],
    [ROUTER, { routerId: 42 }, /routerId: must be a string/],
    [METRO, { metroCode: '..' }, /metroCode: must match/],
    [METRO, { metroCode: 'SV/../x' }, /metroCode: must match/],
    [paged.tool, { ...argsFor(paged), limit: 'ten' }, /limit: must be/],
    [paged.tool, { ...argsFor(paged), limit: 1e9 }, /limit: must be/],
    [routes.tool, { routerId: UUID, body: { filter: 7 } }, /body\.filter: must be an object/],
    [routes.tool, { routerId: UUID, body: { nope: true } }, /body\.nope: unknown field/],
    [routes.tool, { routerId: UUID, body: { sort: [{ property: '/nope' }] } }, /body\.sort\[0\]\.property: must be one of/],
    [routes.tool, { routerId: UUID, body: { pagination: { limit: 5000 } } }, /body\.pagination\.limit: must be/],
    ['fabric_get_attached_app_links_by_app_domain_id', { appDomainId: UUID, order: 'SIDEWAYS' }, /order: must be one of: DESC, ASC/],
    ['fabric_get_attached_app_links_by_app_domain_id', { appDomainId: UUID, state: ['PROVISIONED', 'NOPE'] }, /state\[1\]: must be one of/],
    ['fabric_get_attached_app_links_by_app_domain_id', { appDomainId: UUID, state: 'PROVISIONED' }, /state: must be an array/],
    ['fabric_get_metric_by_asset_id', { asset: 'ports', assetId: UUID, name: 'equinix.fabric.port.x', fromDateTime: 'yesterday' }, /fromDateTime: must be/],
    ['fabric_get_metric_by_asset_id', { asset: 'routers', assetId: UUID, name: 'equinix.fabric.port.x' }, /asset: must be one of/],
    [routes.tool, { routerId: UUID, projection: ['no-slash'] }, /projection\[0\]: must match/],
    [routes.tool, { routerId: UUID, projection: 'x' }, /projection: must be an array/],
  ];
  try {
    await sandbox.admin('POST', '/sandbox/v1/requests/clear');
    for (const [tool, args, message] of cases) {
      const r = await b.call(tool, args);
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)}`);
      assert.match(r.content[0].text, message, `${tool} ${JSON.stringify(args)}: ${r.content[0].text}`);
    }
    const sent = (await sandbox.admin('GET', '/sandbox/v1/requests')).data.filter((x) => x.path.startsWith('/fabric/'));
    assert.deepEqual(sent, [], 'no bad argument reached Fabric');
  } finally { await b.close(); await sandbox.stop(); }
});
