// MCP client of packaging/test-apt-releases.sh: the official MCP TypeScript SDK (v1, from
// tests/e2e/node_modules) spawns an installed fabric-broker (inside a chroot: the command is
// given on the command line) over --headless --stdio, and checks one whole session against the
// embedded sandbox: initialize (serverInfo names the package version), tools/list, a
// fabric_propose_change of a sandbox connection, fabric_confirm_change approved through the
// client's elicitation, the result says created, and the connection is then found.
//
//   node packaging/apt-test-client.mjs VERSION COMMAND [ARG...]
//
// Environment: FB_E2E_DIR (default: tests/e2e next to this file) holds node_modules.
// Prints one "  ok    ..." / "  FAIL  ..." line per check; exit status 0 only when all passed.
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const e2eDir = process.env.FB_E2E_DIR || path.resolve(here, '../tests/e2e');
const sdk = path.join(e2eDir, 'node_modules/@modelcontextprotocol/sdk/dist/esm');
const load = (p) => import(pathToFileURL(path.join(sdk, p)).href);
const { Client } = await load('client/index.js');
const { StdioClientTransport } = await load('client/stdio.js');
const { ElicitRequestSchema, CallToolResultSchema } = await load('types.js');

const [version, command, ...args] = process.argv.slice(2);
if (!version || !command) {
  console.error('usage: node apt-test-client.mjs VERSION COMMAND [ARG...]');
  process.exit(2);
}

let failures = 0;
const ok = (what) => console.log(`  ok    ${what}`);
const fail = (what, detail) => {
  failures += 1;
  console.log(`  FAIL  ${what}${detail === undefined ? '' : `\n        ${String(detail).slice(0, 2000)}`}`);
};
const check = (what, cond, detail) => (cond ? ok(what) : fail(what, detail));

// The seeded sandbox estate (fabric-broker --print-estate; tests/e2e/lib.mjs IDS): a connection
// from the SV primary port to the AWS-like profile.
const vlan = 3000 + Math.floor(Math.random() * 900);
const name = `apt-release-test-${vlan}`;
const spec = {
  type: 'EVPL_VC',
  name,
  bandwidth: 50,
  aSide: { accessPoint: { type: 'COLO', port: { uuid: '50000000-0000-4000-8000-000000000001' },
    linkProtocol: { type: 'DOT1Q', vlanTag: vlan } } },
  zSide: { accessPoint: { type: 'SP', profile: { type: 'L2_PROFILE', uuid: '5e000000-0000-4000-8000-000000000001' },
    location: { metroCode: 'SV' }, sellerRegion: 'us-west-1', authenticationKey: '123456789012' } },
  notifications: [{ type: 'ALL', emails: ['netops@example.com'] }],
};

// The spawned command carries its own environment (env -i inside the chroot); the host side
// needs only PATH to find chroot(8).
const transport = new StdioClientTransport({
  command, args, env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' }, stderr: 'pipe',
});
let stderr = '';
transport.stderr?.on('data', (d) => { stderr += d.toString(); });
const client = new Client({ name: 'fabric-broker-apt-release-test', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} } } });
const elicitations = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  elicitations.push(req.params);
  return { action: 'accept', content: { confirm: true } };
});
const call = (tool, a = {}) => client.callTool({ name: tool, arguments: a }, CallToolResultSchema, { timeout: 60000 });

let proc;
try {
  await client.connect(transport);
  proc = transport._process; // the spawned child (the SDK keeps it here), for its exit status
  const info = client.getServerVersion();
  check(`initialize: serverInfo ${info?.name} ${info?.version}`,
    info?.name === 'fabric-broker' && info?.version === version, JSON.stringify(info));

  const tools = (await client.listTools()).tools.map((t) => t.name);
  check(`tools/list: ${tools.length} tools, with fabric_propose_change and fabric_confirm_change`,
    tools.includes('fabric_propose_change') && tools.includes('fabric_confirm_change'), tools.join(' '));

  const pr = await call('fabric_propose_change', { change_type: 'connection_create', spec });
  const p = pr.structuredContent ?? {};
  check('propose: no error, a bound confirm token', pr.isError === undefined && /^chg-[0-9a-f]{32}$/.test(p.confirm_token ?? ''),
    JSON.stringify(pr));
  check('propose: against the sandbox, the request is the spec', p.sandbox === true &&
    p.request?.method === 'POST' && p.request?.path === '/fabric/v4/connections' &&
    isDeepStrictEqual(p.request?.body, spec), JSON.stringify(p).slice(0, 1500));

  const cr = await call('fabric_confirm_change', { confirm_token: p.confirm_token });
  const c = cr.structuredContent ?? {};
  check('confirm: one elicitation, showing the proposal\'s request_sha256',
    elicitations.length === 1 && elicitations[0].message?.includes(p.request_sha256),
    JSON.stringify(elicitations).slice(0, 1500));
  check('confirm: approved through the client (human_confirmation accepted, channel client)',
    c.human_confirmation?.status === 'accepted' && c.human_confirmation?.channel === 'client', JSON.stringify(c));
  const checks = c.confirm_checks ?? {};
  check('confirm: every confirm check true', Object.keys(checks).length === 5 &&
    Object.values(checks).every((v) => v === true), JSON.stringify(checks));
  check(`confirm: executed, outcome ${c.execution?.outcome}, uuid ${c.execution?.uuid}`,
    cr.isError === undefined && c.executed === true && c.execution?.outcome === 'created' &&
    /^[0-9a-f-]{36}$/.test(c.execution?.uuid ?? ''), JSON.stringify(cr));

  const sr = await call('fabric_search_connections', { name });
  const found = (sr.structuredContent?.data ?? []).filter((x) => x.name === name);
  check('the sandbox now holds exactly that connection', found.length === 1 && found[0].uuid === c.execution?.uuid,
    JSON.stringify(sr.structuredContent).slice(0, 1500));
} catch (e) {
  fail('MCP session', e instanceof Error ? e.message : String(e));
} finally {
  await client.close().catch(() => {});
}
// close() ends stdin (and sends SIGTERM after 2 s): the broker exits at end of input.
for (let i = 0; i < 100 && proc && proc.exitCode === null && proc.signalCode === null; i += 1) {
  await new Promise((r) => setTimeout(r, 50));
}
const exit = proc ? (proc.signalCode ?? proc.exitCode) : 'not started';
check(`the broker exited 0 at end of input (${exit})`, exit === 0);
check('stderr says SANDBOX', stderr.includes('SANDBOX'));
if (failures) console.log(stderr.split('\n').map((l) => `        stderr: ${l}`).join('\n'));
process.exit(failures ? 1 : 0);
