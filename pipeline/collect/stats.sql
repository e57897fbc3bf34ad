-- Every statistic of the study, computed from the loaded raw events.  The
-- definitions are pipeline/RESULTS.md's; percentiles are percentile_cont
-- (linear interpolation between closest ranks).  Run by collect in one
-- transaction after loading; it rebuilds every derived table but the three
-- of pipeline/collect/stats_side.sql (service_counts, per_second,
-- timeout_counts), which collect runs on its second connection meanwhile.

-- The raw tables are read whole and grouped (by run, by run and second):
-- the planner cannot see that a second holds thousands of rows, expects
-- millions of groups, and with the default 4 MB of work_mem sorts them on
-- disk instead of hashing the few thousand there are.
SET LOCAL work_mem = '256MB';

TRUNCATE run_stats, run_figures, arm_stats, verdicts, guess_results, odds;
TRUNCATE verdict_family;
-- (quiet_limits is filled by collect from data/quiet.tsv before this runs)

-- Each run's requests (T) and the store's lookups (S, both stores), each
-- table read once and grouped by run (no statement per run: a run's rows
-- are found by the grouping, not looked up), for the figures below.
-- (run_t's percentiles want its 4 million requests sorted by run: with
-- 1 GB that sort stays in memory, 3.2 s against 5.1 s spilled to disk on
-- the full study, 2026-12-08)
DROP TABLE IF EXISTS pg_temp.run_t, pg_temp.run_s;
SET LOCAL work_mem = '1GB';
CREATE TEMP TABLE run_t AS
SELECT q.run, count(*) AS n, count(q.answer_ns) AS answered,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY q.answer_ns - q.sched_ns) AS p50,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY q.answer_ns - q.sched_ns) AS p90,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY q.answer_ns - q.sched_ns) AS p99,
       percentile_cont(0.999) WITHIN GROUP (ORDER BY q.answer_ns - q.sched_ns) AS p999,
       max(q.answer_ns - q.sched_ns)::double precision AS mx,
       count(*) FILTER (WHERE q.kind = 'L') AS live,
       count(*) FILTER (WHERE q.kind = 'K') AS last_known,
       count(*) FILTER (WHERE q.kind = 'D') AS dflt,
       count(*) FILTER (WHERE q.kind = 'E') AS error,
       count(*) FILTER (WHERE q.status = 200) AS ok,
       count(*) FILTER (WHERE q.answer_ns IS NULL) AS lost,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY q.send_ns - q.sched_ns) AS late50,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY q.send_ns - q.sched_ns) AS late99,
       max(q.send_ns - q.sched_ns)::double precision AS latemax
FROM requests q GROUP BY q.run;
SET LOCAL work_mem = '256MB';

CREATE TEMP TABLE run_s AS
SELECT l.run, count(*) AS lookups,
       coalesce(sum(l.end_ns - l.start_ns) FILTER (WHERE l.start_ns IS NOT NULL AND l.end_ns IS NOT NULL), 0)::double precision AS slot,
       count(*) FILTER (WHERE l.outcome = 'A') AS o_a, count(*) FILTER (WHERE l.outcome = 'D') AS o_d,
       count(*) FILTER (WHERE l.outcome = 'U') AS o_u, count(*) FILTER (WHERE l.outcome = 'E') AS o_e,
       count(*) FILTER (WHERE l.outcome = 'N') AS o_n, count(*) FILTER (WHERE l.outcome = 'H') AS o_h,
       count(*) FILTER (WHERE l.outcome = 'R') AS o_r, count(*) FILTER (WHERE l.outcome = 'P') AS o_p,
       coalesce(max(l.line), 0) AS longest_line, count(*) FILTER (WHERE l.planned_ns >= 1000000000) AS freezes
FROM lookups l GROUP BY l.run;

-- Figures of each run.
INSERT INTO run_stats
SELECT r.run, r.arm, r.round, t.n, t.answered,
       t.p50 / 1e6, t.p90 / 1e6, t.p99 / 1e6, t.p999 / 1e6, t.mx / 1e6,
       t.live, t.last_known, t.dflt, t.error,
       t.live::double precision / t.n,
       (t.last_known + t.dflt)::double precision / t.n,
       t.last_known::double precision / t.n,
       t.dflt::double precision / t.n,
       t.error::double precision / t.n,
       coalesce(s.lookups, 0), coalesce(s.lookups, 0)::double precision / t.n,
       coalesce(s.slot, 0) / 1e6,
       CASE WHEN s.lookups > 0 THEN s.slot / 1e6 / s.lookups END,
       coalesce(s.slot, 0) / 1e6 / t.n,
       coalesce(s.o_d, 0), coalesce(s.o_p, 0),
       t.late50 / 1e3, t.late99 / 1e3, t.latemax / 1e3,
       t.ok / r.seconds,
       m.steal_share, m.steal_second_max, m.other_idle_share, m.foreign_second_max,
       NULL, NULL                       -- quiet, quiet_rules: below
FROM runs r
JOIN run_t t USING (run)               -- (a run without requests has no figures)
LEFT JOIN run_s s USING (run)
LEFT JOIN (
    SELECT a.run,
           CASE WHEN sum(a.total) > 0 THEN sum(a.steal)::double precision / sum(a.total) END AS steal_share,
           max(CASE WHEN a.total > 0 THEN a.steal::double precision / a.total ELSE 0 END) AS steal_second_max,
           CASE WHEN sum(a.total) - sum(m.total) > 0   -- clipped to [0, 1]: the samplings differ by a tick
                THEN greatest(0, least(1, (sum(a.idle) - sum(m.idle))::double precision / (sum(a.total) - sum(m.total))))
           END AS other_idle_share,
           max(CASE WHEN m.total > 0 THEN greatest(0, m.total - m.idle - m.steal - m.lab)::double precision / m.total
               ELSE 0 END) AS foreign_second_max
    FROM machine a JOIN machine m ON m.run = a.run AND m.k = a.k AND m.scope = 'M'
    WHERE a.scope = 'A'
    GROUP BY a.run) m USING (run);

-- Quiet runs: the rules of data/quiet.tsv (a null figure breaks no rule).
UPDATE run_stats s SET quiet_rules = coalesce((
    SELECT array_agg(l.rule ORDER BY l.k)
    FROM quiet_limits l
    WHERE CASE l.rule
          WHEN 'steal_run_max' THEN s.steal_share > l."limit"
          WHEN 'steal_second_max' THEN s.steal_second_max > l."limit"
          WHEN 'late_p99_max_ms' THEN s.late_p99_us / 1000 > l."limit"
          WHEN 'late_max_max_ms' THEN s.late_max_us / 1000 > l."limit"
          WHEN 'other_idle_min' THEN s.other_idle_share < l."limit"
          WHEN 'foreign_second_max' THEN s.foreign_second_max > l."limit"
          END), '{}');
UPDATE run_stats SET quiet = cardinality(quiet_rules) = 0;

-- A kept attempt (results/attempts/<run>-a<N>/) has every figure of a run
-- and counts in nothing: each statement below that reads several runs
-- (run_figures, arm_stats, odds; collect's arms' rounds and totals) keeps
-- to attempt IS NULL.
UPDATE run_stats s SET attempt = r.attempt FROM runs r WHERE r.run = s.run AND r.attempt IS NOT NULL;

-- A fault window [F, U), U null when it lasts to the end of the run: the
-- phase of an instant, 'b' before, 'd' during, 'a' after.
CREATE OR REPLACE FUNCTION lab_phase(t bigint, f bigint, u bigint) RETURNS char
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN t < f THEN 'b' WHEN u IS NULL OR t < u THEN 'd' ELSE 'a' END::char
$$;

WITH w AS (
    SELECT run, t0_ns, seconds, t0_ns + win_from_ns AS f, t0_ns + win_to_ns AS u
    FROM runs WHERE win_from_ns IS NOT NULL
),
wq AS MATERIALIZED (   -- the requests of the runs with a window, read once for rq, fl and rec
    SELECT q.* FROM requests q JOIN w USING (run)
),
rq AS (   -- each request's phase by its scheduled arrival
    SELECT q.run, lab_phase(q.sched_ns, w.f, w.u) AS ph, q.kind, q.answer_ns, q.answer_ns - q.sched_ns AS lat
    FROM wq q JOIN w USING (run)
),
rp AS (
    SELECT run,
        count(*) FILTER (WHERE ph = 'b') AS b_n, count(*) FILTER (WHERE ph = 'b' AND kind = 'L') AS b_live,
        count(*) FILTER (WHERE ph = 'b' AND kind IN ('K', 'D')) AS b_si,
        count(*) FILTER (WHERE ph = 'b' AND kind = 'E' AND answer_ns IS NOT NULL) AS b_err,
        count(*) FILTER (WHERE ph = 'b' AND answer_ns IS NULL) AS b_lost,
        count(*) FILTER (WHERE ph = 'd') AS d_n, count(*) FILTER (WHERE ph = 'd' AND kind = 'L') AS d_live,
        count(*) FILTER (WHERE ph = 'd' AND kind IN ('K', 'D')) AS d_si,
        count(*) FILTER (WHERE ph = 'd' AND kind = 'E' AND answer_ns IS NOT NULL) AS d_err,
        count(*) FILTER (WHERE ph = 'd' AND answer_ns IS NULL) AS d_lost,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY lat) FILTER (WHERE ph = 'd' AND answer_ns IS NOT NULL) AS d_p99,
        count(*) FILTER (WHERE ph = 'a') AS a_n, count(*) FILTER (WHERE ph = 'a' AND kind = 'L') AS a_live,
        count(*) FILTER (WHERE ph = 'a' AND kind IN ('K', 'D')) AS a_si,
        count(*) FILTER (WHERE ph = 'a' AND kind = 'E' AND answer_ns IS NOT NULL) AS a_err,
        count(*) FILTER (WHERE ph = 'a' AND answer_ns IS NULL) AS a_lost
    FROM rq GROUP BY run
),
lk AS (   -- each lookup the service sent (not R O B Y: never sent), by the instant it was sent
    SELECT l.run, lab_phase(l.st, w.f, w.u) AS ph, l.o IN ('T', 'C', 'X') AS unanswered
    FROM service_lookups l JOIN w USING (run)
    WHERE l.sent
),
lp AS (
    SELECT run,
        count(*) FILTER (WHERE ph = 'b') AS b_lk, count(*) FILTER (WHERE ph = 'b' AND unanswered) AS b_un,
        count(*) FILTER (WHERE ph = 'd') AS d_lk, count(*) FILTER (WHERE ph = 'd' AND unanswered) AS d_un,
        count(*) FILTER (WHERE ph = 'a') AS a_lk, count(*) FILTER (WHERE ph = 'a' AND unanswered) AS a_un
    FROM lk GROUP BY run
),
fl AS (   -- the first live answer at or after U
    SELECT q.run, min(q.answer_ns) - w.u AS ns
    FROM wq q JOIN w USING (run)
    WHERE w.u IS NOT NULL AND q.kind = 'L' AND q.answer_ns >= w.u
    GROUP BY q.run, w.u
),
bz AS (   -- each store's slot time within [F, U'), U' the run's end when U is +inf (numeric: exact)
    SELECT w.run, l.store,
        sum(greatest(0, least(coalesce(l.end_ns::numeric, b.uu), b.uu) - greatest(l.start_ns::numeric, w.f::numeric)))
            / (b.uu - w.f::numeric) AS busy
    FROM lookups l JOIN w USING (run)
    CROSS JOIN LATERAL (SELECT coalesce(w.u::numeric, w.t0_ns::numeric + w.seconds::numeric * 1e9) AS uu) b
    WHERE l.start_ns IS NOT NULL
    GROUP BY w.run, l.store, b.uu, w.f
),
rec AS (  -- whole seconds B_k after U that end within the run, and the first whose share
          -- not live is below the share before the window plus 1 point (in integers, exact)
    SELECT b.run, min(b.k) AS k
    FROM (SELECT q.run, floor((q.sched_ns - w.u)::numeric / 1e9) AS k,
                 count(*) AS n, count(*) FILTER (WHERE q.kind = 'L') AS live,
                 max(w.t0_ns::numeric + w.seconds::numeric * 1e9 - w.u) AS room
          FROM wq q JOIN w USING (run)
          WHERE w.u IS NOT NULL AND q.sched_ns >= w.u
          GROUP BY 1, 2) b
    JOIN rp USING (run)
    WHERE (b.k + 1) * 1e9 <= b.room
      AND CASE WHEN rp.b_n > 0
               THEN 100 * rp.b_n * (b.n - b.live) < 100 * b.n * (rp.b_n - rp.b_live) + b.n * rp.b_n
               ELSE 100 * (b.n - b.live) < b.n END
    GROUP BY b.run
)
UPDATE run_stats x SET
    win_from_ms = (r.win_from_ns / 1e6)::double precision, win_to_ms = (r.win_to_ns / 1e6)::double precision,
    before_requests = rp.b_n, before_live = rp.b_live, before_standins = rp.b_si, before_errors = rp.b_err,
    before_lost = rp.b_lost, before_lookups = coalesce(lp.b_lk, 0), before_unanswered_lookups = coalesce(lp.b_un, 0),
    during_requests = rp.d_n, during_live = rp.d_live, during_standins = rp.d_si, during_errors = rp.d_err,
    during_lost = rp.d_lost, during_lookups = coalesce(lp.d_lk, 0), during_unanswered_lookups = coalesce(lp.d_un, 0),
    after_requests = rp.a_n, after_live = rp.a_live, after_standins = rp.a_si, after_errors = rp.a_err,
    after_lost = rp.a_lost, after_lookups = coalesce(lp.a_lk, 0), after_unanswered_lookups = coalesce(lp.a_un, 0),
    during_lookups_per_request = CASE WHEN rp.d_n > 0 THEN coalesce(lp.d_lk, 0)::double precision / rp.d_n END,
    during_standin_share = CASE WHEN rp.d_n > 0 THEN rp.d_si::double precision / rp.d_n END,
    during_p99_ms = rp.d_p99 / 1e6,
    store1_during_busy = coalesce((SELECT bz.busy FROM bz WHERE bz.run = r.run AND bz.store = 1), 0)::double precision,
    store2_during_busy = CASE WHEN r.stores = 2
        THEN coalesce((SELECT bz.busy FROM bz WHERE bz.run = r.run AND bz.store = 2), 0)::double precision END,
    first_live_after_ms = fl.ns / 1e6,
    recovered_s = rec.k
FROM runs r
JOIN rp USING (run)
LEFT JOIN lp USING (run)
LEFT JOIN fl USING (run)
LEFT JOIN rec USING (run)
WHERE r.win_from_ns IS NOT NULL AND x.run = r.run;

-- The defences (RESULTS.md; each figure null for an arm without its
-- defence).  The circuit breaker, from its rows of E in file order: the
-- state each row puts it in (C closed, O open, H half open) and the one
-- before it (CLOSED before the first row).
WITH brun AS (
    SELECT run, brk_cool_ms, t0_ns::numeric AS lo, t0_ns::numeric + seconds::numeric * 1e9 AS hi
    FROM runs WHERE brk_cool_ms > 0
),
b AS (
    SELECT e.run, e.i, e.t_ns, e.what, e.wait_ns, s.st,
           coalesce(lag(s.st) OVER w, 'C') AS prev, lag(e.t_ns) OVER w AS prev_t,
           lead(e.t_ns) OVER w AS next_t, row_number() OVER w AS n
    FROM events e JOIN brun USING (run)
    CROSS JOIN LATERAL (SELECT CASE e.what WHEN 'H' THEN 'H' WHEN 'K' THEN 'C' ELSE 'O' END AS st) s
    WHERE e.what IN ('O', 'W', 'P', 'H', 'K')
    WINDOW w AS (PARTITION BY e.run ORDER BY e.i)
),
-- rows the state machine does not allow; an H is allowed only when OPEN,
-- that is right after an O, W or P row, so that row is "the last O/W/P row"
bc AS (
    SELECT b.run, count(*) FILTER (WHERE b.st = 'O') AS opened, count(*) FILTER (WHERE b.what = 'H') AS half,
           count(*) FILTER (WHERE b.what = 'K') AS closed,
           count(*) FILTER (WHERE CASE b.what
               WHEN 'H' THEN b.prev <> 'O' OR b.t_ns - b.prev_t < brun.brk_cool_ms * 1000000
                             OR b.wait_ns <> b.t_ns - b.prev_t
               WHEN 'P' THEN b.prev <> 'H' WHEN 'K' THEN b.prev <> 'H'
               ELSE b.prev <> 'C' END) AS illegal
    FROM b JOIN brun USING (run) GROUP BY b.run
),
-- its states as intervals [a, z): CLOSED from t0 to the first row, then each
-- row's state to the next row (or the end); each cut to [t0, t0 + seconds)
seg AS (
    SELECT brun.run, 'C' AS st, brun.lo AS a, coalesce(f.t_ns::numeric, brun.hi) AS z
    FROM brun LEFT JOIN b f ON f.run = brun.run AND f.n = 1
    UNION ALL
    SELECT b.run, b.st, b.t_ns::numeric, coalesce(b.next_t::numeric, brun.hi) FROM b JOIN brun USING (run)
),
bt AS (
    SELECT seg.run,
           sum(greatest(0, least(seg.z, brun.hi) - greatest(seg.a, brun.lo))) FILTER (WHERE seg.st = 'C') AS c_ns,
           sum(greatest(0, least(seg.z, brun.hi) - greatest(seg.a, brun.lo))) FILTER (WHERE seg.st = 'O') AS o_ns,
           sum(greatest(0, least(seg.z, brun.hi) - greatest(seg.a, brun.lo))) FILTER (WHERE seg.st = 'H') AS h_ns
    FROM seg JOIN brun USING (run) GROUP BY seg.run
)
UPDATE run_stats x SET
    brk_opened = coalesce(bc.opened, 0), brk_half_opened = coalesce(bc.half, 0), brk_closed = coalesce(bc.closed, 0),
    brk_transitions = coalesce(bc.opened + bc.half + bc.closed, 0),
    brk_closed_ms = (coalesce(bt.c_ns, 0) / 1e6)::double precision,
    brk_open_ms = (coalesce(bt.o_ns, 0) / 1e6)::double precision,
    brk_half_ms = (coalesce(bt.h_ns, 0) / 1e6)::double precision,
    brk_illegal = coalesce(bc.illegal, 0)
FROM brun LEFT JOIN bc USING (run) LEFT JOIN bt USING (run)
WHERE x.run = brun.run;

-- The budget overspent: at each retry let through, at t = its start, the
-- retries let through (R) and the requests that tried a first lookup (Q,
-- by arrive_t) over (t - 1 s, t], counted by one window over both, in time
-- order (RANGE ... CURRENT ROW takes every row at t itself too).  The
-- rows of V of the runs with a budget read once, their lookups 1 .. 4
-- taken apart there (as service_lookups does, for those runs alone).
WITH v AS MATERIALIZED (
    SELECT v.run, v.arrive_ns, v.a0_start, v.a1_start, v.a1_out, v.a2_start, v.a2_out, v.a3_start, v.a3_out,
           v.a4_start, v.a4_out
    FROM service_requests v JOIN runs r USING (run)
    WHERE r.rb_pct > 0
),
ev AS (
    SELECT v.run, k.st AS t, true AS retry
    FROM v CROSS JOIN LATERAL (VALUES (v.a1_start, v.a1_out), (v.a2_start, v.a2_out), (v.a3_start, v.a3_out),
                                      (v.a4_start, v.a4_out)) AS k(st, o)
    WHERE k.st IS NOT NULL AND (k.o IS NULL OR k.o NOT IN ('O', 'B', 'Y'))
    UNION ALL
    SELECT v.run, v.arrive_ns, false
    FROM v
    WHERE v.a0_start IS NOT NULL
),
cnt AS (
    SELECT run, retry, count(*) FILTER (WHERE retry) OVER w AS rr, count(*) FILTER (WHERE NOT retry) OVER w AS qq
    FROM ev
    WINDOW w AS (PARTITION BY run ORDER BY t RANGE BETWEEN 999999999::bigint PRECEDING AND CURRENT ROW)
),
over_ AS (
    SELECT c.run, count(*) FILTER (WHERE 100 * c.rr > r.rb_pct * c.qq + 100 * r.rb_floor) AS n
    FROM cnt c JOIN runs r USING (run) WHERE c.retry GROUP BY c.run
)
UPDATE run_stats x SET budget_over = coalesce(o.n, 0)
FROM runs r LEFT JOIN over_ o USING (run)
WHERE r.rb_pct > 0 AND x.run = r.run;

-- Two stores: the requests of T by the store the service logged for them
-- (the row of V with req = j; a request the service never logged counts
-- for neither), over the run and in the window's phase "during".
WITH sr AS (
    SELECT q.run, v.store, q.kind, q.answer_ns - q.sched_ns AS lat,
           r.win_from_ns IS NOT NULL
               AND lab_phase(q.sched_ns, r.t0_ns + r.win_from_ns, r.t0_ns + r.win_to_ns) = 'd' AS during
    FROM runs r JOIN requests q USING (run)
    JOIN (SELECT DISTINCT v.run, v.req, v.store FROM service_requests v JOIN runs r2 USING (run)
          WHERE r2.stores = 2 AND v.req IS NOT NULL) v
        ON v.run = q.run AND v.req = q.j
    WHERE r.stores = 2
),
sp AS (
    SELECT run,
        count(*) FILTER (WHERE store = 1) AS n1, count(*) FILTER (WHERE store = 1 AND kind = 'L') AS l1,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY lat) FILTER (WHERE store = 1) AS p1,
        count(*) FILTER (WHERE store = 2) AS n2, count(*) FILTER (WHERE store = 2 AND kind = 'L') AS l2,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY lat) FILTER (WHERE store = 2) AS p2,
        count(*) FILTER (WHERE during AND store = 1) AS dn1,
        count(*) FILTER (WHERE during AND store = 1 AND kind = 'L') AS dl1,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY lat) FILTER (WHERE during AND store = 1) AS dp1,
        count(*) FILTER (WHERE during AND store = 2) AS dn2,
        count(*) FILTER (WHERE during AND store = 2 AND kind = 'L') AS dl2,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY lat) FILTER (WHERE during AND store = 2) AS dp2
    FROM sr GROUP BY run
),
z AS (   -- zero counts for a run none of whose requests the service logged
    SELECT r.run, r.win_from_ns IS NOT NULL AS win, coalesce(sp.n1, 0) AS n1, coalesce(sp.l1, 0) AS l1, sp.p1,
           coalesce(sp.n2, 0) AS n2, coalesce(sp.l2, 0) AS l2, sp.p2, coalesce(sp.dn1, 0) AS dn1,
           coalesce(sp.dl1, 0) AS dl1, sp.dp1, coalesce(sp.dn2, 0) AS dn2, coalesce(sp.dl2, 0) AS dl2, sp.dp2
    FROM runs r LEFT JOIN sp USING (run) WHERE r.stores = 2
)
UPDATE run_stats x SET
    store1_requests = z.n1, store1_live = z.l1,
    store1_live_share = CASE WHEN z.n1 > 0 THEN z.l1::double precision / z.n1 END, store1_p99_ms = z.p1 / 1e6,
    store2_requests = z.n2, store2_live = z.l2,
    store2_live_share = CASE WHEN z.n2 > 0 THEN z.l2::double precision / z.n2 END, store2_p99_ms = z.p2 / 1e6,
    store1_during_requests = CASE WHEN z.win THEN z.dn1 END, store1_during_live = CASE WHEN z.win THEN z.dl1 END,
    store1_during_live_share = CASE WHEN z.dn1 > 0 THEN z.dl1::double precision / z.dn1 END,
    store1_during_p99_ms = z.dp1 / 1e6,
    store2_during_requests = CASE WHEN z.win THEN z.dn2 END, store2_during_live = CASE WHEN z.win THEN z.dl2 END,
    store2_during_live_share = CASE WHEN z.dn2 > 0 THEN z.dl2::double precision / z.dn2 END,
    store2_during_p99_ms = z.dp2 / 1e6
FROM z WHERE x.run = z.run;

-- The store's lookups (rows of S, both stores) around a window: per 100 ms
-- before it, and in each 100 ms of the second after its end U (when that
-- second ends within the run).
UPDATE run_stats x SET before_lookups_100ms = coalesce(n.n, 0)::double precision / (r.win_from_ns::double precision / 1e8)
FROM runs r
LEFT JOIN (
    SELECT l.run, count(*) AS n FROM lookups l JOIN runs w USING (run)
    WHERE w.win_from_ns > 0 AND l.arrive_ns >= w.t0_ns AND l.arrive_ns < w.t0_ns + w.win_from_ns
    GROUP BY l.run) n USING (run)
WHERE r.win_from_ns > 0 AND x.run = r.run;

WITH rw AS (
    SELECT run, t0_ns + win_to_ns AS u FROM runs
    WHERE win_to_ns IS NOT NULL AND (win_to_ns + 1000000000)::numeric <= seconds::numeric * 1e9
),
bk AS (
    SELECT l.run, (l.arrive_ns - rw.u) / 100000000 AS i, count(*) AS n
    FROM lookups l JOIN rw USING (run)
    WHERE l.arrive_ns >= rw.u AND l.arrive_ns < rw.u + 1000000000
    GROUP BY 1, 2
),
rl AS (
    SELECT rw.run, jsonb_agg(coalesce(bk.n, 0) ORDER BY g.i) AS list, max(coalesce(bk.n, 0)) AS mx
    FROM rw CROSS JOIN generate_series(0, 9) AS g(i) LEFT JOIN bk ON bk.run = rw.run AND bk.i = g.i
    GROUP BY rw.run
)
UPDATE run_stats x SET recovery_lookups_100ms = rl.list, recovery_lookups_100ms_max = rl.mx
FROM rl WHERE x.run = rl.run;


-- The rows of V counted (service_counts), the seconds (per_second) and
-- the false timeouts (timeout_counts) are pipeline/collect/stats_side.sql's,
-- computed on collect's second connection meanwhile; collect waits here
-- for it to finish (the line below is where it splits this file: keep it
-- as it is).
-- collect: stats_side.sql is done here

-- The store failing, every run: requests lost, what became of each lookup
-- on both sides, permanent errors retried, the service's connections.
-- With them, the gates (the defences): the retries they let through (K >= 1,
-- not O B Y), the lookups the retry budget (Y) or a full compartment (B)
-- refused; each null for an arm without the gate (the rows of V counted
-- by stats_side.sql: service_counts).
WITH c AS (
    -- a pause must lie in [0, min(1 s, 10 ms * 2^tries)) (tries capped: the bound is 1 s long before)
    SELECT ev.run, count(*) FILTER (WHERE ev.what = 'L') AS l, count(*) FILTER (WHERE ev.what = 'F') AS f,
           count(*) FILTER (WHERE ev.what = 'C') AS c,
           count(*) FILTER (WHERE ev.what IN ('L', 'F') AND (ev.wait_ns < 0 OR
               ev.wait_ns >= least(1e9, 1e7 * power(2::numeric, least(ev.tries, 64))))) AS over
    FROM events ev GROUP BY ev.run
)
UPDATE run_stats x SET
    fault = r.fault, lost = t.lost,
    store_outcomes = jsonb_build_object(
        'A', coalesce(s.o_a, 0), 'D', coalesce(s.o_d, 0), 'U', coalesce(s.o_u, 0), 'E', coalesce(s.o_e, 0),
        'N', coalesce(s.o_n, 0), 'H', coalesce(s.o_h, 0), 'R', coalesce(s.o_r, 0), 'P', coalesce(s.o_p, 0)),
    lookup_ends = coalesce(e.j, jsonb_build_object('A', 0, 'T', 0, 'C', 0, 'D', 0, 'U', 0, 'N', 0, 'X', 0, 'R', 0,
                                                   'O', 0, 'B', 0, 'Y', 0)),
    retried_permanent = coalesce(e.permanent, 0), conn_lost = coalesce(c.l, 0), conn_failed = coalesce(c.f, 0),
    conn_regained = coalesce(c.c, 0), reconnect_wait_over = coalesce(c.over, 0),
    retries_passed = CASE WHEN r.tries > 1 THEN coalesce(e.passed, 0) END,
    budget_refused = CASE WHEN r.rb_pct > 0 THEN coalesce(e.y, 0) END,
    inflight_refused = CASE WHEN r.inflight > 0 THEN coalesce(e.b, 0) END
FROM runs r
JOIN run_t t USING (run)
LEFT JOIN run_s s USING (run)
LEFT JOIN service_counts e USING (run)
LEFT JOIN c USING (run)
WHERE r.run = x.run;

-- Floods (RESULTS.md `flooded`, the one definition): a second is missed when
-- over half of the requests scheduled in it got a stand-in or an error; a run
-- floods when N = min(3, its whole seconds) seconds in a row are missed.
-- Missed seconds in a row share s - row_number() (an island); the flood
-- starts at the first island of N or more.
WITH ms AS (
    SELECT run, s, s - row_number() OVER (PARTITION BY run ORDER BY s) AS g
    FROM per_second WHERE arrivals >= 1 AND 2 * (standins + errors) > arrivals
),
isl AS (SELECT run, min(s) AS s0, count(*) AS len FROM ms GROUP BY run, g),
fl AS (
    SELECT r.run, coalesce(sum(i.len), 0) AS missed,
           min(i.s0) FILTER (WHERE i.len >= least(3, ceil(r.seconds)::int)) AS s0,
           coalesce(bool_or(ceil(r.seconds)::int - 1 BETWEEN i.s0 AND i.s0 + i.len - 1), false) AS last_missed
    FROM runs r LEFT JOIN isl i USING (run)
    GROUP BY r.run
)
UPDATE run_stats x SET missed_seconds = fl.missed, flooded = fl.s0 IS NOT NULL, flood_from_s = fl.s0,
    drained = CASE WHEN fl.s0 IS NOT NULL THEN NOT fl.last_missed END
FROM fl WHERE x.run = fl.run;

-- The dice behind a round's luck, from the store's rows (both stores): the
-- longest line a lookup found, the freezes drawn (a wait of 1 s or more);
-- the false and healthy timeouts (stats_side.sql's timeout_counts; the
-- healthy ones over the store's rows with a wait under 1 s).
UPDATE run_stats x SET longest_line = coalesce(s.longest_line, 0), freezes = coalesce(s.freezes, 0),
    freeze_share = CASE WHEN s.lookups > 0 THEN s.freezes::double precision / s.lookups END,
    false_timeouts = coalesce(f.n, 0),
    healthy_timeouts = coalesce(f.nh, 0),
    healthy_timeout_share = CASE WHEN s.lookups - s.freezes > 0
                                 THEN coalesce(f.nh, 0)::double precision / (s.lookups - s.freezes) END
FROM runs r
LEFT JOIN run_s s USING (run)
LEFT JOIN timeout_counts f USING (run)
WHERE x.run = r.run;

-- One row per (run, figure) of the quiet runs: what verdicts, guesses and
-- arm statistics read (a disturbed run counts as not measured, a kept
-- attempt not at all).
INSERT INTO run_figures
SELECT s.run, s.arm, s.round, f.figure, f.value
FROM run_stats s
CROSS JOIN LATERAL (VALUES
    ('n', s.n::double precision), ('p50_ms', s.p50_ms), ('p90_ms', s.p90_ms), ('p99_ms', s.p99_ms),
    ('p999_ms', s.p999_ms), ('max_ms', s.max_ms), ('live_share', s.live_share),
    ('standin_share', s.standin_share), ('last_known_share', s.last_known_share),
    ('default_share', s.default_share), ('error_share', s.error_share),
    ('lookups_per_request', s.lookups_per_request), ('slot_ms_per_lookup', s.slot_ms_per_lookup),
    ('slot_ms_per_request', s.slot_ms_per_request), ('cut_short', s.cut_short::double precision),
    ('late_p99_us', s.late_p99_us), ('answers_per_s', s.answers_per_s),
    ('lost', s.lost::double precision), ('retried_permanent', s.retried_permanent::double precision),
    ('during_lookups_per_request', s.during_lookups_per_request),
    ('first_live_after_ms', s.first_live_after_ms), ('recovered_s', s.recovered_s::double precision),
    ('before_requests', s.before_requests::double precision), ('before_live', s.before_live::double precision),
    ('before_standins', s.before_standins::double precision), ('before_errors', s.before_errors::double precision),
    ('before_lost', s.before_lost::double precision), ('before_lookups', s.before_lookups::double precision),
    ('before_unanswered_lookups', s.before_unanswered_lookups::double precision),
    ('during_requests', s.during_requests::double precision), ('during_live', s.during_live::double precision),
    ('during_standins', s.during_standins::double precision), ('during_errors', s.during_errors::double precision),
    ('during_lost', s.during_lost::double precision), ('during_lookups', s.during_lookups::double precision),
    ('during_unanswered_lookups', s.during_unanswered_lookups::double precision),
    ('after_requests', s.after_requests::double precision), ('after_live', s.after_live::double precision),
    ('after_standins', s.after_standins::double precision), ('after_errors', s.after_errors::double precision),
    ('after_lost', s.after_lost::double precision), ('after_lookups', s.after_lookups::double precision),
    ('after_unanswered_lookups', s.after_unanswered_lookups::double precision),
    ('brk_opened', s.brk_opened::double precision), ('brk_half_opened', s.brk_half_opened::double precision),
    ('brk_closed', s.brk_closed::double precision), ('brk_transitions', s.brk_transitions::double precision),
    ('brk_open_ms', s.brk_open_ms), ('brk_half_ms', s.brk_half_ms), ('brk_closed_ms', s.brk_closed_ms),
    ('brk_illegal', s.brk_illegal::double precision), ('budget_refused', s.budget_refused::double precision),
    ('budget_over', s.budget_over::double precision), ('inflight_refused', s.inflight_refused::double precision),
    ('store1_during_live_share', s.store1_during_live_share), ('store2_during_live_share', s.store2_during_live_share),
    ('store2_during_p99_ms', s.store2_during_p99_ms), ('store2_p99_ms', s.store2_p99_ms),
    ('before_lookups_100ms', s.before_lookups_100ms),
    ('recovery_lookups_100ms_max', s.recovery_lookups_100ms_max::double precision),
    ('longest_line', s.longest_line::double precision), ('freezes', s.freezes::double precision),
    ('freeze_share', s.freeze_share), ('false_timeouts', s.false_timeouts::double precision),
    ('healthy_timeouts', s.healthy_timeouts::double precision), ('healthy_timeout_share', s.healthy_timeout_share),
    ('during_standin_share', s.during_standin_share), ('during_p99_ms', s.during_p99_ms),
    ('store1_during_busy', s.store1_during_busy), ('store2_during_busy', s.store2_during_busy)
) AS f(figure, value)
WHERE s.quiet AND s.attempt IS NULL;

-- Median and range over rounds of RESULTS.md's list of arm figures, for
-- every arm (nulls left out; all null when no quiet run has the figure).
INSERT INTO arm_stats
SELECT a.arm, f.figure, x.median, x.min, x.max
FROM (SELECT DISTINCT arm FROM run_stats WHERE attempt IS NULL) a
CROSS JOIN (VALUES ('p50_ms'), ('p90_ms'), ('p99_ms'), ('p999_ms'), ('max_ms'), ('live_share'),
    ('standin_share'), ('last_known_share'), ('default_share'), ('error_share'), ('lookups_per_request'),
    ('slot_ms_per_lookup'), ('slot_ms_per_request'), ('cut_short'), ('late_p99_us'), ('answers_per_s'),
    ('lost'), ('retried_permanent'), ('during_lookups_per_request'), ('first_live_after_ms'), ('recovered_s'),
    ('brk_opened'), ('brk_transitions'), ('brk_open_ms'), ('brk_half_ms'), ('brk_closed_ms'), ('budget_refused'),
    ('inflight_refused'), ('store1_during_live_share'), ('store2_during_live_share'), ('store2_during_p99_ms'),
    ('store2_p99_ms'), ('recovery_lookups_100ms_max'), ('before_lookups_100ms'), ('freezes'), ('freeze_share'),
    ('false_timeouts'), ('longest_line'), ('healthy_timeouts'), ('healthy_timeout_share'),
    ('during_standin_share'), ('during_p99_ms'), ('store1_during_busy'), ('store2_during_busy')
) AS f(figure)
CROSS JOIN LATERAL (
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY r.value) AS median, min(r.value) AS min, max(r.value) AS max
    FROM run_figures r WHERE r.arm = a.arm AND r.figure = f.figure AND r.value IS NOT NULL) x;

-- Verdicts: clearly different when every round's difference has one sign.
INSERT INTO verdicts
SELECT c.k, c.a, c.b, c.figure, c.note,
       coalesce(d.rounds, '{}'), coalesce(d.diffs, '{}'),
       CASE WHEN d.cnt >= 2 AND (d.allpos OR d.allneg) THEN 'clearly different' ELSE 'too close to call' END,
       CASE WHEN d.cnt >= 2 AND d.allpos THEN 'a>b' WHEN d.cnt >= 2 AND d.allneg THEN 'a<b' END
FROM comparisons c
LEFT JOIN LATERAL (
    SELECT array_agg(x.round ORDER BY x.round) AS rounds,
           array_agg(x.value - y.value ORDER BY x.round) AS diffs,
           count(*) AS cnt,
           bool_and(coalesce(x.value - y.value > 0, false)) AS allpos,
           bool_and(coalesce(x.value - y.value < 0, false)) AS allneg
    FROM run_figures x JOIN run_figures y ON y.arm = c.b AND y.figure = c.figure AND y.round = x.round
    WHERE x.arm = c.a AND x.figure = c.figure
) d ON true;

-- Each verdict's error rate (RESULTS.md, "Each verdict's error rate"): n
-- its rounds; the rule's false-positive rate 2 * 0.5^n (null below 2
-- rounds); sizing_q the q of the prediction's first sizing entry of the
-- same a, b and figure; power sizing_q^n; decidable power >= 0.9.
UPDATE verdicts v SET
    n = cardinality(v.rounds),
    false_positive_rate = CASE WHEN cardinality(v.rounds) >= 2
                               THEN 2 * power(0.5::double precision, cardinality(v.rounds)) END,
    sizing_q = (SELECT s.q FROM predicted_sizing s
                WHERE s.a = v.a AND s.b = v.b AND s.figure = v.figure ORDER BY s.k LIMIT 1);
UPDATE verdicts SET power = CASE WHEN n >= 2 THEN power(sizing_q, n) END;
UPDATE verdicts SET decidable = power >= 0.9;

-- The family of verdicts: how many chance alone would call clearly different.
INSERT INTO verdict_family
SELECT count(*), count(*) FILTER (WHERE verdict = 'clearly different'), coalesce(sum(false_positive_rate), 0),
       count(false_positive_rate), count(*) FILTER (WHERE decidable = false), count(*) FILTER (WHERE decidable IS NULL)
FROM verdicts;

-- Guesses: each clause judged on the run figures (data/README.md's grammar).
CREATE OR REPLACE FUNCTION lab_cmp(x double precision, op text, y double precision) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE op WHEN '<' THEN x < y WHEN '<=' THEN x <= y WHEN '>' THEN x > y WHEN '>=' THEN x >= y END
$$;

WITH judged AS (
    SELECT g.k, g.c,
        CASE
        WHEN g.kind IN ('apart', 'close') THEN (
            -- apart: at least 2 shared rounds, one strict sign; close: shared
            -- rounds, and not apart; no shared round, or a shared round
            -- without the figure: both false
            SELECT count(*) >= 1 AND bool_and(x.value IS NOT NULL AND y.value IS NOT NULL) AND
                   (count(*) >= 2 AND (bool_and(coalesce(x.value > y.value, false))
                                       OR bool_and(coalesce(x.value < y.value, false))))
                   = (g.kind = 'apart')
            FROM run_figures x JOIN run_figures y ON y.arm = g.arm2 AND y.figure = g.figure AND y.round = x.round
            WHERE x.arm = g.arm AND x.figure = g.figure)
        WHEN g.quant = 'median' AND g.arm2 IS NULL THEN (
            SELECT coalesce(lab_cmp(percentile_cont(0.5) WITHIN GROUP (ORDER BY x.value), g.op, g.num), false)
            FROM run_figures x WHERE x.arm = g.arm AND x.figure = g.figure AND x.value IS NOT NULL)
        WHEN g.quant = 'median' THEN coalesce(lab_cmp(
            (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x.value) FROM run_figures x
             WHERE x.arm = g.arm AND x.figure = g.figure AND x.value IS NOT NULL), g.op,
            g.num * (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY y.value) FROM run_figures y
             WHERE y.arm = g.arm2 AND y.figure = g.figure2 AND y.value IS NOT NULL)), false)
        -- every / any: over the arm's quiet rounds (with a right-hand term,
        -- the rounds both arms have); a round without the figure's value
        -- satisfies nothing, so `every` is then false
        WHEN g.arm2 IS NULL THEN (
            SELECT count(*) >= 1 AND
                   CASE g.quant WHEN 'every' THEN bool_and(coalesce(lab_cmp(x.value, g.op, g.num), false))
                                ELSE bool_or(coalesce(lab_cmp(x.value, g.op, g.num), false)) END
            FROM run_figures x WHERE x.arm = g.arm AND x.figure = g.figure)
        ELSE (
            SELECT count(*) >= 1 AND
                   CASE g.quant WHEN 'every' THEN bool_and(coalesce(lab_cmp(x.value, g.op, g.num * y.value), false))
                                ELSE bool_or(coalesce(lab_cmp(x.value, g.op, g.num * y.value), false)) END
            FROM run_figures x JOIN run_figures y ON y.arm = g.arm2 AND y.figure = g.figure2 AND y.round = x.round
            WHERE x.arm = g.arm AND x.figure = g.figure)
        END AS ok
    FROM guess_clauses g
)
INSERT INTO guess_results
SELECT q.k, q.id, q.predicate, bool_and(coalesce(j.ok, false)), array_agg(coalesce(j.ok, false) ORDER BY j.c)
FROM guesses q JOIN judged j USING (k)
GROUP BY q.k, q.id, q.predicate;

-- Odds (RESULTS.md `odds`): each claim of prediction.json, then the lessons'
-- own counts (only beside a prediction).  The exact (Clopper-Pearson) bounds
-- by bisection on [0, 1] to 1e-12 over the binomial sums, each term
-- C(n, i) p^i (1 - p)^(n - i) in double precision.  PostgreSQL raises an
-- error where C would underflow to 0, so a term below e^-700 (or with such
-- a factor) counts 0: beside the 0.025 it is compared with, it is nothing.
CREATE OR REPLACE FUNCTION lab_binom_sum(n int, p double precision, i0 int, i1 int) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    c double precision := 1;    -- C(n, i)
    s double precision := 0;
    lp double precision := ln(p);
    lq double precision := ln(1 - p);
BEGIN
    FOR i IN 0 .. i1 LOOP
        IF i >= i0 AND i * lp >= -700 AND (n - i) * lq >= -700 AND ln(c) + i * lp + (n - i) * lq >= -700 THEN
            s := s + c * p ^ i * (1 - p) ^ (n - i);
        END IF;
        c := c * (n - i) / (i + 1);
    END LOOP;
    RETURN s;
END $$;

-- The bound of the 95% interval of k events in n: lower (upper false) the p
-- with P(X >= k) = 0.025, 0 when k = 0; upper the p with P(X <= k) = 0.025,
-- 1 when k = n; null when n = 0.
CREATE OR REPLACE FUNCTION lab_cp(k int, n int, upper boolean) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    lo double precision := 0;
    hi double precision := 1;
    mid double precision;
BEGIN
    IF n <= 0 THEN RETURN NULL; END IF;
    IF NOT upper AND k = 0 THEN RETURN 0; END IF;
    IF upper AND k = n THEN RETURN 1; END IF;
    WHILE hi - lo > 1e-12 LOOP
        mid := (lo + hi) / 2;
        IF upper THEN     -- P(X <= k) falls as p rises
            IF lab_binom_sum(n, mid, 0, k) > 0.025 THEN lo := mid; ELSE hi := mid; END IF;
        ELSE              -- P(X >= k) rises with p
            IF lab_binom_sum(n, mid, k, n) < 0.025 THEN lo := mid; ELSE hi := mid; END IF;
        END IF;
    END LOOP;
    RETURN (lo + hi) / 2;
END $$;

WITH ev AS (     -- the events of each quiet run
    SELECT arm, round, flooded, coalesce(p99_ms > 1000, false) AS p99_over_1s FROM run_stats
    WHERE quiet AND attempt IS NULL
),
c AS (
    SELECT o.k AS ord, o.claim, o.arm, o.event, NULL::text AS source, o.sim_k, o.sim_n, m.k, m.n, m.rounds,
           o.seconds, true AS same_length
    FROM odds_claims o
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE h.hit) AS k, count(*) AS n,
               coalesce(array_agg(e.round ORDER BY e.round) FILTER (WHERE h.hit), '{}') AS rounds
        FROM ev e
        CROSS JOIN LATERAL (SELECT CASE o.event WHEN 'flooded' THEN e.flooded ELSE e.p99_over_1s END AS hit) h
        WHERE e.arm = o.arm) m
    UNION ALL
    -- an outside observation: the simulation's figures of the same arm and
    -- event (the first such claim; null without one); chances per rounds of
    -- different lengths are not compared (agree null)
    SELECT 1000000 + x.ord, x.claim, x.arm, x.event, x.source, s.sim_k, s.sim_n, x.k, x.n, NULL,
           x.seconds, x.seconds = s.seconds
    FROM odds_outside x
    LEFT JOIN LATERAL (SELECT o.sim_k, o.sim_n, o.seconds FROM odds_claims o
                       WHERE o.arm = x.arm AND o.event = x.event ORDER BY o.k LIMIT 1) s ON true
    WHERE EXISTS (SELECT 1 FROM prediction)
),
-- Wilson at z = 1.959963984540054: (p + z²/2n ± z·√(p(1 − p)/n + z²/4n²)) / (1 + z²/n)
w AS (
    SELECT c.*, c.sim_k::double precision / c.sim_n AS p, c.sim_n::double precision AS nn,
           1.959963984540054::double precision AS z
    FROM c
),
iv AS (
    SELECT w.*,
           (w.p + w.z * w.z / (2 * w.nn) - w.z * sqrt(w.p * (1 - w.p) / w.nn + w.z * w.z / (4 * w.nn * w.nn)))
               / (1 + w.z * w.z / w.nn) AS sim_lo,
           (w.p + w.z * w.z / (2 * w.nn) + w.z * sqrt(w.p * (1 - w.p) / w.nn + w.z * w.z / (4 * w.nn * w.nn)))
               / (1 + w.z * w.z / w.nn) AS sim_hi,
           lab_cp(w.k::int, w.n::int, false) AS cp_lo, lab_cp(w.k::int, w.n::int, true) AS cp_hi
    FROM w
)
INSERT INTO odds
SELECT ord, claim, arm, event, source, sim_k, sim_n, p, sim_lo, sim_hi, k, n, rounds, cp_lo, cp_hi,
       CASE WHEN n > 0 AND sim_n IS NOT NULL AND same_length THEN sim_lo <= cp_hi AND cp_lo <= sim_hi END,
       seconds
FROM iv;

-- The map (RESULTS.md `map`), only beside a prediction with one (map_top
-- has its row): each cell's share and Wilson interval (as the odds'), each
-- policy's hidden capacity (the highest load below capacity_p at it and
-- every lower one; the same on the Wilson bounds: the interval), the
-- triggers' n and median from their counts, and the arms measured on it
-- (their flood claims of `odds`).
TRUNCATE map_cell_stats, map_capacity, map_trigger_stats, map_points;

INSERT INTO map_cell_stats
SELECT w.p, w.l, w.share,
       (w.share + w.z * w.z / (2 * w.nn) - w.z * sqrt(w.share * (1 - w.share) / w.nn + w.z * w.z / (4 * w.nn * w.nn)))
           / (1 + w.z * w.z / w.nn),
       (w.share + w.z * w.z / (2 * w.nn) + w.z * sqrt(w.share * (1 - w.share) / w.nn + w.z * w.z / (4 * w.nn * w.nn)))
           / (1 + w.z * w.z / w.nn)
FROM (SELECT c.p, c.l, c.k::double precision / c.n AS share, c.n::double precision AS nn,
             1.959963984540054::double precision AS z
      FROM map_cells c) w;

WITH run AS (   -- below capacity_p at each load and at every lower one
    SELECT c.p, c.load, s.share >= t.capacity_p AS reaches,
           bool_and(s.share < t.capacity_p) OVER w AS ok,
           bool_and(s.hi < t.capacity_p) OVER w AS ok_hi,
           bool_and(s.lo < t.capacity_p) OVER w AS ok_lo
    FROM map_cells c JOIN map_cell_stats s USING (p, l) CROSS JOIN map_top t
    WINDOW w AS (PARTITION BY c.p ORDER BY c.load ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
INSERT INTO map_capacity
SELECT p, max(load) FILTER (WHERE ok), max(load) FILTER (WHERE ok_hi), max(load) FILTER (WHERE ok_lo), bool_or(reaches)
FROM run GROUP BY p;

INSERT INTO map_trigger_stats
SELECT q.p, f.flooded, coalesce(sum(t.count), 0),
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x.v)
        FROM map_trigger x CROSS JOIN LATERAL generate_series(1, x.count) g
        WHERE x.p = q.p AND x.flooded = f.flooded),
       coalesce(max(t.v), -1)
FROM map_policies q
CROSS JOIN (VALUES (true), (false)) f(flooded)
LEFT JOIN map_trigger t ON t.p = q.p AND t.flooded = f.flooded
GROUP BY q.p, f.flooded;

INSERT INTO map_points
SELECT a.p, a.i, a.arm, a.load, o.seconds, o.sim_k, o.sim_n, o.k, o.n, o.rounds, o.cp_lo, o.cp_hi,
       coalesce(o.seconds = t.seconds, false),
       CASE WHEN o.seconds = t.seconds AND o.n > 0 THEN s.lo <= o.cp_hi AND o.cp_lo <= s.hi END
FROM map_arms a
CROSS JOIN map_top t
LEFT JOIN map_cells c ON c.p = a.p AND c.load = a.load
LEFT JOIN map_cell_stats s ON s.p = c.p AND s.l = c.l
LEFT JOIN LATERAL (SELECT d.seconds, d.sim_k, d.sim_n, d.k, d.n, d.rounds, d.cp_lo, d.cp_hi FROM odds d
                   WHERE d.arm = a.arm AND d.claim = 'flood' AND d.source IS NULL ORDER BY d.ord LIMIT 1) o ON true;

-- The twin (RESULTS.md `twin`), only beside a prediction with a noise model
-- (prediction_noise has its row).  The scored runs: the quiet runs of the
-- arms with a `flood` claim whose prediction has a twin; y their flooded, p
-- the twin's p_flood, and beside it the noise-free yes or no (1 or 0) and
-- the arm's seed-averaged sim_k / sim_n (its first flood claim).  Each bin
-- of p: [from, to), the last [0.95, 1]; its exact interval lab_cp, as the
-- odds'.  Outside: every quiet run whose measured stand-in share is more
-- than 0.01 (DESIGN 5.8's tolerance) from the predicted one.
TRUNCATE twin_scored, twin_scores, twin_calibration, twin_outside;

INSERT INTO twin_scored
SELECT s.run, CASE WHEN s.flooded THEN 1 ELSE 0 END, t.p_flood,
       CASE WHEN pr.flooded THEN 1 ELSE 0 END, c.sim_k::double precision / c.sim_n, t.k
FROM run_stats s
JOIN predicted_runs pr ON pr.run = s.run
JOIN predicted_twin t ON t.run = s.run
CROSS JOIN LATERAL (SELECT o.sim_k, o.sim_n FROM odds_claims o
                    WHERE o.arm = s.arm AND o.claim = 'flood' ORDER BY o.k LIMIT 1) c
WHERE s.quiet AND s.attempt IS NULL AND EXISTS (SELECT 1 FROM prediction_noise);

-- (each mean adds its terms up in one order, the twins' in prediction.json,
-- k: a sum of doubles depends on its order in the last bits, and the order
-- rows are read in is no rule: the loader writes two runs at a time)
INSERT INTO twin_scores
SELECT count(*), count(*) FILTER (WHERE y = 1),
       avg((p - y) ^ 2 ORDER BY k), avg((p_yes_no - y) ^ 2 ORDER BY k), avg((p_odds - y) ^ 2 ORDER BY k)
FROM twin_scored
HAVING EXISTS (SELECT 1 FROM prediction_noise);   -- (no row without: the aggregate's one row otherwise)

INSERT INTO twin_calibration
SELECT b.k, b.lo, b.hi, count(x.run), avg(x.p ORDER BY x.k), count(x.run) FILTER (WHERE x.y = 1),
       CASE WHEN count(x.run) > 0 THEN (count(x.run) FILTER (WHERE x.y = 1))::double precision / count(x.run) END,
       lab_cp((count(x.run) FILTER (WHERE x.y = 1))::int, count(x.run)::int, false),
       lab_cp((count(x.run) FILTER (WHERE x.y = 1))::int, count(x.run)::int, true)
FROM (VALUES (0, 0::double precision, 0.05::double precision), (1, 0.05, 0.25), (2, 0.25, 0.5), (3, 0.5, 0.75),
             (4, 0.75, 0.95), (5, 0.95, 1)) AS b(k, lo, hi)
LEFT JOIN twin_scored x ON x.p >= b.lo AND (x.p < b.hi OR (b.k = 5 AND x.p <= 1))
WHERE EXISTS (SELECT 1 FROM prediction_noise)
GROUP BY b.k, b.lo, b.hi;

INSERT INTO twin_outside
SELECT w.run, w.measured, w.predicted, w.q05, w.q95, w.flooded, w.predicted_flooded, w.p_flood, w.within,
       CASE WHEN w.flooded AND NOT w.predicted_flooded THEN 'flooded, predicted calm'
            WHEN NOT w.flooded AND w.predicted_flooded THEN 'calm, predicted to flood'
            ELSE 'stand-ins beyond the tolerance' END
       || CASE WHEN w.twin IS NULL THEN ''
               WHEN w.within THEN '; inside the twin''s 5-95% spread'
               ELSE '; outside the twin''s 5-95% spread' END
FROM (SELECT s.run, s.standin_share AS measured, pr.standin_share AS predicted, t.q05, t.q95,
             s.flooded, pr.flooded AS predicted_flooded, t.p_flood, t.run AS twin,
             t.q05 <= s.standin_share AND s.standin_share <= t.q95 AS within
      FROM run_stats s
      JOIN predicted_runs pr ON pr.run = s.run
      LEFT JOIN predicted_twin t ON t.run = s.run
      WHERE s.quiet AND s.attempt IS NULL AND abs(s.standin_share - pr.standin_share) > 0.01
        AND EXISTS (SELECT 1 FROM prediction_noise)) w;
