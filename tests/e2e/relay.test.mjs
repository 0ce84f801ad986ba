// `fabric-broker --stdio` (what MCP clients spawn) before it relays: it verifies the listening
// side (socket owner, then SO_PEERCRED) and refuses an impostor without writing a byte; with no
// desktop app it serves headless and says so. The impostor cases need root (chown to nobody, a
// listener that drops to nobody) and skip with a message otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv } from './lib.mjs';

const NOBODY = 65534;
const notRoot = process.getuid() !== 0 ? 'needs root: chowns a socket to nobody / listens as nobody' : false;
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'relay-e2e', version: '1' } } }) + '\n';

function rmrf(p) { fs.rmSync(p, { recursive: true, force: true }); }

// Runs `fabric-broker --stdio ARGS`, writes an initialize request, and waits for it to exit.
async function runRelay(env, args = []) {
  const proc = spawn(BIN, ['--stdio', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = ''; let stdout = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  proc.stdout.on('data', (d) => { stdout += d.toString(); });
  proc.stdin.on('error', () => {}); // it may exit before reading
  proc.stdin.write(INIT);
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15000);
  const [code] = await once(proc, 'exit');
  clearTimeout(timer);
  return { code, stderr, stdout };
}

// A listener that counts what each connection sends.
function countingServer(sockPath) {
  const stats = { connections: 0, bytes: 0 };
  const server = net.createServer((c) => {
    stats.connections++;
    c.on('data', (d) => { stats.bytes += d.length; });
    c.on('error', () => {});
  });
  return new Promise((resolve) => server.listen(sockPath, () => resolve({ server, stats })));
}

test('relay: a socket that belongs to another user is refused before connecting', { skip: notRoot }, async () => {
  const env = baseEnv();
  delete env.QT_QPA_PLATFORM;
  const sock = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  const { server, stats } = await countingServer(sock);
  try {
    fs.chownSync(sock, NOBODY, NOBODY);
    const r = await runRelay(env);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`refusing to relay to ${sock}: the socket ${sock} belongs to uid ${NOBODY}, not to uid 0`));
    assert.equal(r.stdout, '', 'no MCP output: nothing was served as if all were well');
    assert.equal(stats.connections, 0);
    assert.equal(stats.bytes, 0);
  } finally {
    server.close();
    rmrf(env.XDG_RUNTIME_DIR);
  }
});

test('relay: a listener running as another user is refused (SO_PEERCRED) without a byte sent', { skip: notRoot }, async () => {
  const env = baseEnv();
  delete env.QT_QPA_PLATFORM;
  // A directory nobody can write into, so an impostor can bind a socket there.
  const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'fb-e2e-impostor-'));
  fs.chmodSync(shared, 0o777);
  const sock = path.join(shared, 'fabric-broker.sock');
  const impostor = spawn(process.execPath, ['-e', `
    process.setgid(${NOBODY}); process.setuid(${NOBODY});
    const net = require('node:net');
    net.createServer((c) => {
      let n = 0;
      c.on('data', (d) => { n += d.length; });
      c.on('close', () => console.log('connection bytes=' + n));
      c.on('error', () => {});
    }).listen(${JSON.stringify(sock)}, () => console.log('listening uid=' + process.getuid()));
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  impostor.stdout.on('data', (d) => { out += d.toString(); });
  try {
    const deadline = Date.now() + 10000;
    while (!out.includes('listening')) {
      if (Date.now() > deadline || impostor.exitCode !== null) throw new Error(`impostor did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.match(out, new RegExp(`listening uid=${NOBODY}`));
    // Make the socket file look like ours: only the peer check can tell now.
    fs.chownSync(sock, 0, 0);
    const r = await runRelay(env, ['--socket', sock]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`refusing to relay to ${sock}: the peer process \\(pid \\d+\\) runs as uid ${NOBODY}, not as uid 0`));
    assert.equal(r.stdout, '');
    const deadline2 = Date.now() + 5000;
    while (!out.includes('connection bytes=')) {
      if (Date.now() > deadline2) throw new Error(`the impostor saw no connection: ${out}`);
      await new Promise((res) => setTimeout(res, 25));
    }
    assert.match(out, /connection bytes=0\n/, 'the relay connected, checked, and closed without writing');
  } finally {
    impostor.kill('SIGKILL');
    rmrf(shared);
    rmrf(env.XDG_RUNTIME_DIR);
  }
});

test('relay: with no desktop app running, `--stdio` serves headless and says so (stderr and initialize.instructions)', async () => {
  const env = baseEnv(); // a private, empty XDG_RUNTIME_DIR: no app listens there; no display
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio', '--sandbox'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'relay-e2e', version: '1' }, { capabilities: {} });
  try {
    await client.connect(transport);
    const instructions = client.getInstructions() ?? '';
    assert.match(instructions, /NO DESKTOP APP: no Fabric Broker desktop app is running for this user, so approvals go through this MCP client/);
    assert.ok((await client.listTools()).tools.length > 0, 'still served');
    for (let i = 0; i < 50 && !/serving this session headless/.test(stderr); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(stderr, new RegExp(`no Fabric Broker desktop app is running \\(nothing listens on ${env.XDG_RUNTIME_DIR}/fabric-broker.sock\\); serving this session headless: approvals go through the MCP client`));
  } finally {
    await client.close();
    rmrf(env.XDG_RUNTIME_DIR);
  }
});

test('relay: `--headless --stdio` is headless by choice and adds no such notice', async () => {
  const env = baseEnv();
  const transport = new StdioClientTransport({ command: BIN, args: ['--headless', '--stdio', '--sandbox'], env, stderr: 'pipe' });
  const client = new Client({ name: 'relay-e2e', version: '1' }, { capabilities: {} });
  try {
    await client.connect(transport);
    assert.doesNotMatch(client.getInstructions() ?? '', /NO DESKTOP APP/);
  } finally {
    await client.close();
    rmrf(env.XDG_RUNTIME_DIR);
  }
});
