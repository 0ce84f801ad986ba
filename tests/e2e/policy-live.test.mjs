// The operator policy holds while the broker runs (#22): the user's policy file edited under a
// running instance (allowed -> read only -> broken -> fixed, saved in place and by an editor's
// rename) changes the tools the official SDK client is served each time within 2 s, and the
// client is sent notifications/tools/list_changed each time (the test waits on the
// notification, never on a sleep). Each change is a policy_changed audit record with the file's
// SHA-256.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startBroker, scratchDir } from './lib.mjs';

function waitFor(predicate, ms, what) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (predicate()) { clearInterval(timer); resolve(Date.now() - started); }
      else if (Date.now() - started > ms) { clearInterval(timer); reject(new Error(`timed out waiting for ${what}`)); }
    }, 10);
  });
}

test('a policy file edited while running changes the served tools within 2 s, with list_changed', async () => {
  const dir = scratchDir('fb-policy-live-');
  const file = path.join(dir, 'policy.json');
  const audit = path.join(scratchDir('fb-policy-live-audit-'), 'audit.jsonl'); // not in the watched directory
  const allowed = JSON.stringify({ toolsets: { allowed: ['read', 'mutate'] } });
  fs.writeFileSync(file, allowed);
  const b = await startBroker({ env: { FABRIC_BROKER_POLICY: file, EQUINIX_MCP_AUDIT_LOG: audit } });
  let listChanged = 0;
  b.client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });
  const names = async () => (await b.client.listTools()).tools.map((t) => t.name);
  try {
    assert.ok((await names()).includes('fabric_propose_change'));
    const steps = [
      { bytes: JSON.stringify({ toolsets: { allowed: ['read'] } }), rename: false, mutate: false, refused: false },
      { bytes: allowed, rename: true, mutate: true, refused: false },
      { bytes: '{"toolsets": {"allowed": ["read", "mutate"]}', rename: true, mutate: false, refused: true }, // broken
      { bytes: allowed, rename: false, mutate: true, refused: false },
    ];
    let n = 0;
    for (const step of steps) {
      n++;
      if (step.rename) {
        fs.writeFileSync(file + '.tmp', step.bytes);
        fs.renameSync(file + '.tmp', file);
      } else {
        fs.writeFileSync(file, step.bytes);
      }
      const took = await waitFor(() => listChanged >= n, 2000, `list_changed #${n}`);
      assert.ok(took < 2000, `took ${took} ms`);
      const served = await names();
      assert.equal(served.includes('fabric_propose_change'), step.mutate, served.join(','));
      assert.equal(served.includes('fabric_confirm_change'), step.mutate);
      assert.ok(served.includes('fabric_search_connections'));
      // Audited with the file's SHA-256.
      const sha = crypto.createHash('sha256').update(step.bytes).digest('hex');
      await waitFor(() => fs.existsSync(audit) && fs.readFileSync(audit, 'utf8').split('\n').filter(Boolean)
        .map((l) => JSON.parse(l)).filter((r) => r.type === 'policy_changed').length >= n, 2000, 'policy_changed');
      const records = fs.readFileSync(audit, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
        .filter((r) => r.type === 'policy_changed');
      const last = records[n - 1];
      const data = last.data ?? last;
      const entry = data.files.find((f) => f.path === file);
      assert.ok(entry, JSON.stringify(data));
      assert.equal(entry.sha256, sha);
      assert.equal(data.refuse_mutate, step.refused);
    }
    assert.equal(listChanged, steps.length);
  } finally { await b.close(); }
});
