// A failed HTTP bind is a warning in the window, never a failed start: the test holds the port,
// starts the desktop app with `--http 127.0.0.1:PORT` under Xvfb (its own D-Bus session,
// QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1), and reads the main window through AT-SPI
// (atspi_driver.py) as a screen reader would: the app serves its socket, the window shows the
// warning with an accessible name and description, and the token file holds a new token (the
// one a client may have handed to whoever held the port is worthless). Skips without Xvfb,
// dbus-run-session or python3-pyatspi.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import readline from 'node:readline';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, baseEnv } from './lib.mjs';
import { startXvfb } from './xvfb.mjs';
import { PYTHON, atspiSkip, startSessionBus } from './atspi.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const skip = atspiSkip();

test('the port taken: the desktop app starts, its window says HTTP is off, the token rotated', { skip }, async () => {
  const holder = net.createServer(() => {});
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  const port = holder.address().port;
  const xvfb = await startXvfb(600, 640);
  const base = baseEnv();
  const bus = await startSessionBus(base.XDG_RUNTIME_DIR);
  const env = { ...base, DISPLAY: xvfb.display, DBUS_SESSION_BUS_ADDRESS: bus.address, QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1' };
  delete env.QT_QPA_PLATFORM; // a real X display, not offscreen
  // A token a client was given before: it must not survive the start.
  const tokenFile = path.join(env.XDG_RUNTIME_DIR, 'fabric-broker-http.token');
  const oldToken = 'B'.repeat(43);
  fs.writeFileSync(tokenFile, `${oldToken}\n`, { mode: 0o600 });
  let log = '';
  const app = spawn(BIN, ['--http', `127.0.0.1:${port}`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  app.stderr.on('data', (d) => { log += d.toString(); });
  const driver = spawn(PYTHON, [path.join(here, 'atspi_driver.py')], {
    env: { PATH: env.PATH, HOME: env.HOME, XDG_RUNTIME_DIR: env.XDG_RUNTIME_DIR, DISPLAY: env.DISPLAY, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers = readline.createInterface({ input: driver.stdout })[Symbol.asyncIterator]();
  try {
    driver.stdin.write(`${JSON.stringify({ cmd: 'find', window: '^Fabric Broker', role: 'label', name: '^Warning: MCP over HTTP is off$', timeout: 60 })}\n`);
    const { value } = await answers.next();
    const found = JSON.parse(value ?? '{}');
    assert.ok(found.ok, `${found.error}\napp log:\n${log.slice(-2000)}`);
    assert.match(found.description, new RegExp(`^Warning: MCP over HTTP is off: cannot listen on 127\\.0\\.0\\.1 port ${port}: .*already in use`), found.description);
    assert.equal(app.exitCode, null, 'the app is still running');
    assert.ok(fs.existsSync(path.join(env.XDG_RUNTIME_DIR, 'fabric-broker.sock')), 'the socket serves on');
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(token, oldToken, 'the token was rotated');
    assert.match(log, /MCP over HTTP is off/);
    assert.ok(!log.includes(token), 'the token never reaches the log');
  } finally {
    driver.stdin.end(); driver.kill('SIGTERM');
    app.kill('SIGTERM');
    if (app.exitCode === null) await once(app, 'exit');
    bus.proc.stdin.end(); if (bus.proc.exitCode === null) await once(bus.proc, 'exit');
    await xvfb.stop();
    holder.close();
  }
});
