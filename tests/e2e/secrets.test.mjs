// Secrets never leak: a full session against a separate `fabric-broker --sandbox-only` process
// with distinctive OAuth client credentials and every log category at debug level. The session
// proposes, confirms (accept), hits confirm-token errors, a Fabric error (a 500 and an
// EQ- validation error), a forced 401 (token refetch) and a short token lifetime (refresh). Then
// stderr, every MCP message received, the audit log and every file under the XDG/HOME dirs the
// broker used are scanned: neither the client secret nor any bearer token the sandbox issued
// may appear. Sandbox tokens look like "sbx." + 43 base64url characters (learned below from a
// direct POST /oauth2/v1/token), so every issued token is caught by that pattern, not only the
// ones we happen to know.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startBroker, startSandboxProcess, connectionSpec, IDS, scratchDir } from './lib.mjs';

const TOKEN_PATTERN = /sbx\.[A-Za-z0-9_-]{20,}/g;

function listFiles(dir) {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

test('neither the client secret nor any bearer token appears in logs, messages, audit or files', async () => {
  const secret = `FBSECRET-${randomBytes(12).toString('hex')}`;
  const clientId = `fbclient-${randomBytes(6).toString('hex')}`;
  const root = scratchDir('fb-secrets-');
  fs.chmodSync(root, 0o700);
  const dirs = {
    XDG_RUNTIME_DIR: path.join(root, 'run'), XDG_DATA_HOME: path.join(root, 'data'),
    XDG_CONFIG_HOME: path.join(root, 'config'), XDG_CACHE_HOME: path.join(root, 'cache'),
    XDG_STATE_HOME: path.join(root, 'state'), HOME: path.join(root, 'home'),
  };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  const auditLog = path.join(root, 'audit', 'audit.jsonl');
  fs.mkdirSync(path.dirname(auditLog), { mode: 0o700 });

  const sandbox = await startSandboxProcess();
  // Learn the token format first-hand.
  const direct = await fetch(sandbox.url + '/oauth2/v1/token', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'probe', client_secret: 'probe-secret' }),
  });
  const issued = await direct.json();
  assert.equal(direct.status, 200);
  assert.match(issued.access_token, /^sbx\.[A-Za-z0-9_-]{43}$/, 'sandbox token format changed: update TOKEN_PATTERN');

  const received = [];
  let b;
  try {
    b = await startBroker({
      args: ['--toolsets', 'read,mutate'],
      env: {
        ...sandbox.env, EQUINIX_API_CLIENTID: clientId, EQUINIX_API_CLIENTSECRET: secret,
        EQUINIX_MCP_AUDIT_LOG: auditLog, QT_LOGGING_RULES: '*.debug=true', ...dirs,
      },
      elicit: async () => ({ action: 'accept', content: { confirm: true } }),
    });
    // Record every message the client receives, as it arrived on the wire.
    const orig = b.transport.onmessage;
    b.transport.onmessage = (msg, extra) => { received.push(JSON.stringify(msg)); orig?.(msg, extra); };
    await b.client.setLoggingLevel('debug');

    // Propose and confirm (accept).
    const spec = connectionSpec();
    const p = await b.call('fabric_propose_change', { change_type: 'connection_create', spec });
    assert.equal(p.isError, undefined, JSON.stringify(p).slice(0, 1000));
    const c = await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    assert.equal(c.structuredContent.executed, true, JSON.stringify(c.structuredContent).slice(0, 1000));

    // Token errors: replay, unknown, malformed.
    const replay = await b.call('fabric_confirm_change', { confirm_token: p.structuredContent.confirm_token });
    assert.equal(replay.structuredContent.confirm_checks.not_previously_used, false);
    const unknown = await b.call('fabric_confirm_change', { confirm_token: 'chg-' + '0'.repeat(32) });
    assert.equal(unknown.structuredContent.confirm_checks.proposal_exists, false);
    await b.call('fabric_confirm_change', { confirm_token: 'not-a-token' });

    // Fabric errors: a validation error from the dry run (VLAN 100 is in use on that port),
    // then a 500, then a forced 401 (the broker must refetch its token), then a token that
    // expires every second (refresh).
    const inUse = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec({ vlan: 100 }) });
    assert.equal(inUse.isError, true);
    // (A network: its propose makes one request, the dry run. A connection's dry run and price
    // search run in parallel and either may reach the sandbox first and take the fault.)
    await sandbox.admin('POST', '/sandbox/v1/faults', { fail: { count: 1, status: 500 } });
    const failed = await b.call('fabric_propose_change', { change_type: 'network_create', spec: {
      type: 'EVPLAN', name: 'e2e-secrets-net', scope: 'LOCAL', notifications: [{ type: 'ALL', emails: ['netops@example.com'] }] } });
    assert.equal(failed.isError, true);
    await sandbox.admin('POST', '/sandbox/v1/faults', { unauthorizeNext: true });
    const port = await b.call('fabric_get_port', { uuid: IDS.portSvPrimary });
    assert.equal(port.structuredContent?.uuid, IDS.portSvPrimary, JSON.stringify(port).slice(0, 500));
    await sandbox.admin('POST', '/sandbox/v1/faults', { tokenLifetimeSeconds: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    const p2 = await b.call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec() });
    assert.equal(p2.isError, undefined, JSON.stringify(p2).slice(0, 1000));
    // The 401 and the expiry made the broker fetch new tokens: several tokens were in play.
    const reqs = await sandbox.admin('GET', '/sandbox/v1/requests');
    const tokenFetches = reqs.data.filter((r) => r.path === '/oauth2/v1/token' && r.status === 200).length;
    assert.ok(tokenFetches >= 3, `expected at least 3 token fetches, saw ${tokenFetches}`);
    // Positive control: the secret really was sent (the sandbox, standing in for Equinix,
    // issues tokens only for a non-empty client_secret, and records that the token request
    // carried one), so the scan below is looking for a live value. The sandbox's own log
    // redacts it (issue 14): it never returns the secret either.
    const tokenBodies = reqs.data.filter((r) => r.path === '/oauth2/v1/token' && r.status === 200)
      .map((r) => JSON.parse(r.body)).filter((b) => b.client_id === clientId);
    assert.ok(tokenBodies.length >= 2 && tokenBodies.every((b) => b.client_secret === '[REDACTED]'),
      'positive control: the broker sent its client secret (redacted in the sandbox log)');
    assert.ok(!JSON.stringify(reqs).includes(secret), 'the sandbox admin API never returns the client secret');
  } finally {
    if (b) await b.close();
    await sandbox.stop();
  }

  const sources = [
    ['stderr', b.stderr],
    ['MCP messages', received.join('\n')],
  ];
  assert.ok(fs.existsSync(auditLog), 'the audit log was written');
  for (const f of [auditLog, ...Object.values(dirs).flatMap(listFiles)]) {
    sources.push([f, fs.readFileSync(f).toString('latin1')]);
  }
  assert.ok(b.stderr.length > 1000, 'debug logging was on (stderr has content)');
  assert.ok(received.length >= 8, 'MCP messages were recorded');
  for (const [name, text] of sources) {
    assert.ok(!text.includes(secret), `the client secret appears in ${name}`);
    const tokens = text.match(TOKEN_PATTERN);
    assert.equal(tokens, null, `a bearer token appears in ${name}: ${tokens?.[0]?.slice(0, 12)}…`);
    assert.ok(!text.includes(issued.access_token), `the probe token appears in ${name}`);
  }
  fs.rmSync(root, { recursive: true, force: true });
});
