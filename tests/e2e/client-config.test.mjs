// "Connect a client": every snippet comes from one generator (src/mcp/ClientSnippets, printed by
// `fabric-broker client-config --json`, shown by the desktop dialog). Each is parsed here with a
// real parser (bash for commands, JSON.parse, a TOML parser, URL + base64 decoding for install
// links) and must start exactly `<executable> --stdio`; the README shows the same text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseToml } from 'smol-toml';
import { BIN } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ARGS = ['--stdio'];
const EXECUTABLES = ['/usr/bin/fabric-broker', '/opt/Fabric Broker/bin/fabric-broker', "/tmp/it's $HOME/\"q\"\\x/fb"];

function snippets(exe) {
  const out = execFileSync(BIN, ['client-config', '--json', '--executable', exe], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  const doc = JSON.parse(out);
  assert.equal(doc.executable, exe);
  assert.deepEqual(doc.args, ARGS);
  return Object.fromEntries(doc.snippets.map((s) => [s.id, s]));
}

// The words bash itself makes of a command line (no expansion runs: eval of quoted words only).
function shellWords(line) {
  const out = execFileSync('bash', ['-c', 'eval "set -- $1"; printf "%s\\0" "$@"', '_', line], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

for (const exe of EXECUTABLES) {
  test(`client-config: every snippet parses and runs exactly ${JSON.stringify(exe)} --stdio`, () => {
    const s = snippets(exe);
    assert.deepEqual(Object.keys(s), ['claude-code', 'claude-code-json', 'claude-desktop', 'vscode', 'vscode-link', 'cursor-link', 'cursor', 'codex', 'gemini']);

    // Claude Code: user scope (the default scope is one project directory).
    assert.equal(s['claude-code'].kind, 'command');
    assert.deepEqual(shellWords(s['claude-code'].text), ['claude', 'mcp', 'add', '--scope', 'user', 'fabric-broker', '--', exe, ...ARGS]);
    const addJson = shellWords(s['claude-code-json'].text);
    assert.deepEqual(addJson.slice(0, 6), ['claude', 'mcp', 'add-json', '--scope', 'user', 'fabric-broker']);
    assert.equal(addJson.length, 7);
    assert.deepEqual(JSON.parse(addJson[6]), { type: 'stdio', command: exe, args: ARGS });

    // Claude Desktop and Cursor files: mcpServers.
    for (const id of ['claude-desktop', 'cursor']) {
      assert.equal(s[id].kind, 'file');
      assert.deepEqual(JSON.parse(s[id].text), { mcpServers: { 'fabric-broker': { command: exe, args: ARGS } } });
    }
    assert.equal(s['claude-desktop'].where, 'claude_desktop_config.json');
    assert.equal(s.cursor.where, '~/.cursor/mcp.json');

    // VS Code: `code --add-mcp '<json>'` and the vscode:mcp/install?<urlencoded json> link.
    const code = shellWords(s.vscode.text);
    assert.deepEqual(code.slice(0, 2), ['code', '--add-mcp']);
    assert.equal(code.length, 3);
    assert.deepEqual(JSON.parse(code[2]), { name: 'fabric-broker', command: exe, args: ARGS });
    const vsLink = s['vscode-link'].text;
    assert.equal(s['vscode-link'].kind, 'link');
    assert.ok(vsLink.startsWith('vscode:mcp/install?'), vsLink);
    assert.equal(new URL(vsLink).protocol, 'vscode:');
    const encoded = vsLink.slice('vscode:mcp/install?'.length);
    assert.doesNotMatch(encoded, /[ "{}]/, 'fully URL-encoded');
    assert.deepEqual(JSON.parse(decodeURIComponent(encoded)), { name: 'fabric-broker', command: exe, args: ARGS });

    // Cursor: cursor://anysphere.cursor-deeplink/mcp/install?name=…&config=<base64 json>.
    const cursor = new URL(s['cursor-link'].text);
    assert.equal(cursor.protocol, 'cursor:');
    assert.equal(cursor.host, 'anysphere.cursor-deeplink');
    assert.equal(cursor.pathname, '/mcp/install');
    assert.equal(cursor.searchParams.get('name'), 'fabric-broker');
    const config = Buffer.from(cursor.searchParams.get('config'), 'base64').toString('utf8');
    assert.deepEqual(JSON.parse(config), { command: exe, args: ARGS });

    // Codex: ~/.codex/config.toml with a tool timeout long enough for a person.
    assert.equal(s.codex.where, '~/.codex/config.toml');
    const toml = parseToml(s.codex.text);
    const codex = toml.mcp_servers['fabric-broker'];
    assert.equal(codex.command, exe);
    assert.deepEqual(codex.args, ARGS);
    assert.ok(codex.tool_timeout_sec >= 600, `tool_timeout_sec ${codex.tool_timeout_sec}`);

    // Gemini CLI: settings.json mcpServers, never trust: true.
    assert.equal(s.gemini.where, '~/.gemini/settings.json');
    const gemini = JSON.parse(s.gemini.text).mcpServers['fabric-broker'];
    assert.equal(gemini.command, exe);
    assert.deepEqual(gemini.args, ARGS);
    assert.notEqual(gemini.trust, true);
  });
}

test('client-config: the README shows the generator\'s text for /usr/bin/fabric-broker', () => {
  const readme = fs.readFileSync(path.join(here, '../../README.md'), 'utf8');
  for (const [id, s] of Object.entries(snippets('/usr/bin/fabric-broker'))) {
    assert.ok(readme.includes(s.text), `README.md lacks the ${id} snippet:\n${s.text}`);
  }
});

// Without the app, a spawned --stdio serves only the read tools: the snippets say so, and how to
// turn proposals on, wherever they are shown (the README, client-config, Connect a client).
test('client-config: the note beside the snippets says proposals are off without the app, and how to turn them on', () => {
  const doc = JSON.parse(execFileSync(BIN, ['client-config', '--json'], { encoding: 'utf8', env: { PATH: process.env.PATH } }));
  assert.match(doc.note, /^With no Fabric Broker app running, a spawned fabric-broker --stdio serves only the read tools: proposals are off\./);
  assert.match(doc.note, /start the Fabric Broker app and turn on proposals there/);
  assert.match(doc.note, /add --toolsets read,mutate after --stdio/);
  assert.match(doc.toolsets_note, /add --toolsets all-read after --stdio/);
  const text = execFileSync(BIN, ['client-config'], { encoding: 'utf8' });
  assert.equal(text.split('\n')[0], `# ${doc.note}`, 'the first line of client-config');
  assert.equal(text.split('\n')[1], `# ${doc.toolsets_note}`, 'the second line of client-config');
  const readme = fs.readFileSync(path.join(here, '../../README.md'), 'utf8').replace(/\s+/g, ' ');
  const section = readme.slice(readme.indexOf('## MCP client configuration'), readme.indexOf('Claude Code (user scope'));
  assert.ok(section.includes(doc.note), `README.md's "MCP client configuration" lacks the note:\n${doc.note}`);
  assert.ok(section.includes(doc.toolsets_note), `README.md's "MCP client configuration" lacks:\n${doc.toolsets_note}`);
});

test('client-config: the human-readable form prints the same snippets; bad options are usage errors', () => {
  const text = execFileSync(BIN, ['client-config', '--executable', '/usr/bin/fabric-broker'], { encoding: 'utf8' });
  for (const s of Object.values(snippets('/usr/bin/fabric-broker'))) assert.ok(text.includes(s.text), s.id);
  assert.match(execFileSync(BIN, ['client-config', '--help'], { encoding: 'utf8' }), /Usage: fabric-broker client-config/);
  assert.throws(() => execFileSync(BIN, ['client-config', '--nope'], { stdio: 'pipe' }), (e) => e.status === 2);
});
