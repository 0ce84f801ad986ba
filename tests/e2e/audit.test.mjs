// The audit trail against a hostile client, through the real executable: an MCP client (the
// official SDK over StdioClientTransport) whose clientInfo and capabilities are nested about
// 1000 levels deep and carry huge strings proposes and confirms a create. Every record naming
// the client is bounded (truncation marked), and `fabric-broker audit verify` then passes;
// `audit head` prints the head and `audit verify --head` accepts it. Before the bounds, such a
// record was deeper than verification parses and the chain was reported BROKEN from then on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, baseEnv, connectionSpec, scratchDir } from './lib.mjs';

function nested(depth) {
  let v = { leaf: 'x'.repeat(100000) };
  for (let i = 0; i < depth; i++) v = { d: v };
  return v;
}

function audit(args, env) {
  const r = spawnSync(BIN, ['audit', ...args], { env, encoding: 'utf8', timeout: 60000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test('a deeply nested clientInfo is bounded in the audit log and verify passes', async () => {
  const root = scratchDir('fb-audit-e2e-');
  const log = path.join(root, 'audit.jsonl');
  const env = baseEnv({ EQUINIX_MCP_AUDIT_LOG: log });
  const transport = new StdioClientTransport({
    command: BIN, args: ['--headless', '--stdio', '--sandbox', '--toolsets', 'read,mutate'],
    env, stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  // The frame is about 1005 levels deep: within what the MCP reader accepts (1024).
  const client = new Client(
    { name: 'hostile-' + 'n'.repeat(5000), version: '1.0.0', extra: nested(990) },
    { capabilities: { elicitation: { form: {} }, experimental: { deep: nested(1000) } } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: true } }));
  try {
    await client.connect(transport);
    const call = (name, args) => client.callTool({ name, arguments: args }, CallToolResultSchema);
    const p = await call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec() });
    assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1000));
    const c = await call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    assert.equal(c.structuredContent.executed, true, JSON.stringify(c.structuredContent).slice(0, 1000) + stderr.slice(-2000));
  } finally {
    await client.close();
  }

  const lines = fs.readFileSync(log, 'utf8').split('\n').filter((l) => l.length > 0);
  const withClient = lines.map((l) => JSON.parse(l)).filter((r) => r.data.client);
  assert.ok(withClient.length >= 3, `records naming the client: ${withClient.length}`);
  for (const r of withClient) {
    assert.ok(r.data.client.name.length < 600, 'client name bounded');
    // Cut where the session reads clientInfo (at 100 code points, issue 13) or, failing that, by the
    // audit writer's own bound: either way it ends in a visible truncation mark.
    assert.match(r.data.client.name, /…(\[truncated: \d+ more character\(s\)\])?$/);
    assert.ok(Array.isArray(r.data.audit_truncated), `truncation marked in ${r.type}`);
    assert.ok(r.data.audit_truncated.some((m) => m.startsWith('client.capabilities.experimental')),
      JSON.stringify(r.data.audit_truncated));
  }
  for (const l of lines) assert.ok(l.length < 300 * 1024, `record of ${l.length} bytes`);

  const v = audit(['verify', log], env);
  assert.equal(v.status, 0, v.out + v.err);
  assert.match(v.out, /^OK: .* record\(s\) verified, chain intact\.$/m);
  assert.match(v.out, /^tail: head file .* matches the last record/m);

  const h = audit(['head', log], env);
  assert.equal(h.status, 0, h.out + h.err);
  assert.match(h.out, /^\d+:[0-9a-f]{64}\n$/);
  assert.equal(Number(h.out.split(':')[0]), lines.length);
  const kept = audit(['verify', '--head', h.out.trim(), log], env);
  assert.equal(kept.status, 0, kept.out + kept.err);
  assert.match(kept.out, /^kept head: found: .*; 0 record\(s\) after it\.$/m);
});
