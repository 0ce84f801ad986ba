// The confirm as a multi-round-trip, driven by the real v2 client: its elicitation handler
// answers the input_required result's form (auto-fulfilment) and the client retries with the
// requestState. Shared by the stdio (modern.test.mjs) and HTTP (http.test.mjs) suites.
import assert from 'node:assert/strict';
import { connectionSpec } from './lib.mjs';

// Installs the person's answer before connect; returns the list of forms the client was asked.
export function answerForms(client, action) {
  const asked = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    return action === 'accept' ? { action, content: { confirm: true } } : { action };
  });
  return asked;
}

// Proposes a connection, confirms it, and checks that exactly one form was asked and the result.
export async function proposeAndConfirm(client, asked, status, executed) {
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const p = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec: connectionSpec() } });
  assert.notEqual(p.isError, true, JSON.stringify(p).slice(0, 800));
  const r = await client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.structuredContent.confirm_token } });
  assert.equal(asked.length, 1, 'one form elicitation');
  assert.ok(asked[0].requestedSchema?.properties?.confirm, JSON.stringify(asked[0]).slice(0, 500));
  assert.equal(r.structuredContent.human_confirmation.status, status, JSON.stringify(r).slice(0, 800));
  assert.equal(r.structuredContent.executed, executed);
}
