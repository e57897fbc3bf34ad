-- The statements of the statistics that read only the raw tables and
-- write tables of their own: each run's rows of V counted by what became
-- of their lookups (service_counts), the seconds (per_second) and the
-- false and healthy timeouts of each run (timeout_counts).  collect runs
-- this on its second connection while pipeline/collect/stats.sql runs on
-- the first (the machine has two cores; each statement runs on one), and
-- waits for it to finish where stats.sql says so, before stats.sql reads
-- them.  One transaction of its own: a collect that fails leaves the three
-- tables as they were or whole, and the next collect computes them again.

BEGIN;
-- (as stats.sql: each raw table read whole and grouped by run)
SET LOCAL work_mem = '256MB';
TRUNCATE service_counts, per_second, timeout_counts;

-- The store failing (stats.sql's, every run): what became of each lookup
-- of V (lookup_ends, its end by outcome), the retries the gates let
-- through (K >= 1, not O B Y), the lookups the retry budget (Y) or a full
-- compartment (B) refused, and the permanent errors retried.
INSERT INTO service_counts
WITH sv AS (   -- the rows of V by their pattern of lookups tried and outcomes: few per run
    SELECT run, a0_start IS NOT NULL AS s0, a1_start IS NOT NULL AS s1, a2_start IS NOT NULL AS s2,
           a3_start IS NOT NULL AS s3, a4_start IS NOT NULL AS s4, a0_out, a1_out, a2_out, a3_out, a4_out,
           count(*) AS n
    FROM service_requests GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
),
e AS (
    SELECT sv.run, jsonb_build_object(
        'A', coalesce(sum(sv.n) FILTER (WHERE k.o = 'A'), 0)::bigint,
        'T', coalesce(sum(sv.n) FILTER (WHERE k.o = 'T'), 0)::bigint,
        'C', coalesce(sum(sv.n) FILTER (WHERE k.o = 'C'), 0)::bigint,
        'D', coalesce(sum(sv.n) FILTER (WHERE k.o = 'D'), 0)::bigint,
        'U', coalesce(sum(sv.n) FILTER (WHERE k.o = 'U'), 0)::bigint,
        'N', coalesce(sum(sv.n) FILTER (WHERE k.o = 'N'), 0)::bigint,
        'X', coalesce(sum(sv.n) FILTER (WHERE k.o = 'X'), 0)::bigint,
        'R', coalesce(sum(sv.n) FILTER (WHERE k.o = 'R'), 0)::bigint,
        'O', coalesce(sum(sv.n) FILTER (WHERE k.o = 'O'), 0)::bigint,
        'B', coalesce(sum(sv.n) FILTER (WHERE k.o = 'B'), 0)::bigint,
        'Y', coalesce(sum(sv.n) FILTER (WHERE k.o = 'Y'), 0)::bigint) AS j,
        coalesce(sum(sv.n) FILTER (WHERE k.k >= 1 AND k.st AND (k.o IS NULL OR k.o NOT IN ('O', 'B', 'Y'))), 0)::bigint
            AS passed,
        coalesce(sum(sv.n) FILTER (WHERE k.o = 'Y'), 0)::bigint AS y,
        coalesce(sum(sv.n) FILTER (WHERE k.o = 'B'), 0)::bigint AS b
    FROM sv
    CROSS JOIN LATERAL (VALUES (0, sv.s0, sv.a0_out), (1, sv.s1, sv.a1_out), (2, sv.s2, sv.a2_out),
                               (3, sv.s3, sv.a3_out), (4, sv.s4, sv.a4_out)) AS k(k, st, o)
    GROUP BY sv.run
),
p AS (
    -- a lookup answered "not found", and a later one tried all the same:
    -- the first K with N comes before the last K with an outcome
    SELECT sv.run, sum(sv.n)::bigint AS n FROM sv
    WHERE (SELECT min(k.k) FILTER (WHERE k.o = 'N') < max(k.k) FILTER (WHERE k.o IS NOT NULL)
           FROM (VALUES (0, sv.a0_out), (1, sv.a1_out), (2, sv.a2_out), (3, sv.a3_out), (4, sv.a4_out)) AS k(k, o))
    GROUP BY sv.run
)
SELECT e.run, e.j, e.passed, e.y, e.b, coalesce(p.n, 0) FROM e LEFT JOIN p USING (run);

-- Second by second: second s covers [t0 + s*1e9, t0 + (s+1)*1e9); lab_sec(t)
-- is the second of t ns after t0, floor(t / 1e9) in integers.  (Each raw
-- table grouped by run and second by hashing: the planner expects millions
-- of seconds and would sort the rows on disk; off again after.)
CREATE OR REPLACE FUNCTION lab_sec(t bigint) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT (CASE WHEN t >= 0 THEN t / 1000000000 ELSE -((999999999 - t) / 1000000000) END)::int
$$;

SET LOCAL enable_sort = off;
WITH secs AS (
    SELECT r.run, r.t0_ns, g.s,
           r.t0_ns + g.s::bigint * 1000000000 AS lo,
           r.t0_ns + (g.s + 1)::bigint * 1000000000 AS hi
    FROM runs r CROSS JOIN LATERAL generate_series(0, ceil(r.seconds)::int - 1) AS g(s)
),
steal AS (
    SELECT run, k AS s, CASE WHEN total > 0 THEN steal::double precision / total ELSE 0 END AS steal_share
    FROM machine WHERE scope = 'A'
),
foreign_ AS (
    SELECT run, k AS s,
           CASE WHEN total > 0 THEN greatest(0, total - idle - steal - lab)::double precision / total ELSE 0 END
               AS foreign_share
    FROM machine WHERE scope = 'M'
),
req AS (
    SELECT q.run, lab_sec(q.sched_ns - n.t0_ns) AS s,
           count(*) AS arrivals, count(*) FILTER (WHERE q.kind IN ('K', 'D')) AS standins,
           count(*) FILTER (WHERE q.kind = 'L') AS live, count(*) FILTER (WHERE q.kind = 'E') AS errors,
           max(q.send_ns - q.sched_ns) AS late_ns
    FROM requests q JOIN runs n USING (run)
    GROUP BY 1, 2
),
sent AS (
    SELECT l.run, lab_sec(l.st - n.t0_ns) AS s, count(*) AS lookups_sent
    FROM service_lookups l JOIN runs n USING (run)
    WHERE l.sent
    GROUP BY 1, 2
),
-- busy on [start, e), e = end, or open to the end of the run when absent;
-- sa and se the seconds of its first and last instant
busy_iv AS NOT MATERIALIZED (
    SELECT i.*, lab_sec(i.a - i.t0_ns) AS sa, lab_sec(i.e - 1 - i.t0_ns) AS se
    FROM (SELECT l.run, l.start_ns AS a, coalesce(l.end_ns, n.t0_ns + ceil(n.seconds)::bigint * 1000000000) AS e,
                 n.t0_ns, ceil(n.seconds)::int AS k
          FROM lookups l JOIN runs n USING (run)
          WHERE l.start_ns IS NOT NULL) i
    WHERE i.e > i.a
),
-- in line on [arrive, e), e = start, else end, else open to the end of the run
line_iv AS NOT MATERIALIZED (
    SELECT i.*, lab_sec(i.a - i.t0_ns) AS sa, lab_sec(i.e - 1 - i.t0_ns) AS se
    FROM (SELECT l.run, l.arrive_ns AS a,
                 coalesce(l.start_ns, l.end_ns, n.t0_ns + ceil(n.seconds)::bigint * 1000000000) AS e, n.t0_ns,
                 ceil(n.seconds)::int AS k
          FROM lookups l JOIN runs n USING (run)) i
    WHERE i.e > i.a
),
-- each interval's time in each second of the run it overlaps, cut at each
-- second's bounds: the seconds sa .. se (within the run) by a set-returning
-- function in the select list, one row for most (those within one second),
-- each lookup read once.  (A row per second through LATERAL generate_series,
-- or whole seconds apart from cut ones read in two scans, took longer: 6.7 s
-- against 4.7 s for busy on the full study, 2026-12-07; the same sums, of
-- whole nanoseconds, exact in any order.)
-- busy and line are the same cut over their own intervals, written twice on
-- purpose: one cut over both (a kind column on a UNION ALL of busy_iv and
-- line_iv) took 19 s on the full study against 9 s for the two (2026-12-07).
busy AS (
    SELECT x.run, x.s,
           sum(least(x.e, x.t0_ns + (x.s + 1)::bigint * 1000000000) - greatest(x.a, x.t0_ns + x.s::bigint * 1000000000))
               AS ns
    FROM (SELECT i.run, i.a, i.e, i.t0_ns, generate_series(greatest(0, i.sa), least(i.k - 1, i.se)) AS s
          FROM busy_iv i) x
    GROUP BY 1, 2
),
line AS (
    SELECT x.run, x.s,
           sum(least(x.e, x.t0_ns + (x.s + 1)::bigint * 1000000000) - greatest(x.a, x.t0_ns + x.s::bigint * 1000000000))
               AS ns
    FROM (SELECT i.run, i.a, i.e, i.t0_ns, generate_series(greatest(0, i.sa), least(i.k - 1, i.se)) AS s
          FROM line_iv i) x
    GROUP BY 1, 2
)
INSERT INTO per_second
SELECT x.run, x.s, coalesce(req.arrivals, 0), coalesce(req.standins, 0), coalesce(req.live, 0),
       coalesce(req.errors, 0), coalesce(sent.lookups_sent, 0),
       coalesce(busy.ns, 0)::double precision / 1e9, coalesce(line.ns, 0)::double precision / 1e9,
       steal.steal_share, req.late_ns / 1e3, foreign_.foreign_share,
       CASE WHEN req.arrivals > 0 THEN req.standins::double precision / req.arrivals END
FROM secs x
LEFT JOIN steal USING (run, s)
LEFT JOIN foreign_ USING (run, s)
LEFT JOIN req USING (run, s)
LEFT JOIN sent USING (run, s)
LEFT JOIN busy USING (run, s)
LEFT JOIN line USING (run, s);
SET LOCAL enable_sort = on;

-- The false timeouts of each run (stats.sql's dice): lookups of V the
-- service gave up on (T) whose own drawn wait (their row of S: same req,
-- attempt K, the request's store) was shorter than the time waited, slow
-- from queueing, not frozen; and the healthy timeouts: those T whose drawn
-- wait was under 1 s (not a freeze: the false-timeout rule's false
-- timeouts), over the store's rows with such a wait.  A T without a row of
-- S counts in neither; one lookup counts once.
DROP TABLE IF EXISTS pg_temp.timeouts;
CREATE TEMP TABLE timeouts AS   -- each lookup of V given up on (T), numbered (only the rows of V with a T are taken apart)
SELECT row_number() OVER () AS id, v.run, v.req, k.k, k.en - k.st AS waited,
       CASE WHEN k.k = 1 AND r.hedge2 = 1 THEN 2 ELSE v.store END AS store
FROM service_requests v JOIN runs r USING (run)
CROSS JOIN LATERAL (VALUES (0, v.a0_start, v.a0_end, v.a0_out), (1, v.a1_start, v.a1_end, v.a1_out),
                           (2, v.a2_start, v.a2_end, v.a2_out), (3, v.a3_start, v.a3_end, v.a3_out),
                           (4, v.a4_start, v.a4_end, v.a4_out)) AS k(k, st, en, o)
WHERE 'T' IN (v.a0_out, v.a1_out, v.a2_out, v.a3_out, v.a4_out) AND k.o = 'T';
ANALYZE timeouts;

-- (each T finds its rows of S by a hash of the T probed by the store's
-- rows, read once: the planner's other choice, sorting all of S by the
-- four keys, took twice as long and spilled to disk)
SET LOCAL enable_mergejoin = off;
INSERT INTO timeout_counts
WITH q AS (    -- each T with its own rows of S
    SELECT tl.run, tl.id, bool_or(l.planned_ns < tl.waited) AS fals, bool_or(l.planned_ns < 1000000000) AS healthy
    FROM timeouts tl JOIN lookups l ON l.run = tl.run AND l.store = tl.store AND l.req = tl.req AND l.attempt = tl.k
    GROUP BY tl.run, tl.id
)
SELECT q.run, count(*) FILTER (WHERE q.fals), count(*) FILTER (WHERE q.healthy) FROM q GROUP BY q.run;
SET LOCAL enable_mergejoin = on;
COMMIT;
