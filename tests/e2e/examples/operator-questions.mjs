// An agent answering three operator questions with the spec's read toolsets only (routing,
// observability), against the embedded sandbox, through the official MCP SDK client. Each turn
// prints the tool it calls and what it learned; the last lines are the answers. Run from
// tests/e2e (where the SDK is installed):
//   node tests/e2e/examples/operator-questions.mjs build/dev/src/app/fabric-broker
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const bin = process.argv[2] ?? 'fabric-broker';
const transport = new StdioClientTransport({
  command: bin, args: ['--headless', '--stdio', '--sandbox', '--toolsets', 'routing,observability'],
});
const client = new Client({ name: 'operator-questions', version: '1.0.0' });
await client.connect(transport);

const tools = (await client.listTools()).tools.map((t) => t.name);
const used = new Set();
async function call(name, args) {
  if (!tools.includes(name)) throw new Error(`${name} is not served`);
  used.add(name);
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
  console.log(`> ${name} ${JSON.stringify(args)}\n  ${r.content[0].text.split('\n')[0]}`);
  return r.structuredContent;
}

// 1. "What routes does my cloud router learn, and is the BGP session up?"
const router = 'a0000000-0000-4000-8000-000000000001';
const routes = await call('fabric_search_cloud_router_routes', {
  routerId: router, body: { pagination: { offset: 0, limit: 50 } },
  projection: ['/data/*/prefix', '/data/*/nextHop', '/data/*/state', '/data/*/connection', '/pagination/total'],
});
const connections = [...new Map(routes.data.map((r) => [r.connection.uuid, r.connection.name])).entries()];
const bgp = [];
for (const [uuid, name] of connections) {
  const protocols = await call('fabric_get_connection_routing_protocols', {
    connectionId: uuid, projection: ['/data/*/type', '/data/*/bgpIpv4/operation/operationalStatus'],
  });
  for (const p of protocols.data.filter((x) => x?.type === 'BGP')) {
    bgp.push(`${name}: ${p.bgpIpv4?.operation?.operationalStatus ?? 'unknown'}`);
  }
}

// 2. "What is the traffic on this port over the last day?"
const port = '50000000-0000-4000-8000-000000000001';
const traffic = [];
for (const direction of ['rx', 'tx']) {
  const m = await call('fabric_get_metric_by_asset_id', {
    asset: 'ports', assetId: port, name: `equinix.fabric.port.bandwidth_${direction}.usage`,
    fromDateTime: '2026-01-14T10:15:00Z', toDateTime: '2026-01-15T10:15:00Z',
  });
  const points = m.data.flatMap((series) => series.datapoints ?? []).map((p) => p.value);
  const unit = m.data[0]?.unit ?? '';
  traffic.push(`${direction} average ${(points.reduce((a, b) => a + b, 0) / points.length).toFixed(1)} ${unit}, peak ${Math.max(...points)} ${unit} (${points.length} samples)`);
}

// 3. "What did the last cloud events say about this connection?"
const connection = 'c0000000-0000-4000-8000-000000000001';
const events = await call('fabric_search_cloud_events', {
  body: { filter: { and: [{ property: '/subject', operator: '=', values: [`/fabric/v4/connections/${connection}`] }] },
    pagination: { offset: 0, limit: 10 } },
  projection: ['/data/*/time', '/data/*/type', '/data/*/severitytext', '/data/*/data/message'],
});
const said = events.data.sort((a, b) => b.time.localeCompare(a.time))
  .map((e) => `${e.time} ${e.severitytext} ${e.type}: ${e.data?.message}`);

console.log('--- answers');
console.log(`Router ${router} learns ${routes.data.length} routes: ${routes.data.map((r) => `${r.prefix} via ${r.nextHop} (${r.connection.name}, ${r.state})`).join('; ')}.`);
console.log(`BGP sessions: ${bgp.join('; ')}.`);
console.log(`Port ${port} over the day: ${traffic.join('; ')}.`);
console.log(`Last events of connection ${connection}:\n  ${said.join('\n  ')}`);
console.log(`Tools used: ${[...used].sort().join(', ')}.`);
await client.close();
