-- 004_signed_approvals: operator-signed approvals (issue #26, docs/team-signing.md).
--
-- An approval row may carry the statement its approver signed (the RFC 8785 canonical JSON of
-- src/team/ApprovalStatement), the Ed25519 signature over exactly those bytes, and the raw public
-- key that made it. The database checks only their form: whether a signature counts is decided by
-- each workstation against its own administrator's policy (team.approver_keys), never by a key the
-- database holds, so a row inserted by whoever administers the database counts for nothing.
-- Like the rest of an approval, the three are written once by the approver and never changed
-- (only the schema owner may UPDATE an approval; `fabric-broker team verify` finds it when it does).
ALTER TABLE fabric_team.approvals
  ADD COLUMN statement text CHECK (statement IS NULL OR octet_length(statement) <= 2048),
  ADD COLUMN signature bytea CHECK (signature IS NULL OR octet_length(signature) = 64),
  ADD COLUMN public_key bytea CHECK (public_key IS NULL OR octet_length(public_key) = 32),
  ADD CHECK ((statement IS NULL) = (signature IS NULL) AND (statement IS NULL) = (public_key IS NULL));
GRANT INSERT (statement, signature, public_key) ON fabric_team.approvals TO fabric_approvers;

-- The team audit chain records the SHA-256 of the signed statement and the signing key with the
-- decision, so a statement changed afterwards differs from what the chain says was recorded.
CREATE OR REPLACE FUNCTION fabric_team.audit_approval() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  INSERT INTO fabric_team.team_audit (actor, event, proposal_id, detail)
  VALUES (session_user, 'approval_recorded', NEW.proposal_id,
          jsonb_strip_nulls(jsonb_build_object(
            'approver', NEW.approver, 'decision', NEW.decision,
            'dialog_sha256', encode(NEW.dialog_sha256, 'hex'),
            'statement_sha256', encode(sha256(convert_to(NEW.statement, 'UTF8')), 'hex'),
            'public_key', encode(NEW.public_key, 'base64')))::text);
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION fabric_team.audit_approval() FROM PUBLIC;
