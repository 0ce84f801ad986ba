// The MCP client of packaging/test-upgrade.sh: the official MCP TypeScript SDK client (the one
// tests/e2e uses) drives the INSTALLED fabric-broker as an agent's client would, and prints what
// happened as one JSON object on stdout, for the shell script to check.
//
//   node packaging/upgrade-client.mjs stdio STEP...        spawns FB_BIN --headless --stdio
//                                                          --sandbox --toolsets read,mutate
//   node packaging/upgrade-client.mjs socket PATH STEP...  connects to a running instance's
//                                                          per-user socket (desktop app, unit)
// STEP: propose       fabric_propose_change of a sandbox connection (USD 150/month)
//       create        propose, then fabric_confirm_change; the person approves (elicitation)
//       decline       propose, then confirm; the person declines
//       team-propose  propose in team mode: retried while the broker is still connecting to the
//                     team database, then the answer as it is
//       tools         tools/list: the names served
// Output: {"steps":[{...}, ...]} with, per step, the fields the script checks (isError,
// executed, outcome, reason, used, message, error_kind, team, tools).
//
// Environment: FB_BIN (default /usr/bin/fabric-broker), FB_E2E_NODE_MODULES (the folder that
// holds @modelcontextprotocol/sdk; default tests/e2e/node_modules next to this file). The broker
// gets this process's environment as it is (the script gives it the test user's).
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import crypto from 'node:crypto';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.FB_E2E_NODE_MODULES || path.resolve(here, '../tests/e2e/node_modules');
const sdk = (p) => import(pathToFileURL(path.join(modules, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { ElicitRequestSchema, CallToolResultSchema } = await sdk('types.js');
const { ReadBuffer, serializeMessage } = await sdk('shared/stdio.js');

const BIN = process.env.FB_BIN || '/usr/bin/fabric-broker';

// The seeded sandbox estate (`fabric-broker --print-estate`): the SV primary port to the
// AWS-like profile, as tests/e2e/lib.mjs's connectionSpec; 50 Mbps is USD 150/month there.
function connectionSpec() {
  const vlan = 2000 + crypto.randomInt(1000);
  const tag = crypto.randomUUID().slice(0, 8);
  return {
    type: 'EVPL_VC',
    name: `upgrade-test-${tag}`,
    bandwidth: 50,
    aSide: { accessPoint: { type: 'COLO', port: { uuid: '50000000-0000-4000-8000-000000000001' },
      linkProtocol: { type: 'DOT1Q', vlanTag: vlan } } },
    zSide: { accessPoint: { type: 'SP', profile: { type: 'L2_PROFILE', uuid: '5e000000-0000-4000-8000-000000000001' },
      location: { metroCode: 'SV' }, sellerRegion: 'us-west-1', authenticationKey: '123456789012' } },
    notifications: [{ type: 'ALL', emails: ['netops@example.com'] }],
  };
}

// A client Transport over the broker's per-user socket: newline-delimited JSON, as on stdio.
class SocketTransport {
  constructor(socketPath) { this.socketPath = socketPath; this.buffer = new ReadBuffer(); }
  async start() {
    const net = await import('node:net');
    await new Promise((resolve, reject) => {
      this.socket = net.createConnection(this.socketPath);
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
      this.socket.on('data', (chunk) => {
        this.buffer.append(chunk);
        for (let m = this.buffer.readMessage(); m !== null; m = this.buffer.readMessage()) this.onmessage?.(m);
      });
      this.socket.on('close', () => this.onclose?.());
    });
  }
  async send(message) {
    await new Promise((resolve) => { this.socket.write(serializeMessage(message), resolve); });
  }
  async close() { this.socket?.end(); }
}

const [mode, ...rest] = process.argv.slice(2);
let steps = rest;
let transport;
let stderr = '';
if (mode === 'stdio') {
  transport = new StdioClientTransport({
    command: BIN, args: ['--headless', '--stdio', '--sandbox', '--toolsets', 'read,mutate'],
    env: { ...process.env }, stderr: 'pipe',
  });
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
} else if (mode === 'socket' && rest.length > 0) {
  transport = new SocketTransport(rest[0]);
  steps = rest.slice(1);
} else {
  console.error('usage: upgrade-client.mjs stdio STEP... | socket PATH STEP...');
  process.exit(2);
}

// What the person answers to the next approval prompt.
let answer = 'accept';
const client = new Client({ name: 'fabric-broker-upgrade-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, async () =>
  (answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' }));

const call = (name, args) => client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 120000 });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function summary(step, r) {
  const s = r.structuredContent ?? {};
  return {
    step,
    isError: r.isError === true,
    token: typeof s.confirm_token === 'string',
    executed: s.executed,
    outcome: s.execution?.outcome,
    reason: s.execution?.reason,
    human: s.human_confirmation?.status,
    rule: s.policy?.rule ?? null,
    used: s.policy?.used ?? null,
    error_kind: s.error?.kind,
    team: s.team,
    message: String(s.message ?? s.error?.message ?? r.content?.[0]?.text ?? '').slice(0, 600),
  };
}

async function propose() {
  return call('fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec() });
}

const out = [];
let code = 0;
try {
  await client.connect(transport);
  for (const step of steps) {
    if (step === 'tools') {
      const { tools } = await client.listTools();
      out.push({ step, tools: tools.map((t) => t.name).sort() });
    } else if (step === 'propose') {
      out.push(summary(step, await propose()));
    } else if (step === 'team-propose') {
      // Until the broker has connected and checked the schema it answers "not connected yet".
      const deadline = Date.now() + 30000;
      let r = await propose();
      while (/not connected yet|being checked/.test(JSON.stringify(r.structuredContent ?? {})) && Date.now() < deadline) {
        await sleep(250);
        r = await propose();
      }
      out.push(summary(step, r));
    } else if (step === 'create' || step === 'decline') {
      const p = await propose();
      const token = p.structuredContent?.confirm_token;
      if (!token) {
        out.push({ ...summary(step, p), stage: 'propose' });
        continue;
      }
      answer = step === 'create' ? 'accept' : 'decline';
      out.push(summary(step, await call('fabric_confirm_change', { confirm_token: token })));
    } else {
      throw new Error(`unknown step ${step}`);
    }
  }
} catch (e) {
  out.push({ step: 'error', message: String(e?.message ?? e) });
  code = 1;
} finally {
  try { await client.close(); } catch { /* gone */ }
}
console.log(JSON.stringify({ steps: out, stderr: stderr.slice(-3000) }));
process.exit(code);
