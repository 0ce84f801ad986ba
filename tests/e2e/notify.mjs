// What the desktop notification e2e tests (issue #37) share: a notification server on a test's
// session bus (notifications_server.py: the freedesktop specification's interface, showing
// nothing, telling the test what it was asked and invoking a notification as a click does) and
// dbus-monitor on the same bus as the witness of what crossed it.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './lib.mjs';
import { PYTHON } from './atspi.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

// A reason to skip (dbus-monitor or python3-gi missing), or false.
export function notifySkip() {
  try { execFileSync('which', ['dbus-monitor'], { stdio: 'ignore' }); } catch {
    return 'dbus-monitor is required (apt-get install dbus-bin)';
  }
  try { execFileSync(PYTHON, ['-c', 'import gi; gi.require_version("Gio", "2.0")'], { stdio: 'ignore' }); } catch {
    return 'python3-gi is required (apt-get install python3-gi)';
  }
  return false;
}

async function stopProcess(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
  proc.kill('SIGTERM');
  await once(proc, 'exit');
  clearTimeout(timer);
}

// Waits until probe() is truthy (polled every 50 ms); throws what() after ms.
async function until(probe, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what()}`);
    await sleep(50);
  }
}

// The notification server on bus (atspi.mjs startSessionBus). events: every event it reported;
// waitFor(pred): the first event matching; invoke(id, action): as a person's click.
export async function startNotificationServer(bus, { markup = true } = {}) {
  const proc = spawn(PYTHON, [path.join(here, 'notifications_server.py'), ...(markup ? [] : ['--no-markup'])], {
    env: { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events = [];
  let log = '';
  proc.stderr.on('data', (d) => { log += d.toString(); });
  readline.createInterface({ input: proc.stdout }).on('line', (line) => events.push(JSON.parse(line)));
  const describe = () => `notification server events: ${JSON.stringify(events).slice(-3000)}${log ? `; it printed: ${log.slice(-1000)}` : ''}`;
  await until(() => events.find((e) => e.event === 'ready') || proc.exitCode !== null, 20000, describe);
  if (proc.exitCode !== null) throw new Error(`the notification server exited: ${describe()}`);
  return {
    events,
    describe,
    notifies: () => events.filter((e) => e.event === 'notify'),
    waitFor: (pred, ms = 20000) => until(() => events.find(pred), ms, describe),
    async invoke(id, action = 'default') {
      const before = events.filter((e) => e.event === 'invoked' && e.id === id).length;
      proc.stdin.write(`${JSON.stringify({ cmd: 'invoke', id, action })}\n`);
      await until(() => events.filter((e) => e.event === 'invoked' && e.id === id).length > before, 10000, describe);
    },
    stop: () => { proc.stdin.end(); return stopProcess(proc); },
  };
}

// `dbus-monitor --session "interface='org.freedesktop.Notifications'"` on bus, ready once it has
// seen a probe signal of the test's own. text: everything it printed; calls(member): the method
// calls of that member as printed (one block each).
export async function startNotificationMonitor(bus) {
  const env = { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: bus.address, LANG: 'C.UTF-8' };
  const proc = spawn('dbus-monitor', ['--session', "interface='org.freedesktop.Notifications'"], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  proc.stdout.on('data', (d) => { text += d.toString(); });
  proc.stderr.on('data', (d) => { text += d.toString(); });
  const deadline = Date.now() + 20000;
  while (!/member=MonitorProbe/.test(text)) {
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`dbus-monitor did not start: ${text}`);
    execFileSync('dbus-send', ['--session', '--type=signal', '/org/freedesktop/Notifications', 'org.freedesktop.Notifications.MonitorProbe'], { env });
    await sleep(100);
  }
  // One block per message: a string argument may hold line breaks, so a block ends only where
  // the next message's header starts.
  const blocks = () => text.split(/\n(?=(?:method call|method return|signal|error) time=)/);
  return {
    get text() { return text; },
    calls: (member) => blocks().filter((b) => b.startsWith('method call') && b.includes(`member=${member}`)),
    signals: (member) => blocks().filter((b) => b.startsWith('signal') && b.includes(`member=${member}`)),
    waitFor: (pred, ms = 20000) => until(() => pred(text), ms, () => `dbus-monitor printed:\n${text.slice(-4000)}`),
    stop: () => stopProcess(proc),
  };
}
