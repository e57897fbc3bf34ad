-- The lab's database: raw events as loaded by `make collect`, and every
-- statistic computed from them (pipeline/collect/stats.sql).  Times are integer
-- nanoseconds of CLOCK_MONOTONIC (decoded from the raw files' differences).
-- Idempotent: collect runs it every time.  The raw tables keep what was
-- loaded (a run is loaded again only when its files changed); the derived
-- tables are dropped and made anew, so a changed definition never meets a
-- table of an older layout.
--
-- The raw tables are a copy of the raw files, kept only to spare the next
-- collect the loading: they are UNLOGGED (no write-ahead log; a server that
-- crashes empties them, and the next collect loads every run again) and
-- have no index but runs' key: stats.sql reads each whole and groups it by
-- run, and an index kept up to date row by row during the load cost more
-- than half of the loading (the full study of 2026-12-06: 4.6 million
-- lookups COPied in 24 s with the two indexes of lookups, 6.6 s without).
-- Nor does autovacuum come by (autovacuum_enabled off): while the runs
-- were loaded it analysed and vacuumed the growing tables over and over,
-- and vacuumed them again during stats.sql, on the same two cores.
-- collect ANALYZEs them itself once every run is loaded, and VACUUMs them
-- when it deleted rows (a run loaded again from other files, or gone).

DROP TABLE IF EXISTS run_stats, per_second, timeout_counts, service_counts, run_figures, arm_stats, verdicts, guess_results, quiet_limits,
    prediction, predicted_runs, odds_claims, odds_outside, odds;
DROP TABLE IF EXISTS predicted_sizing, verdict_family;
DROP TABLE IF EXISTS prediction_noise, predicted_twin, twin_scored, twin_scores, twin_calibration, twin_outside;
DROP TABLE IF EXISTS map_top, map_loads, map_policies, map_cells, map_trigger, map_arms, map_cell_stats,
    map_capacity, map_trigger_stats, map_points;
DROP VIEW IF EXISTS service_lookups;

-- The raw tables' layout has a number: when it is not this one (a database
-- loaded by an older lab), the raw tables are dropped and every run is
-- loaded again.  Raise it whenever a raw table below changes.
CREATE TABLE IF NOT EXISTS schema_version (v int NOT NULL);
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM schema_version WHERE v = 9) THEN
        DROP TABLE IF EXISTS runs, requests, service_requests, lookups, machine, events, syslog;
        DELETE FROM schema_version;
        INSERT INTO schema_version VALUES (9);
    END IF;
END $$;

CREATE UNLOGGED TABLE IF NOT EXISTS runs (
    run         text PRIMARY KEY,         -- <arm>-r<round>, the raw folder's name; <arm>-r<round>-a<N> for
                                          -- a kept attempt (results/attempts/), which counts in nothing
    arm         text NOT NULL,
    round       int NOT NULL,
    seconds     double precision NOT NULL,
    t0_ns       bigint NOT NULL,
    fingerprint text NOT NULL,            -- sha256 of the event files' sha256s
    fault       text NOT NULL,            -- run.json's fault.name: none, down, hang, reset, never, flaky, missing, slow, slowboth
    win_from_ns bigint,                   -- its window in ns from t0_ns; both null without a window,
    win_to_ns   bigint,                   -- win_to_ns alone null for a window lasting to the end of the run
    stores      int NOT NULL,             -- run.json's stores: 1, or 2 with a second store
    tries       int NOT NULL,             -- arm_spec's columns the statistics read (0: off)
    brk_cool_ms bigint NOT NULL,          --   above 0: the arm has a circuit breaker
    rb_pct      int NOT NULL,             --   above 0: a retry budget of rb_pct percent ...
    rb_floor    int NOT NULL,             --   ... plus rb_floor retries a second
    inflight    int NOT NULL,             --   above 0: a limit on lookups in flight
    hedge2      int NOT NULL,             --   1: the hedge (lookup 1) goes to the second store, a copy
    run_json    jsonb NOT NULL,
    attempt     int                       -- N of a kept attempt <run>-a<N>; null for a run (results/raw/)
) WITH (autovacuum_enabled = false);

CREATE UNLOGGED TABLE IF NOT EXISTS requests (      -- tester.tsv.gz, one row per scheduled request
    run text NOT NULL, j int NOT NULL, row_ int NOT NULL,
    sched_ns bigint NOT NULL, send_ns bigint, answer_ns bigint,
    status int NOT NULL, kind char(1) NOT NULL, score real, conn int, waited int
) WITH (autovacuum_enabled = false);

CREATE UNLOGGED TABLE IF NOT EXISTS service_requests ( -- service.tsv.gz, one row per HTTP request
    run text NOT NULL, req bigint, row_ int, arrive_ns bigint, answer_ns bigint,
    status int, kind char(1), lookups int, store int,
    a0_start bigint, a0_end bigint, a0_out char(1),
    a1_start bigint, a1_end bigint, a1_out char(1),
    a2_start bigint, a2_end bigint, a2_out char(1),
    a3_start bigint, a3_end bigint, a3_out char(1),
    a4_start bigint, a4_end bigint, a4_out char(1)
) WITH (autovacuum_enabled = false);

-- Each lookup the service tried (a present aK_start_t, K = 0 .. 4) with its
-- request's arrival and store: pipeline/RESULTS.md's "lookup of V", sent
-- unless its aK_out is R, O, B or Y (tried, not sent).
CREATE VIEW service_lookups AS
SELECT l.*, l.o IS NULL OR l.o NOT IN ('R', 'O', 'B', 'Y') AS sent
FROM (SELECT run, req, arrive_ns, store, 0 AS k, a0_start AS st, a0_end AS en, a0_out AS o
      FROM service_requests WHERE a0_start IS NOT NULL
      UNION ALL
      -- lookups 1 .. 4 from one scan more, not four: only the rows that
      -- tried more than one (fewer than one in ten) taken apart
      SELECT v.run, v.req, v.arrive_ns, v.store, k.k, k.st, k.en, k.o
      FROM service_requests v
      CROSS JOIN LATERAL (VALUES (1, v.a1_start, v.a1_end, v.a1_out), (2, v.a2_start, v.a2_end, v.a2_out),
                                 (3, v.a3_start, v.a3_end, v.a3_out), (4, v.a4_start, v.a4_end, v.a4_out))
          AS k(k, st, en, o)
      WHERE (v.a1_start IS NOT NULL OR v.a2_start IS NOT NULL OR v.a3_start IS NOT NULL OR v.a4_start IS NOT NULL)
        AND k.st IS NOT NULL
     ) l;

CREATE UNLOGGED TABLE IF NOT EXISTS lookups (        -- store.tsv.gz (store 1) and store2.tsv.gz (store 2): one row per
    run text NOT NULL, store int NOT NULL,    -- lookup a store received
    req bigint, attempt int, row_ int,
    arrive_ns bigint, start_ns bigint, end_ns bigint,
    planned_ns bigint, budget_ns bigint, outcome char(1), line int, busy int
) WITH (autovacuum_enabled = false);

CREATE UNLOGGED TABLE IF NOT EXISTS machine (        -- machine.tsv.gz: CPU ticks of the machine (A) and measured cores (M)
    run text NOT NULL, k int,                 -- k: the reading's number within its scope, 0, 1, ...
    t_ns bigint NOT NULL, scope char(1) NOT NULL, total bigint NOT NULL, idle bigint NOT NULL,
    steal bigint NOT NULL, lab bigint NOT NULL
) WITH (autovacuum_enabled = false);

CREATE UNLOGGED TABLE IF NOT EXISTS events (         -- events.tsv.gz: the service lost (L), failed to regain (F), regained (C)
    run text NOT NULL, i int NOT NULL,        -- a connection; its breaker opened (O W P), half opened (H), closed (K);
    t_ns bigint NOT NULL,                     -- i: the row's number in the file (0, 1, ...)
    what char(1) NOT NULL, conn int NOT NULL, -- conn -1 on a breaker row
    tries int NOT NULL, wait_ns bigint NOT NULL
) WITH (autovacuum_enabled = false);

CREATE TABLE quiet_limits (                  -- data/quiet.tsv, in file order
    k int PRIMARY KEY, rule text NOT NULL, "limit" double precision NOT NULL
);

CREATE UNLOGGED TABLE IF NOT EXISTS syslog (          -- system log lines written during a run, redacted
    run text NOT NULL, source text NOT NULL, n int NOT NULL, line text NOT NULL
) WITH (autovacuum_enabled = false);

CREATE TABLE run_stats (                     -- the figures of each run (pipeline/RESULTS.md)
    run text PRIMARY KEY, arm text, round int, n bigint, answered bigint,
    p50_ms double precision, p90_ms double precision, p99_ms double precision,
    p999_ms double precision, max_ms double precision,
    live bigint, last_known bigint, "default" bigint, error bigint,
    live_share double precision, standin_share double precision,
    last_known_share double precision, default_share double precision,
    error_share double precision,
    lookups bigint, lookups_per_request double precision,
    slot_ms_total double precision, slot_ms_per_lookup double precision,
    slot_ms_per_request double precision,
    cut_short bigint, pending_at_stop bigint,
    late_p50_us double precision, late_p99_us double precision, late_max_us double precision,
    answers_per_s double precision,
    steal_share double precision, steal_second_max double precision, other_idle_share double precision,
    foreign_second_max double precision, quiet boolean, quiet_rules text[],
    -- the store failing (RESULTS.md): every run
    fault text, lost bigint, store_outcomes jsonb, lookup_ends jsonb, retried_permanent bigint,
    conn_lost bigint, conn_failed bigint, conn_regained bigint, reconnect_wait_over bigint,
    -- a fault window's figures: null for a run without a window
    win_from_ms double precision, win_to_ms double precision,
    before_requests bigint, before_live bigint, before_standins bigint, before_errors bigint,
    before_lost bigint, before_lookups bigint, before_unanswered_lookups bigint,
    during_requests bigint, during_live bigint, during_standins bigint, during_errors bigint,
    during_lost bigint, during_lookups bigint, during_unanswered_lookups bigint,
    after_requests bigint, after_live bigint, after_standins bigint, after_errors bigint,
    after_lost bigint, after_lookups bigint, after_unanswered_lookups bigint,
    during_lookups_per_request double precision, first_live_after_ms double precision,
    recovered_s bigint,
    -- correlated slowness (issue 29): the window's stand-ins and p99, each store's busy slots in it
    during_standin_share double precision, during_p99_ms double precision,
    store1_during_busy double precision, store2_during_busy double precision,
    -- the defences (null for an arm without the defence; RESULTS.md)
    brk_opened bigint, brk_half_opened bigint, brk_closed bigint, brk_transitions bigint,
    brk_closed_ms double precision, brk_open_ms double precision, brk_half_ms double precision,
    brk_illegal bigint, retries_passed bigint, budget_refused bigint, budget_over bigint,
    inflight_refused bigint,
    store1_requests bigint, store1_live bigint, store1_live_share double precision, store1_p99_ms double precision,
    store2_requests bigint, store2_live bigint, store2_live_share double precision, store2_p99_ms double precision,
    store1_during_requests bigint, store1_during_live bigint, store1_during_live_share double precision,
    store1_during_p99_ms double precision,
    store2_during_requests bigint, store2_during_live bigint, store2_during_live_share double precision,
    store2_during_p99_ms double precision,
    before_lookups_100ms double precision, recovery_lookups_100ms jsonb, recovery_lookups_100ms_max bigint,
    -- floods and rare events (issue 14): from per_second, and the store's rows
    missed_seconds bigint, flooded boolean, flood_from_s int, drained boolean,
    longest_line bigint, freezes bigint, freeze_share double precision, false_timeouts bigint,
    -- the false-timeout rule (issue 29): timeouts of lookups whose drawn wait was under 1 s
    healthy_timeouts bigint, healthy_timeout_share double precision,
    -- a kept attempt's N (runs.attempt): its figures are exported under
    -- `attempts`, and it counts in no arm, verdict, guess or odds
    attempt int
);

CREATE TABLE per_second (                    -- second by second of each run
    run text, s int, arrivals bigint, standins bigint, live bigint, errors bigint, lookups_sent bigint,
    busy_slots double precision, line_length double precision,
    steal_share double precision, late_max_us double precision, foreign_share double precision,
    standin_share double precision,
    PRIMARY KEY (run, s)
);

-- stats_side.sql's counts of each run's rows of V, for stats.sql's store
-- failing: the lookups' ends by outcome (lookup_ends), the retries the
-- gates let through (passed), the lookups the retry budget (y) and a full
-- compartment (b) refused, the permanent errors retried.
CREATE TABLE service_counts (
    run text PRIMARY KEY, j jsonb NOT NULL, passed bigint NOT NULL, y bigint NOT NULL, b bigint NOT NULL,
    permanent bigint NOT NULL
);
CREATE TABLE timeout_counts (                -- each run's false (n) and healthy (nh) timeouts (stats_side.sql)
    run text PRIMARY KEY, n bigint NOT NULL, nh bigint NOT NULL
);

CREATE TABLE run_figures (     -- run_stats, one row per (run, figure)
    run text, arm text, round int, figure text, value double precision
);
CREATE INDEX run_figures_arm ON run_figures (arm, figure, round);  -- verdicts' and guesses' pairs of rounds

CREATE TABLE arm_stats (       -- median and range over rounds
    arm text, figure text, median double precision, min double precision, max double precision,
    PRIMARY KEY (arm, figure)
);

CREATE TABLE IF NOT EXISTS comparisons (     -- pipeline/comparisons.tsv
    k int PRIMARY KEY, a text, b text, figure text, note text
);

CREATE TABLE verdicts (
    k int PRIMARY KEY, a text, b text, figure text, note text,
    rounds int[], diffs double precision[], verdict text, direction text,
    -- each verdict's error rate (RESULTS.md, "Each verdict's error rate")
    n int, false_positive_rate double precision, sizing_q double precision, power double precision,
    decidable boolean
);

CREATE TABLE verdict_family (                -- RESULTS.md's `verdict_family`: one row
    verdicts int, clearly_different int, expected_chance double precision, with_rate int,
    undecidable int, unsized int
);

CREATE TABLE IF NOT EXISTS guesses (         -- data/guesses.tsv
    k int PRIMARY KEY, id text, guess text, predicate text
);

CREATE TABLE IF NOT EXISTS guess_clauses (   -- each predicate, parsed by collect
    k int, c int, kind text,                 -- kind: cmp | apart | close
    quant text, arm text, figure text, op text, num double precision,
    arm2 text, figure2 text,
    PRIMARY KEY (k, c)
);

CREATE TABLE guess_results (
    k int PRIMARY KEY, id text, predicate text, "right" boolean, clauses boolean[]
);

-- results/prediction.json (RESULTS.md), loaded by collect when the file
-- exists: one row in `prediction` then (none without the file), the
-- simulation's figures of each run, and its claims about rare events.
CREATE TABLE prediction (format text NOT NULL);

CREATE TABLE predicted_runs (
    run text PRIMARY KEY, p99_ms double precision, standin_share double precision,
    lookups_per_request double precision, flooded boolean NOT NULL, flood_from_s int
);

CREATE TABLE predicted_sizing (              -- prediction.json's `sizing`, in file order
    k int PRIMARY KEY, a text NOT NULL, b text NOT NULL, figure text NOT NULL, q double precision NOT NULL
);

CREATE TABLE odds_claims (                   -- prediction.json's `odds`, in file order
    k int PRIMARY KEY, claim text NOT NULL, arm text NOT NULL, event text NOT NULL,
    sim_k int NOT NULL, sim_n int NOT NULL, seconds double precision NOT NULL
);

-- prediction.json's twin (format 2): its `noise` (one row; none when null
-- or absent) and each run's `twin` that is not null, k its place among
-- them in the file (0, 1, ...).
CREATE TABLE prediction_noise (path text NOT NULL, sha256 text NOT NULL, replicas int NOT NULL);
CREATE TABLE predicted_twin (
    run text PRIMARY KEY, replicas int NOT NULL, flooded int NOT NULL, p_flood double precision NOT NULL,
    q05 double precision NOT NULL, q50 double precision NOT NULL, q95 double precision NOT NULL, k int NOT NULL
);

-- RESULTS.md's `twin`, filled by stats.sql only when prediction_noise has
-- its row: the scores (one row), the calibration's bins (in order k), the
-- runs beyond the tolerance.
CREATE TABLE twin_scored (                   -- the scored runs: y, the twin's p, the two references' p,
    run text PRIMARY KEY, y int NOT NULL, p double precision NOT NULL, p_yes_no double precision NOT NULL,
    p_odds double precision NOT NULL, k int NOT NULL   -- k: predicted_twin's
);
CREATE TABLE twin_scores (
    runs int NOT NULL, flooded int NOT NULL, brier double precision, brier_yes_no double precision,
    brier_odds double precision
);
CREATE TABLE twin_calibration (
    k int PRIMARY KEY, "from" double precision NOT NULL, "to" double precision NOT NULL, runs int NOT NULL,
    mean_p double precision, flooded int NOT NULL, share double precision,
    cp_lo double precision, cp_hi double precision
);
CREATE TABLE twin_outside (
    run text PRIMARY KEY, measured double precision, predicted double precision,
    twin_q05 double precision, twin_q95 double precision, flooded boolean, predicted_flooded boolean,
    p_flood double precision, within_twin boolean, reason text NOT NULL
);

-- prediction.json's `map` (pipeline/collect/collectmap.h; all empty
-- without one): the grid, its policies (p in file order), its cells (l the
-- load's place), its triggers (a row per value with seeds), its arms.
CREATE TABLE map_top (seconds double precision NOT NULL, seeds text NOT NULL, capacity_p double precision NOT NULL,
                      trigger_load int NOT NULL);
CREATE TABLE map_loads (k int PRIMARY KEY, load int NOT NULL);
CREATE TABLE map_policies (p int PRIMARY KEY, policy text NOT NULL, template text NOT NULL);
CREATE TABLE map_cells (
    p int NOT NULL, l int NOT NULL, load int NOT NULL, k int NOT NULL, n int NOT NULL,
    onset_median_s double precision, standin_share_median double precision, PRIMARY KEY (p, l)
);
CREATE TABLE map_trigger (p int NOT NULL, flooded boolean NOT NULL, v int NOT NULL, count int NOT NULL,
                          PRIMARY KEY (p, flooded, v));
CREATE TABLE map_arms (p int NOT NULL, i int NOT NULL, arm text NOT NULL, load int NOT NULL, PRIMARY KEY (p, i));
-- RESULTS.md's `map`, filled by stats.sql from them.
CREATE TABLE map_cell_stats (p int NOT NULL, l int NOT NULL, share double precision, lo double precision,
                             hi double precision, PRIMARY KEY (p, l));
CREATE TABLE map_capacity (p int PRIMARY KEY, load int, lo int, hi int, tips boolean NOT NULL);
CREATE TABLE map_trigger_stats (p int NOT NULL, flooded boolean NOT NULL, n int NOT NULL, median double precision,
                                vmax int NOT NULL, PRIMARY KEY (p, flooded));
CREATE TABLE map_points (
    p int NOT NULL, i int NOT NULL, arm text NOT NULL, load int NOT NULL, seconds double precision,
    sim_k int, sim_n int, k int, n int, rounds int[], cp_lo double precision, cp_hi double precision,
    on_curve boolean NOT NULL, agree boolean, PRIMARY KEY (p, i)
);

-- The lessons' own counts, put in the odds table beside the lab's rounds.
CREATE TABLE odds_outside (
    ord int PRIMARY KEY, source text, claim text, arm text, event text, k int, n int,
    seconds double precision          -- the length of the lesson's rounds
);
INSERT INTO odds_outside VALUES (0, 'the timeouts lesson', 'flood', 'H4-r2', 'flooded', 3, 5, 30);

CREATE TABLE odds (                          -- RESULTS.md's `odds`, in order ord
    ord int PRIMARY KEY, claim text, arm text, event text, source text,
    sim_k int, sim_n int, sim_share double precision, sim_lo double precision, sim_hi double precision,
    k int, n int, rounds int[], cp_lo double precision, cp_hi double precision, agree boolean,
    seconds double precision
);
