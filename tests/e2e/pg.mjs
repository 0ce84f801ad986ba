// A real, private PostgreSQL 15 cluster for one e2e test file (team mode, issue #25), as
// tests/support/PgCluster does for the C++ suites: Debian's initdb and pg_ctl
// (/usr/lib/postgresql/15/bin, or $FB_PG_BINDIR) on a Unix socket in the cluster's own folder
// only (-k DIR, listen_addresses=''), trust authentication (the roles are the identities under
// test, not passwords), stopped with `pg_ctl stop -m fast` and removed at the end.
//
// The server refuses to run as root: as root (as CI runs) every PostgreSQL tool runs through
// `runuser -u postgres --`, and the cluster lives where that user can reach it: in $TMPDIR when
// every folder above it is searchable by others, otherwise in a fresh folder under /tmp.
//
// The team (docs/team.md, "Roles"): fb_owner owns the schema (`fabric-broker team init`);
// carol proposes; alice and bob approve; dave does both.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const run = promisify(execFile);

export const PG_BINDIR = process.env.FB_PG_BINDIR || '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid() === 0;

function postgresUser() {
  try { return execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim() !== ''; } catch { return false; }
}

// A reason to skip, or false when a cluster can be made here.
export function pgSkip() {
  for (const tool of ['initdb', 'pg_ctl', 'psql']) {
    if (!fs.existsSync(path.join(PG_BINDIR, tool))) return `${PG_BINDIR}/${tool} is missing (apt-get install postgresql)`;
  }
  if (asRoot && !postgresUser()) return 'running as root needs the user postgres (Debian\'s postgresql package creates it)';
  return false;
}

// Every folder from / down to p is searchable by other users.
function reachableByOthers(p) {
  let d = path.resolve(p);
  for (;;) {
    try { if ((fs.statSync(d).mode & 0o001) === 0) return false; } catch { return false; }
    const up = path.dirname(d);
    if (up === d) return true;
    d = up;
  }
}

export const SUPERUSER = 'fb_super';

// Clusters this process started and has not stopped: stopped (immediate) and removed when the
// process exits however the test ended, so that a failed or timed-out test leaves no server.
const live = new Set();
// A signal (a runner's timeout) ends the process through exit, so that the handler runs.
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.once(sig, () => process.exit(128 + os.constants.signals[sig]));
process.on('exit', () => {
  for (const c of live) {
    const program = path.join(PG_BINDIR, 'pg_ctl');
    const args = ['-D', c.data, 'stop', '-m', 'immediate', '-w', '-t', '20'];
    try { execFileSync(asRoot ? 'runuser' : program, asRoot ? ['-u', 'postgres', '--', program, ...args] : args, { stdio: 'ignore', timeout: 30000 }); } catch { /* not running */ }
    try { fs.rmSync(c.dir, { recursive: true, force: true }); } catch { /* best effort */ }
  }
});

export class PgCluster {
  constructor() {
    let parent = os.tmpdir();
    // The socket's path (DIR/.s.PGSQL.NNNNN) must fit in sun_path (107 bytes).
    if ((asRoot && !reachableByOthers(parent)) || parent.length > 70) parent = '/tmp';
    this.dir = fs.mkdtempSync(path.join(parent, 'fbpg-'));
    this.data = path.join(this.dir, 'data');
    this.port = 20000 + Math.floor(Math.random() * 40000);
    this.running = false;
    live.add(this);
  }

  async tool(name, args, timeout = 120000) {
    const program = path.join(PG_BINDIR, name);
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
    try {
      return await run(cmd, argv, { timeout, encoding: 'utf8', env: { PATH: process.env.PATH, LANG: 'C.UTF-8' } });
    } catch (e) {
      throw new Error(`${name} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}\n${this.serverLog()}`);
    }
  }

  async start() {
    if (asRoot) execFileSync('chown', ['postgres:postgres', this.dir]);
    await this.tool('initdb', ['-D', this.data, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync', '-N']);
    await this.startServer();
  }

  async startServer() {
    const options = `-k ${this.dir} -c listen_addresses= -p ${this.port} -c fsync=off -c max_connections=100 -c shared_buffers=16MB`;
    await this.tool('pg_ctl', ['-D', this.data, '-l', path.join(this.dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start'], 70000);
    this.running = true;
  }

  // pg_ctl restart: every connection is dropped, the data is kept.
  async restart() {
    await this.tool('pg_ctl', ['-D', this.data, 'stop', '-m', 'fast', '-w', '-t', '60'], 70000);
    this.running = false;
    await this.startServer();
  }

  async stop() {
    if (this.running) {
      this.running = false;
      try { await this.tool('pg_ctl', ['-D', this.data, 'stop', '-m', 'fast', '-w', '-t', '60'], 70000); } catch { /* removed below anyway */ }
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
    live.delete(this);
  }

  // The libpq URI of role on database over the cluster's socket (no password: trust).
  uri(role, database = 'postgres') {
    return `postgresql://${encodeURIComponent(role)}@/${encodeURIComponent(database)}?host=${encodeURIComponent(this.dir)}&port=${this.port}`;
  }

  serverLog() {
    try { return fs.readFileSync(path.join(this.dir, 'server.log'), 'utf8').slice(-4000); } catch { return ''; }
  }

  // Runs sql as role on database with psql (-X: no ~/.psqlrc; ON_ERROR_STOP); returns the rows,
  // each an array of strings (unaligned, tab-separated, no header). Values go in through
  // psql variables (:'name'), never spliced into the text.
  async query(role, database, sql, vars = {}) {
    const args = ['-X', '-q', '-A', '-t', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-d', this.uri(role, database)];
    for (const [k, v] of Object.entries(vars)) args.push('-v', `${k}=${v}`);
    // On stdin: psql interpolates variables in a script, not in -c.
    const proc = spawn(path.join(PG_BINDIR, 'psql'), args, { env: { PATH: process.env.PATH, LANG: 'C.UTF-8' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = ''; let err = '';
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { err += d; });
    proc.stdin.end(sql);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60000);
    const [code] = await once(proc, 'close');
    clearTimeout(timer);
    if (code !== 0) throw new Error(`psql as ${role} (exit ${code}): ${err}`);
    return out.split('\n').filter((l) => l !== '').map((l) => l.split('\t'));
  }
}

// Starts a cluster with the team's roles and an initialized team database: fb_owner runs
// `fabric-broker team init` (bin) as any operator would. Returns { cluster, db, uri(role) }.
export async function startTeamDatabase(bin, env) {
  const cluster = new PgCluster();
  await cluster.start();
  const db = 'fabric_team_db';
  await cluster.query(SUPERUSER, 'postgres', 'CREATE ROLE fb_owner LOGIN CREATEROLE; CREATE ROLE alice LOGIN; CREATE ROLE bob LOGIN; CREATE ROLE carol LOGIN; CREATE ROLE dave LOGIN;');
  await cluster.query(SUPERUSER, 'postgres', `CREATE DATABASE ${db} OWNER fb_owner ENCODING 'UTF8' TEMPLATE template0`);
  try {
    await run(bin, ['team', 'init', cluster.uri('fb_owner', db)], { timeout: 60000, encoding: 'utf8', env });
  } catch (e) {
    throw new Error(`fabric-broker team init failed: ${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
  await cluster.query(SUPERUSER, db, 'GRANT fabric_approvers TO alice, bob, dave; GRANT fabric_proposers TO carol, dave;');
  return { cluster, db, uri: (role) => cluster.uri(role, db), query: (role, sql, vars) => cluster.query(role, db, sql, vars) };
}
