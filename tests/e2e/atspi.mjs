// What the desktop e2e tests that read the app through AT-SPI (as a screen reader does) share:
// the reason to skip when the tools are missing, and a private D-Bus session bus.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import fs from 'node:fs';
import { xvfbSkip } from './xvfb.mjs';

export const PYTHON = '/usr/bin/python3';

export function atspiSkip() {
  if (xvfbSkip) return xvfbSkip;
  try { execFileSync('which', ['dbus-run-session'], { stdio: 'ignore' }); } catch {
    return 'dbus-run-session is required (apt-get install dbus dbus-x11)';
  }
  try { execFileSync(PYTHON, ['-c', 'import pyatspi'], { stdio: 'ignore' }); } catch {
    return 'python3-pyatspi is required (apt-get install at-spi2-core python3-pyatspi)';
  }
  if (!fs.existsSync('/usr/share/dbus-1/services/org.a11y.Bus.service')) return 'at-spi2-core is required (apt-get install at-spi2-core)';
  return false;
}

// A private session bus that lives as long as its stdin is open: dbus-run-session runs a shell
// that prints the bus address and waits; closing stdin ends the shell and the bus with it.
export async function startSessionBus(runtime) {
  const proc = spawn('dbus-run-session', ['--', 'sh', '-c', 'printf "%s\\n" "$DBUS_SESSION_BUS_ADDRESS"; exec cat >/dev/null'],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME ?? runtime, XDG_RUNTIME_DIR: runtime }, stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = await once(readline.createInterface({ input: proc.stdout }), 'line');
  if (!line.startsWith('unix:')) throw new Error(`dbus-run-session printed ${line}`);
  return { proc, address: line };
}
