// What the desktop e2e tests that read the app through AT-SPI (as a screen reader does) share:
// the reason to skip when the tools are missing, a private D-Bus session bus, and a Secret Service
// on it for the test that saves credentials to the keychain.
import { spawn, execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import fs from 'node:fs';
import path from 'node:path';
import { xvfbSkip } from './xvfb.mjs';

export const PYTHON = '/usr/bin/python3';
const A11Y_SERVICE = '/usr/share/dbus-1/services/org.a11y.Bus.service';

export function atspiSkip() {
  if (xvfbSkip) return xvfbSkip;
  try { execFileSync('which', ['dbus-run-session'], { stdio: 'ignore' }); } catch {
    return 'dbus-run-session is required (apt-get install dbus dbus-x11)';
  }
  try { execFileSync(PYTHON, ['-c', 'import pyatspi'], { stdio: 'ignore' }); } catch {
    return 'python3-pyatspi is required (apt-get install at-spi2-core python3-pyatspi)';
  }
  if (!fs.existsSync(A11Y_SERVICE)) return 'at-spi2-core is required (apt-get install at-spi2-core)';
  return false;
}

// A private session bus that lives as long as its stdin is open: dbus-run-session runs a shell
// that prints the bus address and waits; closing stdin ends the shell and the bus with it.
// The bus listens in `runtime` and can start one service only, the AT-SPI bus (the distribution's
// session config would start any installed service: with gnome-keyring installed, a keychain read
// in Settings would start a keyring daemon on the real user's HOME). So the app finds no Secret
// Service on it, as on a machine without one, unless a test starts its own (startKeyring).
export async function startSessionBus(runtime) {
  const dir = path.join(runtime, 'session-bus');
  fs.mkdirSync(path.join(dir, 'services'), { recursive: true, mode: 0o700 });
  fs.copyFileSync(A11Y_SERVICE, path.join(dir, 'services', 'org.a11y.Bus.service'));
  const config = path.join(dir, 'session.conf');
  fs.writeFileSync(config, `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir=${dir}</listen>
  <auth>EXTERNAL</auth>
  <servicedir>${path.join(dir, 'services')}</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`);
  const proc = spawn('dbus-run-session', [`--config-file=${config}`, '--', 'sh', '-c', 'printf "%s\\n" "$DBUS_SESSION_BUS_ADDRESS"; exec cat >/dev/null'],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME ?? runtime, XDG_RUNTIME_DIR: runtime }, stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(readline.createInterface({ input: proc.stdout }), 'line');
  if (!line.startsWith('unix:')) throw new Error(`dbus-run-session printed ${line}`);
  return { proc, address: line };
}

// Ends a bus from startSessionBus (and every client still on it) and waits for it.
export async function stopSessionBus(bus) {
  bus.proc.stdin.end();
  if (bus.proc.exitCode === null && bus.proc.signalCode === null) await once(bus.proc, 'exit');
}

// A reason to skip a test that needs its own Secret Service, or false.
export function keyringSkip() {
  for (const cmd of ['gnome-keyring-daemon', 'dbus-send']) {
    try { execFileSync('which', [cmd], { stdio: 'ignore' }); } catch {
      return `${cmd} is required (apt-get install gnome-keyring dbus)`;
    }
  }
  return false;
}

// A Secret Service on `bus` (from startSessionBus): gnome-keyring-daemon, in the foreground (a
// child of this test, stopped by stop()), with HOME and the XDG folders in `home` (a scratch
// folder, so that the real user's keyrings are never read or written), its login keyring
// created and unlocked with a throwaway password on stdin. Resolves once its default collection
// answers unlocked on the bus. No DISPLAY: it can never show a prompt.
export async function startKeyring(bus, home) {
  const env = {
    PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: home, LANG: 'C.UTF-8',
    XDG_DATA_HOME: path.join(home, 'data'), XDG_CONFIG_HOME: path.join(home, 'config'), XDG_CACHE_HOME: path.join(home, 'cache'),
    DBUS_SESSION_BUS_ADDRESS: bus.address,
  };
  const proc = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (d) => { log += d.toString(); });
  proc.stdin.end('e2e-keyring-password');
  const locked = () => new Promise((resolve) => {
    execFile('dbus-send', [`--bus=${bus.address}`, '--print-reply', '--dest=org.freedesktop.secrets',
      '/org/freedesktop/secrets/aliases/default', 'org.freedesktop.DBus.Properties.Get',
      'string:org.freedesktop.Secret.Collection', 'string:Locked'], { encoding: 'utf8' },
    (err, out) => resolve(err ? 'no answer' : /boolean false/.test(out) ? 'unlocked' : out.trim()));
  });
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    proc.kill('SIGTERM');
    await once(proc, 'exit');
    clearTimeout(timer);
  };
  const deadline = Date.now() + 30000;
  for (let state = await locked(); state !== 'unlocked'; state = await locked()) {
    if (Date.now() > deadline || proc.exitCode !== null) {
      await stop();
      throw new Error(`gnome-keyring-daemon did not serve an unlocked default collection (${state}): ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, stop, get log() { return log; } };
}
