-- Every statistic of the study, computed from the loaded raw events.  The
-- definitions are pipeline/RESULTS.md's; percentiles are percentile_cont
-- (linear interpolation between closest ranks).  Run by collect in one
-- transaction after loading; it rebuilds every derived table.

TRUNCATE run_stats, per_second, run_figures, arm_stats, verdicts, guess_results;
-- (quiet_limits is filled by collect from data/quiet.tsv before this runs)

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
       s.lookups, s.lookups::double precision / t.n,
       s.slot / 1e6,
       CASE WHEN s.lookups > 0 THEN s.slot / 1e6 / s.lookups END,
       s.slot / 1e6 / t.n,
       s.cut, s.pending,
       t.late50 / 1e3, t.late99 / 1e3, t.latemax / 1e3,
       t.ok / r.seconds,
       m.steal_share, m.steal_second_max, m.other_idle_share, m.foreign_second_max,
       NULL, NULL                       -- quiet, quiet_rules: below
FROM runs r
CROSS JOIN LATERAL (
    SELECT count(*) AS n, count(q.answer_ns) AS answered,
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
           percentile_cont(0.5) WITHIN GROUP (ORDER BY q.send_ns - q.sched_ns) AS late50,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY q.send_ns - q.sched_ns) AS late99,
           max(q.send_ns - q.sched_ns)::double precision AS latemax
    FROM requests q WHERE q.run = r.run) t
CROSS JOIN LATERAL (
    SELECT count(*) AS lookups,
           coalesce(sum(l.end_ns - l.start_ns) FILTER (WHERE l.start_ns IS NOT NULL AND l.end_ns IS NOT NULL), 0)::double precision AS slot,
           count(*) FILTER (WHERE l.outcome = 'D') AS cut,
           count(*) FILTER (WHERE l.outcome = 'P') AS pending
    FROM lookups l WHERE l.run = r.run) s
CROSS JOIN LATERAL (
    SELECT CASE WHEN sum(a.total) > 0 THEN sum(a.steal)::double precision / sum(a.total) END AS steal_share,
           max(CASE WHEN a.total > 0 THEN a.steal::double precision / a.total ELSE 0 END) AS steal_second_max,
           CASE WHEN sum(a.total) - sum(m.total) > 0
                THEN (sum(a.idle) - sum(m.idle))::double precision / (sum(a.total) - sum(m.total)) END
               AS other_idle_share,
           max(CASE WHEN m.total > 0 THEN greatest(0, m.total - m.idle - m.steal - m.lab)::double precision / m.total
               ELSE 0 END) AS foreign_second_max
    FROM machine a JOIN machine m ON m.run = a.run AND m.k = a.k AND m.scope = 'M'
    WHERE a.run = r.run AND a.scope = 'A') m
WHERE t.n > 0;

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

-- Second by second: second s covers [t0 + s*1e9, t0 + (s+1)*1e9).
WITH secs AS (
    SELECT r.run, r.t0_ns, g.s,
           r.t0_ns + g.s::bigint * 1000000000 AS lo,
           r.t0_ns + (g.s + 1)::bigint * 1000000000 AS hi
    FROM runs r CROSS JOIN LATERAL generate_series(0, ceil(r.seconds)::int - 1) AS g(s)
),
nsec AS (SELECT run, t0_ns, ceil(seconds)::int AS k FROM runs),
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
late AS (
    SELECT q.run, floor((q.sched_ns - n.t0_ns)::numeric / 1e9)::int AS s, max(q.send_ns - q.sched_ns) AS late_ns
    FROM requests q JOIN nsec n USING (run)
    GROUP BY 1, 2
),
req AS (
    SELECT q.run, floor((q.sched_ns - n.t0_ns)::numeric / 1e9)::int AS s,
           count(*) AS arrivals, count(*) FILTER (WHERE q.kind IN ('K', 'D')) AS standins
    FROM requests q JOIN nsec n USING (run)
    GROUP BY 1, 2
),
sent AS (
    SELECT v.run, floor((t.x - n.t0_ns)::numeric / 1e9)::int AS s, count(*) AS lookups_sent
    FROM service_requests v JOIN nsec n USING (run)
    CROSS JOIN LATERAL (VALUES (v.a0_start), (v.a1_start), (v.a2_start)) AS t(x)
    WHERE t.x IS NOT NULL
    GROUP BY 1, 2
),
-- busy on [start, e), e = end, or open to the end of the run when absent
busy_iv AS (
    SELECT l.run, l.start_ns AS a, coalesce(l.end_ns, n.t0_ns + n.k::bigint * 1000000000) AS e, n.t0_ns, n.k
    FROM lookups l JOIN nsec n USING (run)
    WHERE l.start_ns IS NOT NULL
),
-- in line on [arrive, e), e = start, else end, else open to the end of the run
line_iv AS (
    SELECT l.run, l.arrive_ns AS a,
           coalesce(l.start_ns, l.end_ns, n.t0_ns + n.k::bigint * 1000000000) AS e, n.t0_ns, n.k
    FROM lookups l JOIN nsec n USING (run)
),
busy AS (
    SELECT i.run, g.s,
           sum(least(i.e, i.t0_ns + (g.s + 1)::bigint * 1000000000)
               - greatest(i.a, i.t0_ns + g.s::bigint * 1000000000)) AS ns
    FROM busy_iv i
    CROSS JOIN LATERAL generate_series(
        greatest(0, floor((i.a - i.t0_ns)::numeric / 1e9)::int),
        least(i.k - 1, floor((i.e - 1 - i.t0_ns)::numeric / 1e9)::int)) AS g(s)
    WHERE i.e > i.a
    GROUP BY 1, 2
),
line AS (
    SELECT i.run, g.s,
           sum(least(i.e, i.t0_ns + (g.s + 1)::bigint * 1000000000)
               - greatest(i.a, i.t0_ns + g.s::bigint * 1000000000)) AS ns
    FROM line_iv i
    CROSS JOIN LATERAL generate_series(
        greatest(0, floor((i.a - i.t0_ns)::numeric / 1e9)::int),
        least(i.k - 1, floor((i.e - 1 - i.t0_ns)::numeric / 1e9)::int)) AS g(s)
    WHERE i.e > i.a
    GROUP BY 1, 2
)
INSERT INTO per_second
SELECT x.run, x.s, coalesce(req.arrivals, 0), coalesce(req.standins, 0), coalesce(sent.lookups_sent, 0),
       coalesce(busy.ns, 0)::double precision / 1e9, coalesce(line.ns, 0)::double precision / 1e9,
       steal.steal_share, late.late_ns / 1e3, foreign_.foreign_share
FROM secs x
LEFT JOIN steal USING (run, s)
LEFT JOIN foreign_ USING (run, s)
LEFT JOIN late USING (run, s)
LEFT JOIN req USING (run, s)
LEFT JOIN sent USING (run, s)
LEFT JOIN busy USING (run, s)
LEFT JOIN line USING (run, s);

-- One row per (run, figure) of the quiet runs: what verdicts, guesses and
-- arm statistics read (a disturbed run counts as not measured).
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
    ('late_p99_us', s.late_p99_us), ('answers_per_s', s.answers_per_s)
) AS f(figure, value)
WHERE s.quiet;

-- Median and range over rounds (nulls left out).
INSERT INTO arm_stats
SELECT arm, figure, percentile_cont(0.5) WITHIN GROUP (ORDER BY value), min(value), max(value)
FROM run_figures
WHERE figure <> 'n' AND value IS NOT NULL
GROUP BY arm, figure;

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
           bool_and(x.value - y.value > 0) AS allpos,
           bool_and(x.value - y.value < 0) AS allneg
    FROM run_figures x JOIN run_figures y ON y.arm = c.b AND y.figure = c.figure AND y.round = x.round
    WHERE x.arm = c.a AND x.figure = c.figure AND x.value IS NOT NULL AND y.value IS NOT NULL
) d ON true;

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
            -- rounds, and not apart; no shared round: both false
            SELECT count(*) >= 1 AND
                   coalesce(count(*) >= 2 AND (bool_and(x.value > y.value) OR bool_and(x.value < y.value)), false)
                   = (g.kind = 'apart')
            FROM run_figures x JOIN run_figures y ON y.arm = g.arm2 AND y.figure = g.figure AND y.round = x.round
            WHERE x.arm = g.arm AND x.figure = g.figure AND x.value IS NOT NULL AND y.value IS NOT NULL)
        WHEN g.quant = 'median' AND g.arm2 IS NULL THEN (
            SELECT coalesce(lab_cmp(percentile_cont(0.5) WITHIN GROUP (ORDER BY x.value), g.op, g.num), false)
            FROM run_figures x WHERE x.arm = g.arm AND x.figure = g.figure AND x.value IS NOT NULL)
        WHEN g.quant = 'median' THEN coalesce(lab_cmp(
            (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x.value) FROM run_figures x
             WHERE x.arm = g.arm AND x.figure = g.figure AND x.value IS NOT NULL), g.op,
            g.num * (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY y.value) FROM run_figures y
             WHERE y.arm = g.arm2 AND y.figure = g.figure2 AND y.value IS NOT NULL)), false)
        WHEN g.arm2 IS NULL THEN (
            SELECT count(*) >= 1 AND CASE g.quant WHEN 'every' THEN bool_and(lab_cmp(x.value, g.op, g.num))
                                                  ELSE bool_or(lab_cmp(x.value, g.op, g.num)) END
            FROM run_figures x WHERE x.arm = g.arm AND x.figure = g.figure AND x.value IS NOT NULL)
        ELSE (
            SELECT count(*) >= 1 AND CASE g.quant WHEN 'every' THEN bool_and(lab_cmp(x.value, g.op, g.num * y.value))
                                                  ELSE bool_or(lab_cmp(x.value, g.op, g.num * y.value)) END
            FROM run_figures x JOIN run_figures y ON y.arm = g.arm2 AND y.figure = g.figure2 AND y.round = x.round
            WHERE x.arm = g.arm AND x.figure = g.figure AND x.value IS NOT NULL AND y.value IS NOT NULL)
        END AS ok
    FROM guess_clauses g
)
INSERT INTO guess_results
SELECT q.k, q.id, q.predicate, bool_and(coalesce(j.ok, false)), array_agg(coalesce(j.ok, false) ORDER BY j.c)
FROM guesses q JOIN judged j USING (k)
GROUP BY q.k, q.id, q.predicate;
