-- 002_queue: what the desktop apps' shared queue needs (docs/team.md, "The queue").
--
-- Approvals say from which OS user and host the approver's app decided, so that an approval made
-- as the proposing OS user on the proposing host never counts toward a quorum (the columns are
-- the approver app's own report: they can exclude, never qualify).
ALTER TABLE fabric_team.approvals
  ADD COLUMN os_user text NOT NULL DEFAULT '' CHECK (octet_length(os_user) <= 256),
  ADD COLUMN host text NOT NULL DEFAULT '' CHECK (octet_length(host) <= 256);
GRANT INSERT (os_user, host) ON fabric_team.approvals TO fabric_approvers;

-- A wake-up on the channel fabric_team whenever a proposal is made or moves on, or a decision is
-- recorded. The payload is the proposal's id and nothing else: listeners always re-read the
-- rows, a notification is never taken as a fact.
CREATE FUNCTION fabric_team.notify_queue() RETURNS trigger
  LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF TG_TABLE_NAME = 'approvals' THEN
    PERFORM pg_notify('fabric_team', NEW.proposal_id::text);
  ELSE
    PERFORM pg_notify('fabric_team', NEW.id::text);
  END IF;
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION fabric_team.notify_queue() FROM PUBLIC;
CREATE TRIGGER proposals_notify AFTER INSERT OR UPDATE ON fabric_team.proposals
  FOR EACH ROW EXECUTE FUNCTION fabric_team.notify_queue();
CREATE TRIGGER approvals_notify AFTER INSERT ON fabric_team.approvals
  FOR EACH ROW EXECUTE FUNCTION fabric_team.notify_queue();
