// Signed approvals made outside an app (docs/team-signing.md), for the team e2e suites: an
// Ed25519 key held in node:crypto (an approver without a desktop app), the statement of a
// proposal as the database holds it, RFC 8785 canonical JSON, and the signed row inserted with
// psql as the approver's role. In team mode only signed approvals listed in the administrator's
// team.approver_keys count (issue #34), so every approval a test writes is one of these.
import crypto from 'node:crypto';

export const sha256hex = (s) => crypto.createHash('sha256').update(s).digest('hex');

// An Ed25519 public key as raw bytes (the last 32 bytes of its SPKI DER), its base64 and its
// OpenSSH fingerprint (SHA256: and the unpadded base64 of the SHA-256 of the raw key).
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
export const rawPublic = (publicKey) => publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
export const fingerprintOf = (raw) => `SHA256:${crypto.createHash('sha256').update(raw).digest('base64').replace(/=+$/, '')}`;
export const publicKeyFromBase64 = (b64) => crypto.createPublicKey({ key: Buffer.concat([SPKI_ED25519, Buffer.from(b64, 'base64')]), format: 'der', type: 'spki' });

// An approver whose key lives here: { role, privateKey, publicKey, listed } where listed is the
// team.approver_keys entry the administrator writes for it.
export function nodeApprover(role) {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const raw = rawPublic(publicKey);
  return { role, privateKey, publicKey, listed: { role, fingerprint: fingerprintOf(raw), public_key: raw.toString('base64') } };
}

// RFC 8785: members sorted by UTF-16 code units (what Array.prototype.sort compares), no
// whitespace, strings and numbers as ECMAScript's JSON.stringify writes them (RFC 8785 is defined
// by exactly that serialization; numbers were parsed to IEEE doubles first, as the app does).
export function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) throw new Error(`not a JSON number: ${v}`);
  return JSON.stringify(v);
}

// What a statement signs of proposal id, as the database holds it (the schema owner reads it,
// as hex so that no byte is lost to psql's output): its id, change type, request bytes, binding,
// price, dry run (jsonb's text), token hash, proposer and expiry in ms, as the app reads them.
export async function proposalFacts(team, id) {
  const [[pid, changeType, requestHex, bindingHex, priceHex, dryRunHex, tokenSha256, proposer, expiresMs]] = await team.query('fb_owner', `SELECT id::text, change_type,
      encode(convert_to(request, 'UTF8'), 'hex'), encode(convert_to(binding::text, 'UTF8'), 'hex'),
      coalesce(encode(convert_to(price::text, 'UTF8'), 'hex'), ''), encode(convert_to(dry_run::text, 'UTF8'), 'hex'),
      encode(token_sha256, 'hex'), proposer, (extract(epoch FROM expires_at) * 1000)::bigint
      FROM fabric_team.proposals WHERE id = :'id'::uuid`, { id });
  const text = (hex) => Buffer.from(hex, 'hex').toString('utf8');
  return {
    id: pid, changeType, request: Buffer.from(requestHex, 'hex'), binding: JSON.parse(text(bindingHex)),
    price: priceHex ? JSON.parse(text(priceHex)) : null, dryRun: text(dryRunHex), tokenSha256, proposer, expiresMs: Number(expiresMs),
  };
}

// The statement, version 2 (docs/team-signing.md, "The statement"), in its canonical form: what
// an approver's app computes from the row it showed.
export function statementFor(facts, { approver, dialogSha256, decision = 'approve', decidedAt = new Date() }) {
  return canonical({
    format: 'fabric-broker approval 2',
    proposal_id: facts.id,
    change_type: facts.changeType,
    request_sha256: crypto.createHash('sha256').update(`${facts.changeType}\n`).update(facts.request).digest('hex'),
    dry_run_sha256: sha256hex(canonical(JSON.parse(facts.dryRun))),
    price_sha256: sha256hex(canonical(facts.price)),
    fabric_endpoint: facts.binding.fabric_endpoint ?? '',
    credential_identity: facts.binding.credential_identity ?? '',
    token_sha256: facts.tokenSha256,
    proposer: facts.proposer,
    dialog_sha256: dialogSha256,
    decision,
    approver,
    decided_at: decidedAt.toISOString(),
    expires_at: new Date(facts.expiresMs).toISOString(),
  });
}

// Inserts a signed approval row of proposal id with psql as role. row.approver is set only by
// the schema owner (an approver's row is always their own role, the database's identity).
export async function insertSigned(team, role, id, { approver, dialogSha256, statement, privateKey, publicKey, decision = 'approve', osUser, host }) {
  const signature = crypto.sign(null, Buffer.from(statement, 'utf8'), privateKey);
  const vars = {
    id, decision, dialog: dialogSha256, statement, sig: signature.toString('hex'), pub: rawPublic(publicKey).toString('hex'),
    os_user: osUser ?? approver ?? role, host: host ?? `ws-${approver ?? role}`,
  };
  const columns = 'proposal_id, decision, dialog_sha256, os_user, host, statement, signature, public_key';
  const values = ":'id'::uuid, :'decision', decode(:'dialog', 'hex'), :'os_user', :'host', :'statement', decode(:'sig', 'hex'), decode(:'pub', 'hex')";
  const sql = approver
    ? `INSERT INTO fabric_team.approvals (approver, ${columns}) VALUES (:'approver', ${values}) RETURNING id`
    : `INSERT INTO fabric_team.approvals (${columns}) VALUES (${values}) RETURNING id`;
  const [[approvalId]] = await team.query(role, sql, approver ? { ...vars, approver } : vars);
  return approvalId;
}

// approver's signed decision on proposal id, as its app would record it (the dialog text's
// SHA-256 is the hash of text).
export async function approveSigned(team, approver, id, { decision = 'approve', text = `${approver.role}'s dialog for ${id}` } = {}) {
  const facts = await proposalFacts(team, id);
  const dialogSha256 = sha256hex(text);
  const statement = statementFor(facts, { approver: approver.role, dialogSha256, decision });
  return insertSigned(team, approver.role, id, { dialogSha256, statement, privateKey: approver.privateKey, publicKey: approver.publicKey, decision });
}
