/* topts: the tester's command line (lab/tester/tester.c's head says what
 * each setting does to a run).
 *
 * The options, one table (tester --help lists them).  Required: --port,
 * --rate (requests/s above 0, at most 1e7; or max, the closed loop),
 * --seconds (above 0, at most 86400), --seed (0 to 2^63-1), --rows (1 to
 * 2^31-1), --out and --summary (non-empty names).  Optional, with their
 * defaults: --deadline-ms (above 0; unset: no deadline), --conns (64; the
 * closed loop 16), --gate (1), --gate-wait-s (60), --gate-note (unset:
 * none; with --gate 1, a note of the window of the run before's settling,
 * taken as the gate when recent: lab/watch/gate.h), --drain-s (10),
 * --machine, --watch-pids (at most 4), --store-port (unset: 0, no clock
 * frame), --store2-port (the second store's clock frame, given by run only
 * when that store has a fault; unset: 0, none).  An open loop plans at most TOPTS_MAX_REQUESTS requests (rate x
 * seconds).  Every number is parsed whole, its range checked
 * (lab/base/opt.h); a bad or missing one is named in one line on stderr.
 *
 * Nothing is allocated: the strings point into argv.
 */
#ifndef LAB_TOPTS_H
#define LAB_TOPTS_H

#include <stdint.h>
#include <sys/types.h>

#define TOPTS_MAX_REQUESTS 50000000.0

typedef struct {
    int port;
    int store_port; /* 0: no clock frame */
    int store2_port; /* the second store's; 0: no clock frame */
    int closed; /* --rate max */
    double rate, seconds;
    uint64_t seed;
    int64_t rows;
    const char *out, *summary;
    int have_deadline;
    double deadline_ms;
    int conns;
    int gate;
    double gate_wait_s, drain_s;
    const char *gate_note; /* NULL: none */
    const char *machine; /* machine.tsv.gz to write, or NULL: no watch */
    const char *watch_pids_s;
    pid_t watch_pids[4];
    int nwatch_pids;
} topts;

/* Fills o from the command line: 0 ok, 1 help printed, -1 bad (one message
 * written). */
int topts_parse(int argc, char **argv, topts *o);

#endif
