// Every published tool schema (input and output, read and mutate toolsets) passes the portability
// rules of the MCP Inspector's `--cli --strict` check (@modelcontextprotocol/inspector 2.12.0,
// core/json/schemaLint.ts in its CLI bundle), re-implemented here because the Inspector needs
// Node >= 22.19 and a web stack this suite does not install. Its rules, each checked at every
// subschema position the Inspector walks:
//   type-union (warning)       `type` is an array, e.g. ["boolean","null"]
//   remote-ref (warning)       `$ref` not starting with '#' (no $id declared anywhere)
//   untyped-schema (warning)   a schema object with no constraining keyword (except under `not`)
//   boolean-schema (error)     a bare true/false where a schema object is expected (allowed only
//                              as additionalProperties/unevaluatedProperties/additionalItems/
//                              unevaluatedItems)
// The broker must report none of them, warnings included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accept, connectionSpec, startBroker } from './lib.mjs';

const MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SINGLE_KEYWORDS = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties',
  'unevaluatedProperties', 'additionalItems', 'unevaluatedItems', 'contentSchema'];
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const CONSTRAINING = new Set(['type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding',
  'contentSchema', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties',
  'minProperties', 'required', 'dependentRequired', 'allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems',
  'contains', 'additionalItems', 'unevaluatedItems', 'properties', 'patternProperties', 'additionalProperties',
  'unevaluatedProperties', 'propertyNames', 'dependentSchemas', 'dependencies', '$ref', '$dynamicRef', '$recursiveRef']);

const isRecord = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

function subschemas(node, at) {
  const out = [];
  for (const k of MAP_KEYWORDS) {
    if (isRecord(node[k])) for (const [name, sub] of Object.entries(node[k])) out.push([sub, `${at}.${k}.${name}`, k]);
  }
  for (const k of ARRAY_KEYWORDS) {
    if (Array.isArray(node[k])) node[k].forEach((sub, i) => out.push([sub, `${at}.${k}[${i}]`, k]));
  }
  for (const k of SINGLE_KEYWORDS) {
    if (!(k in node)) continue;
    if (k === 'items' && Array.isArray(node[k])) node[k].forEach((sub, i) => out.push([sub, `${at}.items[${i}]`, k]));
    else out.push([node[k], `${at}.${k}`, k]);
  }
  return out;
}

function hasId(node, depth = 0) {
  if (depth > 64 || !isRecord(node)) return false;
  if (typeof node.$id === 'string' && node.$id !== '') return true;
  return subschemas(node, '').some(([sub]) => hasId(sub, depth + 1));
}

export function lint(schema, where) {
  const findings = [];
  const embeddedIds = hasId(schema);
  const walk = (node, at, keyword, depth) => {
    if (depth > 64) return;
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_VALUED.has(keyword)) findings.push(`${at}: boolean-schema (error)`);
      return;
    }
    if (!isRecord(node)) return;
    if (Array.isArray(node.type) && node.type.length > 0) findings.push(`${at}: type-union ${JSON.stringify(node.type)} (warning)`);
    if (typeof node.$ref === 'string' && node.$ref !== '' && !node.$ref.startsWith('#') && !embeddedIds) findings.push(`${at}: remote-ref (warning)`);
    const constrains = Object.keys(node).some((k) => CONSTRAINING.has(k)) || ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not') findings.push(`${at}: untyped-schema (warning)`);
    for (const [sub, subAt, k] of subschemas(node, at)) walk(sub, subAt, k, depth + 1);
  };
  walk(schema, where, undefined, 0);
  return findings;
}

test('schema portability: the rules find what the Inspector finds (the old nullable type arrays, bare schemas)', () => {
  assert.deepEqual(lint({ type: 'object', properties: { a: { type: ['boolean', 'null'] } } }, 'out'),
    ['out.properties.a: type-union ["boolean","null"] (warning)']);
  assert.deepEqual(lint({ type: 'object', properties: { a: {}, b: true }, additionalProperties: false }, 'in'),
    ['in.properties.a: untyped-schema (warning)', 'in.properties.b: boolean-schema (error)']);
  assert.deepEqual(lint({ anyOf: [{ type: 'string' }, { $ref: 'https://example.com/s.json' }] }, 's'),
    ['s.anyOf[1]: remote-ref (warning)']);
  assert.deepEqual(lint({ type: 'object', properties: { a: { anyOf: [{ type: 'boolean' }, { type: 'null' }] } } }, 'ok'), []);
});

test('schema portability: every input and output schema of every tool passes the Inspector\'s --strict rules', async () => {
  const b = await startBroker({ args: ['--sandbox', '--toolsets', 'read,mutate'], elicit: accept() });
  try {
    const { tools } = await b.client.listTools();
    assert.ok(tools.some((t) => t.name === 'fabric_confirm_change'), 'the mutate tools are listed');
    assert.ok(tools.some((t) => t.name === 'fabric_search_connections'), 'the read tools are listed');
    const findings = [];
    for (const t of tools) {
      findings.push(...lint(t.inputSchema, `${t.name} inputSchema`));
      if (t.outputSchema !== undefined) findings.push(...lint(t.outputSchema, `${t.name} outputSchema`));
    }
    assert.deepEqual(findings, []);

    // structuredContent still validates against the published schema: the SDK client checks
    // every result of a tool with an outputSchema (a mismatch rejects the call); a confirm that
    // fails a check (nulls in confirm_checks) and one that executes are both checked.
    const bad = await b.call('fabric_confirm_change', { confirm_token: 'chg-00000000000000000000000000000000' });
    assert.equal(bad.structuredContent.confirm_checks.proposal_exists, false);
    assert.equal(bad.structuredContent.confirm_checks.not_evicted, null);
    assert.equal(bad.structuredContent.human_confirmation.channel, null);
    const p = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec() });
    assert.ok(!p.isError, JSON.stringify(p.structuredContent));
    const ok = await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    assert.equal(ok.structuredContent.executed, true, JSON.stringify(ok.structuredContent));
  } finally { await b.close(); }
});
