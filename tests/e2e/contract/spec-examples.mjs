// The example walk (issue 15): every request example the official Fabric v4.31 spec gives for
// POST /fabric/v4/connections, /fabric/v4/networks, /fabric/v4/serviceTokens and
// /fabric/v4/prices/search, with its uuids and codes mapped onto sandbox estate entities of the
// same kind, is checked three ways:
//   (a) the real broker's fabric_propose_change: an example inside the typed subset validates
//       against the published schema (src/core/schemas) and the broker's rules and proposes;
//       one outside it is refused with named violations, and must be listed with its reason in
//       src/sandbox/CONTRACT.md;
//   (b) the sandbox's dry run (or price search) accepts the same bytes;
//   (c) optionally, a validating Prism mock of the official spec accepts them too.
// The spec is read from the shared folder next to the repository (../shared, or FB_SHARED_DIR);
// without it the callers skip with a message.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../../..');
export const sharedDir = process.env.FB_SHARED_DIR || path.resolve(repoRoot, '..', 'shared');
export const specFile = path.join(sharedDir, 'reference/fabric-v4/fabricv4-openapi.yaml');
export const contractFile = path.join(repoRoot, 'src/sandbox/CONTRACT.md');
export const specRelative = '../shared/reference/fabric-v4/fabricv4-openapi.yaml';

export const skipReason = fs.existsSync(specFile) ? false
  : `SKIPPED: the official Fabric v4 spec is not available at ${path.relative(repoRoot, specFile)} (relative to the `
    + 'repository; set FB_SHARED_DIR to the folder holding reference/fabric-v4/fabricv4-openapi.yaml)';

export const CREATES = {
  '/fabric/v4/connections': 'connection_create',
  '/fabric/v4/networks': 'network_create',
  '/fabric/v4/serviceTokens': 'service_token_create',
};
export const PRICES = '/fabric/v4/prices/search';
const WALKED = [...Object.keys(CREATES), PRICES];

// RFC 8785 (JCS) for the bytes sent, as the broker sends them.
export function canonicalize(v) {
  if (Array.isArray(v)) return '[' + v.map(canonicalize).join(',') + ']';
  if (v && typeof v === 'object') {
    return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonicalize(v[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

// The request examples, in spec order: [{collection, name, value}].
export function loadRequestExamples(file = specFile) {
  // CORE_SCHEMA: timestamps stay strings and the spec's bare `example: =` lines are plain "=".
  const spec = yaml.load(fs.readFileSync(file, 'utf8'), { schema: yaml.CORE_SCHEMA });
  const deref = (x) => {
    let v = x;
    for (let i = 0; v && typeof v === 'object' && typeof v.$ref === 'string' && i < 10; i += 1) {
      v = v.$ref.slice(2).split('/').reduce((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
    }
    return v;
  };
  const out = [];
  for (const collection of WALKED) {
    const body = deref(spec.paths?.[collection]?.post?.requestBody);
    const media = body?.content?.['application/json'];
    if (!media) throw new Error(`the spec has no application/json request body for POST ${collection}`);
    for (const [name, ex] of Object.entries(media.examples ?? {})) {
      const value = deref(ex)?.value;
      if (value && typeof value === 'object') out.push({ collection, name, value });
    }
  }
  return { info: spec.info, examples: out };
}

// ---- mapping onto the sandbox estate -------------------------------------------------------

const metroOf = (p) => p?.location?.metroCode;

export class EstateMap {
  constructor(estate) {
    this.estate = estate;
    this.ports = estate.ports;
    this.profiles = estate.serviceProfiles;
    this.networks = estate.networks;
    this.routers = estate.routers;
    this.tokens = estate.serviceTokens;
    this.vlan = 3000;
  }

  port(linkType, side) {
    const qinq = this.ports.filter((p) => p.encapsulation?.type === 'QINQ');
    const dot1q = this.ports.filter((p) => p.encapsulation?.type !== 'QINQ');
    const list = linkType === 'QINQ' ? qinq : dot1q;
    return side === 'zSide' ? (list[2] ?? list[list.length - 1]) : list[0];
  }

  // The seeded profile of the same kind: a cloud named by the example, else one that offers the
  // example's bandwidth.
  profile(exampleName, bandwidth) {
    const byName = (re) => this.profiles.find((p) => re.test(p.name));
    if (/aws/i.test(exampleName)) return byName(/AWS/);
    if (/azure/i.test(exampleName)) return byName(/Azure/);
    const offers = (p) => (p.accessPointTypeConfigs ?? []).some((c) => (c.supportedBandwidths ?? []).includes(bandwidth));
    return this.profiles.find((p) => /Managed|Generic/i.test(p.name) && offers(p))
      ?? this.profiles.find(offers) ?? this.profiles[0];
  }

  network(type) {
    return this.networks.find((n) => n.type === type) ?? this.networks[0];
  }

  freeVlan() { this.vlan += 1; return this.vlan; }
}

const clone = (v) => JSON.parse(JSON.stringify(v));
const UUID_RE = /^[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}$/i;

function mapAccessPoint(ap, side, ctx) {
  if (!ap || typeof ap !== 'object') return;
  const { map, notes } = ctx;
  if (ap.port?.uuid) {
    const p = map.port(ap.linkProtocol?.type, side);
    notes.push(`${side} port ${ap.port.uuid} -> ${p.name}`);
    ap.port.uuid = p.uuid;
    if (ap.location?.metroCode) ap.location.metroCode = metroOf(p);
    ctx.metro[side] = metroOf(p);
  }
  if (ap.linkProtocol) {
    for (const k of ['vlanTag', 'vlanSTag']) if (typeof ap.linkProtocol[k] === 'number') ap.linkProtocol[k] = map.freeVlan();
  }
  if (ap.profile?.uuid) {
    const prof = map.profile(ctx.name, ctx.bandwidth);
    notes.push(`${side} profile ${ap.profile.uuid} -> ${prof.name}`);
    ap.profile.uuid = prof.uuid;
    const metros = (prof.metros ?? []).map((m) => m.code);
    const want = metros.includes(ctx.metro.aSide) ? ctx.metro.aSide : metros[0];
    if (ap.location) ap.location.metroCode = want;
    if (ap.sellerRegion) {
      const regions = Object.keys(prof.metros.find((m) => m.code === want)?.sellerRegions ?? {});
      if (regions.length) ap.sellerRegion = regions[0];
      else delete ap.sellerRegion;
    }
  } else if (ap.location?.metroCode && !ap.port) {
    ap.location.metroCode = ctx.metro.aSide ?? map.ports[0].location.metroCode;
  }
  if (ap.network?.uuid) {
    const n = map.network(ctx.networkType);
    notes.push(`${side} network ${ap.network.uuid} -> ${n.name}`);
    ap.network.uuid = n.uuid;
  }
  if (ap.router?.uuid) {
    notes.push(`${side} router ${ap.router.uuid} -> ${map.routers[0].name}`);
    ap.router.uuid = map.routers[0].uuid;
  }
}

// Returns {body, notes}: the example with its estate references replaced by sandbox ones.
export function mapExample(ex, map) {
  const body = clone(ex.value);
  const notes = [];
  const ctx = { map, notes, name: ex.name, bandwidth: body.bandwidth, metro: {}, networkType: undefined };
  const future = (s) => (typeof s === 'string' && Date.parse(s) < Date.now() + 86400000
    ? s.replace(/^\d{4}/, String(new Date().getUTCFullYear() + 2)) : s);
  if (ex.collection === '/fabric/v4/connections') {
    ctx.networkType = { EVPLAN_VC: 'EVPLAN', EPLAN_VC: 'EPLAN', EVPTREE_VC: 'EVPTREE', EPTREE_VC: 'EPTREE' }[body.type];
    for (const side of ['aSide', 'zSide']) mapAccessPoint(body[side]?.accessPoint, side, ctx);
    for (const side of ['aSide', 'zSide']) {
      if (body[side]?.serviceToken?.uuid) {
        const t = map.tokens.find((x) => x.state === 'ACTIVE') ?? map.tokens[0];
        notes.push(`${side} service token ${body[side].serviceToken.uuid} -> ${t.name}`);
        body[side].serviceToken.uuid = t.uuid;
      }
    }
  } else if (ex.collection === '/fabric/v4/networks') {
    if (body.location?.metroCode) body.location.metroCode = metroOf(map.ports[0]);
  } else if (ex.collection === '/fabric/v4/serviceTokens') {
    if (body.expirationDateTime) {
      const mapped = future(body.expirationDateTime);
      if (mapped !== body.expirationDateTime) notes.push(`expirationDateTime ${body.expirationDateTime} -> ${mapped} (the example's date has passed)`);
      body.expirationDateTime = mapped;
    }
    const conn = body.connection ?? {};
    ctx.networkType = { EVPLAN_VC: 'EVPLAN', EPLAN_VC: 'EPLAN', EVPTREE_VC: 'EVPTREE', EPTREE_VC: 'EPTREE' }[conn.type];
    for (const side of ['aSide', 'zSide']) {
      for (const sel of conn[side]?.accessPointSelectors ?? []) mapAccessPoint(sel, side, ctx);
    }
  } else if (ex.collection === PRICES) {
    const walkTerms = (f) => {
      if (!f || typeof f !== 'object') return;
      for (const k of ['and', 'or']) for (const t of f[k] ?? []) walkTerms(t);
      if (typeof f.property !== 'string' || !Array.isArray(f.values)) return;
      if (/\/port\/uuid$/.test(f.property)) f.values = f.values.map((v) => (UUID_RE.test(v) ? map.ports[0].uuid : v));
      else if (/\/profile\/uuid$/.test(f.property)) f.values = f.values.map((v) => (UUID_RE.test(v) ? map.profile(ex.name, 0).uuid : v));
      else if (/\/router\/uuid$/.test(f.property)) f.values = f.values.map(() => map.routers[0].uuid);
      else if (/aSide\/accessPoint\/location\/metroCode$|\/router\/location\/metroCode$|\/port\/location\/metroCode$/.test(f.property)) f.values = f.values.map(() => metroOf(map.ports[0]));
      else if (/zSide\/accessPoint\/location\/metroCode$/.test(f.property)) f.values = f.values.map(() => metroOf(map.port('DOT1Q', 'zSide')));
    };
    walkTerms(body.filter);
  }
  return { body, notes };
}

// ---- CONTRACT.md ---------------------------------------------------------------------------

// The names listed under a CONTRACT.md section as "- `Name` (POST /fabric/v4/x): reason".
export function contractList(heading, file = contractFile) {
  const text = fs.readFileSync(file, 'utf8');
  const start = text.indexOf(heading);
  if (start < 0) return null;
  const rest = text.slice(start + 10);
  const end = rest.search(/\n## /);
  const section = end < 0 ? rest : rest.slice(0, end);
  const names = new Map();
  for (const m of section.matchAll(/^- `([^`]+)` \((POST \/fabric\/v4\/\w+)\): (.+)$/gm)) names.set(`${m[2]} ${m[1]}`, m[3]);
  return names;
}

// ---- the walk ------------------------------------------------------------------------------

// A short reason from the broker's violations: the first few, path and message.
function reasonOf(structured, text) {
  const v = structured?.error?.violations;
  if (Array.isArray(v) && v.length) {
    return v.slice(0, 3).map((x) => `${x.path}: ${x.message}`).join('; ') + (v.length > 3 ? `; (+${v.length - 3} more)` : '');
  }
  return (text ?? '').split('\n').slice(0, 2).join(' ').slice(0, 300);
}

// sandbox: {url, token}; broker: {call(name, args)} or null; prism: {post(collection, body, dryRun)} or null.
export async function walkExamples({ examples, estate, sandbox, broker, prism, specInvalid = new Map(), log = () => {} }) {
  const map = new EstateMap(estate);
  const results = [];
  for (const ex of examples) {
    const { body, notes } = mapExample(ex, map);
    const bytes = canonicalize(body);
    const isCreate = Boolean(CREATES[ex.collection]);
    const key = `POST ${ex.collection} ${ex.name}`;
    const r = { collection: ex.collection, name: ex.name, key, notes, bytes, problems: [] };
    // An example that contradicts the spec's own schema (listed in CONTRACT.md): all three
    // must refuse it.
    const invalid = specInvalid.has(key);
    r.specInvalid = invalid;
    const okStatus = (st) => st >= 200 && st < 300;
    // (b) the sandbox
    const res = await fetch(`${sandbox.url}${ex.collection}${isCreate ? '?dryRun=true' : ''}`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${sandbox.token}` }, body: bytes,
    });
    const text = await res.text();
    r.sandboxStatus = res.status;
    if (!invalid && !okStatus(res.status)) r.problems.push(`sandbox dry run: HTTP ${res.status} ${text.slice(0, 600)}`);
    if (invalid && res.status !== 400) r.problems.push(`sandbox accepted (HTTP ${res.status}) an example that violates the spec's schema: ${text.slice(0, 300)}`);
    // (a) the broker: schema + rules, then its own dry run through the sandbox
    if (isCreate && broker) {
      const propose = (spec) => broker.call('fabric_propose_change', { change_type: CREATES[ex.collection], spec });
      const p = await propose(body);
      const s = p.structuredContent;
      if (!p.isError && s?.confirm_token) {
        r.subset = 'inside';
        r.price = s.price;
        if (invalid) r.problems.push('the broker proposed an example that violates the spec\'s schema');
      } else if (s?.error?.kind === 'invalid_spec') {
        r.subset = 'outside';
        r.reason = reasonOf(s, p.content?.[0]?.text);
        // Outside only because of the name's length: the rest must be inside, so propose it
        // again with the name cut to the broker's limit.
        const v = s.error.violations ?? [];
        if (v.length && v.every((x) => x.path === '$.spec.name' && /characters long/.test(x.message))) {
          const again = await propose({ ...body, name: String(body.name).slice(0, 24) });
          r.nameOnly = true;
          if (again.isError || !again.structuredContent?.confirm_token) {
            r.problems.push(`with the name cut to 24 characters the broker still refuses it: ${(again.content?.[0]?.text ?? '').slice(0, 600)}`);
          }
        }
      } else {
        r.subset = 'error';
        r.problems.push(`the broker refused a schema-valid example: ${(p.content?.[0]?.text ?? JSON.stringify(s)).slice(0, 600)}`);
      }
    } else if (!isCreate) {
      r.subset = 'price-search';
    }
    // (c) Prism on the official spec
    if (prism) {
      const pr = await prism.post(ex.collection, bytes, isCreate);
      r.prismStatus = pr.status;
      const refused = pr.violations.length || pr.logLines.length || !okStatus(pr.status);
      if (!invalid && refused) {
        r.problems.push(`Prism: HTTP ${pr.status} ${JSON.stringify(pr.violations).slice(0, 600)} ${pr.logLines.join(' ').slice(0, 300)}`);
      }
      if (invalid && !refused) r.problems.push(`Prism accepted (HTTP ${pr.status}) an example CONTRACT.md lists as violating the spec's schema`);
    }
    log(r);
    results.push(r);
  }
  return results;
}

// Agreement of the walk with CONTRACT.md: every example the broker keeps outside the subset is
// listed there, and nothing listed there is inside.
export const OUTSIDE_HEADING = '## Official examples outside the typed subset';
export const INVALID_HEADING = '## Official examples that contradict the spec\'s own schema';

export function compareWithContract(results, listed, specInvalid) {
  const problems = [];
  if (!listed) return [`src/sandbox/CONTRACT.md has no "${OUTSIDE_HEADING}" section`];
  if (!specInvalid) return [`src/sandbox/CONTRACT.md has no "${INVALID_HEADING}" section`];
  for (const r of results) {
    const isListed = listed.has(r.key) || specInvalid.has(r.key);
    if (r.subset === 'outside' && !isListed) problems.push(`${r.key} is outside the typed subset (${r.reason}) but not listed in CONTRACT.md`);
    if (r.subset === 'inside' && listed.has(r.key)) problems.push(`${r.key} is listed in CONTRACT.md as outside the typed subset, but the broker proposes it`);
  }
  const known = new Set(results.map((r) => r.key));
  for (const k of [...listed.keys(), ...specInvalid.keys()]) if (!known.has(k)) problems.push(`CONTRACT.md lists ${k}, which is not a request example of the spec`);
  return problems;
}
