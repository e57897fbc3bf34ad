/* topts: the tester's command line (topts.h): the option table, the
 * required ones, the rate's "max", the checks across options. */
#include "topts.h"

#include <string.h>

#include "opt.h"
#include "util.h"
#include "watch.h"

#define ABOUT                                                                                     \
    "tester: open-loop Poisson load at --rate requests/s for --seconds (or closed loop with\n"      \
    "--rate max) against POST /score on 127.0.0.1:--port; rows as lab/RAWFORMAT.md's\n"            \
    "tester.tsv.gz.  Required: --port --rate --seconds --seed --rows --out --summary.\n"            \
    "Exit: 0 done, 1 run failed, 2 bad options, 3 idle gate not passed."

/* A number that must be more than 0 (opt_parse's bounds are inclusive). */
static int positive(const char *name, double v)
{
    if (v == 0) {
        ut_err("option %s: \"0\": must be more than 0", name);
        return -1;
    }
    return 0;
}

int topts_parse(int argc, char **argv, topts *o)
{
    memset(o, 0, sizeof *o);
    const char *rate = NULL, *seed_s = NULL;
    int64_t seed = -1;
    o->seconds = -1;
    o->deadline_ms = -1;
    o->conns = -1;
    o->gate = 1;
    o->gate_wait_s = 60;
    o->drain_s = 10;
    const opt_spec spec[] = {
        {"--port", OPT_INT, &o->port, 1, 65535, "P", "the service's port on 127.0.0.1"},
        {"--rate", OPT_STR, &rate, 0, 0, "R|max", "requests/s (open loop), or max (closed loop)"},
        {"--seconds", OPT_DBL, &o->seconds, 0, 86400, "S", "the schedule's length (> 0)"},
        /* a string: INT64_MAX is not a double, so it cannot be a table bound */
        {"--seed", OPT_STR, &seed_s, 0, 0, "N", "seed of the Poisson schedule (0 to 2^63-1)"},
        {"--rows", OPT_I64, &o->rows, 1, INT32_MAX, "NROWS", "rows of the table (request j asks j % NROWS)"},
        {"--out", OPT_STR, &o->out, 0, 0, "FILE.tsv.gz", "the rows"},
        {"--summary", OPT_STR, &o->summary, 0, 0, "FILE.json", "the summary"},
        {"--deadline-ms", OPT_DBL, &o->deadline_ms, 0, 3600e3, "D", "a deadline from the scheduled arrival"},
        {"--conns", OPT_INT, &o->conns, 1, 10000, "C", "keep-alive connections (64; closed loop 16)"},
        {"--gate", OPT_BOOL, &o->gate, 0, 1, "1|0", "wait for an idle machine first (1)"},
        {"--gate-wait-s", OPT_DBL, &o->gate_wait_s, 0, 86400, "S", "give up on the idle gate after S s (60)"},
        {"--gate-note", OPT_STR, &o->gate_note, 0, 0, "FILE", "the run before's settling as the gate, if recent (lab/watch/gate.h)"},
        {"--drain-s", OPT_DBL, &o->drain_s, 0, 3600, "S", "wait for answers after the last send (10)"},
        {"--machine", OPT_STR, &o->machine, 0, 0, "FILE.tsv.gz", "watch the machine each second from t0"},
        {"--watch-pids", OPT_STR, &o->watch_pids_s, 0, 0, "PID,PID", "the run's other processes (store, service)"},
        {"--store-port", OPT_INT, &o->store_port, 1, 65535, "Q", "tell the store on 127.0.0.1:Q the run's t0"},
        {"--store2-port", OPT_INT, &o->store2_port, 1, 65535, "Q2", "tell the second store on 127.0.0.1:Q2 the run's t0 too"},
        {0}};
    int rc = opt_parse(argc, argv, spec, ABOUT, NULL);
    if (rc != OPT_OK)
        return rc == OPT_HELP ? 1 : -1;
    const char *missing = !o->port          ? "--port"
                          : !rate           ? "--rate"
                          : o->seconds < 0  ? "--seconds"
                          : !seed_s         ? "--seed"
                          : !o->rows        ? "--rows"
                          : !o->out         ? "--out"
                          : !o->summary     ? "--summary"
                                            : NULL;
    if (missing) {
        ut_err("%s is required (see --help)", missing);
        return -1;
    }
    char why[96];
    if (opt_i64(seed_s, 0, INT64_MAX, &seed, why, sizeof why) != 0) {
        ut_err("option --seed: \"%s\": %s", seed_s, why);
        return -1;
    }
    if (!strcmp(rate, "max")) {
        o->closed = 1;
    } else if (opt_f64(rate, 0, 1e7, &o->rate, why, sizeof why) != 0) {
        ut_err("option --rate: \"%s\": %s (requests/s, or max)", rate, why);
        return -1;
    } else if (positive("--rate", o->rate) != 0) {
        return -1;
    }
    if (positive("--seconds", o->seconds) != 0 || positive("--deadline-ms", o->deadline_ms) != 0)
        return -1;
    if (!o->out[0] || !o->summary[0]) {
        ut_err("%s: an empty file name", !o->out[0] ? "--out" : "--summary");
        return -1;
    }
    o->seed = (uint64_t)seed;
    if (o->watch_pids_s && watch_parse_pids(o->watch_pids_s, o->watch_pids, 4, &o->nwatch_pids, why, sizeof why)) {
        ut_err("option --watch-pids: \"%s\": %s", o->watch_pids_s, why);
        return -1;
    }
    o->have_deadline = o->deadline_ms > 0;
    if (o->conns < 0)
        o->conns = o->closed ? 16 : 64;
    if (!o->closed && o->rate * o->seconds > TOPTS_MAX_REQUESTS) {
        ut_err("--rate x --seconds: %.0f requests planned, more than %.0f", o->rate * o->seconds,
               TOPTS_MAX_REQUESTS);
        return -1;
    }
    return 0;
}
