// The MCP Bundle (.mcpb): built, validated and packed with the official CLI
// (packaging/mcpb/build.sh, @anthropic-ai/mcpb), then unpacked with the same CLI and started the
// way a bundle host does (server.mcp_config with ${__dirname}): an MCP client reaches the broker
// through it. Without an installed app the launcher says what is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, baseEnv, scratchDir } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const cli = path.join(here, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const version = /project\(FabricBroker[\s\S]*?VERSION ([0-9.]+)/.exec(fs.readFileSync(path.join(root, 'CMakeLists.txt'), 'utf8'))[1];

test('mcpb: the bundle validates, packs and starts the broker through its launcher', async () => {
  const out = scratchDir('fb-mcpb-');
  try {
    const log = execFileSync('bash', [path.join(root, 'packaging/mcpb/build.sh'), out], { encoding: 'utf8', cwd: root });
    assert.match(log, /Manifest schema validation passes/);
    const bundle = path.join(out, `fabric-broker-${version}.mcpb`);
    assert.ok(fs.existsSync(bundle), log);
    const unpacked = path.join(out, 'unpacked');
    execFileSync('node', [cli, 'unpack', bundle, unpacked], { encoding: 'utf8' });
    const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'manifest.json'), 'utf8'));
    assert.equal(manifest.manifest_version, '0.4');
    assert.equal(manifest.version, version);
    assert.equal(manifest.server.type, 'binary');
    assert.equal(manifest.server.entry_point, 'server/fabric-broker-stdio');
    assert.deepEqual(manifest.compatibility.platforms, ['linux']);
    const entry = path.join(unpacked, manifest.server.entry_point);
    assert.ok(fs.statSync(entry).mode & 0o100, 'the entry point is executable');

    // As a host starts it: ${__dirname} is the unpacked bundle.
    const command = manifest.server.mcp_config.command.replace('${__dirname}', unpacked);
    const env = baseEnv({ FABRIC_BROKER: BIN });
    const transport = new StdioClientTransport({ command, args: [...manifest.server.mcp_config.args, '--sandbox'], env, stderr: 'pipe' });
    const client = new Client({ name: 'mcpb-e2e', version: '1' }, { capabilities: {} });
    await client.connect(transport);
    try {
      assert.equal(client.getServerVersion().name, 'fabric-broker');
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'fabric_search_connections'));
    } finally {
      await client.close();
      fs.rmSync(env.XDG_RUNTIME_DIR, { recursive: true, force: true });
    }

    // No app installed (and none named): a clear message, exit 127.
    if (!fs.existsSync('/usr/bin/fabric-broker') && !fs.existsSync('/usr/local/bin/fabric-broker')) {
      const r = spawnSync(command, [], { env: { PATH: '/nonexistent' }, encoding: 'utf8' });
      assert.equal(r.status, 127);
      assert.match(r.stderr, /the Fabric Broker app is not installed on this machine/);
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
