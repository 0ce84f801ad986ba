-- 006_transitions: every state change through the schema's own functions (issue #34, items 4, 5,
-- 6 and 9; docs/team.md, "The schema", "Locks and leases").
--
-- No member writes a proposal's state any more: UPDATE on proposals is revoked, and consume,
-- begin_send, finish_send, transition, recover_own and settle_orphans are SECURITY DEFINER
-- functions (they run as the schema owner, pin their search_path and give up after a lock_timeout)
-- that check who calls them (session_user) themselves. The locks they take are row locks on
-- tables only the owner may touch (team_day_lock, leases), never advisory locks, which any role
-- that can connect may take. Whether the session that consumed or is sending a proposal is still
-- there is a lease: the holder's login role, backend pid and backend start, checked against
-- pg_stat_activity.

-- Locks and leases -----------------------------------------------------------------------------
-- One row: every begin_send of the team serializes on its row lock (the team's day).
CREATE TABLE fabric_team.team_day_lock (
  one boolean PRIMARY KEY DEFAULT true CHECK (one)
);
INSERT INTO fabric_team.team_day_lock DEFAULT VALUES;

-- Who holds a proposal between its consume and its outcome: taken by consume (and again by
-- begin_send), given up by finish_send or a transition to an end state, and by crash recovery
-- only once its session is gone. backend_start is NULL when the owner may not read it
-- (pg_read_all_stats); the pid and the role are then what identifies the session.
CREATE TABLE fabric_team.leases (
  proposal_id uuid PRIMARY KEY REFERENCES fabric_team.proposals (id),
  holder name NOT NULL,
  pid integer NOT NULL,
  backend_start timestamptz,
  taken_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON fabric_team.team_day_lock, fabric_team.leases FROM PUBLIC;

-- This session's backend start, as far as the owner may read it.
CREATE FUNCTION fabric_team.own_backend_start() RETURNS timestamptz
  LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()
$$;

-- Whether the session that took a lease is still connected: its pid, as its login role, started
-- when the lease says (when both sides can see it).
CREATE FUNCTION fabric_team.lease_alive(p_holder name, p_pid integer, p_start timestamptz)
  RETURNS boolean LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT EXISTS (
    SELECT FROM pg_stat_activity a
    WHERE a.pid = p_pid AND a.usename = p_holder
      AND (a.backend_start IS NULL OR p_start IS NULL OR a.backend_start = p_start))
$$;

-- Whether the calling session is the lease's.
CREATE FUNCTION fabric_team.lease_mine(p_holder name, p_pid integer, p_start timestamptz)
  RETURNS boolean LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT p_holder = session_user AND p_pid = pg_backend_pid()
     AND p_start IS NOT DISTINCT FROM fabric_team.own_backend_start()
$$;

-- Takes (or keeps) the lease of p_id for the calling session; false when another live session
-- holds it.
CREATE FUNCTION fabric_team.take_lease(p_id uuid) RETURNS boolean
  LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  l record;
BEGIN
  SELECT * INTO l FROM fabric_team.leases WHERE proposal_id = p_id FOR UPDATE;
  IF FOUND THEN
    IF NOT fabric_team.lease_mine(l.holder, l.pid, l.backend_start)
       AND fabric_team.lease_alive(l.holder, l.pid, l.backend_start) THEN
      RETURN false;
    END IF;
    UPDATE fabric_team.leases SET holder = session_user, pid = pg_backend_pid(),
      backend_start = fabric_team.own_backend_start(), taken_at = now()
    WHERE proposal_id = p_id;
  ELSE
    INSERT INTO fabric_team.leases (proposal_id, holder, pid, backend_start)
    VALUES (p_id, session_user, pg_backend_pid(), fabric_team.own_backend_start());
  END IF;
  RETURN true;
END
$$;

-- No direct writes of a proposal's state ------------------------------------------------------
REVOKE UPDATE ON fabric_team.proposals FROM fabric_proposers, fabric_approvers;
REVOKE UPDATE (state) ON fabric_team.proposals FROM fabric_proposers, fabric_approvers;
DROP POLICY proposals_transition ON fabric_team.proposals;

-- The monthly amount the team's day counts is the database's reading of the row's own price
-- (priced, monthly_recurring, currency: what src/core's monthlyPrice reads), never a value the
-- client gives.
REVOKE INSERT (monthly_amount, monthly_currency) ON fabric_team.proposals FROM fabric_proposers;
CREATE FUNCTION fabric_team.proposal_monthly() RETURNS trigger
  LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  NEW.monthly_amount := NULL;
  NEW.monthly_currency := NULL;
  IF NEW.price IS NOT NULL AND NEW.price -> 'priced' = 'true'::jsonb
     AND jsonb_typeof(NEW.price -> 'monthly_recurring') = 'number'
     AND jsonb_typeof(NEW.price -> 'currency') = 'string' AND NEW.price ->> 'currency' <> '' THEN
    NEW.monthly_amount := (NEW.price ->> 'monthly_recurring')::numeric;
    NEW.monthly_currency := NEW.price ->> 'currency';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER proposals_monthly BEFORE INSERT ON fabric_team.proposals
  FOR EACH ROW EXECUTE FUNCTION fabric_team.proposal_monthly();

-- The team's day: the monthly amounts of the creates that started sending in the last 24 hours,
-- in one currency. sending, created and unknown count; failed does not; not_created does not
-- only when its resolution is signed (an unsigned resolution takes nothing out of the day).
CREATE FUNCTION fabric_team.day_spent(p_currency text) RETURNS numeric
  LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce(sum(q.monthly_amount), 0) FROM fabric_team.proposals q
  WHERE q.sent_at > now() - interval '1 day'
    AND q.monthly_currency IS NOT DISTINCT FROM p_currency
    AND (q.state IN ('sending', 'created', 'unknown')
         OR (q.state = 'not_created' AND NOT EXISTS (
               SELECT FROM fabric_team.resolutions r
               WHERE r.proposal_id = q.id AND r.statement IS NOT NULL)))
$$;

-- The transitions ------------------------------------------------------------------------------
-- pending -> consumed, atomically, for the caller's own proposal: of any number of racing calls
-- one gets the row (the others wait for its row lock and then match nothing). Returns the row as
-- consumed, or nothing. The caller's session takes the proposal's lease.
CREATE FUNCTION fabric_team.consume(p_token_sha256 bytea) RETURNS SETOF fabric_team.proposals
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  SET lock_timeout = '3s' AS $$
DECLARE
  p fabric_team.proposals;
BEGIN
  FOR p IN UPDATE fabric_team.proposals SET state = 'consumed'
           WHERE token_sha256 = p_token_sha256 AND state = 'pending' AND expires_at > now()
             AND proposer = session_user
           RETURNING * LOOP
    PERFORM fabric_team.take_lease(p.id);
    RETURN NEXT p;
  END LOOP;
END
$$;

-- consumed -> sending for the caller's own proposal, in one transaction with the team's day:
-- under the row lock of team_day_lock (every begin_send of the team serializes on it) the
-- creates of the last 24 hours in the limit's currency are summed; when this one would take the
-- sum above the limit nothing moves. A NULL limit means no daily limit. A proposal no other
-- approver approved (or that anyone denied) does not move. On success the calling
-- session holds the proposal's lease until finish_send (or until it is gone, when any app
-- settles the proposal as `unknown`).
CREATE OR REPLACE FUNCTION fabric_team.begin_send(p_id uuid, p_limit_amount numeric,
                                                  p_limit_currency text)
  RETURNS TABLE (moved boolean, spent numeric, reason text)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  SET lock_timeout = '3s' AS $$
DECLARE
  p record;
  day numeric;
BEGIN
  PERFORM FROM fabric_team.team_day_lock FOR UPDATE;
  SELECT * INTO p FROM fabric_team.proposals WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT false, NULL::numeric, 'the team proposal is gone'::text;
    RETURN;
  END IF;
  IF p.proposer <> session_user THEN
    RETURN QUERY SELECT false, NULL::numeric, 'only the proposing role may send it'::text;
    RETURN;
  END IF;
  IF p.state <> 'consumed' THEN
    RETURN QUERY SELECT false, NULL::numeric, format('the proposal is %s, not consumed', p.state);
    RETURN;
  END IF;
  -- Nothing is sent (nor counted in the team's day) that no approver other than the proposer's
  -- role approved, or that anyone denied: the quorum and the keys are each workstation's to
  -- check, but a proposer alone cannot walk a row to `sending`.
  IF EXISTS (SELECT FROM fabric_team.approvals a WHERE a.proposal_id = p_id
             AND a.decision = 'deny') THEN
    RETURN QUERY SELECT false, NULL::numeric, 'the proposal was denied'::text;
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT FROM fabric_team.approvals a WHERE a.proposal_id = p_id
                 AND a.decision = 'approve' AND a.approver <> p.proposer
                 AND pg_has_role(a.approver, 'fabric_approvers', 'MEMBER')) THEN
    RETURN QUERY SELECT false, NULL::numeric,
      'no member of fabric_approvers other than the proposer''s role approved it'::text;
    RETURN;
  END IF;
  IF p_limit_amount IS NOT NULL AND p.monthly_amount IS NOT NULL THEN
    IF p.monthly_currency <> p_limit_currency THEN
      RETURN QUERY SELECT false, NULL::numeric,
        format('its price is in %s and the team''s daily limit in %s', p.monthly_currency,
               p_limit_currency);
      RETURN;
    END IF;
    day := fabric_team.day_spent(p_limit_currency);
    IF day + p.monthly_amount > p_limit_amount THEN
      RETURN QUERY SELECT false, day,
        format('the team''s creates of the last 24 hours add up to %s %s a month; this one (%s) '
               'would exceed the daily limit of %s', day, p_limit_currency, p.monthly_amount,
               p_limit_amount);
      RETURN;
    END IF;
  ELSE
    day := fabric_team.day_spent(p.monthly_currency);
  END IF;
  IF NOT fabric_team.take_lease(p_id) THEN
    RETURN QUERY SELECT false, day, 'another live session of this role holds the proposal'::text;
    RETURN;
  END IF;
  UPDATE fabric_team.proposals SET state = 'sending' WHERE id = p_id;
  RETURN QUERY SELECT true, day, NULL::text;
END
$$;

-- sending -> created | failed | unknown, only from the session that holds the send (its lease);
-- the lease is given up. False when the proposal is no longer sending (recovery settled it).
CREATE FUNCTION fabric_team.finish_send(p_id uuid, p_outcome text) RETURNS boolean
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  SET lock_timeout = '3s' AS $$
DECLARE
  p record;
  l record;
BEGIN
  IF p_outcome IS NULL OR p_outcome NOT IN ('created', 'failed', 'unknown') THEN
    RAISE EXCEPTION 'fabric_team: a send ends created, failed or unknown, not %', p_outcome
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  SELECT * INTO p FROM fabric_team.proposals WHERE id = p_id FOR UPDATE;
  IF NOT FOUND OR p.state <> 'sending' THEN
    RETURN false;
  END IF;
  SELECT * INTO l FROM fabric_team.leases WHERE proposal_id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF NOT fabric_team.lease_mine(l.holder, l.pid, l.backend_start) THEN
    RAISE EXCEPTION 'fabric_team: only the session that began sending proposal % records its '
                    'outcome', p_id USING ERRCODE = 'insufficient_privilege';
  END IF;
  DELETE FROM fabric_team.leases WHERE proposal_id = p_id;
  UPDATE fabric_team.proposals SET state = p_outcome WHERE id = p_id;
  RETURN true;
END
$$;

-- The proposer's own proposal ends without a send: pending -> expired (once expired), consumed
-- -> denied | expired | cancelled. Never while another live session holds it.
CREATE FUNCTION fabric_team.transition(p_id uuid, p_from text, p_to text) RETURNS boolean
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  SET lock_timeout = '3s' AS $$
DECLARE
  p record;
  l record;
BEGIN
  IF (p_from, p_to) NOT IN (('pending', 'expired'), ('consumed', 'denied'),
                            ('consumed', 'expired'), ('consumed', 'cancelled')) THEN
    RAISE EXCEPTION 'fabric_team: a proposer cannot move a proposal from % to %', p_from, p_to
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  SELECT * INTO p FROM fabric_team.proposals WHERE id = p_id FOR UPDATE;
  IF NOT FOUND OR p.state <> p_from THEN
    RETURN false;
  END IF;
  IF p.proposer <> session_user THEN
    RAISE EXCEPTION 'fabric_team: only the proposing role moves proposal %', p_id
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF p_from = 'pending' AND p.expires_at > now() THEN
    RETURN false;
  END IF;
  SELECT * INTO l FROM fabric_team.leases WHERE proposal_id = p_id FOR UPDATE;
  IF FOUND AND NOT fabric_team.lease_mine(l.holder, l.pid, l.backend_start)
     AND fabric_team.lease_alive(l.holder, l.pid, l.backend_start) THEN
    RAISE EXCEPTION 'fabric_team: another live session holds proposal %', p_id
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  DELETE FROM fabric_team.leases WHERE proposal_id = p_id;
  UPDATE fabric_team.proposals SET state = p_to WHERE id = p_id;
  RETURN true;
END
$$;

-- Crash recovery of the caller's own role, OS user and host: a proposal whose lease holder is
-- gone (not in pg_stat_activity) and that the caller does not hold (p_held) moves on: consumed
-- -> cancelled (nothing was sent), sending -> unknown. A live session's proposals, whoever's
-- they are, are never touched.
CREATE FUNCTION fabric_team.recover_own(p_os_user text, p_host text, p_held uuid[])
  RETURNS TABLE (id uuid, state text)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  SET lock_timeout = '3s' AS $$
DECLARE
  p record;
  l record;
BEGIN
  FOR p IN SELECT q.id, q.state FROM fabric_team.proposals q
           WHERE q.proposer = session_user AND q.os_user = p_os_user AND q.host = p_host
             AND q.state IN ('consumed', 'sending')
             AND NOT (q.id = ANY (coalesce(p_held, '{}')))
           ORDER BY q.id FOR UPDATE SKIP LOCKED LOOP
    SELECT * INTO l FROM fabric_team.leases WHERE proposal_id = p.id FOR UPDATE;
    IF FOUND AND fabric_team.lease_alive(l.holder, l.pid, l.backend_start) THEN
      CONTINUE;
    END IF;
    DELETE FROM fabric_team.leases WHERE proposal_id = p.id;
    id := p.id;
    state := CASE p.state WHEN 'sending' THEN 'unknown' ELSE 'cancelled' END;
    UPDATE fabric_team.proposals q SET state = recover_own.state WHERE q.id = p.id;
    RETURN NEXT;
  END LOOP;
END
$$;

-- Every proposal left `sending` by a session that is gone becomes `unknown`, whoever asks: the
-- create may or may not exist, and it is never sent again. Returns what it moved.
CREATE OR REPLACE FUNCTION fabric_team.settle_orphans() RETURNS SETOF uuid
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  SET lock_timeout = '3s' AS $$
DECLARE
  p record;
  l record;
BEGIN
  FOR p IN SELECT q.id FROM fabric_team.proposals q WHERE q.state = 'sending'
           ORDER BY q.id FOR UPDATE SKIP LOCKED LOOP
    SELECT * INTO l FROM fabric_team.leases WHERE proposal_id = p.id FOR UPDATE;
    IF FOUND AND fabric_team.lease_alive(l.holder, l.pid, l.backend_start) THEN
      CONTINUE;
    END IF;
    DELETE FROM fabric_team.leases WHERE proposal_id = p.id;
    UPDATE fabric_team.proposals SET state = 'unknown' WHERE id = p.id;
    RETURN NEXT p.id;
  END LOOP;
END
$$;

-- Rejection reports ----------------------------------------------------------------------------
-- approval_rejected (an approval the proposing broker did not count, and why) comes only from the
-- proposal's own proposer role, through this function, which names who reported it.
ALTER POLICY team_audit_append ON fabric_team.team_audit
  WITH CHECK (actor = current_user AND actor = session_user AND event <> 'approval_rejected');

CREATE FUNCTION fabric_team.report_rejected(p_id uuid, p_detail text) RETURNS bigint
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  SET lock_timeout = '3s' AS $$
DECLARE
  v_proposer name;
  v_detail jsonb;
  v_seq bigint;
BEGIN
  SELECT p.proposer INTO v_proposer FROM fabric_team.proposals p WHERE p.id = p_id;
  IF NOT FOUND OR v_proposer <> session_user THEN
    RAISE EXCEPTION 'fabric_team: only the proposal''s own proposer reports a rejected approval'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  v_detail := p_detail::jsonb;
  IF jsonb_typeof(v_detail) <> 'object' THEN
    RAISE EXCEPTION 'fabric_team: a report is a JSON object' USING ERRCODE = 'check_violation';
  END IF;
  INSERT INTO fabric_team.team_audit (actor, event, proposal_id, detail)
  VALUES (session_user, 'approval_rejected', p_id,
          (v_detail || jsonb_build_object('reported_by', session_user))::text)
  RETURNING team_audit.seq INTO v_seq;
  PERFORM pg_notify('fabric_team', p_id::text);
  RETURN v_seq;
END
$$;

REVOKE ALL ON FUNCTION fabric_team.own_backend_start(), fabric_team.lease_alive(name, integer,
  timestamptz), fabric_team.lease_mine(name, integer, timestamptz), fabric_team.take_lease(uuid),
  fabric_team.proposal_monthly(), fabric_team.day_spent(text), fabric_team.consume(bytea),
  fabric_team.finish_send(uuid, text), fabric_team.transition(uuid, text, text),
  fabric_team.recover_own(text, text, uuid[]), fabric_team.report_rejected(uuid, text),
  fabric_team.begin_send(uuid, numeric, text), fabric_team.settle_orphans() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION fabric_team.consume(bytea), fabric_team.begin_send(uuid, numeric, text),
  fabric_team.finish_send(uuid, text), fabric_team.transition(uuid, text, text),
  fabric_team.recover_own(text, text, uuid[]), fabric_team.report_rejected(uuid, text)
  TO fabric_proposers;
GRANT EXECUTE ON FUNCTION fabric_team.settle_orphans() TO fabric_proposers, fabric_approvers;
-- The advisory sending lock of 003 is gone.
DROP FUNCTION fabric_team.sending_lock_key(uuid);
