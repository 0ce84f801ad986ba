-- 003_team_day: the team's day (spend.max_monthly_recurring_per_day counted for the whole team)
-- and creates whose proposer went away while sending (docs/team.md, "The team's day", "Faults").
--
-- A proposal says its monthly recurring price as the proposing broker read it from Fabric's rate
-- card (NULL when unpriced), and when it started sending. A create counts toward the team's day
-- from the moment `sending` is committed: sending, created and unknown count, failed does not.

ALTER TABLE fabric_team.proposals
  ADD COLUMN monthly_amount numeric CHECK (monthly_amount IS NULL OR monthly_amount >= 0),
  ADD COLUMN monthly_currency text CHECK (monthly_currency IS NULL OR monthly_currency ~ '^[A-Z]{3}$'),
  ADD COLUMN sent_at timestamptz,
  ADD CHECK ((monthly_amount IS NULL) = (monthly_currency IS NULL));
GRANT INSERT (monthly_amount, monthly_currency) ON fabric_team.proposals TO fabric_proposers;
CREATE INDEX proposals_day ON fabric_team.proposals (sent_at)
  WHERE state IN ('sending', 'created', 'unknown');

-- The transition graph of 001, and sent_at: set by the database alone, when a proposal moves from
-- consumed to sending, and never changed after.
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
    IF (OLD.state, NEW.state) NOT IN (
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

-- The session-level advisory lock a proposing broker holds on each proposal it is sending; it
-- goes away with the session. Two 32-bit halves of the id, as pg_locks shows them.
CREATE FUNCTION fabric_team.sending_lock_key(p_id uuid) RETURNS bigint
  LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT ('x' || substr(replace(p_id::text, '-', ''), 1, 16))::bit(64)::bigint
$$;

-- consumed -> sending for the caller's own proposal, in one transaction with the team's day:
-- under one transaction-level advisory lock (every begin_send of the team serializes on it), the
-- creates of the last 24 hours in the limit's currency are summed; when this one would take the
-- sum above the limit nothing moves. A NULL limit means no daily limit. Runs as the caller, so
-- row-level security applies: only the proposer moves its proposal. On success the caller's
-- session also holds the proposal's sending lock (released by finish_send or when it dies).
CREATE FUNCTION fabric_team.begin_send(p_id uuid, p_limit_amount numeric, p_limit_currency text)
  RETURNS TABLE (moved boolean, spent numeric, reason text)
  LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  p record;
  day numeric;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('fabric_team.team_day'));
  SELECT * INTO p FROM fabric_team.proposals WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, NULL::numeric, 'the team proposal is gone'::text;
    RETURN;
  END IF;
  IF p.state <> 'consumed' THEN
    RETURN QUERY SELECT false, NULL::numeric, format('the proposal is %s, not consumed', p.state);
    RETURN;
  END IF;
  IF p_limit_amount IS NOT NULL AND p.monthly_amount IS NOT NULL THEN
    IF p.monthly_currency <> p_limit_currency THEN
      RETURN QUERY SELECT false, NULL::numeric,
        format('its price is in %s and the team''s daily limit in %s', p.monthly_currency,
               p_limit_currency);
      RETURN;
    END IF;
    SELECT coalesce(sum(monthly_amount), 0) INTO day FROM fabric_team.proposals
      WHERE state IN ('sending', 'created', 'unknown') AND sent_at > now() - interval '1 day'
        AND monthly_currency = p_limit_currency;
    IF day + p.monthly_amount > p_limit_amount THEN
      RETURN QUERY SELECT false, day,
        format('the team''s creates of the last 24 hours add up to %s %s a month; this one (%s) '
               'would exceed the daily limit of %s', day, p_limit_currency, p.monthly_amount,
               p_limit_amount);
      RETURN;
    END IF;
  ELSE
    SELECT coalesce(sum(monthly_amount), 0) INTO day FROM fabric_team.proposals
      WHERE state IN ('sending', 'created', 'unknown') AND sent_at > now() - interval '1 day'
        AND monthly_currency IS NOT DISTINCT FROM p.monthly_currency;
  END IF;
  UPDATE fabric_team.proposals SET state = 'sending' WHERE id = p_id AND state = 'consumed';
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, day, 'only the proposing role may send it'::text;
    RETURN;
  END IF;
  PERFORM pg_advisory_lock(fabric_team.sending_lock_key(p_id));
  RETURN QUERY SELECT true, day, NULL::text;
END
$$;

-- Every proposal left `sending` by a session that is gone (its sending lock is free) becomes
-- `unknown`, whoever asks: the create may or may not exist, and it is never sent again. Runs as
-- the schema owner (a proposal is otherwise moved only by its proposer); returns what it moved.
CREATE FUNCTION fabric_team.settle_orphans() RETURNS SETOF uuid
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  RETURN QUERY
  UPDATE fabric_team.proposals p SET state = 'unknown'
  WHERE p.state = 'sending' AND NOT EXISTS (
    SELECT FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND l.classid::bigint = (fabric_team.sending_lock_key(p.id) >> 32) & 4294967295
      AND l.objid::bigint = fabric_team.sending_lock_key(p.id) & 4294967295)
  RETURNING p.id;
END
$$;

REVOKE ALL ON FUNCTION fabric_team.sending_lock_key(uuid),
  fabric_team.begin_send(uuid, numeric, text), fabric_team.settle_orphans() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION fabric_team.sending_lock_key(uuid) TO fabric_proposers, fabric_approvers;
GRANT EXECUTE ON FUNCTION fabric_team.begin_send(uuid, numeric, text) TO fabric_proposers;
GRANT EXECUTE ON FUNCTION fabric_team.settle_orphans() TO fabric_proposers, fabric_approvers;
