// A validating Prism mock (@stoplight/prism-cli) of Equinix's official Fabric v4 spec, for the
// contract tests. Start it as `node <prism-cli>/dist/index.js mock` (not npx, which leaves an
// orphan that cannot be stopped by PID); it needs 7-40 s to load the 2 MB document.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const prismCli = path.join(here, '..', 'node_modules/@stoplight/prism-cli/dist/index.js');
export const PRISM_START_TIMEOUT_MS = Number(process.env.FB_PRISM_START_TIMEOUT_MS || 180000);

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

export class Prism {
  constructor(specFile) { this.specFile = specFile; }

  async start() {
    if (!fs.existsSync(prismCli)) throw new Error(`${prismCli} is missing: run 'npm ci' in tests/e2e`);
    this.port = await freePort();
    this.url = `http://127.0.0.1:${this.port}`;
    this.log = '';
    this.proc = spawn(process.execPath, [prismCli, 'mock', '-h', '127.0.0.1', '-p', String(this.port), this.specFile], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    this.exited = once(this.proc, 'exit');
    this.proc.stdout.on('data', (d) => { this.log += stripAnsi(d.toString()); });
    this.proc.stderr.on('data', (d) => { this.log += stripAnsi(d.toString()); });
    const t0 = Date.now();
    for (;;) {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        throw new Error(`Prism exited (${this.proc.exitCode ?? this.proc.signalCode}) while loading the spec:\n${this.log.slice(-3000)}`);
      }
      if (Date.now() - t0 > PRISM_START_TIMEOUT_MS) {
        throw new Error(`Prism did not listen within ${PRISM_START_TIMEOUT_MS} ms:\n${this.log.slice(-3000)}`);
      }
      if (/listening on|Prism is/i.test(this.log)) {
        try { await fetch(`${this.url}/__fb_contract_probe`); break; } catch { /* not yet */ }
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    this.startupMs = Date.now() - t0;
  }

  async post(collection, body, dryRun = true) {
    const before = this.log.length;
    const res = await fetch(`${this.url}${collection}${dryRun ? '?dryRun=true' : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: 'Bearer fabric-broker-contract-test' },
      body,
    });
    const text = await res.text();
    await new Promise((r) => setTimeout(r, 50)); // let Prism's log lines for this request arrive
    const raw = res.headers.get('sl-violations');
    let violations = [];
    if (raw) { try { violations = JSON.parse(raw); } catch { violations = [{ message: raw }]; } }
    const logLines = this.log.slice(before).split('\n').filter((l) => /Violation:/.test(l)).map((l) => l.trim());
    // Violations of the request (what we sent) versus of the response (Prism's mock answer is
    // one of the spec's own examples, which do not always match the spec's own schemas).
    const isRequest = (v) => !Array.isArray(v.location) || v.location[0] !== 'response';
    return {
      status: res.status, body: text,
      violations: violations.filter(isRequest),
      responseViolations: violations.filter((v) => !isRequest(v)),
      logLines: logLines.filter((l) => !/Violation: response/.test(l)),
    };
  }

  async stop() {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(t);
  }
}

