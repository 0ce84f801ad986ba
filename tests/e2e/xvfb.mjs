// The desktop e2e tests' X server and keyboard: a private Xvfb display and xdotool to find the
// app's windows and type into them as a person would. Tests skip (xvfbSkip) without either tool.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { sleep } from './lib.mjs';

const have = (cmd) => { try { execFileSync('which', [cmd], { stdio: 'ignore' }); return true; } catch { return false; } };

// A reason to skip, or false when Xvfb and xdotool are installed.
export const xvfbSkip = !have('Xvfb') || !have('xdotool') ? 'Xvfb and xdotool are required (apt-get install xvfb xdotool)' : false;

// Starts Xvfb and resolves once it accepts clients, on a display number picked at random in
// [from, to): Xvfb writes the number to -displayfd only when it is ready, so a loaded machine
// (slow start) cannot hand a test a display that is not there. Not the first free number from 0
// (-displayfd alone): a test file stopping its server on :0 while another file's server starts on
// the same :0 removed the new server's socket ("could not connect to display :0", issue #40). A
// number already taken (Xvfb exits at once) is followed by another; 60 s for a server that never
// gets ready. -noreset: the server keeps its state when its last client leaves (every xdotool
// call is a client that leaves; without it each one starts a server reset that an app
// connecting at that moment can run into).
export async function startXvfb(from, to) {
  const span = Math.max(1, to - from);
  const tried = new Set();
  let last;
  while (tried.size < Math.min(span, 20)) {
    const n = from + Math.floor(Math.random() * span);
    if (tried.has(n)) continue;
    tried.add(n);
    try {
      return await startXvfbOn(n);
    } catch (e) {
      if (e.notReady) throw e;
      last = e;
    }
  }
  throw last;
}

async function startXvfbOn(display) {
  const proc = spawn('Xvfb', [`:${display}`, '-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp', '-noreset'],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (d) => { err += d.toString(); });
  let out = '';
  const number = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(Object.assign(new Error(`Xvfb :${display} did not start within 60 s: ${err}`), { notReady: true }));
    }, 60000);
    proc.stdio[3].on('data', (d) => {
      out += d.toString();
      if (out.includes('\n')) { clearTimeout(timer); resolve(out.trim()); }
    });
    proc.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`Xvfb :${display} exited (${code ?? signal}) before it was ready: ${err}`)); });
  });
  proc.stdio[3].destroy();
  return new Xvfb(`:${number}`, proc, () => err);
}

export class Xvfb {
  constructor(display, proc, log = () => '') { this.display = display; this.proc = proc; this.log = log; }

  // Whether the server still runs, and what it printed: for a test's failure message.
  describe() {
    const state = this.proc.exitCode !== null || this.proc.signalCode !== null
      ? `Xvfb ${this.display} exited (${this.proc.exitCode ?? this.proc.signalCode})` : `Xvfb ${this.display} is running`;
    const log = this.log().trim();
    return log ? `${state}; it printed:\n${log.slice(-2000)}` : state;
  }

  // Runs xdotool against this display; returns its trimmed output (throws when it fails, as
  // `search` does when nothing matches).
  xdo(...args) {
    return execFileSync('xdotool', args, { env: { ...process.env, DISPLAY: this.display }, encoding: 'utf8' }).trim();
  }

  // Ids of the visible windows whose name matches (a regular expression, as xdotool reads it).
  windows(name) {
    try { return this.xdo('search', '--onlyvisible', '--name', name).split('\n').filter(Boolean); } catch { return []; }
  }

  // The last visible window whose name matches; throws after ms with detail() appended, or at
  // once when app (a child process whose window is awaited) has exited: a window that cannot
  // come up fails the test in seconds, not at its timeout.
  async waitForWindow(name, ms = 20000, detail = () => '', app = null) {
    const deadline = Date.now() + ms;
    const exited = () => app && (app.exitCode !== null || app.signalCode !== null);
    while (Date.now() < deadline && !exited()) {
      try { const id = this.xdo('search', '--onlyvisible', '--name', name).split('\n').pop(); if (id) return id; } catch { /* not yet */ }
      await sleep(100);
    }
    const more = detail();
    const why = exited() ? `the app exited (${app.exitCode ?? app.signalCode}) first` : `none within ${ms} ms`;
    throw new Error(`no window named ${name} (${why}; ${this.describe()})${more ? `; ${more}` : ''}`);
  }

  // True once window id is no longer visible (or no window is), false after ms.
  async windowGone(id, ms = 10000) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      let visible = '';
      try { visible = this.xdo('search', '--onlyvisible', '--name', '.'); } catch { return true; }
      if (!visible.split('\n').includes(id)) return true;
      await sleep(100);
    }
    return false;
  }

  // Gives window id the keyboard focus (activation needs a window manager; Xvfb has none).
  focus(id) {
    try { this.xdo('windowactivate', '--sync', id); } catch { /* no window manager */ }
    this.xdo('windowfocus', '--sync', id);
  }

  // Focuses window id and types keys to the focused window, as a person types; pauseMs between
  // keys for dialogs that need a moment after each one.
  press(id, keys, { pauseMs = 0 } = {}) {
    this.focus(id);
    for (const k of keys) {
      this.xdo('key', '--clearmodifiers', k);
      if (pauseMs) execFileSync('sleep', [String(pauseMs / 1000)]);
    }
  }

  // Ends the server and waits for it (it removes its lock file on SIGTERM); SIGKILL after 5 s.
  async stop() {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    this.proc.kill('SIGTERM');
    await once(this.proc, 'exit');
    clearTimeout(timer);
  }
}
