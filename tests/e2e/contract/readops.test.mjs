// Contract test of the sandbox's read operations: for EVERY row of the read-operation table
// (src/broker/readops/read_operations.json, core rows too) a `fabric-broker --sandbox-only`
// process gets the row's sample request (resources/sandbox/readops.json: ids from the seed), and
// its status and body are validated against the official Fabric v4 spec's response for that
// operation (the spec's success status; the body against the response schema, with Ajv, refs
// resolved in the spec; formats checked). 0 disagreements, or a reasoned exception listed in
// src/sandbox/CONTRACT.md under "Read operations: exceptions".
//
// The spec is $FB_SHARED_DIR/reference/fabric-v4/fabricv4-openapi.yaml (default: the `shared`
// folder next to the repository); without it the test skips with a message. Runs in the CI
// contract step (.ci/steps/30-contract.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { startSandboxProcess } from '../lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const sharedDir = process.env.FB_SHARED_DIR || path.resolve(repoRoot, '..', 'shared');
const specFile = path.join(sharedDir, 'reference/fabric-v4/fabricv4-openapi.yaml');
const table = JSON.parse(fs.readFileSync(path.join(repoRoot, 'src/broker/readops/read_operations.json'), 'utf8'));
const estate = JSON.parse(fs.readFileSync(path.join(repoRoot, 'resources/sandbox/readops.json'), 'utf8'));
const contractFile = path.join(repoRoot, 'src/sandbox/CONTRACT.md');

const skipReason = fs.existsSync(specFile) ? false
  : `SKIPPED: the official Fabric v4 spec is not available at ${path.relative(repoRoot, specFile)} (relative to the repository) `
    + '(set FB_SHARED_DIR to the folder holding reference/fabric-v4/fabricv4-openapi.yaml)';
if (skipReason) console.log(`# read operations contract: ${skipReason}`);

// The operations CONTRACT.md lists as exceptions: "- `operationId`: reason" lines under the
// "## Read operations: exceptions" heading.
function listedExceptions() {
  const text = fs.readFileSync(contractFile, 'utf8');
  const start = text.indexOf('## Read operations: exceptions');
  if (start < 0) return new Map();
  const section = text.slice(start).split('\n## ')[0];
  const out = new Map();
  for (const m of section.matchAll(/^- `([A-Za-z0-9]+)`: (.+)$/gm)) out.set(m[1], m[2]);
  return out;
}

// The spec's first success response of an operation: status, content type, schema.
function successOf(spec, row) {
  const op = spec.paths[row.path][row.method.toLowerCase()];
  const code = Object.keys(op.responses).filter((c) => /^2/.test(c)).sort()[0];
  let response = op.responses[code];
  if (response.$ref) response = response.$ref.slice(2).split('/').reduce((o, k) => o[k], spec);
  const [contentType, media] = Object.entries(response.content ?? {})[0] ?? [];
  return { status: Number(code), contentType, schema: media?.schema };
}

const state = {};

before(async () => {
  if (skipReason) return;
  const spec = yaml.load(fs.readFileSync(specFile, 'utf8'), { schema: yaml.CORE_SCHEMA });
  state.spec = spec;
  state.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(state.ajv);
  // Formats the spec uses that are not JSON Schema's: "string" and "enum" say nothing more; CIDR
  // is checked.
  state.ajv.addFormat('string', true);
  state.ajv.addFormat('enum', true);
  state.ajv.addFormat('ipv4-cidr', /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/);
  state.ajv.addSchema({ $id: 'fabric', components: spec.components });
  state.sandbox = await startSandboxProcess();
  const tok = await fetch(`${state.sandbox.url}/oauth2/v1/token`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'readops', client_secret: 'readops-secret' }),
  });
  state.token = (await tok.json()).access_token;
}, { timeout: 120000 });

after(async () => {
  if (state.sandbox) await state.sandbox.stop();
});

// Makes the spec's local refs ("#/components/...") point into the schema registered as "fabric".
function rebase(schema) {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"fabric#/'));
}

// The spec's response of an operation for an error status, or null when it names none.
function errorOf(spec, row, status) {
  const op = spec.paths[row.path][row.method.toLowerCase()];
  let response = op.responses[String(status)];
  if (!response) return null;
  if (response.$ref) response = response.$ref.slice(2).split('/').reduce((o, k) => o[k], spec);
  return Object.values(response.content ?? {})[0]?.schema ?? null;
}

async function send(row, sample) {
  const url = new URL(state.sandbox.url + sample.path);
  for (const [k, v] of Object.entries(sample.query ?? {})) url.searchParams.append(k, String(v));
  const res = await fetch(url, {
    method: row.method,
    headers: {
      authorization: `Bearer ${state.token}`, accept: 'application/json, image/png',
      ...(sample.body ? { 'content-type': 'application/json' } : {}),
    },
    body: sample.body ? JSON.stringify(sample.body) : undefined,
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

function violations(schema, body) {
  const validate = state.ajv.compile(rebase(schema));
  if (validate(body)) return [];
  return validate.errors.slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

async function check(row) {
  const { res, bytes } = await send(row, estate.operations[row.operationId].sample);
  const want = successOf(state.spec, row);
  const problems = [];
  if (res.status !== want.status) problems.push(`status ${res.status}, the spec's is ${want.status}: ${bytes.toString().slice(0, 300)}`);
  if (row.answer === 'file') {
    if (!/^image\//.test(res.headers.get('content-type') ?? '')) problems.push(`content type ${res.headers.get('content-type')}, not an image`);
    if (want.contentType !== res.headers.get('content-type')) problems.push(`content type ${res.headers.get('content-type')}, the spec's is ${want.contentType}`);
    return problems;
  }
  let body;
  try { body = JSON.parse(bytes.toString()); } catch (e) { problems.push(`not JSON: ${e.message}`); return problems; }
  if (want.schema) problems.push(...violations(want.schema, body));
  if (Array.isArray(body?.data) && body.data.length === 0) problems.push('empty data: the seed has nothing for the sample');
  return problems;
}

test('read operations contract: every row of the table, answered by the sandbox, matches the spec\'s response', { skip: skipReason, timeout: 300000 }, async () => {
  const listed = listedExceptions();
  const rows = table.operations;
  assert.ok(rows.length >= 100, `expected 100+ read operations, found ${rows.length}`);
  const disagreements = [];
  const excepted = [];
  for (const row of rows) {
    const problems = await check(row);
    const reason = listed.get(row.operationId);
    if (problems.length && reason) excepted.push(`${row.operationId}: ${problems.join('; ')} (listed: ${reason})`);
    else if (problems.length) disagreements.push(`${row.method} ${row.path} (${row.operationId}):\n    ${problems.join('\n    ')}`);
    else if (reason) disagreements.push(`${row.operationId} is listed in CONTRACT.md but now agrees with the spec: remove it`);
  }
  console.log(`# read operations contract: ${rows.length} rows, ${rows.length - excepted.length - disagreements.length} agree, `
    + `${excepted.length} listed exceptions, ${disagreements.length} disagreements`);
  for (const e of excepted) console.log(`#   exception ${e}`);
  // The sandbox logged every request it answered, with its status.
  const log = await state.sandbox.admin('GET', '/sandbox/v1/requests');
  const logged = new Set(log.data.map((r) => `${r.method} ${r.path}`));
  const unlogged = rows.map((r) => `${r.method} ${estate.operations[r.operationId].sample.path}`).filter((k) => !logged.has(k));
  assert.deepEqual(unlogged, [], 'requests missing from the sandbox\'s request log');
  assert.deepEqual(disagreements, [], `disagreements with the spec:\n  ${disagreements.join('\n  ')}`);
});

// The entities SandboxReadOps serves by a uuid: an unknown uuid is a 404 whose ErrorList matches
// the spec's 404 answer of that operation; a search body the input schema refuses is a 400 that
// matches the spec's 400 answer.
test('read operations contract: unknown ids and refused search bodies answer the spec\'s error shapes', { skip: skipReason, timeout: 300000 }, async () => {
  const unknown = 'ffffffff-0000-4000-8000-000000000000';
  const problems = [];
  let checked = 0;
  for (const row of table.operations) {
    const entry = estate.operations[row.operationId];
    if (!entry.collection) continue;
    const own = row.path.endsWith('}') ? row.path.slice(row.path.lastIndexOf('{') + 1, -1) : null;
    const ownSchema = own ? row.inputSchema.properties[own] : null;
    const isUuid = ownSchema && (ownSchema.format === 'uuid' || /0-9a-fA-F\]\{8\}/.test(ownSchema.pattern ?? ''));
    if (isUuid && row.method === 'GET') {
      const value = entry.sample.path.split('/')[row.path.split('/').indexOf(`{${own}}`)];
      const sample = { ...entry.sample, path: entry.sample.path.replace(value, unknown) };
      const { res, bytes } = await send(row, sample);
      const schema = errorOf(state.spec, row, 404);
      checked++;
      if (res.status !== 404) problems.push(`${row.operationId}: unknown ${own} answered ${res.status}`);
      else if (schema) problems.push(...violations(schema, JSON.parse(bytes.toString())).map((v) => `${row.operationId} 404: ${v}`));
    }
    if (row.method === 'POST') {
      const { res, bytes } = await send(row, { ...entry.sample, body: { filter: { and: [{ property: 7 }] } } });
      const schema = errorOf(state.spec, row, 400);
      checked++;
      if (res.status !== 400) problems.push(`${row.operationId}: a refused body answered ${res.status}`);
      else if (schema) problems.push(...violations(schema, JSON.parse(bytes.toString())).map((v) => `${row.operationId} 400: ${v}`));
    }
  }
  console.log(`# read operations contract: ${checked} error answers checked, ${problems.length} problems`);
  assert.ok(checked >= 60, `expected 60+ error answers to check, found ${checked}`);
  assert.deepEqual(problems, [], `error answers that differ from the spec:\n  ${problems.join('\n  ')}`);
});
