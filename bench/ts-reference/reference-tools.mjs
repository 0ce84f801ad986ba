// The reference server's tools, shared by the stdio (server.mjs) and Streamable HTTP
// (http-server.mjs) reference servers of the side-by-side benchmarks: the same tool list as
// fabric-broker, and fabric_list_metros implemented like fabric-broker does it (see server.mjs).
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const endpoint = (process.env.EQUINIX_API_ENDPOINT || 'https://api.equinix.com').replace(/\/$/, '');
const clientId = process.env.EQUINIX_API_CLIENTID || process.env.EQUINIX_CLIENT_ID || '';
const clientSecret = process.env.EQUINIX_API_CLIENTSECRET || process.env.EQUINIX_CLIENT_SECRET || '';

const baseHeaders = { accept: 'application/json', 'user-agent': 'fabric-broker-ts-reference/0.1.0' };

let token = null;
let tokenRefreshAt = 0;
let tokenPromise = null;

async function fetchToken() {
  const res = await fetch(`${endpoint}/oauth2/v1/token`, {
    method: 'POST',
    headers: { ...baseHeaders, 'content-type': 'application/json', 'x-correlation-id': randomUUID() },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  const body = await res.json();
  if (!res.ok || typeof body.access_token !== 'string') throw new Error(`token request failed: HTTP ${res.status}`);
  const lifetime = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600;
  token = body.access_token;
  tokenRefreshAt = Date.now() + lifetime * 1000 * 0.9;
  return token;
}

async function accessToken() {
  if (token && Date.now() < tokenRefreshAt) return token;
  if (!tokenPromise) tokenPromise = fetchToken().finally(() => { tokenPromise = null; });
  return tokenPromise;
}

function intArg(args, name, dflt, min, max) {
  if (args[name] === undefined) return dflt;
  const v = args[name];
  if (!Number.isInteger(v) || v < min || v > max) throw new Error(`${name} must be an integer between ${min} and ${max}`);
  return v;
}

async function listMetros(args) {
  const offset = intArg(args, 'offset', 0, 0, 1e9);
  const limit = intArg(args, 'limit', 20, 1, 1000);
  const res = await fetch(`${endpoint}/fabric/v4/metros?offset=${offset}&limit=${limit}`, {
    headers: { ...baseHeaders, authorization: `Bearer ${await accessToken()}`, 'x-correlation-id': randomUUID() },
  });
  const body = await res.json();
  if (!res.ok) {
    return { isError: true, content: [{ type: 'text', text: `Fabric could not list metros: HTTP ${res.status}` }] };
  }
  const n = Array.isArray(body.data) ? body.data.length : 0;
  return { content: [{ type: 'text', text: `${n} metros.\n${JSON.stringify(body)}` }], structuredContent: body };
}

export function createServer(tools) {
const server = new Server(
  { name: 'fabric-broker-ts-reference', version: '0.1.0' },
  { capabilities: { tools: { listChanged: false } } },
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  try {
    if (name === 'fabric_list_metros') return await listMetros(args);
    return { isError: true, content: [{ type: 'text', text: `${name} is not implemented in the reference server` }] };
  } catch (e) {
    return { isError: true, content: [{ type: 'text', text: String(e?.message ?? e) }] };
  }
});
return server;
}
