/* trecord: see trecord.h. */
#include "trecord.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "rawfmt.h"
#include "util.h"

int trec_schedule(uint64_t seed, double rate, double seconds, trec **req, size_t *n, size_t *cap)
{
    arrivals_gen a;
    arrivals_start(&a, seed, rate, seconds);
    *n = 0;
    *cap = (size_t)(rate * seconds * 1.2) + 64;
    *req = malloc(*cap * sizeof **req);
    if (!*req)
        return -1;
    for (int64_t off; (off = arrivals_next(&a)) >= 0;) {
        if (*n == *cap) {
            trec *a = realloc(*req, *cap * 2 * sizeof *a);
            if (!a)
                return -1;
            *req = a;
            *cap *= 2;
        }
        (*req)[(*n)++] = (trec){.sched = off, .send = RAW_NONE, .answer = RAW_NONE, .conn = -1, .kind = 'E'};
    }
    return 0;
}

static json_t *num_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

int trec_write_summary(const char *path, const trec *req, size_t n, const trec_run *o, const gate_res *g)
{
    size_t answered = 0, nlate = 0, kinds[4] = {0};
    int64_t *late = malloc((n ? n : 1) * sizeof *late);
    if (!late) {
        ut_err("out of memory");
        return -1;
    }
    for (size_t j = 0; j < n; j++) {
        const trec *q = &req[j];
        if (q->answer != RAW_NONE)
            answered++;
        if (q->send != RAW_NONE)
            late[nlate++] = q->send - q->sched;
        kinds[q->kind == 'L' ? 0 : q->kind == 'K' ? 1 : q->kind == 'D' ? 2 : 3]++;
    }
    ut_sort_i64(late, nlate);
    json_t *gj = json_object(), *kj = json_object(), *s = json_object();
    json_object_set_new(gj, "enabled", json_boolean(g->enabled));
    json_object_set_new(gj, "idle_share", num_or_null(g->idle_share));
    json_object_set_new(gj, "steal_share", num_or_null(g->steal_share));
    json_object_set_new(gj, "waited_s", json_real(g->waited_s));
    if (!isnan(g->before_s)) /* the gate was the note of the run before's settling */
        json_object_set_new(gj, "before_s", json_real(g->before_s));
    json_object_set_new(gj, "passed", json_boolean(g->passed));
    json_object_set_new(gj, "users_start", json_integer(g->users_start));
    json_object_set_new(gj, "users_end", json_integer(g->users_end));
    json_object_set_new(kj, "L", json_integer((json_int_t)kinds[0]));
    json_object_set_new(kj, "K", json_integer((json_int_t)kinds[1]));
    json_object_set_new(kj, "D", json_integer((json_int_t)kinds[2]));
    json_object_set_new(kj, "E", json_integer((json_int_t)kinds[3]));
    json_object_set_new(s, "t0_ns", o->t0 ? json_integer(o->t0) : json_null());
    json_object_set_new(s, "mode", json_string(o->closed ? "closed" : "open"));
    json_object_set_new(s, "rate", json_real(o->closed ? 0.0 : o->rate));
    json_object_set_new(s, "seconds", json_real(o->seconds));
    json_object_set_new(s, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(s, "rows", json_integer(o->rows));
    json_object_set_new(s, "deadline_ms", o->have_deadline ? json_real(o->deadline_ms) : json_null());
    json_object_set_new(s, "conns", json_integer(o->conns));
    json_object_set_new(s, "requests", json_integer((json_int_t)n));
    json_object_set_new(s, "answered", json_integer((json_int_t)answered));
    json_object_set_new(s, "errors", json_integer((json_int_t)(n - answered)));
    json_object_set_new(s, "kinds", kj);
    json_object_set_new(s, "conns_opened", json_integer((json_int_t)o->opened));
    json_object_set_new(s, "conns_reopened", json_integer((json_int_t)o->reopened));
    json_object_set_new(s, "connect_failures", json_integer((json_int_t)o->open_failed));
    json_object_set_new(s, "waited", json_integer((json_int_t)o->waited));
    json_object_set_new(s, "gate", gj);
    json_object_set_new(s, "late_p50_ns", nlate ? json_real(ut_pct_sorted(late, nlate, 0.50)) : json_null());
    json_object_set_new(s, "late_p99_ns", nlate ? json_real(ut_pct_sorted(late, nlate, 0.99)) : json_null());
    json_object_set_new(s, "late_max_ns", nlate ? json_integer(late[nlate - 1]) : json_null());
    free(late);
    char *text = json_dumps(s, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(s);
    if (!text) {
        ut_err("%s: cannot format the summary", path);
        return -1;
    }
    size_t len = strlen(text);
    char *buf = malloc(len + 2);
    int rc = -1;
    char err[UT_ERRLEN];
    if (buf) {
        memcpy(buf, text, len);
        buf[len] = '\n';
        rc = ut_write_file(path, buf, len + 1, err, sizeof err);
        if (rc != 0)
            ut_err("%s", err);
    }
    free(buf);
    free(text);
    return rc;
}

int trec_write_rows(const char *path, const trec *req, size_t n, int64_t rows)
{
    rawlog *lg;
    char err[UT_ERRLEN];
    if (rawfmt_log_open(&lg, path, RAWFMT_TESTER, err, sizeof err) != 0) {
        ut_err("%s", err);
        return -1;
    }
    for (size_t j = 0; j < n; j++) {
        const trec *q = &req[j];
        int64_t v[RAWFMT_TESTER_NCOLS];
        v[RAWFMT_TESTER_j] = (int64_t)j;
        v[RAWFMT_TESTER_row] = (int64_t)j % rows;
        v[RAWFMT_TESTER_sched_t] = q->sched;
        v[RAWFMT_TESTER_send_t] = q->send;
        v[RAWFMT_TESTER_answer_t] = q->answer;
        v[RAWFMT_TESTER_status] = q->status;
        v[RAWFMT_TESTER_kind] = q->kind;
        v[RAWFMT_TESTER_score] = q->has_score ? raw_f(q->score) : RAW_NONE;
        v[RAWFMT_TESTER_conn] = q->conn >= 0 ? q->conn : RAW_NONE;
        v[RAWFMT_TESTER_waited] = q->waited;
        if (rawlog_row(lg, v) != 0) {
            ut_err("%s: cannot buffer rows", path);
            rawlog_abort(lg);
            return -1;
        }
    }
    if (rawlog_close(lg, err, sizeof err) != 0) {
        ut_err("%s", err);
        return -1;
    }
    return 0;
}
