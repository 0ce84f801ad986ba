// Attacks on the operator policy's fabric.endpoint lock (docs/policy.md) and on the desktop
// app's switch from its embedded sandbox to the saved account (issue #40), each against the real
// executable. The agent is the adversary: it writes every tool argument, the user's files
// (settings, the user's policy file) and the environment of the processes it starts, but not the
// administrator's policy file (here FABRIC_BROKER_EXTRA_ADMIN_POLICY, root-owned, standing in for
// /etc/fabric-broker/policy.json).
//
// The pinned endpoint is a separate sandbox process (it stands in for Equinix and records what
// reaches it); the agent's endpoint is a rogue loopback HTTP server of this file that records
// every request (and answers a token request, so a leak would go on to the reads).
//
// An attack that is refused is a regression test; one that gets through is marked
// { todo: 'GOT THROUGH: ...' } so that the suite stays green while it is open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, connectionSpec, scratchDir, sleep, startBroker, startSandboxProcess } from './lib.mjs';
import { startXvfb } from './xvfb.mjs';
import { PYTHON, atspiSkip, keyringSkip, startKeyring, startSessionBus, stopSessionBus } from './atspi.mjs';

// A loopback HTTP server that records every request. redirect: a base URL every request is sent
// on to (302 for GET, 307 for the rest), as a pinned endpoint that redirects elsewhere would.
async function startRecorder({ redirect } = {}) {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d.toString(); });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization ?? null, body });
      if (redirect) {
        res.writeHead(req.method === 'GET' ? 302 : 307, { location: redirect + req.url });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url.startsWith('/oauth2/v1/token')) res.end(JSON.stringify({ access_token: 'rogue-token', token_timeout: 3600 }));
      else res.end(JSON.stringify({ pagination: { offset: 0, limit: 20, total: 0 }, data: [] }));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = server.address().port;
  return {
    port, url: `http://127.0.0.1:${port}`, seen,
    async stop() { server.closeAllConnections?.(); await new Promise((r) => server.close(r)); },
  };
}

// A directory only root may write to, holding an administrator-layer policy file (as
// policy.test.mjs makes them).
function adminFile(policy) {
  const dir = scratchDir('fb-endpoint-admin-');
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  fs.chmodSync(file, 0o644);
  return file;
}
function writeAdmin(file, policy) {
  // Save-by-rename, as an editor does; still root-owned and 0644.
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(policy));
  fs.chmodSync(tmp, 0o644);
  fs.renameSync(tmp, file);
}
function userFile(policy) {
  const file = path.join(scratchDir('fb-endpoint-user-'), 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  return file;
}
const isRoot = process.getuid && process.getuid() === 0;
const needsRoot = !isRoot && 'needs root for a root-owned administrator file';

const SECRET = 'endpoint-attack-secret-value';
const CREDS = { EQUINIX_API_CLIENTID: 'endpoint-attack-client', EQUINIX_API_CLIENTSECRET: SECRET };

let pinned; // the sandbox process the administrator pins
let rogue; // the agent's server
let admin; // the administrator's policy file, pinning `pinned`
const pinnedRequests = async () => (await pinned.admin('GET', '/sandbox/v1/requests')).data;

before(async () => {
  pinned = await startSandboxProcess();
  rogue = await startRecorder();
  if (isRoot) admin = adminFile({ fabric: { endpoint: pinned.url } });
});
after(async () => {
  if (rogue) await rogue.stop();
  if (pinned) await pinned.stop();
});

// Every way the agent can make the broker call: a read (GET), a search (POST), a propose (dry
// run) and a confirm with a made-up token. Returns the texts of the results.
async function tryEverything(b) {
  const out = [];
  for (const [name, args] of [
    ['fabric_list_metros', {}],
    ['fabric_search_connections', { filter: { and: [] } }],
    ['fabric_propose_change', { change_type: 'connection_create', spec: connectionSpec() }],
    ['fabric_confirm_change', { confirm_token: 'x'.repeat(43) }],
  ]) {
    const r = await b.call(name, args).catch((e) => ({ thrown: String(e) }));
    out.push(JSON.stringify(r));
  }
  return out.join('\n');
}

// 1. The agent's own environment for the broker it spawns (its MCP client's config): every
// spelling of an endpoint that is not the pinned one, with client credentials, their alias
// names, or a static token. Nothing may reach the rogue server, and nothing the pinned one
// (the broker is configured for another endpoint; it refuses everything).
test('admin lock: no request reaches an endpoint the agent put in the environment, in any spelling', { skip: needsRoot, timeout: 240000 }, async () => {
  const r = rogue.port;
  const p = new URL(pinned.url).port;
  const variants = [
    { EQUINIX_API_ENDPOINT: `http://127.0.0.1:${r}`, ...CREDS },
    { EQUINIX_API_ENDPOINT: `http://127.0.0.1:${r}/`, ...CREDS },
    { EQUINIX_API_ENDPOINT: `HTTP://127.0.0.1:${r}`, ...CREDS },
    { EQUINIX_API_ENDPOINT: `http://localhost:${r}`, ...CREDS },
    { EQUINIX_API_ENDPOINT: `http://127.1:${r}`, ...CREDS },
    { EQUINIX_API_ENDPOINT: `http://127.0.0.1:${p}@127.0.0.1:${r}`, ...CREDS }, // user info trick
    { EQUINIX_API_ENDPOINT: `http://user:pw@127.0.0.1:${r}`, ...CREDS },
    { EQUINIX_API_ENDPOINT: `http://127.0.0.1:${r}/?u=http://127.0.0.1:${p}`, ...CREDS },
    { EQUINIX_API_ENDPOINT: `http://127.0.0.1:${r}/#http://127.0.0.1:${p}`, ...CREDS },
    { EQUINIX_API_ENDPOINT: ` http://127.0.0.1:${r} `, ...CREDS },
    { EQUINIX_API_ENDPOINT: `http://127.0.0.1:${r}`, EQUINIX_CLIENT_ID: 'alias-id', EQUINIX_CLIENT_SECRET: SECRET },
    { EQUINIX_API_ENDPOINT: `http://127.0.0.1:${r}`, EQUINIX_API_TOKEN: SECRET },
    // A path on the pinned host's address is another endpoint (it is compared whole).
    { EQUINIX_API_ENDPOINT: `${pinned.url}/x/..`, ...CREDS },
  ];
  const before = (await pinnedRequests()).length;
  for (const env of variants) {
    const b = await startBroker({ args: ['--toolsets', 'read,mutate'], env: { ...env, FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin } });
    try {
      const names = (await b.client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.includes('fabric_propose_change'), `mutate is not served for ${env.EQUINIX_API_ENDPOINT}`);
      const text = await tryEverything(b);
      assert.ok(!text.includes(SECRET), 'no secret in a result');
    } finally { await b.close(); }
    assert.deepEqual(rogue.seen, [], `nothing reached the rogue server for ${JSON.stringify(env)}`);
  }
  assert.equal((await pinnedRequests()).length, before, 'nothing reached the pinned endpoint either');
});

// The control: spellings of the pinned endpoint itself are that endpoint and do reach it (so
// the test above cannot pass because nothing is ever sent).
test('admin lock: the pinned endpoint, with a trailing slash or in capitals, is served', { skip: needsRoot, timeout: 120000 }, async () => {
  for (const endpoint of [pinned.url, `${pinned.url}/`, pinned.url.replace('http://', 'HTTP://')]) {
    const before = (await pinnedRequests()).filter((q) => q.path === '/oauth2/v1/token').length;
    const b = await startBroker({ args: ['--toolsets', 'read'], env: { ...pinned.env, EQUINIX_API_ENDPOINT: endpoint, FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin } });
    try {
      const r = await b.call('fabric_list_metros', {});
      assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 1500));
    } finally { await b.close(); }
    const after = (await pinnedRequests()).filter((q) => q.path === '/oauth2/v1/token').length;
    assert.ok(after > before, `a token request reached the pinned endpoint for ${endpoint}`);
  }
  assert.deepEqual(rogue.seen, []);
});

// 2. The user's files, which the agent can write: a user policy file that "locks" its own
// endpoint, and the saved settings (QSettings) naming it. The administrator's lock wins.
test('admin lock: a user policy file and saved settings naming the rogue endpoint change nothing', { skip: needsRoot, timeout: 120000 }, async () => {
  const config = scratchDir('fb-endpoint-config-');
  fs.mkdirSync(path.join(config, 'fabric-broker'));
  fs.writeFileSync(path.join(config, 'fabric-broker', 'fabric-broker.conf'), `[fabric]\nendpoint=${rogue.url}\n`);
  fs.writeFileSync(path.join(config, 'fabric-broker', 'policy.json'), JSON.stringify({ fabric: { endpoint: rogue.url } }));
  for (const env of [
    { ...CREDS, XDG_CONFIG_HOME: config }, // saved endpoint + the user's own policy file
    { ...CREDS, EQUINIX_API_ENDPOINT: rogue.url, FABRIC_BROKER_POLICY: userFile({ fabric: { endpoint: rogue.url } }) },
  ]) {
    const b = await startBroker({ args: ['--toolsets', 'read,mutate'], env: { ...env, FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin } });
    try {
      const text = await tryEverything(b);
      assert.ok(!text.includes(SECRET));
    } finally { await b.close(); }
    assert.deepEqual(rogue.seen, [], `nothing reached the rogue server (${Object.keys(env).join(', ')})`);
  }
});

// 3. A policy file edited while the broker runs: the administrator pins the endpoint after the
// broker (configured by the agent for its own server, with a token already cached) started.
// From the reload on, nothing more reaches the rogue server, not even with the cached token.
test('admin lock set while running: the cached token is not used, nothing more reaches the other endpoint', { skip: needsRoot, timeout: 120000 }, async () => {
  const file = adminFile({});
  const local = await startRecorder();
  try {
    const b = await startBroker({ args: ['--toolsets', 'read'], env: { ...CREDS, EQUINIX_API_ENDPOINT: local.url, FABRIC_BROKER_EXTRA_ADMIN_POLICY: file } });
    try {
      const r = await b.call('fabric_list_metros', {});
      assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 1500));
      assert.ok(local.seen.some((q) => q.url === '/oauth2/v1/token'), 'the control reached it before the lock');
      writeAdmin(file, { fabric: { endpoint: pinned.url } });
      // Until the reload applies, reads still go there (the lock is not there yet).
      const deadline = Date.now() + 15000;
      for (;;) {
        const x = await b.call('fabric_list_metros', {});
        if (/locks the Fabric endpoint to/.test(JSON.stringify(x))) break;
        assert.ok(Date.now() < deadline, 'the reload applied the lock within 15 s');
        await sleep(200);
      }
      const seen = local.seen.length;
      const text = await tryEverything(b);
      assert.match(text, /locks the Fabric endpoint to/, text.slice(0, 2000));
      assert.equal(local.seen.length, seen, `nothing more reached it: ${JSON.stringify(local.seen.slice(seen))}`);
    } finally { await b.close(); }
  } finally { await local.stop(); }
});

// 4. A redirect from the pinned endpoint to another host: the token POST (307 would replay the
// secret) and a GET read (302, with the bearer token) must not follow it.
test('admin lock: a redirect from the pinned endpoint to another host is not followed', { skip: needsRoot, timeout: 120000 }, async () => {
  const target = await startRecorder();
  const redirector = await startRecorder({ redirect: target.url });
  const file = adminFile({ fabric: { endpoint: redirector.url } });
  try {
    for (const env of [CREDS, { EQUINIX_API_TOKEN: SECRET }]) {
      const b = await startBroker({ args: ['--toolsets', 'read'], env: { ...env, EQUINIX_API_ENDPOINT: redirector.url, FABRIC_BROKER_EXTRA_ADMIN_POLICY: file } });
      try {
        await b.call('fabric_list_metros', {});
        await b.call('fabric_get_connection', { connection_id: '11111111-1111-4111-8111-111111111111' }).catch(() => {});
      } finally { await b.close(); }
    }
    assert.ok(redirector.seen.some((q) => q.url === '/oauth2/v1/token'), 'the token request went to the pinned endpoint');
    assert.ok(redirector.seen.some((q) => q.method === 'GET'), 'a read went to the pinned endpoint');
    assert.deepEqual(target.seen, [], 'nothing followed the redirect');
  } finally {
    await redirector.stop();
    await target.stop();
  }
});

// 5. The sandbox exemption: --sandbox (the agent writes its client's command line) while the
// environment's credentials and endpoint point at the rogue server. The embedded sandbox serves
// (exempt, it carries no account) and the environment's credentials go nowhere.
test('admin lock: --sandbox with the agent\'s endpoint and credentials uses only the embedded sandbox', { skip: needsRoot, timeout: 120000 }, async () => {
  const b = await startBroker({ args: ['--sandbox', '--toolsets', 'read,mutate'], env: { ...CREDS, EQUINIX_API_ENDPOINT: rogue.url, FABRIC_BROKER_EXTRA_ADMIN_POLICY: admin } });
  try {
    assert.match(b.client.getInstructions() ?? '', /^SANDBOX/);
    const r = await b.call('fabric_list_metros', {});
    assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 1500));
    await tryEverything(b);
  } finally { await b.close(); }
  assert.deepEqual(rogue.seen, [], 'nothing reached the rogue server');
});


// ---------------------------------------------------------------------------------------------
// The desktop app's switch from the embedded sandbox to the saved account (issue #40), in the
// real app under Xvfb with a real Secret Service, driven as desktop-sandbox-switch.test.mjs
// drives it. The agent started the app (or wrote its autostart entry) with an environment of its
// choosing: EQUINIX_API_ENDPOINT naming its own server and no credentials, so the app starts on
// the embedded sandbox. The person then saves the real endpoint and the account in Settings; the
// offer names that endpoint; the person presses "Switch to Equinix now".

const here = path.dirname(fileURLToPath(import.meta.url));
const guiSkip = atspiSkip() || keyringSkip();
const SAVED = { id: 'endpoint-attack-switch-client', secret: 'endpoint-attack-switch-secret' };
const OFFER = '^Switch to Equinix now\\? - Fabric Broker$';

async function desktopSwitch({ lock }) {
  const agent = await startRecorder();
  const xvfb = await startXvfb(860, 920);
  const base = baseEnv();
  const bus = await startSessionBus(base.XDG_RUNTIME_DIR);
  const keyring = await startKeyring(bus, scratchDir('fb-endpoint-keyring-'));
  const env = { ...base, DISPLAY: xvfb.display, DBUS_SESSION_BUS_ADDRESS: bus.address, QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1', EQUINIX_API_ENDPOINT: agent.url };
  if (lock) env.FABRIC_BROKER_EXTRA_ADMIN_POLICY = adminFile({ fabric: { endpoint: pinned.url } });
  delete env.QT_QPA_PLATFORM;
  let appLog = '';
  const app = spawn(BIN, ['--toolsets', 'read,mutate'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', (d) => { appLog += d.toString(); });
  const driver = spawn(PYTHON, [path.join(here, 'atspi_driver.py')], {
    env: { PATH: env.PATH, HOME: env.HOME, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR, DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers = readline.createInterface({ input: driver.stdout })[Symbol.asyncIterator]();
  const atspi = async (req) => {
    driver.stdin.write(`${JSON.stringify(req)}\n`);
    const { value, done } = await answers.next();
    if (done) throw new Error(`the AT-SPI driver exited; app log:\n${appLog.slice(-2000)}`);
    const out = JSON.parse(value);
    if (!out.ok) throw new Error(`AT-SPI ${req.cmd}: ${out.error}; app log:\n${appLog.slice(-2000)}`);
    return out;
  };
  const waitForWindow = (name, ms = 20000) => xvfb.waitForWindow(name, ms, () => `app log:\n${appLog.slice(-3000)}`, app);
  const connect = async (name) => {
    const transport = new StdioClientTransport({ command: BIN, args: ['--stdio'], env: { ...getDefaultEnvironment(), XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR }, stderr: 'ignore' });
    const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    return client;
  };
  const pinnedTokensBefore = (await pinnedRequests()).filter((q) => q.path === '/oauth2/v1/token').length;
  const result = { agent };
  try {
    await waitForWindow('^Fabric Broker - SANDBOX$');
    const main = xvfb.windows('^Fabric Broker - SANDBOX$')[0];
    // A person: File > Settings..., the endpoint (unless the policy locks it), the client id and
    // secret; Return saves.
    xvfb.press(main, ['alt+f', 's'], { pauseMs: 200 });
    const settings = await waitForWindow('^Settings - Fabric Broker');
    await sleep(400);
    if (!lock) {
      xvfb.press(settings, ['ctrl+a']);
      xvfb.xdo('type', '--delay', '15', pinned.url);
      xvfb.press(settings, ['Tab']);
    }
    xvfb.press(settings, ['ctrl+a']);
    xvfb.xdo('type', '--delay', '15', SAVED.id);
    xvfb.press(settings, ['Tab', 'ctrl+a']);
    xvfb.xdo('type', '--delay', '15', SAVED.secret);
    xvfb.press(settings, ['Return']);
    assert.ok(await xvfb.windowGone(settings, 15000), `the settings dialog did not close; app log:\n${appLog.slice(-3000)}`);
    // Either the offer comes up, or the app says why it makes none.
    const deadline = Date.now() + 20000;
    while (!xvfb.windows(OFFER).length && !/no switch offered/.test(appLog) && Date.now() < deadline) await sleep(100);
    result.offered = xvfb.windows(OFFER).length > 0;
    if (result.offered) {
      const said = (await atspi({ cmd: 'text', window: OFFER, contains: 'creates go to' })).texts.join('\n');
      result.offer = said;
      assert.ok(said.includes(pinned.url), `the offer names the endpoint the person saved: ${said}`);
      assert.ok(!said.includes(agent.url), `the offer does not name the agent's endpoint: ${said}`);
      await atspi({ cmd: 'press', window: OFFER, role: 'push button', name: '^Switch to Equinix now$' });
      await waitForWindow('^Fabric Broker$', 30000);
    } else {
      await sleep(2000); // a switch, if one were going to happen anyway, has time to
      await waitForWindow('^Fabric Broker - SANDBOX$');
    }
    const client = await connect('endpoint-attack-after-switch');
    try {
      result.read = await client.callTool({ name: 'fabric_list_metros', arguments: {} });
      result.instructions = client.getInstructions() ?? '';
    } finally { await client.close(); }
    result.pinnedTokens = (await pinnedRequests()).filter((q) => q.path === '/oauth2/v1/token').slice(pinnedTokensBefore);
    const audit = path.join(env.XDG_DATA_HOME, 'fabric-broker', 'audit.jsonl');
    result.switched = fs.readFileSync(audit, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.type === 'endpoint_switched').map((r) => r.data);
    result.appLog = appLog;
    return result;
  } finally {
    driver.stdin.end(); driver.kill('SIGTERM');
    if (app.exitCode === null && app.signalCode === null) {
      const t = setTimeout(() => app.kill('SIGKILL'), 5000);
      app.kill('SIGTERM');
      await once(app, 'exit');
      clearTimeout(t);
    }
    await keyring.stop();
    await stopSessionBus(bus);
    await xvfb.stop();
    await agent.stop();
  }
}

// 6. The person saves the real endpoint and the account, but the app's environment (written by
// the agent) names its own server first (flag > environment > saved): a switch would send the
// account's secret there, which the person never named. Found by this suite (it got through:
// the offer named the saved endpoint and the secret went to the environment's); the app now
// makes no offer when the environment's endpoint overrides the saved one, and the switch itself
// compares the endpoint the new host would use.
test('desktop switch: no switch, and no secret, to the environment\'s endpoint over the saved one', { skip: guiSkip, timeout: 240000 }, async () => {
  const r = await desktopSwitch({ lock: false });
  const leaked = r.agent.seen.filter((q) => q.body.includes(SAVED.secret));
  assert.deepEqual(r.agent.seen, [], `requests reached the agent's server (${leaked.length} with the secret): ${JSON.stringify(r.agent.seen).slice(0, 1500)}; offer: ${r.offer}; audit: ${JSON.stringify(r.switched)}`);
  assert.equal(r.offered, false, `no offer: ${r.offer}`);
  assert.match(r.appLog, /no switch offered: the environment's endpoint overrides the saved one/);
  assert.deepEqual(r.switched, [], 'no switch recorded');
  assert.match(r.instructions, /^SANDBOX/, 'the app stays on its sandbox');
  assert.ok(!r.read.isError, JSON.stringify(r.read).slice(0, 1500));
  assert.deepEqual(r.pinnedTokens, [], 'nor did the saved endpoint get the secret yet');
});

// 7. The same with the administrator's lock on the endpoint the person saved: nothing reaches
// the environment's endpoint, and no switch is offered to it.
test('desktop switch under an admin fabric.endpoint lock: nothing reaches the environment\'s endpoint', { skip: guiSkip || needsRoot, timeout: 240000 }, async () => {
  const r = await desktopSwitch({ lock: true });
  assert.deepEqual(r.agent.seen, [], `nothing reached the agent's server: ${JSON.stringify(r.agent.seen).slice(0, 1500)}`);
  assert.equal(r.offered, false, `no offer: ${r.offer}`);
  assert.deepEqual(r.switched, [], 'no switch recorded');
});
