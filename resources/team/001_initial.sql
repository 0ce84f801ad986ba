-- 001_initial: the team's shared proposals, approvals and audit chain (docs/team.md).
--
-- Applied by `fabric-broker team init URI` inside one transaction, as the schema owner, after the
-- runner (src/team/TeamSchema.cpp) created the schema fabric_team and its schema_migrations
-- table. Everything here is qualified with fabric_team and every function pins its search_path,
-- so no role's search_path can redirect a name.
--
-- Who is who is the database's own notion: every row that names a role takes it from
-- current_user through a column default that no member may override (column privileges), and
-- row-level security checks that it is also session_user (a member who SET ROLE to a group or
-- another role cannot speak in its name). Only the schema owner may UPDATE or DELETE an approval
-- or an audit row; every change to either is visible to `fabric-broker audit verify --team`.

-- The two group roles are cluster-wide. The schema owner creates them when it may (CREATEROLE);
-- otherwise an administrator creates them first (docs/team.md, "Roles").
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'fabric_proposers') THEN
    CREATE ROLE fabric_proposers NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'fabric_approvers') THEN
    CREATE ROLE fabric_approvers NOLOGIN;
  END IF;
END
$$;

REVOKE ALL ON SCHEMA fabric_team FROM PUBLIC;
GRANT USAGE ON SCHEMA fabric_team TO fabric_proposers, fabric_approvers;
GRANT SELECT ON fabric_team.schema_migrations TO fabric_proposers, fabric_approvers;
ALTER DEFAULT PRIVILEGES IN SCHEMA fabric_team REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- Proposals -------------------------------------------------------------------------------------
-- One row per proposal a workstation's broker made. The confirm token never leaves the proposing
-- process: the row holds its SHA-256. request is the canonical JSON body the dry run validated,
-- byte for byte; the database checks that request_sha256 is its hash.
CREATE TABLE fabric_team.proposals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  change_type text NOT NULL
    CHECK (change_type IN ('connection_create', 'network_create', 'service_token_create')),
  request text NOT NULL
    CHECK (octet_length(request) <= 65536 AND jsonb_typeof(request::jsonb) = 'object'),
  request_sha256 bytea NOT NULL
    CHECK (request_sha256 = sha256(convert_to(request, 'UTF8'))),
  -- Where the dry run went and as whom (ProposalStore's fabricEndpoint, credentialIdentity).
  binding jsonb NOT NULL
    CHECK (jsonb_typeof(binding) = 'object' AND octet_length(binding::text) <= 4096),
  -- The rate-card context; NULL when unpriced.
  price jsonb
    CHECK (price IS NULL OR (jsonb_typeof(price) = 'object' AND octet_length(price::text) <= 16384)),
  -- Fabric's dry-run response.
  dry_run jsonb NOT NULL CHECK (octet_length(dry_run::text) <= 262144),
  proposer name NOT NULL DEFAULT current_user,
  os_user text NOT NULL CHECK (octet_length(os_user) BETWEEN 1 AND 256),
  host text NOT NULL CHECK (octet_length(host) BETWEEN 1 AND 256),
  mcp_client text NOT NULL CHECK (octet_length(mcp_client) <= 512),
  token_sha256 bytea NOT NULL UNIQUE CHECK (octet_length(token_sha256) = 32),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  state text NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'consumed', 'sending', 'created', 'failed', 'unknown', 'denied',
                     'expired', 'cancelled')),
  state_changed_at timestamptz NOT NULL DEFAULT now(),
  CHECK (expires_at > created_at AND expires_at <= created_at + interval '1 day')
);
CREATE INDEX proposals_open ON fabric_team.proposals (expires_at)
  WHERE state IN ('pending', 'consumed', 'sending', 'unknown');

GRANT SELECT ON fabric_team.proposals TO fabric_proposers, fabric_approvers;
GRANT INSERT (change_type, request, request_sha256, binding, price, dry_run, os_user, host,
              mcp_client, token_sha256, expires_at)
  ON fabric_team.proposals TO fabric_proposers;
GRANT UPDATE (state) ON fabric_team.proposals TO fabric_proposers;

ALTER TABLE fabric_team.proposals ENABLE ROW LEVEL SECURITY;
CREATE POLICY proposals_read ON fabric_team.proposals FOR SELECT
  TO fabric_proposers, fabric_approvers USING (true);
CREATE POLICY proposals_propose ON fabric_team.proposals FOR INSERT TO fabric_proposers
  WITH CHECK (proposer = current_user AND proposer = session_user AND state = 'pending');
-- Only the proposing role moves its own proposals on: the atomic consume
--   UPDATE ... SET state = 'consumed' WHERE token_sha256 = $1 AND state = 'pending' RETURNING ...
-- has one winner, because a second UPDATE waits for the first one's row lock and then re-checks
-- its WHERE clause against the committed row.
CREATE POLICY proposals_transition ON fabric_team.proposals FOR UPDATE TO fabric_proposers
  USING (proposer = current_user AND proposer = session_user)
  WITH CHECK (proposer = current_user AND proposer = session_user);

-- Every column but the state is fixed once written, and the state moves along one graph only;
-- this holds for the schema owner too (unless the owner drops the trigger).
CREATE FUNCTION fabric_team.proposal_transition() RETURNS trigger
  LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF (to_jsonb(NEW) - 'state' - 'state_changed_at') IS DISTINCT FROM
     (to_jsonb(OLD) - 'state' - 'state_changed_at') THEN
    RAISE EXCEPTION 'fabric_team: only the state of a proposal may change'
      USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.state IS DISTINCT FROM OLD.state THEN
    IF (OLD.state, NEW.state) NOT IN (
        ('pending', 'consumed'), ('pending', 'expired'),
        ('consumed', 'sending'), ('consumed', 'denied'), ('consumed', 'expired'),
        ('consumed', 'cancelled'),
        ('sending', 'created'), ('sending', 'failed'), ('sending', 'unknown')) THEN
      RAISE EXCEPTION 'fabric_team: a proposal cannot go from % to %', OLD.state, NEW.state
        USING ERRCODE = 'check_violation';
    END IF;
    NEW.state_changed_at := now();
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER proposals_transition BEFORE UPDATE ON fabric_team.proposals
  FOR EACH ROW EXECUTE FUNCTION fabric_team.proposal_transition();

-- Approvals -------------------------------------------------------------------------------------
-- One decision per approver role and proposal, final once written. dialog_sha256 is the SHA-256
-- of the exact text the approver's dialog showed. Operator-signed statements (issue #26) come in a
-- later migration as further columns.
CREATE TABLE fabric_team.approvals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  proposal_id uuid NOT NULL REFERENCES fabric_team.proposals (id),
  approver name NOT NULL DEFAULT current_user,
  decision text NOT NULL CHECK (decision IN ('approve', 'deny')),
  dialog_sha256 bytea NOT NULL CHECK (octet_length(dialog_sha256) = 32),
  decided_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (proposal_id, approver)
);

GRANT SELECT ON fabric_team.approvals TO fabric_proposers, fabric_approvers;
GRANT INSERT (proposal_id, decision, dialog_sha256) ON fabric_team.approvals TO fabric_approvers;

ALTER TABLE fabric_team.approvals ENABLE ROW LEVEL SECURITY;
CREATE POLICY approvals_read ON fabric_team.approvals FOR SELECT
  TO fabric_proposers, fabric_approvers USING (true);
-- A decision is recorded only for a proposal still open to one.
CREATE POLICY approvals_decide ON fabric_team.approvals FOR INSERT TO fabric_approvers
  WITH CHECK (approver = current_user AND approver = session_user AND EXISTS (
    SELECT FROM fabric_team.proposals p
    WHERE p.id = proposal_id AND p.state IN ('pending', 'consumed') AND p.expires_at > now()));

-- The team audit chain --------------------------------------------------------------------------
-- Append-only, one hash chain for every workstation:
--   hash = SHA-256(prev_hash || "fabric-broker team_audit 1\n" || L(seq) || L(at) || L(actor)
--                  || L(event) || L(proposal_id) || L(detail))
-- where L(x) is the UTF-8 byte length of x in decimal, ':', the UTF-8 bytes of x and ';', seq is
-- decimal, at is UTC "YYYY-MM-DDTHH:MM:SS.uuuuuuZ", a missing proposal_id is empty, and the first
-- row's prev_hash is 32 zero bytes. src/team/TeamAudit.cpp recomputes it independently.
-- The BEFORE INSERT trigger computes seq, at, prev_hash and hash while holding the row lock of
-- team_audit_head, so concurrent writers serialize and the chain never forks.
CREATE TABLE fabric_team.team_audit (
  seq bigint PRIMARY KEY,
  at timestamptz NOT NULL,
  actor name NOT NULL DEFAULT current_user,
  event text NOT NULL CHECK (event ~ '^[a-z][a-z_]{0,63}$'),
  proposal_id uuid,
  detail text NOT NULL DEFAULT '{}'
    CHECK (octet_length(detail) <= 16384 AND jsonb_typeof(detail::jsonb) = 'object'),
  prev_hash bytea NOT NULL CHECK (octet_length(prev_hash) = 32),
  hash bytea NOT NULL CHECK (octet_length(hash) = 32)
);
CREATE TABLE fabric_team.team_audit_head (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  seq bigint NOT NULL,
  hash bytea NOT NULL
);
INSERT INTO fabric_team.team_audit_head (seq, hash) VALUES (0, decode(repeat('00', 32), 'hex'));

GRANT SELECT ON fabric_team.team_audit, fabric_team.team_audit_head
  TO fabric_proposers, fabric_approvers;
GRANT INSERT (event, proposal_id, detail) ON fabric_team.team_audit
  TO fabric_proposers, fabric_approvers;

ALTER TABLE fabric_team.team_audit ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_audit_read ON fabric_team.team_audit FOR SELECT
  TO fabric_proposers, fabric_approvers USING (true);
CREATE POLICY team_audit_append ON fabric_team.team_audit FOR INSERT
  TO fabric_proposers, fabric_approvers
  WITH CHECK (actor = current_user AND actor = session_user);

CREATE FUNCTION fabric_team.team_audit_hash(prev bytea, seq bigint, at timestamptz, actor name,
                                            event text, proposal_id uuid, detail text)
  RETURNS bytea LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT sha256(prev || convert_to(
    E'fabric-broker team_audit 1\n' ||
    string_agg(octet_length(f)::text || ':' || f || ';', '' ORDER BY n), 'UTF8'))
  FROM unnest(ARRAY[
    seq::text,
    to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    actor::text,
    event,
    coalesce(proposal_id::text, ''),
    detail]) WITH ORDINALITY AS t(f, n)
$$;

CREATE FUNCTION fabric_team.team_audit_chain() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  head record;
BEGIN
  SELECT h.seq, h.hash INTO STRICT head FROM fabric_team.team_audit_head h FOR UPDATE;
  NEW.seq := head.seq + 1;
  NEW.at := clock_timestamp();
  NEW.prev_hash := head.hash;
  NEW.hash := fabric_team.team_audit_hash(NEW.prev_hash, NEW.seq, NEW.at, NEW.actor, NEW.event,
                                          NEW.proposal_id, NEW.detail);
  UPDATE fabric_team.team_audit_head SET seq = NEW.seq, hash = NEW.hash;
  RETURN NEW;
END
$$;
CREATE TRIGGER team_audit_chain BEFORE INSERT ON fabric_team.team_audit
  FOR EACH ROW EXECUTE FUNCTION fabric_team.team_audit_chain();

-- What the database itself does lands in the chain, whoever wrote it: a proposal made, its state
-- moved, a decision recorded. The actor is the session's own login role.
CREATE FUNCTION fabric_team.audit_proposal() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO fabric_team.team_audit (actor, event, proposal_id, detail)
    VALUES (session_user, 'proposal_created', NEW.id,
            jsonb_build_object('change_type', NEW.change_type,
                               'request_sha256', encode(NEW.request_sha256, 'hex'),
                               'expires_at', NEW.expires_at)::text);
  ELSIF NEW.state IS DISTINCT FROM OLD.state THEN
    INSERT INTO fabric_team.team_audit (actor, event, proposal_id, detail)
    VALUES (session_user, 'proposal_state', NEW.id,
            jsonb_build_object('from', OLD.state, 'to', NEW.state)::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER proposals_audit AFTER INSERT OR UPDATE ON fabric_team.proposals
  FOR EACH ROW EXECUTE FUNCTION fabric_team.audit_proposal();

CREATE FUNCTION fabric_team.audit_approval() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  INSERT INTO fabric_team.team_audit (actor, event, proposal_id, detail)
  VALUES (session_user, 'approval_recorded', NEW.proposal_id,
          jsonb_build_object('approver', NEW.approver, 'decision', NEW.decision,
                             'dialog_sha256', encode(NEW.dialog_sha256, 'hex'))::text);
  RETURN NULL;
END
$$;
CREATE TRIGGER approvals_audit AFTER INSERT ON fabric_team.approvals
  FOR EACH ROW EXECUTE FUNCTION fabric_team.audit_approval();

REVOKE ALL ON FUNCTION fabric_team.proposal_transition(), fabric_team.team_audit_hash(bytea, bigint,
  timestamptz, name, text, uuid, text), fabric_team.team_audit_chain(),
  fabric_team.audit_proposal(), fabric_team.audit_approval() FROM PUBLIC;
