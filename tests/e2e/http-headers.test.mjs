// `fabric-broker http-headers`: the snippets of MCP over HTTP never hold the bearer token, which
// rotates at every start; a client gets it from the helper instead. Here the official SDK client
// authenticates with what the helper prints against a running `--headless --http` broker, after
// a restart rotated the token; the Claude Code snippet's headersHelper is run the way Claude Code
// runs it (a shell command); the helper refuses token files that are not private.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN, baseEnv } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

// Starts the broker with --http on a free port; resolves once it printed its URL.
async function startHttpBroker(env) {
  const child = spawn(BIN, ['--headless', '--http', '127.0.0.1:0', '--sandbox'],
    { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d.toString(); });
  const re = /MCP over HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/;
  while (!re.test(err)) {
    if (child.exitCode !== null) throw new Error(`no HTTP endpoint: ${err}`);
    await new Promise((r) => { child.stderr.once('data', r); child.once('exit', r); });
  }
  return { proc: child, url: re.exec(err)[1], get stderr() { return err; } };
}

async function stop(b) {
  if (b.proc.exitCode === null) { b.proc.kill('SIGTERM'); await once(b.proc, 'exit'); }
}

function helper(env, args = []) {
  return spawnSync(BIN, ['http-headers', ...args], { env, encoding: 'utf8' });
}

// The words bash itself makes of a command line (no expansion runs: eval of quoted words only).
function shellWords(line) {
  const out = execFileSync('bash', ['-c', 'eval "set -- $1"; printf "%s\\0" "$@"', '_', line], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

function httpSnippets(exe, url) {
  const doc = JSON.parse(execFileSync(BIN, ['client-config', '--json', '--executable', exe, '--http', url],
    { encoding: 'utf8', env: { PATH: process.env.PATH } }));
  return { doc: doc.http, s: Object.fromEntries(doc.http.snippets.map((x) => [x.id, x])) };
}

test('http-headers: the SDK client authenticates with the helper\'s header after a restart rotated the token', async () => {
  const env = baseEnv();
  const tokenFile = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token');
  const first = await startHttpBroker(env);
  const before = helper(env);
  assert.equal(before.status, 0, before.stderr);
  const oldHeaders = JSON.parse(before.stdout);
  await stop(first);

  const b = await startHttpBroker(env);
  try {
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    const r = helper(env);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `{"Authorization":"Bearer ${token}"}\n`, 'one line of JSON, the current token');
    const headers = JSON.parse(r.stdout);
    assert.notDeepEqual(headers, oldHeaders, 'the restart rotated the token');
    assert.equal(helper(env, ['--token']).stdout, `${token}\n`);

    // The official SDK client with the helper's output as its headers.
    const transport = new StreamableHTTPClientTransport(new URL(b.url), { requestInit: { headers } });
    const client = new Client({ name: 'http-headers-e2e', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'fabric_list_metros'));
    await client.close();

    // The header from before the restart no longer works.
    const stale = new Client({ name: 'http-headers-stale', version: '1.0.0' });
    await assert.rejects(stale.connect(new StreamableHTTPClientTransport(new URL(b.url),
      { requestInit: { headers: oldHeaders } })), /401|nauthori/);

    // Claude Code runs headersHelper as a shell command: the snippet's command, run so, prints
    // the same header, and the snippet itself holds no token.
    const { s } = httpSnippets(BIN, b.url);
    const words = shellWords(s['claude-code-http'].text);
    assert.deepEqual(words.slice(0, 6), ['claude', 'mcp', 'add-json', '--scope', 'user', 'fabric-broker']);
    const config = JSON.parse(words[6]);
    assert.deepEqual(Object.keys(config).sort(), ['headersHelper', 'type', 'url']);
    assert.equal(config.url, b.url);
    const run = spawnSync('sh', ['-c', config.headersHelper], { env, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), headers);
    // The environment-variable clients: the note's export line, run by a shell, fills the
    // variable the snippet names with the current token.
    const exportLine = /export FABRIC_BROKER_HTTP_TOKEN="\$\(.*?--token\)"/.exec(s['codex-http'].note)[0];
    const filled = spawnSync('bash', ['-c', `${exportLine}; printf %s "$FABRIC_BROKER_HTTP_TOKEN"`], { env, encoding: 'utf8' });
    assert.equal(filled.stdout, token);
    for (const x of Object.values(s)) assert.ok(!x.text.includes(token) && !(x.note ?? '').includes(token), x.id);
  } finally {
    await stop(b);
  }
  assert.ok(!b.stderr.includes(fs.readFileSync(tokenFile, 'utf8').trim()), 'the token never reaches the log');
});

test('http-headers: no token, a token file others can read, a symlink or an open directory are refused', () => {
  const env = baseEnv();
  const missing = helper(env);
  assert.equal(missing.status, 1);
  assert.equal(missing.stdout, '');
  assert.match(missing.stderr, /no token at .*fabric-broker-http\.token/);
  assert.ok(!fs.existsSync(path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token')), 'the helper never creates a token');

  const dir = path.join(env.XDG_RUNTIME_DIR, 'tok');
  fs.mkdirSync(dir, { mode: 0o700 });
  const file = path.join(dir, 'fabric-broker-http.token');
  const token = 'A'.repeat(43);
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  assert.equal(helper(env, ['--token-file', file, '--token']).stdout, `${token}\n`);
  fs.chmodSync(file, 0o644);
  const open = helper(env, ['--token-file', file]);
  assert.equal(open.status, 1);
  assert.match(open.stderr, /0600/);
  fs.chmodSync(file, 0o600);
  fs.symlinkSync(file, path.join(dir, 'link'));
  assert.equal(helper(env, ['--token-file', path.join(dir, 'link')]).status, 1);
  fs.chmodSync(dir, 0o755);
  const dirOpen = helper(env, ['--token-file', file]);
  assert.equal(dirOpen.status, 1);
  assert.match(dirOpen.stderr, /0700/);
  assert.equal(helper(env, ['--nope']).status, 2);
  assert.match(helper(env, ['--help']).stdout, /Usage: fabric-broker http-headers/);
});

test('client-config --http: every HTTP snippet parses, names the helper or the variable, and the README shows them', () => {
  const exe = "/opt/Fabric Broker/bin/fabric-broker";
  const url = 'http://127.0.0.1:7431/mcp';
  const { doc, s } = httpSnippets(exe, url);
  assert.deepEqual(Object.keys(s), ['claude-code-http', 'codex-http', 'gemini-http', 'cursor-http', 'http-headers']);
  assert.equal(doc.token_variable, 'FABRIC_BROKER_HTTP_TOKEN');
  assert.deepEqual(shellWords(JSON.parse(shellWords(s['claude-code-http'].text)[6]).headersHelper), [exe, 'http-headers']);
  assert.deepEqual(shellWords(s['http-headers'].text), [exe, 'http-headers']);
  const codex = parseToml(s['codex-http'].text).mcp_servers['fabric-broker'];
  assert.deepEqual(codex, { url, bearer_token_env_var: 'FABRIC_BROKER_HTTP_TOKEN', tool_timeout_sec: 900 });
  assert.deepEqual(JSON.parse(s['gemini-http'].text).mcpServers['fabric-broker'],
    { httpUrl: url, headers: { Authorization: 'Bearer $FABRIC_BROKER_HTTP_TOKEN' }, trust: false });
  assert.deepEqual(JSON.parse(s['cursor-http'].text).mcpServers['fabric-broker'],
    { url, headers: { Authorization: 'Bearer ${env:FABRIC_BROKER_HTTP_TOKEN}' } });
  for (const id of ['codex-http', 'gemini-http', 'cursor-http']) {
    assert.match(s[id].note, /export FABRIC_BROKER_HTTP_TOKEN="\$\('\/opt\/Fabric Broker\/bin\/fabric-broker' http-headers --token\)"/);
  }
  const text = execFileSync(BIN, ['client-config', '--executable', exe, '--http', url], { encoding: 'utf8' });
  for (const x of Object.values(s)) assert.ok(text.includes(x.text), x.id);
  assert.ok(text.includes(doc.note));
  assert.throws(() => execFileSync(BIN, ['client-config', '--http', 'ftp://x'], { stdio: 'pipe' }), (e) => e.status === 2);

  const readme = fs.readFileSync(path.join(here, '../../README.md'), 'utf8');
  for (const x of Object.values(httpSnippets('/usr/bin/fabric-broker', url).s)) {
    assert.ok(readme.includes(x.text), `README.md lacks the ${x.id} snippet:\n${x.text}`);
  }
});
