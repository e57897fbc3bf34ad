/* evlog: see evlog.h. */
#include "evlog.h"

#include <inttypes.h>
#include <stdlib.h>

#include "rawfmt.h"
#include "util.h"

struct evlog {
    rawlog *log;
    int64_t last_t;
    int warned;
};

int evlog_open(evlog **out, const char *path, char *err, size_t errlen)
{
    *out = NULL;
    evlog *e = calloc(1, sizeof *e);
    if (!e) {
        ut_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (rawfmt_log_open(&e->log, path, RAWFMT_EVENTS, err, errlen) != 0) {
        free(e);
        return -1;
    }
    e->last_t = INT64_MIN;
    *out = e;
    return 0;
}

void evlog_row(evlog *e, int64_t t, char what, int conn, int tries, int64_t wait_ns)
{
    if (t < e->last_t && !e->warned) {
        ut_err("events: a %c row at %" PRId64 " ns comes after one at %" PRId64 " ns", what, t, e->last_t);
        e->warned = 1;
    }
    if (t > e->last_t)
        e->last_t = t;
    int64_t v[RAWFMT_EVENTS_NCOLS];
    v[RAWFMT_EVENTS_t] = t;
    v[RAWFMT_EVENTS_what] = what;
    v[RAWFMT_EVENTS_conn] = conn;
    v[RAWFMT_EVENTS_tries] = tries;
    v[RAWFMT_EVENTS_wait_ns] = wait_ns;
    if (rawlog_row(e->log, v) != 0)
        ut_err("cannot log an event (spill file)");
}

size_t evlog_rows(const evlog *e) { return rawlog_rows(e->log); }

int evlog_close(evlog *e, char *err, size_t errlen)
{
    int rc = rawlog_close(e->log, err, errlen);
    free(e);
    return rc;
}

void evlog_abort(evlog *e)
{
    rawlog_abort(e->log);
    free(e);
}
