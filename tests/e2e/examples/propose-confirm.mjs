// A complete propose -> confirm session against the embedded sandbox, with the official MCP
// SDK client answering the approval prompt. Run from tests/e2e (where the SDK is installed):
//   node tests/e2e/examples/propose-confirm.mjs build/dev/src/app/fabric-broker
// Its audit log lives in a folder of its own in the temporary folder, removed at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const bin = process.argv[2] ?? 'fabric-broker';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fabric-broker-example-'));
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));
const transport = new StdioClientTransport({
  command: bin, args: ['--headless', '--stdio', '--sandbox', '--toolsets', 'read,mutate'],
  env: { ...process.env, EQUINIX_MCP_AUDIT_LOG: path.join(scratch, 'audit.jsonl') },
});
const client = new Client({ name: 'example', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  console.log('--- the person sees:\n' + req.params.message + '\n--- and ticks "confirm"');
  return { action: 'accept', content: { confirm: true } };
});
await client.connect(transport);

const spec = {
  type: 'EVPL_VC', name: 'sv-aws-dev', bandwidth: 50,
  aSide: { accessPoint: { type: 'COLO', port: { uuid: '50000000-0000-4000-8000-000000000001' },
    linkProtocol: { type: 'DOT1Q', vlanTag: 1200 } } },
  zSide: { accessPoint: { type: 'SP', profile: { type: 'L2_PROFILE', uuid: '5e000000-0000-4000-8000-000000000001' },
    location: { metroCode: 'SV' }, sellerRegion: 'us-west-1', authenticationKey: '123456789012' } },
  notifications: [{ type: 'ALL', emails: ['netops@example.com'] }],
};
const proposed = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'connection_create', spec } });
const p = proposed.structuredContent;
console.log('--- fabric_propose_change ->', JSON.stringify({
  confirm_token: p.confirm_token, target: p.target, request_sha256: p.request_sha256,
  price: p.price, expires_at: p.expires_at, evicted_proposals: p.evicted_proposals }, null, 2));
const confirmed = await client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.confirm_token } });
const c = confirmed.structuredContent;
console.log('--- fabric_confirm_change ->', JSON.stringify({
  confirm_checks: c.confirm_checks, human_confirmation: c.human_confirmation, executed: c.executed,
  execution: { outcome: c.execution.outcome, uuid: c.execution.uuid } }, null, 2));
const replay = await client.callTool({ name: 'fabric_confirm_change', arguments: { confirm_token: p.confirm_token } });
console.log('--- the same token again ->', JSON.stringify({ isError: replay.isError,
  confirm_checks: replay.structuredContent.confirm_checks, message: replay.structuredContent.message }, null, 2));

// The official spec's own Create-Local-EVPLAN-Network example: a LOCAL network needs no location.
const network = {
  type: 'EVPLAN', name: 'My-Network-1', scope: 'LOCAL',
  project: { projectId: 'd64fa54a-cfcb-4fb0-82ee-86cf47007fa2' },
  notifications: [{ type: 'ALL', emails: ['test@equinix.com', 'test1@equinix.com'] }],
};
const net = await client.callTool({ name: 'fabric_propose_change', arguments: { change_type: 'network_create', spec: network } });
const n = net.structuredContent;
console.log('--- fabric_propose_change (a LOCAL EVPLAN network) ->', JSON.stringify({
  confirm_token: n.confirm_token, target: n.target, price: { priced: n.price.priced, summary: n.price.summary } }, null, 2));
await client.close();
