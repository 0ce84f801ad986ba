// `fabric-broker` is a launcher without Qt (src/launcher). With the app running, what an MCP
// client spawns (the SDK's StdioClientTransport with its default environment plus the runtime
// dir) hands its stdin and stdout to the app and only waits: the relay process maps no Qt
// library, stays under 8 MiB of RSS, holds /dev/null where its stdin and stdout were, and its
// session is served with the app's tools; closing the client ends it with status 0, and a
// relay killed mid-session ends its session in the app. Without an app it runs the Qt binary in
// the same process (same pid), so `--version`, subcommands and `--headless` behave as before;
// client-config names the launcher, never the app binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv } from './lib.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startApp() {
  const env = baseEnv();
  const sock = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock');
  const proc = spawn(BIN, ['--headless', '--listen', '--sandbox', '--toolsets', 'read'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d.toString(); });
  const deadline = Date.now() + 15000;
  while (!fs.existsSync(sock)) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`app did not start: ${stderr}`);
    await sleep(25);
  }
  return {
    proc, env, get stderr() { return stderr; },
    async stop() {
      if (proc.exitCode === null) { proc.kill('SIGTERM'); await once(proc, 'exit'); }
      fs.rmSync(env.XDG_RUNTIME_DIR, { recursive: true, force: true });
    },
  };
}

function procStatus(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number((status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm')) || [])[1]);
  return { rssKiB: kb('VmRSS'), hwmKiB: kb('VmHWM') };
}

async function connectRelayed(app) {
  // What a client's server entry gives it: the SDK's default environment, the runtime dir.
  const env = { ...getDefaultEnvironment(), XDG_RUNTIME_DIR: app.env.XDG_RUNTIME_DIR, HOME: app.env.HOME };
  const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'launcher-e2e', version: '1' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport, pid: transport.pid, get stderr() { return stderr; } };
}

test('launcher: the relay hands its stdio to the app, maps no Qt, stays small, and ends with the client', async () => {
  const app = await startApp();
  try {
    const r = await connectRelayed(app);
    const { tools } = await r.client.listTools();
    assert.ok(tools.some((t) => t.name === 'fabric_list_metros'), 'served with the app\'s tools');
    const metros = await r.client.callTool({ name: 'fabric_list_metros', arguments: {} });
    assert.ok(!metros.isError, JSON.stringify(metros).slice(0, 300));
    const pid = r.pid;
    assert.ok(pid > 0);
    assert.equal(fs.realpathSync(`/proc/${pid}/exe`), fs.realpathSync(BIN), 'the relay is the launcher itself');
    const maps = fs.readFileSync(`/proc/${pid}/maps`, 'utf8');
    assert.doesNotMatch(maps, /libQt6/, 'the relay maps no Qt library');
    const { rssKiB, hwmKiB } = procStatus(pid);
    // (a sanitizer build's runtime alone is larger: the bound is the shipped build's)
    if (!process.env.ASAN_OPTIONS) assert.ok(hwmKiB <= 8 * 1024, `relay peak RSS ${hwmKiB} KiB (RSS ${rssKiB} KiB) must stay within 8 MiB`);
    assert.equal(fs.readlinkSync(`/proc/${pid}/fd/0`), '/dev/null', 'the app holds the client\'s stdin');
    assert.equal(fs.readlinkSync(`/proc/${pid}/fd/1`), '/dev/null', 'the app holds the client\'s stdout');
    assert.match(r.stderr, /relaying stdio to the running Fabric Broker at .* session served with the toolsets read/);
    const exited = once(r.transport._process, 'exit');
    await r.client.close();
    const [code, signal] = await exited;
    assert.ok(code === 0 || signal === 'SIGTERM', `relay exit: ${code} ${signal}`);
    for (let i = 0; i < 100 && !/session \d+ closing/.test(app.stderr); i++) await sleep(50);
    assert.match(app.stderr, /session \d+ closing/);
  } finally { await app.stop(); }
});

test('launcher: a relay killed mid-session ends its session in the app; the app serves the next one', async () => {
  const app = await startApp();
  try {
    const r = await connectRelayed(app);
    await r.client.listTools();
    process.kill(r.pid, 'SIGKILL');
    // Node closes its end of the relay's stdin when it reaps it, so the app may see end of input
    // first; tst_fastrelayserve holds stdin open and checks the relay's end alone.
    const ended = /closing: "(the relay process ended|end of input)"/;
    for (let i = 0; i < 200 && !ended.test(app.stderr); i++) await sleep(50);
    assert.match(app.stderr, ended);
    const next = await connectRelayed(app);
    const { tools } = await next.client.listTools();
    assert.ok(tools.length > 0);
    await next.client.close();
  } finally { await app.stop(); }
});

test('launcher: without an app it runs the Qt binary in the same process; client-config names the launcher', async () => {
  const env = baseEnv();
  try {
    const version = execFileSync(BIN, ['--version'], { env, encoding: 'utf8' });
    assert.match(version, /^fabric-broker \d+\.\d+\.\d+/);
    const config = JSON.parse(execFileSync(BIN, ['client-config', '--json'], { env, encoding: 'utf8' }));
    const text = JSON.stringify(config);
    assert.ok(text.includes(JSON.stringify(fs.realpathSync(BIN)).slice(1, -1)) || text.includes(JSON.stringify(BIN).slice(1, -1)),
      `client-config names the launcher ${BIN}: ${text.slice(0, 400)}`);
    assert.ok(!text.includes('fabric-broker-app'), 'never the app binary');
    // The same pid: a headless server started through the launcher is the server binary now
    // (the application without the desktop UI), and it maps no Qt Gui or Widgets library, nor
    // libpq or libcrypto (team mode only: src/lazy opens them on first use). libmicrohttpd is
    // opened by what serves HTTP: the embedded sandbox does, a server with an endpoint does not.
    const mapsOfServer = (args, extraEnv) => new Promise((resolve, reject) => {
      const proc = spawn(BIN, args, { env: { ...env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
      proc.stdout.once('data', () => {
        try {
          assert.match(fs.readlinkSync(`/proc/${proc.pid}/exe`), /fabric-broker-server$/);
          const maps = fs.readFileSync(`/proc/${proc.pid}/maps`, 'utf8');
          assert.match(maps, /libQt6Core\.so/, 'the maps are read');
          proc.stdin.end();
          proc.on('exit', () => resolve(maps));
        } catch (e) { proc.kill(); reject(e); }
      });
      proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) + '\n');
    });
    const never = ['libQt6Gui', 'libQt6Widgets', 'libX11', 'libEGL', 'libfontconfig', 'libpq.so',
      'libcrypto.so', 'libssl.so', 'libldap'];
    const sandboxed = await mapsOfServer(['--headless', '--stdio', '--sandbox'], {});
    for (const lib of never)
      assert.ok(!sandboxed.includes(lib), `the headless server maps no ${lib}`);
    assert.ok(sandboxed.includes('libmicrohttpd.so'), 'the embedded sandbox opened libmicrohttpd');
    const withEndpoint = await mapsOfServer(['--headless', '--stdio'], {
      EQUINIX_API_ENDPOINT: 'http://127.0.0.1:9', EQUINIX_API_CLIENTID: 'id', EQUINIX_API_CLIENTSECRET: 'secret',
    });
    for (const lib of [...never, 'libmicrohttpd.so', 'libgnutls.so'])
      assert.ok(!withEndpoint.includes(lib), `a headless server with an endpoint maps no ${lib}`);
  } finally { fs.rmSync(env.XDG_RUNTIME_DIR, { recursive: true, force: true }); }
});
