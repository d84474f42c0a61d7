-- Request limits shared by every API process (src/contexts/limits/shared-limits.ts): without
-- them each process kept its own budgets, so N processes let N budgets through, each counted a
-- caller's violations apart, and two of them could ban the same caller twice. The tables are
-- UNLOGGED: a crash of PostgreSQL empties them, which only hands every caller a full budget.
--
-- A caller's budget of one kind, as a token bucket: `tokens` as of `updated_at`, refilled at the
-- rate the caller of tagwise_take_tokens names. No row is a full bucket.
CREATE UNLOGGED TABLE "rate_limit_buckets" (
	"identity" text NOT NULL,
	"budget" text NOT NULL,
	"tokens" double precision NOT NULL,
	"updated_at" timestamp with time zone NOT NULL DEFAULT clock_timestamp(),
	CONSTRAINT "rate_limit_buckets_pkey" PRIMARY KEY ("identity", "budget")
);
--> statement-breakpoint
-- Refill the bucket and put back p_return tokens a process took and did not spend (never past the
-- capacity), then take up to p_want tokens when at least p_need are there (else none); one
-- statement under the row's lock, so two processes never take the same tokens.
CREATE FUNCTION tagwise_take_tokens(p_identity text, p_budget text, p_capacity double precision, p_refill double precision, p_need double precision, p_want double precision, p_return double precision)
RETURNS TABLE (granted double precision, tokens_left double precision) LANGUAGE plpgsql AS $$
DECLARE
  have double precision;
BEGIN
  INSERT INTO rate_limit_buckets AS b (identity, budget, tokens, updated_at)
  VALUES (p_identity, p_budget, p_capacity, clock_timestamp())
  ON CONFLICT (identity, budget) DO UPDATE
    SET tokens = least(p_capacity, b.tokens + greatest(0, extract(epoch FROM clock_timestamp() - b.updated_at)) * p_refill + p_return),
        updated_at = clock_timestamp()
  RETURNING b.tokens INTO have;
  granted := CASE WHEN have >= p_need THEN least(p_want, have) ELSE 0 END;
  tokens_left := have - granted;
  IF granted > 0 THEN
    UPDATE rate_limit_buckets SET tokens = tokens_left WHERE identity = p_identity AND budget = p_budget;
  END IF;
  RETURN NEXT;
END $$;
--> statement-breakpoint
-- A caller's refused requests in the window that began with the first of them.
CREATE UNLOGGED TABLE "rate_limit_violations" (
	"identity" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"window_start" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- Count p_count violations; true for exactly the one call that brings the window to p_ban_after
-- (the count starts again from there), so exactly one process issues the ban.
CREATE FUNCTION tagwise_count_violations(p_identity text, p_count integer, p_window_seconds double precision, p_ban_after integer)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  n integer;
  fresh boolean;
BEGIN
  INSERT INTO rate_limit_violations AS v (identity, count, window_start)
  VALUES (p_identity, p_count, clock_timestamp())
  ON CONFLICT (identity) DO UPDATE
    SET count = CASE WHEN v.window_start > clock_timestamp() - make_interval(secs => p_window_seconds) THEN v.count + p_count ELSE p_count END,
        window_start = CASE WHEN v.window_start > clock_timestamp() - make_interval(secs => p_window_seconds) THEN v.window_start ELSE clock_timestamp() END
  RETURNING count INTO n;
  IF n >= p_ban_after THEN
    DELETE FROM rate_limit_violations WHERE identity = p_identity;
    RETURN true;
  END IF;
  RETURN false;
END $$;
--> statement-breakpoint
-- The requests of a caller running now behind a gate (reverse searches), each until it leaves or
-- its hold runs out (a process killed in the middle never leaves).
CREATE UNLOGGED TABLE "client_gate_slots" (
	"gate" text NOT NULL,
	"identity" text NOT NULL,
	"token" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "client_gate_slots_pkey" PRIMARY KEY ("gate", "identity", "token")
);
--> statement-breakpoint
-- Enter when fewer than p_concurrency of the caller's requests hold a slot; the caller's
-- advisory lock (the two-key space, apart from the bigint keys of the indexer) orders entries.
CREATE FUNCTION tagwise_enter_gate(p_gate text, p_identity text, p_token text, p_concurrency integer, p_hold_seconds double precision)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(1952933735, hashtext(p_gate || ':' || p_identity));
  DELETE FROM client_gate_slots WHERE gate = p_gate AND identity = p_identity AND expires_at <= clock_timestamp();
  IF (SELECT count(*) FROM client_gate_slots WHERE gate = p_gate AND identity = p_identity) >= p_concurrency THEN
    RETURN false;
  END IF;
  INSERT INTO client_gate_slots (gate, identity, token, expires_at)
  VALUES (p_gate, p_identity, p_token, clock_timestamp() + make_interval(secs => p_hold_seconds));
  RETURN true;
END $$;
