-- 005_resolutions: unknown outcomes resolved by a second person (issue #26, requirement 5;
-- docs/team-signing.md, docs/team.md).
--
-- A create whose outcome is `unknown` (its proposer's broker could not tell whether Fabric made
-- it) stays `unknown` until an approver other than its proposer records what the catalog shows:
-- `created` (with the uuid found) or `not_created`. The resolution is one row, written once by
-- that approver (as itself: the role comes from current_user and is checked against
-- session_user, as for approvals), optionally with the statement it signed (the RFC 8785 JSON of
-- src/team/ResolutionStatement), and the database alone then moves the proposal on. Until then
-- the create counts toward the team's day (sending, created and unknown count: not_created,
-- like failed, does not). Only the schema owner may UPDATE or DELETE a resolution;
-- `fabric-broker team verify` finds it when it does.

-- The new end state of a create: it did not leave, or left nothing behind.
ALTER TABLE fabric_team.proposals DROP CONSTRAINT proposals_state_check;
ALTER TABLE fabric_team.proposals ADD CONSTRAINT proposals_state_check
  CHECK (state IN ('pending', 'consumed', 'sending', 'created', 'failed', 'unknown', 'denied',
                   'expired', 'cancelled', 'not_created'));

-- Resolutions ---------------------------------------------------------------------------------
-- One per proposal, final once written. uuid is what the resolver found (a Fabric uuid, lower
-- case) for `created`, NULL for `not_created`. dialog_sha256 is the SHA-256 of the exact text the
-- resolver's dialog showed, the catalog's answer included. os_user and host are the resolver
-- app's own report, as for approvals.
CREATE TABLE fabric_team.resolutions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  proposal_id uuid NOT NULL UNIQUE REFERENCES fabric_team.proposals (id),
  resolver name NOT NULL DEFAULT current_user,
  outcome text NOT NULL CHECK (outcome IN ('created', 'not_created')),
  uuid text CHECK (uuid IS NULL OR
                   uuid ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
  dialog_sha256 bytea NOT NULL CHECK (octet_length(dialog_sha256) = 32),
  os_user text NOT NULL DEFAULT '' CHECK (octet_length(os_user) <= 256),
  host text NOT NULL DEFAULT '' CHECK (octet_length(host) <= 256),
  resolved_at timestamptz NOT NULL DEFAULT now(),
  statement text CHECK (statement IS NULL OR octet_length(statement) <= 2048),
  signature bytea CHECK (signature IS NULL OR octet_length(signature) = 64),
  public_key bytea CHECK (public_key IS NULL OR octet_length(public_key) = 32),
  CHECK ((outcome = 'created') = (uuid IS NOT NULL)),
  CHECK ((statement IS NULL) = (signature IS NULL) AND (statement IS NULL) = (public_key IS NULL))
);

GRANT SELECT ON fabric_team.resolutions TO fabric_proposers, fabric_approvers;
GRANT INSERT (proposal_id, outcome, uuid, dialog_sha256, os_user, host, statement, signature,
              public_key)
  ON fabric_team.resolutions TO fabric_approvers;

ALTER TABLE fabric_team.resolutions ENABLE ROW LEVEL SECURITY;
CREATE POLICY resolutions_read ON fabric_team.resolutions FOR SELECT
  TO fabric_proposers, fabric_approvers USING (true);
-- A resolution is recorded only for a proposal still `unknown`, and never by its proposer's role
-- (a member of both groups cannot settle what its own broker lost track of).
CREATE POLICY resolutions_resolve ON fabric_team.resolutions FOR INSERT TO fabric_approvers
  WITH CHECK (resolver = current_user AND resolver = session_user AND EXISTS (
    SELECT FROM fabric_team.proposals p
    WHERE p.id = proposal_id AND p.state = 'unknown' AND p.proposer <> current_user));

-- The transition graph of 003, and unknown -> created | not_created only as a resolution says:
-- the proposer (who may UPDATE its proposal's state) cannot resolve its own unknown outcome.
CREATE OR REPLACE FUNCTION fabric_team.proposal_transition() RETURNS trigger
  LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF (to_jsonb(NEW) - 'state' - 'state_changed_at' - 'sent_at') IS DISTINCT FROM
     (to_jsonb(OLD) - 'state' - 'state_changed_at' - 'sent_at') THEN
    RAISE EXCEPTION 'fabric_team: only the state of a proposal may change'
      USING ERRCODE = 'check_violation';
  END IF;
  NEW.sent_at := OLD.sent_at;
  IF NEW.state IS DISTINCT FROM OLD.state THEN
    IF (OLD.state, NEW.state) IN (('unknown', 'created'), ('unknown', 'not_created')) THEN
      IF NOT EXISTS (SELECT FROM fabric_team.resolutions r
                     WHERE r.proposal_id = NEW.id AND r.outcome = NEW.state) THEN
        RAISE EXCEPTION 'fabric_team: an unknown outcome becomes % only through a resolution by '
                        'another role than the proposer''s (fabric_team.resolutions)', NEW.state
          USING ERRCODE = 'check_violation';
      END IF;
    ELSIF (OLD.state, NEW.state) NOT IN (
        ('pending', 'consumed'), ('pending', 'expired'),
        ('consumed', 'sending'), ('consumed', 'denied'), ('consumed', 'expired'),
        ('consumed', 'cancelled'),
        ('sending', 'created'), ('sending', 'failed'), ('sending', 'unknown')) THEN
      RAISE EXCEPTION 'fabric_team: a proposal cannot go from % to %', OLD.state, NEW.state
        USING ERRCODE = 'check_violation';
    END IF;
    NEW.state_changed_at := now();
    IF NEW.state = 'sending' THEN
      NEW.sent_at := now();
    END IF;
  END IF;
  RETURN NEW;
END
$$;

-- A resolution moves its proposal on and lands in the audit chain, whoever wrote it: the event
-- outcome_resolved (with the statement's SHA-256 and the signing key, as approval_recorded
-- since 004), then the proposal_state event of the move itself. The actor is the session's own
-- login role. Runs as the schema owner (a proposal is otherwise moved only by its proposer).
CREATE FUNCTION fabric_team.resolve_outcome() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  INSERT INTO fabric_team.team_audit (actor, event, proposal_id, detail)
  VALUES (session_user, 'outcome_resolved', NEW.proposal_id,
          (jsonb_build_object('proposal_id', NEW.proposal_id, 'resolution_id', NEW.id,
                              'outcome', NEW.outcome, 'uuid', NEW.uuid,
                              'resolver', NEW.resolver,
                              'dialog_sha256', encode(NEW.dialog_sha256, 'hex')) ||
           jsonb_strip_nulls(jsonb_build_object(
             'statement_sha256', encode(sha256(convert_to(NEW.statement, 'UTF8')), 'hex'),
             'public_key', encode(NEW.public_key, 'base64'))))::text);
  UPDATE fabric_team.proposals SET state = NEW.outcome
  WHERE id = NEW.proposal_id AND state = 'unknown';
  IF NOT FOUND THEN
    RAISE EXCEPTION 'fabric_team: proposal % is not unknown: there is nothing to resolve',
      NEW.proposal_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER resolutions_resolve AFTER INSERT ON fabric_team.resolutions
  FOR EACH ROW EXECUTE FUNCTION fabric_team.resolve_outcome();

-- The wake-up of 002 for a resolution too (its proposal's id; the move it makes notifies as
-- well, and PostgreSQL folds the two into one).
CREATE OR REPLACE FUNCTION fabric_team.notify_queue() RETURNS trigger
  LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF TG_TABLE_NAME IN ('approvals', 'resolutions') THEN
    PERFORM pg_notify('fabric_team', NEW.proposal_id::text);
  ELSE
    PERFORM pg_notify('fabric_team', NEW.id::text);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER resolutions_notify AFTER INSERT ON fabric_team.resolutions
  FOR EACH ROW EXECUTE FUNCTION fabric_team.notify_queue();

REVOKE ALL ON FUNCTION fabric_team.proposal_transition(), fabric_team.resolve_outcome(),
  fabric_team.notify_queue() FROM PUBLIC;
