#!/usr/bin/env node
// A loopback-only Streamable HTTP -> stdio bridge for the official MCP conformance suite, which
// tests servers over Streamable HTTP only. Every MCP session (an `initialize` POST without
// Mcp-Session-Id) spawns its own `fabric-broker --headless --stdio --sandbox`; JSON-RPC messages
// are relayed verbatim both ways through the official SDK's StreamableHTTPServerTransport.
//
//   node bridge.mjs [--port N] [--bin PATH] [-- extra fabric-broker args]
//
// Prints `bridge: http://127.0.0.1:PORT/mcp` on stdout once listening (port 0 = a free port).
// Binds 127.0.0.1 only, checks the Host header (DNS rebinding), and exits on SIGTERM/SIGINT
// after stopping every child.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MAX_SESSIONS = 32;
const MAX_BODY = 8 * 1024 * 1024;

function parseArgs(argv) {
  const out = { port: 0, bin: process.env.FB_BROKER_BIN || path.resolve(here, '../../../build/ci/src/app/fabric-broker'), extra: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port') out.port = Number(argv[++i]);
    else if (a === '--bin') out.bin = argv[++i];
    else if (a === '--') { out.extra = argv.slice(i + 1); break; } else throw new Error(`unknown argument ${a}`);
  }
  if (!Number.isInteger(out.port) || out.port < 0 || out.port > 65535) throw new Error('--port must be 0..65535');
  return out;
}

const opts = parseArgs(process.argv.slice(2));
if (!fs.existsSync(opts.bin)) {
  process.stderr.write(`bridge: fabric-broker not found at ${opts.bin} (set FB_BROKER_BIN or --bin)\n`);
  process.exit(2);
}
const log = (...a) => process.stderr.write(`bridge: ${a.join(' ')}\n`);

// A private runtime/data dir for the children (audit log, XDG paths), removed on exit.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-bridge-'));
fs.chmodSync(scratch, 0o700);

function childEnv() {
  const env = {
    PATH: process.env.PATH, HOME: scratch, LANG: 'C.UTF-8', QT_QPA_PLATFORM: 'offscreen',
    XDG_RUNTIME_DIR: scratch, XDG_DATA_HOME: path.join(scratch, 'data'), XDG_CONFIG_HOME: path.join(scratch, 'config'),
  };
  for (const k of ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'QT_LOGGING_RULES']) if (process.env[k]) env[k] = process.env[k];
  return env;
}

/** sessionId -> { transport, child } */
const sessions = new Map();
let pendingSessions = 0;

function startSession() {
  const child = spawn(opts.bin, ['--headless', '--stdio', '--sandbox', ...opts.extra], {
    env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'],
  });
  const session = { child, transport: undefined, id: undefined, closed: false };
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableDnsRebindingProtection: true,
    allowedHosts: [`127.0.0.1:${boundPort}`, `localhost:${boundPort}`],
    onsessioninitialized: (id) => { session.id = id; sessions.set(id, session); pendingSessions--; log(`session ${id} -> pid ${child.pid}`); },
    onsessionclosed: (id) => { log(`session ${id} deleted by the client`); },
  });
  session.transport = transport;

  // client -> server: every message the transport accepted goes to the child's stdin as NDJSON.
  transport.onmessage = (message) => {
    if (!child.stdin.writable) return;
    child.stdin.write(serializeMessage(message));
  };
  transport.onerror = (e) => log(`transport error: ${e.message}`);
  transport.onclose = () => endSession(session, 'transport closed');

  // server -> client: responses go to the stream of their request; server requests and
  // notifications to the standalone GET stream (dropped if the client has none, as allowed).
  const rb = new ReadBuffer();
  child.stdout.on('data', (chunk) => {
    rb.append(chunk);
    for (;;) {
      let msg;
      try { msg = rb.readMessage(); } catch (e) { log(`unparseable frame from the server: ${e.message}`); continue; }
      if (msg === null) break;
      transport.send(msg).catch((e) => log(`cannot deliver ${JSON.stringify(msg).slice(0, 200)}: ${e.message}`));
    }
  });
  child.stderr.on('data', (d) => { if (process.env.FB_BRIDGE_VERBOSE) process.stderr.write(d); });
  child.stdin.on('error', () => {});
  child.on('exit', (code, signal) => {
    log(`pid ${child.pid} exited (${code ?? signal})`);
    endSession(session, 'server exited');
  });
  return session;
}

function endSession(session, why) {
  if (session.closed) return;
  session.closed = true;
  if (session.id) sessions.delete(session.id); else pendingSessions = Math.max(0, pendingSessions - 1);
  log(`session ${session.id ?? '(uninitialized)'} ends: ${why}`);
  session.transport.close().catch(() => {});
  stopChild(session.child);
}

function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin.end(); // end of input: the broker exits promptly
  const t = setTimeout(() => { if (child.exitCode === null) child.kill('SIGTERM'); }, 2000);
  t.unref();
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) { reject(Object.assign(new Error('body too large'), { status: 413 })); req.destroy(); return; }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function jsonError(res, status, code, message) {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

let boundPort = 0;

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname !== '/mcp') { jsonError(res, 404, -32000, 'Not found: use /mcp'); return; }
    // Defence in depth besides the loopback bind: only loopback peers.
    const peer = req.socket.remoteAddress;
    if (peer !== '127.0.0.1' && peer !== '::ffff:127.0.0.1' && peer !== '::1') { jsonError(res, 403, -32000, 'Forbidden'); return; }
    const sid = req.headers['mcp-session-id'];
    if (sid !== undefined) {
      const s = sessions.get(String(sid));
      if (!s) { jsonError(res, 404, -32001, 'Session not found'); return; }
      if (req.method === 'POST') {
        let body;
        try { body = JSON.parse(await readBody(req)); } catch (e) {
          jsonError(res, e.status ?? 400, e.status ? -32000 : -32700, e.status ? e.message : 'Parse error: Invalid JSON');
          return;
        }
        await s.transport.handleRequest(req, res, body);
      } else {
        await s.transport.handleRequest(req, res);
      }
      return;
    }
    if (req.method !== 'POST') { jsonError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required'); return; }
    let body;
    try { body = JSON.parse(await readBody(req)); } catch (e) {
      jsonError(res, e.status ?? 400, e.status ? -32000 : -32700, e.status ? e.message : 'Parse error: Invalid JSON');
      return;
    }
    const isInit = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (!isInit) { jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided'); return; }
    if (sessions.size + pendingSessions >= MAX_SESSIONS) { jsonError(res, 503, -32000, 'Too many sessions'); return; }
    pendingSessions++;
    const s = startSession();
    await s.transport.handleRequest(req, res, body);
    // The transport refused the initialize (e.g. bad Host header): no session was created.
    if (!s.id) endSession(s, 'initialize refused');
  } catch (e) {
    log(`request failed: ${e.stack ?? e}`);
    jsonError(res, 500, -32603, 'Internal error');
  }
});

let shuttingDown = false;
async function shutdown(signal) {
  if (shuttingDown) return;
  shuttingDown = true;
  log(`${signal}: stopping ${sessions.size} session(s)`);
  server.close();
  const children = [...sessions.values()].map((s) => s.child);
  for (const s of [...sessions.values()]) endSession(s, 'bridge stopping');
  await Promise.race([
    Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? null : new Promise((r) => c.once('exit', r))))),
    new Promise((r) => setTimeout(r, 3000)),
  ]);
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(scratch, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));

server.listen(opts.port, '127.0.0.1', () => {
  boundPort = server.address().port;
  process.stdout.write(`bridge: http://127.0.0.1:${boundPort}/mcp\n`);
});
