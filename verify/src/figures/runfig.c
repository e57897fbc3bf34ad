/* runfig: every figure of one run, recomputed from its raw files; see runfig.h. */
#include "runfig.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crossfile.h"
#include "exrun.h"
#include "mism.h"
#include "rawcols.h"
#include "rawdec.h"
#include "rawread.h"
#include "redraw.h"
#include "roworder.h"
#include "stats.h"
#include "vutil.h"

const char *const rf_fig_name[F_NFIG] = {
    "n", "answered", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms",
    "live", "last_known", "default", "error",
    "live_share", "last_known_share", "default_share", "error_share", "standin_share",
    "lookups", "lookups_per_request", "slot_ms_total", "slot_ms_per_lookup", "slot_ms_per_request",
    "cut_short", "pending_at_stop", "late_p50_us", "late_p99_us", "late_max_us", "answers_per_s",
    "steal_share", "steal_second_max", "other_idle_share", "foreign_second_max",
    "lost", "retried_permanent", "conn_lost", "conn_failed", "conn_regained", "reconnect_wait_over",
    /* the window figures (RESULTS.md, "A fault window"), in outage.h's order */
    "win_from_ms", "win_to_ms",
    "before_requests", "before_live", "before_standins", "before_errors", "before_lost", "before_lookups",
    "before_unanswered_lookups",
    "during_requests", "during_live", "during_standins", "during_errors", "during_lost", "during_lookups",
    "during_unanswered_lookups",
    "after_requests", "after_live", "after_standins", "after_errors", "after_lost", "after_lookups",
    "after_unanswered_lookups",
    "during_lookups_per_request", "first_live_after_ms", "recovered_s",
    "during_standin_share", "during_p99_ms", "store1_during_busy", "store2_during_busy",
    /* the defences (RESULTS.md), in defence.h's order */
    "brk_opened", "brk_half_opened", "brk_closed", "brk_transitions", "brk_closed_ms", "brk_open_ms", "brk_half_ms",
    "brk_illegal", "retries_passed", "budget_refused", "budget_over", "inflight_refused",
    "store1_requests", "store1_live", "store1_live_share", "store1_p99_ms",
    "store2_requests", "store2_live", "store2_live_share", "store2_p99_ms",
    "store1_during_requests", "store1_during_live", "store1_during_live_share", "store1_during_p99_ms",
    "store2_during_requests", "store2_during_live", "store2_during_live_share", "store2_during_p99_ms",
    "before_lookups_100ms", "recovery_lookups_100ms_max",
    /* floods, freezes, false and healthy timeouts (flood.h) */
    "missed_seconds", "flood_from_s", "longest_line", "freezes", "freeze_share", "false_timeouts",
    "healthy_timeouts", "healthy_timeout_share",
};

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

rf_class rf_class_by_field(const char *f)
{
    if (ends_with(f, "_ms") || !strncmp(f, "slot_ms_", 8))
        return RF_MS;
    if (ends_with(f, "_us"))
        return RF_US;
    if (ends_with(f, "_share") || ends_with(f, "_per_request") || !strcmp(f, "answers_per_s") ||
        !strcmp(f, "steal_second_max") || !strcmp(f, "foreign_second_max") || !strcmp(f, "before_lookups_100ms"))
        return RF_RATIO;
    if (!strcmp(f, "busy_slots") || !strcmp(f, "line_length") || ends_with(f, "_during_busy"))
        return RF_MEAN;
    if (!strcmp(f, "sim_wilson95") || !strcmp(f, "cp95"))
        return RF_INTERVAL;
    return RF_COUNT;
}

rf_class rf_fig_class(int fig)
{
    return rf_class_by_field(rf_fig_name[fig]);
}

int rf_fig_by_name(const char *name)
{
    for (int i = 0; i < F_NFIG; i++)
        if (!strcmp(rf_fig_name[i], name))
            return i;
    return -1;
}

/* the columns of the five event files: rawcols.h */

/* ---- helpers ---- */

typedef struct {
    long long *v;
    size_t n, cap;
} llvec;

static inline void llpush(llvec *a, long long x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16384;
        a->v = vu_xrealloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = x;
}

#define NS_PER_S 1000000000LL

/* add the length of [a, e) ∩ [t0 + k s, t0 + (k+1) s) to acc[k] for every
 * second k of the run; e = LLONG_MAX for an interval still open */
static void add_span(long long *acc, int nsec, long long t0, long long a, long long e)
{
    if (nsec <= 0)
        return;
    long long lo = t0, hi = t0 + (long long)nsec * NS_PER_S;
    if (a < lo)
        a = lo;
    if (e > hi)
        e = hi;
    if (e <= a)
        return;
    long long k0 = (a - t0) / NS_PER_S, k1 = (e - 1 - t0) / NS_PER_S;
    for (long long k = k0; k <= k1; k++) {
        long long ilo = t0 + k * NS_PER_S, ihi = ilo + NS_PER_S;
        long long x = a > ilo ? a : ilo, y = e < ihi ? e : ihi;
        acc[k] += y - x;
    }
}

static inline int second_of(long long t, long long t0, int nsec)
{
    if (t < t0)
        return -1;
    long long k = (t - t0) / NS_PER_S;
    return k < nsec ? (int)k : -1;
}

static void fmt_float(float x, char *out, size_t n)
{
    snprintf(out, n, "%.9g", (double)x);
}

/* one event file: read it whole, hash it, compare with run.json's "files" */
static int load_event_file(const char *root, const rf_run *r, const vj_node *files, const char *fname,
                           unsigned char **buf, size_t *len, char *path, size_t pathlen, char *err,
                           size_t errlen)
{
    snprintf(path, pathlen, "%s/%s/%s/%s", root, r->dir, r->name, fname);
    if (vu_read_file(path, buf, len, err, errlen))
        return -1;
    char sha[65];
    vu_sha256_hex(*buf, *len, sha);
    vj_node *fe = vj_get(files, fname);
    const char *group = NULL;
    char what[256];
    if (!fe) {
        snprintf(what, sizeof what, "run.json files.%s", fname);
        mm_add(group, r->name, what, "(absent)", "an entry with rows and sha256 (RAWFORMAT.md)");
        return 0;
    }
    const char *s = vj_get_str(fe, "sha256");
    if (!s || strcmp(s, sha)) {
        snprintf(what, sizeof what, "run.json files.%s.sha256", fname);
        mm_add(group, r->name, what, s ? s : "(absent)", sha);
    }
    vj_node *sz = vj_get(fe, "size");
    if (sz && !(sz->type == VJ_NUM && sz->num == (double)*len)) {
        char lab[64];
        vj_scalar_text(sz, lab, sizeof lab);
        snprintf(what, sizeof what, "run.json files.%s.size", fname);
        mm_addf(group, r->name, what, lab, "%zu", *len);
    }
    return 0;
}

static void check_rows(const rf_run *r, const vj_node *files, const char *fname, long long rows)
{
    vj_node *fe = vj_get(files, fname);
    if (!fe)
        return;
    vj_node *n = vj_get(fe, "rows");
    if (!n || n->type != VJ_NUM || n->num != (double)rows) {
        char lab[64], what[256];
        vj_scalar_text(n, lab, sizeof lab);
        snprintf(what, sizeof what, "run.json files.%s.rows", fname);
        mm_addf(NULL, r->name, what, lab, "%lld", rows);
    }
}

/* RAWFORMAT.md: t0_ns is the run's start (the schedule's offset 0); the
 * documents allow no time in the run's files before it.  One mismatch per
 * file, at its lowest time.  slack: 999 for a file of µs offsets (a decoded
 * instant may be up to 999 ns before the one logged), 0 for ns. */
static void check_t0(const rf_run *r, const char *fn, long long tmin, long line, const char *col, long long slack)
{
    if (!line || tmin >= r->t0 - slack)
        return;
    char lab[32], want[160], what[96];
    snprintf(lab, sizeof lab, "%lld", tmin);
    snprintf(want, sizeof want, "at or after t0_ns %lld, the run's start (this is %lld ns before it)", r->t0,
             r->t0 - tmin);
    snprintf(what, sizeof what, "%s (the file's lowest time)", col);
    mm_row(r->name, fn, line, what, lab, want);
}

/* a row-level check failed: grouped per run, file and check (mism.h) */
static void row_mm(const rf_run *r, const char *file, long line, const char *check, const char *lab,
                   const char *want)
{
    mm_row(r->name, file, line, check, lab, want);
}

static int reject(rf_run *r, const char *msg)
{
    snprintf(r->reject, sizeof r->reject, "%s", msg);
    r->ok = 0;
    return -1;
}

/* ---- the tester, service and store files ---- */

/* the rows against each other, their order and what is drawn again (crossfile.h, roworder.h, redraw.h) */
typedef struct {
    xf_acc xf;
    ro_acc ro;      /* the rows' order: connections, files (roworder.h) */
    rd_acc rd;
    rx_run rx;      /* format 4 decoded (rawdec.h) */
    ex_run *ex;     /* the rows extra.runs.<run> needs (exrun.h); NULL: an attempt, none */
} rowx;

/* a tester answer of kind L, K or D (ki 0, 1, 2) against the reference
 * (RESULTS.md, "Every answer can be checked"): a "=" is its reference by
 * construction (rawdec.h); format 4 writes a number only when it differs,
 * so a number is a mismatch, naming the reference (or "=" when it is equal) */
static void check_answer(rf_run *r, long line, const rr_row *row, const ref_data *ref, int ki)
{
    const char *fn = "tester.tsv.gz";
    static const char *const what[3] = {"live: reference score", "last-known score", "default score"};
    char a[32], b[256];
    long long rw = row->v[T_ROW];
    r->answers_checked++;
    if (rw < 0 || (size_t)rw >= ref->rows) {
        snprintf(a, sizeof a, "%lld", rw);
        snprintf(b, sizeof b, "a row of the reference (0 to %zu; the row is j mod test_rows)",
                 ref->rows ? ref->rows - 1 : 0);
        row_mm(r, fn, line, "answer row", a, b);
        return;
    }
    float want = ki == 0 ? ref->score[rw] : ki == 1 ? ref->last_known[rw] : ref->default_score;
    if (row->has[T_SCORE] != 2) {
        fmt_float(want, a, sizeof a); /* only for the message: not per row */
        if (row->f[T_SCORE] != want)
            snprintf(b, sizeof b, "%s (%s of row %lld)", a, what[ki], rw);
        else
            snprintf(b, sizeof b, "= (it equals the %s of row %lld, %s: format 4 writes =)", what[ki], rw, a);
        row_mm(r, fn, line, "answer", row->text[T_SCORE], b);
        return;
    }
    if (ki == 2 && ref->last_known[rw] != ref->default_score) {
        fmt_float(ref->last_known[rw], a, sizeof a);
        snprintf(b, sizeof b, "K: row %lld has a last-known score (%s) other than the default", rw, a);
        row_mm(r, fn, line, "answer kind", "D", b);
    }
}

static int do_tester(const char *root, rf_run *r, const vj_node *rj, const ref_data *ref, llvec *lat, llvec *late,
                     long long *status200, df_acc *d, rowx *x)
{
    char path[4096], err[6144];
    unsigned char *gz = NULL;
    size_t gzlen = 0;
    vj_node *files = vj_get(rj, "files");
    if (load_event_file(root, r, files, "tester.tsv.gz", &gz, &gzlen, path, sizeof path, err, sizeof err))
        return reject(r, err);
    rx_file f;
    rr_row row;
    int rc = rx_open(&f, &x->rx, RX_TESTER, path, gz, gzlen, err, sizeof err);
    long long n = 0, answered = 0, kinds[4] = {0, 0, 0, 0};
    const char *fn = "tester.tsv.gz";
    size_t kcap = 0;
    char *kv = NULL; /* the kinds in row order, kept in r->kinds when the file is read whole */
    while (rc == 0) {
        int k = rx_next(&f, &row, err, sizeof err);
        if (k < 0) {
            rc = -1;
            break;
        }
        if (k == 0)
            break;
        long line = f.f.line;
        xf_tester_row(&x->xf, line, &row);
        ro_tester_row(&x->ro, line, &row);
        rd_tester_row(&x->rd);
        if (x->ex)
            ex_tester_row(x->ex, &row);
        n++;
        long long sched = row.v[T_SCHED];
        char kind = row.c[T_KIND];
        if ((size_t)n > kcap) {
            kcap = kcap ? 2 * kcap : 16384;
            kv = vu_xrealloc(kv, kcap);
        }
        kv[n - 1] = kind;
        /* the reader admits only L K D E (rawcols.h) */
        int ki = kind == 'L' ? 0 : kind == 'K' ? 1 : kind == 'D' ? 2 : 3;
        kinds[ki]++;
        ou_win_request(&r->win, &r->fault, sched, kind, row.has[T_ANSWER], row.v[T_ANSWER]);
        df_tester_row(d, sched, row.has[T_ANSWER], row.v[T_ANSWER], kind);
        long long status = row.v[T_STATUS];
        if (status == 200)
            (*status200)++;
        if (row.has[T_ANSWER]) {
            answered++;
            llpush(lat, row.v[T_ANSWER] - sched);
        }
        xf_tester_promises(r->name, line, &row);
        /* lateness over the requests sent (RESULTS.md: rows with send_t present) */
        long long lt = row.has[T_SEND] ? row.v[T_SEND] - sched : 0;
        if (row.has[T_SEND])
            llpush(late, lt);
        int s = second_of(sched, r->t0, r->nsec);
        if (s >= 0) {
            r->arrivals[s]++;
            if (ki == 1 || ki == 2)
                r->standins[s]++;
            if (ki == 0)
                r->live_sec[s]++;
            if (ki == 3)
                r->errors_sec[s]++;
            if (row.has[T_SEND] && (!r->late_has[s] || lt > r->late_max_ns[s])) {
                r->late_max_ns[s] = lt;
                r->late_has[s] = 1;
            }
        }
        /* every answer against the reference (RESULTS.md, last section) */
        if (ref && ki >= 0 && ki < 3 && row.has[T_SCORE])
            check_answer(r, line, &row, ref, ki);
    }
    if (rc) {
        free(kv);
        rx_close(&f);
        free(gz);
        return reject(r, err);
    }
    free(r->kinds);
    r->kinds = kv;
    r->nkinds = n;
    check_t0(r, fn, f.tmin, f.tmin_line, f.tmin_col, 999);
    rx_close(&f);
    free(gz);
    check_rows(r, files, "tester.tsv.gz", n);
    rd_tester_end(&x->rd);
    r->fig[F_N] = (double)n;
    r->fig[F_ANSWERED] = (double)answered;
    r->fig[F_LIVE] = (double)kinds[0];
    r->fig[F_LAST_KNOWN] = (double)kinds[1];
    r->fig[F_DEFAULT] = (double)kinds[2];
    r->fig[F_ERROR] = (double)kinds[3];
    r->fig[F_LOST] = (double)(n - answered);
    return 0;
}

/* the five lookups of one service row: their promises (RAWFORMAT.md),
 * lookup_ends, lookups_sent per second and the window's lookups (only
 * those sent: not R, O, B or Y); *tried: the lookups tried (present
 * aK_start_t); *retried: +1 when a lookup K answered N was followed by a
 * lookup K' > K (RESULTS.md's retried_permanent) */
static void service_lookups(rf_run *r, const rr_row *row, long line, int *tried, long long *retried)
{
    const char *fn = "service.tsv.gz";
    int permanent = 0, retry = 0;
    for (int a = 0; a < RC_LOOKUPS; a++) {
        int cs = V_A0S + 3 * a, ce = cs + 1, co = cs + 2;
        char what[64];
        int sent = row->has[co] && !strchr(RC_NOT_SENT, row->c[co]);
        if (row->has[cs]) {
            (*tried)++;
            int s = second_of(row->v[cs], r->t0, r->nsec);
            if (s >= 0 && sent)
                r->lookups_sent[s]++;
        }
        if (row->has[ce] != row->has[cs] || row->has[co] != row->has[cs]) {
            snprintf(what, sizeof what, "a%d", a);
            row_mm(r, fn, line, what, "start, end and out not all present or all absent",
                   "all present (tried) or all - (not tried)");
        }
        if (!row->has[co])
            continue;
        char c = row->c[co];
        r->lookup_end[strchr(RC_LOOKUP_OUTS, c) - RC_LOOKUP_OUTS]++;
        if (permanent)
            retry = 1;
        if (c == 'N')
            permanent = 1;
        if (row->has[cs] && sent)
            ou_win_lookup(&r->win, &r->fault, row->v[cs], c);
        if (!sent && row->has[cs] && row->has[ce] && row->v[ce] != row->v[cs]) {
            char b[160];
            snprintf(what, sizeof what, "a%d_end_us", a);
            snprintf(b, sizeof b, "0: aK_end_t = aK_start_t (%c: tried, not sent)", c);
            row_mm(r, fn, line, what, row->text[ce], b);
        }
    }
    if (retry)
        (*retried)++;
}

static int do_service(const char *root, rf_run *r, const vj_node *rj, df_acc *d, fl_acc *fl, rowx *x)
{
    char path[4096], err[6144];
    unsigned char *gz = NULL;
    size_t gzlen = 0;
    vj_node *files = vj_get(rj, "files");
    if (load_event_file(root, r, files, "service.tsv.gz", &gz, &gzlen, path, sizeof path, err, sizeof err))
        return reject(r, err);
    rx_file f;
    rr_row row;
    int rc = rx_open(&f, &x->rx, RX_SERVICE, path, gz, gzlen, err, sizeof err);
    long long n = 0, retried = 0;
    const char *fn = "service.tsv.gz";
    char b[128];
    while (rc == 0) {
        int k = rx_next(&f, &row, err, sizeof err);
        if (k < 0) {
            rc = -1;
            break;
        }
        if (k == 0)
            break;
        n++;
        long line = f.f.line;
        int tried = 0;
        service_lookups(r, &row, line, &tried, &retried);
        if (row.v[V_LOOKUPS] != tried) {
            snprintf(b, sizeof b, "%d (present aK_start_t)", tried);
            row_mm(r, fn, line, "lookups", row.text[V_LOOKUPS], b);
        }
        df_service_row(d, r->name, line, &row, tried);
        xf_service_row(&x->xf, line, &row);
        ro_service_row(&x->ro, line, &row);
        fl_service_row(fl, &row);
        if (x->ex)
            ex_service_row(x->ex, &row);
    }
    if (rc) {
        rx_close(&f);
        free(gz);
        return reject(r, err);
    }
    check_t0(r, "service.tsv.gz", f.tmin, f.tmin_line, f.tmin_col, 999);
    rx_close(&f);
    free(gz);
    check_rows(r, files, "service.tsv.gz", n);
    r->fig[F_RETRIED_PERMANENT] = (double)retried;
    return 0;
}

/* store.tsv.gz (store 1) or store2.tsv.gz (store 2: the healthy one, no
 * fault): both are rows of S (RESULTS.md); *slot_ns and *rows add up */
static int do_store(const char *root, rf_run *r, const vj_node *rj, long long test_rows, df_acc *d, fl_acc *fl,
                    int store, long long *slot_ns, long long *rows, rowx *x)
{
    char path[4096], err[6144];
    unsigned char *gz = NULL;
    size_t gzlen = 0;
    vj_node *files = vj_get(rj, "files");
    const char *fn = store == 1 ? "store.tsv.gz" : "store2.tsv.gz";
    if (load_event_file(root, r, files, fn, &gz, &gzlen, path, sizeof path, err, sizeof err))
        return reject(r, err);
    rx_file f;
    rr_row row;
    int rc = rx_open(&f, &x->rx, RX_STORE, path, gz, gzlen, err, sizeof err);
    f.store = store;
    long long n = 0;
    /* RAWFORMAT.md: the first store keeps the arm's fault, the second has none */
    ou_fault none;
    memset(&none, 0, sizeof none);
    none.scen = OU_NONE;
    none.U = LLONG_MAX;
    const ou_fault *fault = store == 1 ? &r->fault : &none;
    ou_store fs;
    ou_store_init(&fs, fault, test_rows);
    char want[256];
    while (rc == 0) {
        int k = rx_next(&f, &row, err, sizeof err);
        if (k < 0) {
            rc = -1;
            break;
        }
        if (k == 0)
            break;
        n++;
        long line = f.f.line;
        /* the reader admits only RAWFORMAT.md's codes (rawcols.h) */
        char oc = row.c[S_OUTCOME];
        r->store_out[strchr(RC_STORE_OUTCOMES, oc) - RC_STORE_OUTCOMES]++;
        /* the fault scenario decides some outcomes (RAWFORMAT.md, "Fault scenarios") */
        const char *bad = ou_store_check(fault, &fs, row.v[S_ROW], row.v[S_ARRIVE], row.has[S_START],
                                         row.has[S_END], row.has[S_END] ? row.v[S_END] : 0, oc, want, sizeof want);
        if (bad) {
            int col = !strcmp(bad, "outcome") ? S_OUTCOME : !strcmp(bad, "start_t") ? S_START
                      : !strcmp(bad, "end_t") ? S_END : S_ARRIVE;
            char lab[32];
            if (row.has[col] && col != S_OUTCOME)
                snprintf(lab, sizeof lab, "%lld", row.v[col]);
            else
                snprintf(lab, sizeof lab, "%s", row.has[col] ? row.text[col] : "-");
            row_mm(r, fn, line, bad, lab, want);
        }
        if ((oc == 'P') != !row.has[S_END])
            row_mm(r, fn, line, "end_us", row.has[S_END] ? row.text[S_END] : "-",
                   oc == 'P' ? "- (outcome P: pending at stop)" : "present (outcome is not P)");
        if (row.v[S_BUSY] < 0 || row.v[S_BUSY] > 16)
            row_mm(r, fn, line, "busy", row.text[S_BUSY], "0 to 16");
        if (row.v[S_ATTEMPT] < 0 || row.v[S_ATTEMPT] >= RC_LOOKUPS)
            row_mm(r, fn, line, "attempt", row.text[S_ATTEMPT], "0 to 4");
        df_store_row(d, &r->fault, r->name, fn, line, &row, store);
        xf_store_row(&x->xf, store, line, &row);
        ro_store_row(&x->ro, store, line, &row);
        rd_store_row(&x->rd, fault, store, line, &row);
        fl_store_row(fl, &row, store);
        if (x->ex)
            ex_store_row(x->ex, &row);
        ou_win_store_row(&r->win, &r->fault, store, row.has[S_START], row.v[S_START], row.has[S_END],
                         row.v[S_END]);
        long long arr = row.v[S_ARRIVE];
        if (row.has[S_START]) {
            long long st = row.v[S_START];
            if (row.has[S_END])
                *slot_ns += row.v[S_END] - st;
            add_span(r->busy_ns, r->nsec, r->t0, st, row.has[S_END] ? row.v[S_END] : LLONG_MAX);
            add_span(r->line_ns, r->nsec, r->t0, arr, st);
        } else {
            add_span(r->line_ns, r->nsec, r->t0, arr, row.has[S_END] ? row.v[S_END] : LLONG_MAX);
        }
    }
    ou_store_free(&fs);
    if (rc) {
        rx_close(&f);
        free(gz);
        return reject(r, err);
    }
    check_t0(r, fn, f.tmin, f.tmin_line, f.tmin_col, 999);
    rx_close(&f);
    free(gz);
    check_rows(r, files, fn, n);
    *rows += n;
    r->fig[F_LOOKUPS] = (double)*rows;
    r->fig[F_CUT_SHORT] = (double)r->store_out[1];      /* D */
    r->fig[F_PENDING_AT_STOP] = (double)r->store_out[7]; /* P */
    r->fig[F_SLOT_MS_TOTAL] = (double)*slot_ns / 1e6;
    return 0;
}

static void brk_row(void *ctx, long line, const rr_row *row)
{
    df_acc *d = ctx;
    df_brk_row(&d->brk, &d->sp, d->run, line, row->v[E_T], row->c[E_WHAT], row->v[E_CONN], row->v[E_TRIES],
               row->v[E_WAIT]);
}

/* ---- events.tsv.gz ---- */

static int do_events(const char *root, rf_run *r, const vj_node *rj, df_acc *d)
{
    char path[4096], err[6144];
    unsigned char *gz = NULL;
    size_t gzlen = 0;
    vj_node *files = vj_get(rj, "files");
    if (load_event_file(root, r, files, "events.tsv.gz", &gz, &gzlen, path, sizeof path, err, sizeof err))
        return reject(r, err);
    ou_events_count ec;
    d->run = r->name;
    int rc = ou_events(path, gz, gzlen, r->name, brk_row, d, &ec, err, sizeof err);
    free(gz);
    if (rc)
        return reject(r, err);
    check_rows(r, files, "events.tsv.gz", ec.rows);
    check_t0(r, "events.tsv.gz", ec.tmin, ec.tmin_line, "t", 0);
    r->fig[F_CONN_LOST] = (double)ec.lost;
    r->fig[F_CONN_FAILED] = (double)ec.failed;
    r->fig[F_CONN_REGAINED] = (double)ec.regained;
    r->fig[F_RECONNECT_WAIT_OVER] = (double)ec.wait_over;
    r->wait_over_line = ec.first_over_line;
    return 0;
}

/* RAWFORMAT.md: a run's folder holds exactly six files, or seven with
 * store2.tsv.gz when stores is 2 (a missing one rejects the run when it is read) */
static void check_folder(const char *root, const rf_run *r)
{
    static const char *const seven[] = {"tester.tsv.gz", "service.tsv.gz", "store.tsv.gz",  "events.tsv.gz",
                                        "machine.tsv.gz", "run.json",      "store2.tsv.gz"};
    size_t nf = r->stores == 2 ? 7 : 6;
    char *dir = vu_xasprintf("%s/%s/%s", root, r->dir, r->name);
    char **names = NULL, err[512];
    size_t n = 0;
    if (!vu_list_dir(dir, &names, &n, err, sizeof err)) {
        for (size_t i = 0; i < n; i++) {
            size_t k = 0;
            while (k < nf && strcmp(names[i], seven[k]))
                k++;
            if (k == nf)
                mm_add(NULL, r->name, "folder", names[i],
                       nf == 7 ? "only the seven files of RAWFORMAT.md (stores 2)"
                               : "only the six files of RAWFORMAT.md (stores 1: no store2.tsv.gz)");
        }
        vu_free_names(names, n);
    }
    free(dir);
}

/* ---- machine.tsv.gz ---- */

/* sums over MA and MM (RESULTS.md), the largest steal share of a row of MA
 * and the largest foreign share of a row of MM */
typedef struct {
    long long a_total, a_idle, a_steal, m_total, m_idle, na, nm;
    double second_max, foreign_max;
} msums;

/* RESULTS.md: max(0, total - idle - steal - lab) / total of a row of MM, 0
 * when total is 0.  In double: exact for tick counts below 2^53, and no
 * overflow for the rows the checks below already name as wrong */
static double foreign_share(const rr_row *row)
{
    double tot = (double)row->v[M_TOTAL];
    double f = tot - (double)row->v[M_IDLE] - (double)row->v[M_STEAL] - (double)row->v[M_LAB];
    return tot != 0 && f > 0 ? f / tot : 0;
}

static int add_checked(long long *sum, long long v, rf_run *r, const char *path, long line, const char *col)
{
    if (!__builtin_add_overflow(*sum, v, sum))
        return 0;
    char err[4200];
    snprintf(err, sizeof err, "%s:%ld: the sum of %s over the file overflows 64 bits", path, line, col);
    return reject(r, err);
}

/* the row promises of one machine row: pairs A then M in time order, each
 * count within the interval's total */
static void machine_row_checks(rf_run *r, const rr_row *row, long line, long long i, long long *pair_t,
                               long long *pair_lab)
{
    const char *fn = "machine.tsv.gz";
    char b[256];
    char sc = row->c[M_SCOPE], want = i % 2 == 0 ? 'A' : 'M';
    long long t = row->v[M_T];
    if (sc != 'A' && sc != 'M')
        row_mm(r, fn, line, "scope", row->text[M_SCOPE], "A or M");
    else if (sc != want)
        row_mm(r, fn, line, "scope", row->text[M_SCOPE],
               want == 'A' ? "A (rows come in pairs, A before M)" : "M (the second row of its pair)");
    if (i % 2 == 0) {
        if (t <= *pair_t) {
            snprintf(b, sizeof b, "after %lld, %s (readings in time order); decoded %lld", *pair_t,
                     i ? "the previous reading" : "t0_ns, where the first interval starts", t);
            row_mm(r, fn, line, "t", row->text[M_T], b);
        }
        *pair_t = t;
    } else if (t != *pair_t) {
        snprintf(b, sizeof b, "%lld, the time of its A row (one reading gives both; decoded %lld)", *pair_t, t);
        row_mm(r, fn, line, "t", row->text[M_T], b);
    }
    /* lab: the run's own ticks, one value per reading (on its A and M row);
     * it may exceed total - idle - steal by a few (RAWFORMAT.md), so only
     * its sign is checked */
    long long lab = row->v[M_LAB];
    if (lab < 0)
        row_mm(r, fn, line, "lab", row->text[M_LAB], "a count of ticks, >= 0");
    if (i % 2 == 0) {
        *pair_lab = lab;
    } else if (lab != *pair_lab) {
        snprintf(b, sizeof b, "%lld, the lab of its A row (the same value on the A and the M row of a reading)",
                 *pair_lab);
        row_mm(r, fn, line, "lab", row->text[M_LAB], b);
    }
    long long tot = row->v[M_TOTAL], idle = row->v[M_IDLE], steal = row->v[M_STEAL];
    if (tot < 0)
        row_mm(r, fn, line, "total", row->text[M_TOTAL], "a count of ticks, >= 0");
    if (idle < 0 || idle > tot)
        row_mm(r, fn, line, "idle", row->text[M_IDLE], "0 to total (idle is of those)");
    if (steal < 0 || steal > tot)
        row_mm(r, fn, line, "steal", row->text[M_STEAL], "0 to total (steal is of those)");
    else if (idle >= 0 && idle <= tot && steal > tot - idle)
        row_mm(r, fn, line, "idle + steal", row->text[M_STEAL], "at most total (idle and steal are other states)");
}

static int do_machine(const char *root, rf_run *r, const vj_node *rj, msums *m)
{
    char path[4096], err[6144];
    unsigned char *gz = NULL;
    size_t gzlen = 0;
    vj_node *files = vj_get(rj, "files");
    if (load_event_file(root, r, files, "machine.tsv.gz", &gz, &gzlen, path, sizeof path, err, sizeof err))
        return reject(r, err);
    rr_file f;
    rr_row row;
    int rc = rr_open(&f, path, gz, gzlen, "machine", machine_cols, M_NCOL, err, sizeof err);
    long long n = 0, pair_t = r->t0, pair_lab = 0;
    int bad = 0;
    while (rc == 0 && !bad) {
        int k = rr_next(&f, &row, err, sizeof err);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
        machine_row_checks(r, &row, f.line, n, &pair_t, &pair_lab);
        n++;
        long long tot = row.v[M_TOTAL], idle = row.v[M_IDLE], steal = row.v[M_STEAL];
        if (row.c[M_SCOPE] == 'A') {
            bad = add_checked(&m->a_total, tot, r, path, f.line, "total") ||
                  add_checked(&m->a_idle, idle, r, path, f.line, "idle") ||
                  add_checked(&m->a_steal, steal, r, path, f.line, "steal");
            /* a row with total 0 counts 0 (RESULTS.md) */
            double share = tot != 0 ? (double)steal / (double)tot : 0;
            if (m->na == 0 || share > m->second_max)
                m->second_max = share;
            if (m->na < r->nsec)
                r->steal_sec[m->na] = share;
            m->na++;
        } else if (row.c[M_SCOPE] == 'M') {
            bad = add_checked(&m->m_total, tot, r, path, f.line, "total") ||
                  add_checked(&m->m_idle, idle, r, path, f.line, "idle");
            double share = foreign_share(&row);
            if (m->nm == 0 || share > m->foreign_max)
                m->foreign_max = share;
            if (m->nm < r->nsec)
                r->foreign_sec[m->nm] = share;
            m->nm++;
        }
    }
    if (!rc && !bad && n % 2)
        row_mm(r, "machine.tsv.gz", f.line, "pairs", "an A row without its M row",
               "rows in pairs, A then M (RAWFORMAT.md)");
    rr_close(&f);
    free(gz);
    if (rc)
        return reject(r, err);
    if (bad)
        return -1;
    check_rows(r, files, "machine.tsv.gz", n);
    return 0;
}

/* ---- the figures ---- */

static void set(rf_run *r, int f, double v)
{
    r->fig[f] = v;
    r->has[f] = isfinite(v) ? 1 : 0;
}

/* every figure of RESULTS.md's "runs.<run>" from the counts and lists the
 * readers left (lat and late are sorted here) */
static void set_figures(rf_run *r, llvec *lat, llvec *late, long long status200, const msums *m, df_acc *d)
{
    double n = r->fig[F_N];
    for (int f = 0; f < F_NFIG; f++)
        r->has[f] = 0;
    set(r, F_N, n);
    set(r, F_ANSWERED, r->fig[F_ANSWERED]);
    st_sort_ll(lat->v, lat->n);
    set(r, F_P50_MS, st_pct_ll(lat->v, lat->n, 0.5) / 1e6);
    set(r, F_P90_MS, st_pct_ll(lat->v, lat->n, 0.9) / 1e6);
    set(r, F_P99_MS, st_pct_ll(lat->v, lat->n, 0.99) / 1e6);
    set(r, F_P999_MS, st_pct_ll(lat->v, lat->n, 0.999) / 1e6);
    set(r, F_MAX_MS, lat->n ? (double)lat->v[lat->n - 1] / 1e6 : NAN);
    set(r, F_LIVE, r->fig[F_LIVE]);
    set(r, F_LAST_KNOWN, r->fig[F_LAST_KNOWN]);
    set(r, F_DEFAULT, r->fig[F_DEFAULT]);
    set(r, F_ERROR, r->fig[F_ERROR]);
    double nn = n > 0 ? n : NAN;
    set(r, F_LIVE_SHARE, r->fig[F_LIVE] / nn);
    set(r, F_LAST_KNOWN_SHARE, r->fig[F_LAST_KNOWN] / nn);
    set(r, F_DEFAULT_SHARE, r->fig[F_DEFAULT] / nn);
    set(r, F_ERROR_SHARE, r->fig[F_ERROR] / nn);
    set(r, F_STANDIN_SHARE, (r->fig[F_LAST_KNOWN] + r->fig[F_DEFAULT]) / nn);
    double lk = r->fig[F_LOOKUPS];
    set(r, F_LOOKUPS, lk);
    set(r, F_LOOKUPS_PER_REQUEST, lk / nn);
    set(r, F_SLOT_MS_TOTAL, r->fig[F_SLOT_MS_TOTAL]);
    set(r, F_SLOT_MS_PER_LOOKUP, r->fig[F_SLOT_MS_TOTAL] / (lk > 0 ? lk : NAN));
    set(r, F_SLOT_MS_PER_REQUEST, r->fig[F_SLOT_MS_TOTAL] / nn);
    set(r, F_CUT_SHORT, r->fig[F_CUT_SHORT]);
    set(r, F_PENDING_AT_STOP, r->fig[F_PENDING_AT_STOP]);
    st_sort_ll(late->v, late->n);
    set(r, F_LATE_P50_US, st_pct_ll(late->v, late->n, 0.5) / 1e3);
    set(r, F_LATE_P99_US, st_pct_ll(late->v, late->n, 0.99) / 1e3);
    set(r, F_LATE_MAX_US, late->n ? (double)late->v[late->n - 1] / 1e3 : NAN);
    set(r, F_ANSWERS_PER_S, (double)status200 / (r->seconds > 0 ? r->seconds : NAN));
    /* the machine: NaN (null) where RESULTS.md says null */
    set(r, F_STEAL_SHARE, m->a_total != 0 ? (double)m->a_steal / (double)m->a_total : NAN);
    set(r, F_STEAL_SECOND_MAX, m->na ? m->second_max : NAN);
    /* differences in double: exact for tick counts below 2^53, no overflow beyond */
    double oi = (double)m->a_idle - (double)m->m_idle, ot = (double)m->a_total - (double)m->m_total;
    double share = ot != 0 ? oi / ot : NAN;
    if (share < 0)
        share = 0; /* clipped to [0, 1], as RESULTS.md says */
    else if (share > 1)
        share = 1;
    set(r, F_OTHER_IDLE_SHARE, share);
    set(r, F_FOREIGN_SECOND_MAX, m->nm ? m->foreign_max : NAN);
    /* counts of the tester, service and events passes */
    static const int counts[] = {F_LOST, F_RETRIED_PERMANENT, F_CONN_LOST, F_CONN_FAILED, F_CONN_REGAINED,
                                 F_RECONNECT_WAIT_OVER};
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
        set(r, counts[k], r->fig[counts[k]]);
    /* the fault window (NaN for a run without one) */
    double w[OU_NFIG];
    ou_win_figs(&r->win, &r->fault, w);
    for (int k = 0; k < OU_NFIG; k++)
        set(r, F_WIN0 + k, w[k]);
    /* the defences (NaN for an arm without them); B and Y are lookup ends */
    double df[DF_NFIG];
    const char *le = RC_LOOKUP_OUTS;
    df_figs(d, &r->fault, r->lookup_end[strchr(le, 'B') - le], r->lookup_end[strchr(le, 'Y') - le], df, r->rec100,
            &r->has_rec100, &r->budget_over_line);
    for (int k = 0; k < DF_NFIG; k++)
        set(r, F_DF0 + k, df[k]);
    r->brk_illegal_line = d->brk.first_illegal_line;
}

/* RESULTS.md's floods, freezes, false and healthy timeouts (flood.h), after set_figures */
static void flood_figures(rf_run *r, const fl_acc *fl)
{
    fl_seconds(r->arrivals, r->standins, r->errors_sec, r->nsec, &r->flood);
    set(r, F_MISSED_SECONDS, (double)r->flood.missed);
    set(r, F_FLOOD_FROM_S, r->flood.flooded ? r->flood.from_s : NAN);
    set(r, F_LONGEST_LINE, (double)fl->longest_line);
    set(r, F_FREEZES, (double)fl->freezes);
    set(r, F_FREEZE_SHARE, fl->rows ? (double)fl->freezes / (double)fl->rows : NAN);
    set(r, F_FALSE_TIMEOUTS, (double)fl->false_timeouts);
    set(r, F_HEALTHY_TIMEOUTS, (double)fl->healthy_timeouts);
    set(r, F_HEALTHY_TIMEOUT_SHARE,
        fl->healthy_rows ? (double)fl->healthy_timeouts / (double)fl->healthy_rows : NAN);
}

/* the figures the quiet rules look at, in the rules' units */
static void quiet_figs(const rf_run *r, qr_figs *q)
{
    static const int fig[QR_NRULE] = {F_STEAL_SHARE,      F_STEAL_SECOND_MAX, F_LATE_P99_US,
                                      F_LATE_MAX_US,      F_OTHER_IDLE_SHARE, F_FOREIGN_SECOND_MAX};
    for (int k = 0; k < QR_NRULE; k++) {
        q->has[k] = r->has[fig[k]];
        q->v[k] = r->fig[fig[k]];
        /* RESULTS.md: late_p99_us / 1000 and late_max_us / 1000 against limits in ms */
        if (k == QR_LATE_P99_MAX_MS || k == QR_LATE_MAX_MAX_MS)
            q->v[k] /= 1000;
    }
}

/* run.json's arm, round, seconds and t0_ns into r: 0, or -1 (rejected) */
static int run_header(rf_run *r, const vj_node *rj, const char *path)
{
    char err[6144];
    const char *arm = vj_get_str(rj, "arm");
    vj_node *rnd = vj_get(rj, "round");
    vj_node *t0 = vj_get(rj, "t0_ns");
    double seconds;
    if (!arm || !rnd || rnd->type != VJ_NUM || !rnd->is_int || !t0 || t0->type != VJ_NUM || !t0->is_int ||
        vj_get_num(rj, "seconds", &seconds)) {
        snprintf(err, sizeof err, "%s: arm, round, seconds and t0_ns must be present (round and t0_ns integers)",
                 path);
        return reject(r, err);
    }
    /* ranges: a round is 1, 2 ... (RAWFORMAT.md); the per-second arrays
     * below need a length that fits in memory (10^6 s is 11.6 days) */
    vj_node *sec = vj_get(rj, "seconds");
    if (rnd->i < 1 || rnd->i > INT_MAX || !(seconds > 0 && seconds <= 1e6)) {
        if (rnd->i < 1 || rnd->i > INT_MAX)
            snprintf(err, sizeof err, "%s:%d: round %s is not an integer from 1 to 2^31-1", path, rnd->line,
                     rnd->text);
        else
            snprintf(err, sizeof err, "%s:%d: seconds %s is not in (0, 1e6]", path, sec->line, sec->text);
        return reject(r, err);
    }
    snprintf(r->arm, sizeof r->arm, "%s", arm);
    r->round = (int)rnd->i;
    r->seconds = seconds;
    r->t0 = t0->i;
    r->nsec = (int)ceil(seconds);
    size_t ns = (size_t)(r->nsec > 0 ? r->nsec : 1);
    r->arrivals = vu_xcalloc(ns, sizeof(long long));
    r->standins = vu_xcalloc(ns, sizeof(long long));
    r->lookups_sent = vu_xcalloc(ns, sizeof(long long));
    r->busy_ns = vu_xcalloc(ns, sizeof(long long));
    r->line_ns = vu_xcalloc(ns, sizeof(long long));
    r->late_max_ns = vu_xcalloc(ns, sizeof(long long));
    r->late_has = vu_xcalloc(ns, 1);
    r->live_sec = vu_xcalloc(ns, sizeof(long long));
    r->errors_sec = vu_xcalloc(ns, sizeof(long long));
    r->steal_sec = vu_xmalloc(ns * sizeof(double));
    r->foreign_sec = vu_xmalloc(ns * sizeof(double));
    for (size_t s = 0; s < ns; s++)
        r->steal_sec[s] = r->foreign_sec[s] = NAN;
    return 0;
}

/* run.json's test_rows: against the reference; -1 when absent */
static long long check_test_rows(const rf_run *r, const vj_node *rj, const ref_data *ref)
{
    long long test_rows = -1;
    vj_node *tr = vj_get(rj, "test_rows");
    if (tr && tr->type == VJ_NUM && tr->is_int)
        test_rows = tr->i;
    else
        mm_add(NULL, r->name, "run.json test_rows", "(absent)", "an integer (RAWFORMAT.md)");
    if (ref && test_rows >= 0) {
        char lab[64];
        snprintf(lab, sizeof lab, "%lld", test_rows);
        if ((size_t)test_rows != ref->rows)
            mm_addf(NULL, r->name, "run.json test_rows", lab, "%zu (data lines of %s)", ref->rows, ref->scores_path);
        if (ref->test_rows >= 0 && ref->test_rows != test_rows)
            mm_addf(NULL, r->name, "run.json test_rows", lab, "%lld (reference summary.json)", ref->test_rows);
    }
    return test_rows;
}

static int compute_in(const char *root, const char *dir, const char *folder, const char *planned, int attempt,
                      const ref_data *ref, const qr_rules *rules, int extra, rf_run *r);

int rf_compute(const char *root, const char *run, const ref_data *ref, const qr_rules *rules, rf_run *r)
{
    return compute_in(root, RF_RAW, run, run, 0, ref, rules, 1, r);
}

int rf_compute_in(const char *root, const char *dir, const char *folder, const char *planned, int attempt,
                  const ref_data *ref, const qr_rules *rules, rf_run *r)
{
    return compute_in(root, dir, folder, planned, attempt, ref, rules, 0, r);
}

/* extra: 1 to gather the rows of extra.runs.<run> and build it (r->extra) */
static int compute_in(const char *root, const char *dir, const char *folder, const char *planned, int attempt,
                      const ref_data *ref, const qr_rules *rules, int extra, rf_run *r)
{
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", folder);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    snprintf(r->planned, sizeof r->planned, "%s", planned);
    r->attempt = attempt;
    const char *run = folder; /* messages name the folder */
    r->ok = 1;
    char path[4096], err[6144];
    snprintf(path, sizeof path, "%s/%s/%s/run.json", root, dir, folder);
    vj_node *rj = NULL;
    if (vj_parse_file(path, &rj, err, sizeof err))
        return reject(r, err);
    const char *su = vj_get_str(rj, "start_utc");
    if (su)
        snprintf(r->start_utc, sizeof r->start_utc, "%s", su);
    const char *mc = vj_get_str(rj, "machine");
    if (mc)
        r->has_machine = snprintf(r->machine, sizeof r->machine, "%s", mc) >= 0;
    if (run_header(r, rj, path)) {
        vj_free(rj);
        return -1;
    }
    char want[512];
    snprintf(want, sizeof want, "%s-r%d", r->arm, r->round);
    if (strcmp(want, planned))
        mm_add(NULL, run, attempt ? "run.json arm and round" : "folder name", attempt ? want : run,
               attempt ? planned : want);
    long long test_rows = check_test_rows(r, rj, ref);
    if (ou_read_fault(rj, path, run, r->seconds, r->t0, &r->fault, err, sizeof err)) {
        vj_free(rj);
        return reject(r, err);
    }
    r->has_fault = 1;
    df_spec sp;
    if (df_read_spec(rj, path, run, &sp, err, sizeof err)) {
        vj_free(rj);
        return reject(r, err);
    }
    r->stores = sp.stores;
    r->has_brk = sp.brk_cool_ms > 0;
    ou_win_init(&r->win, &r->fault);
    r->win.stores = sp.stores;
    check_folder(root, r);

    llvec lat = {0}, late = {0};
    long long status200 = 0, slot_ns = 0, srows = 0;
    msums m;
    memset(&m, 0, sizeof m);
    df_acc d;
    df_init(&d, &sp, r->t0);
    fl_acc fl;
    fl_acc_init(&fl);
    fl.hedge2 = sp.hedge2 == 1;
    rowx x;
    xf_init(&x.xf, r->name, sp.stores);
    x.xf.hedge2 = sp.hedge2 == 1;
    ro_init(&x.ro, r->name);
    rd_init(&x.rd, rj, r->name, r->round, r->seconds, r->t0);
    rx_init(&x.rx, rj, r->round, r->seconds, r->t0, ref);
    ex_run ex;
    ex_run_init(&ex);
    x.ex = extra ? &ex : NULL;

    /* the events before the service: its O codes are checked against the breaker's rows */
    int rc = do_tester(root, r, rj, ref, &lat, &late, &status200, &d, &x);
    if (!rc)
        rc = do_events(root, r, rj, &d);
    if (!rc)
        rc = do_service(root, r, rj, &d, &fl, &x);
    if (!rc)
        rc = do_store(root, r, rj, test_rows, &d, &fl, 1, &slot_ns, &srows, &x);
    if (!rc && sp.stores == 2)
        rc = do_store(root, r, rj, test_rows, &d, &fl, 2, &slot_ns, &srows, &x);
    if (!rc)
        xf_finish(&x.xf);
    xf_free(&x.xf);
    ro_free(&x.ro);
    rx_free(&x.rx);
    if (!rc)
        rc = do_machine(root, r, rj, &m);
    if (!rc) {
        vj_node *req = vj_get(rj, "requests");
        if (!req || req->type != VJ_NUM || req->num != r->fig[F_N]) {
            char lab[64];
            vj_scalar_text(req, lab, sizeof lab);
            mm_addf(NULL, run, "run.json requests", lab, "%.0f (rows of tester.tsv.gz)", r->fig[F_N]);
        }
        set_figures(r, &lat, &late, status200, &m, &d);
        flood_figures(r, &fl);
        /* quiet (RESULTS.md, "Quiet runs"), and run.json's own judgement against it */
        qr_figs q;
        quiet_figs(r, &q);
        r->broken = rules ? qr_judge(rules, &q) : 0;
        r->quiet = r->broken == 0;
        if (rules)
            qr_check_claim(r->broken, &q, vj_get(rj, "quiet"), run);
    }
    ou_win_free(&r->win);
    /* the breaker's rows stay with the run (extra.runs.<run>.breaker) */
    if (!rc) {
        r->brk = d.brk;
        df_brk_init(&d.brk);
        /* lat is sorted (set_figures) */
        if (extra)
            r->extra = ex_run_json(&ex, lat.v, lat.n, r->has_brk, &r->brk, r->t0, rj);
    }
    ex_run_free(&ex);
    df_free(&d);
    fl_acc_free(&fl);
    free(lat.v);
    free(late.v);
    vj_free(rj);
    return rc;
}

/* {"A": count, ...} for each code in order */
static vj_node *code_counts(const char *codes, const long long *count)
{
    vj_node *o = vj_new_obj();
    for (size_t k = 0; codes[k]; k++) {
        char key[2] = {codes[k], 0};
        vj_obj_set(o, key, vj_new_int(count[k]));
    }
    return o;
}

vj_node *rf_to_json(const rf_run *r)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "arm", vj_new_str(r->arm));
    vj_obj_set(o, "round", vj_new_int(r->round));
    vj_obj_set(o, "machine", r->has_machine ? vj_new_str(r->machine) : vj_new_null());
    for (int f = 0; f < F_NFIG; f++) {
        if (!r->has[f])
            vj_obj_set(o, rf_fig_name[f], vj_new_null());
        else if (rf_fig_class(f) == RF_COUNT)
            vj_obj_set(o, rf_fig_name[f], vj_new_int((long long)r->fig[f]));
        else
            vj_obj_set(o, rf_fig_name[f], vj_new_num(r->fig[f]));
    }
    vj_obj_set(o, "fault", vj_new_str(ou_scen_name[r->fault.scen]));
    vj_obj_set(o, "store_outcomes", code_counts(RC_STORE_OUTCOMES, r->store_out));
    vj_obj_set(o, "lookup_ends", code_counts(RC_LOOKUP_OUTS, r->lookup_end));
    vj_node *rec = vj_new_null();
    if (r->has_rec100) {
        vj_free(rec);
        rec = vj_new_arr();
        for (int i = 0; i < DF_REC_BINS; i++)
            vj_arr_push(rec, vj_new_int(r->rec100[i]));
    }
    vj_obj_set(o, "recovery_lookups_100ms", rec);
    vj_obj_set(o, "flooded", vj_new_bool(r->flood.flooded));
    vj_obj_set(o, "drained", r->flood.flooded ? vj_new_bool(r->flood.drained) : vj_new_null());
    vj_obj_set(o, "quiet", vj_new_bool(r->quiet));
    vj_obj_set(o, "quiet_rules", qr_names(r->broken));
    vj_node *ps = vj_new_arr();
    for (int s = 0; s < r->nsec; s++) {
        vj_node *e = vj_new_obj();
        vj_obj_set(e, "s", vj_new_int(s));
        vj_obj_set(e, "arrivals", vj_new_int(r->arrivals[s]));
        vj_obj_set(e, "standins", vj_new_int(r->standins[s]));
        vj_obj_set(e, "standin_share",
                   r->arrivals[s] ? vj_new_num((double)r->standins[s] / (double)r->arrivals[s]) : vj_new_null());
        vj_obj_set(e, "live", vj_new_int(r->live_sec[s]));
        vj_obj_set(e, "errors", vj_new_int(r->errors_sec[s]));
        vj_obj_set(e, "lookups_sent", vj_new_int(r->lookups_sent[s]));
        vj_obj_set(e, "busy_slots", vj_new_num((double)r->busy_ns[s] / 1e9));
        vj_obj_set(e, "line_length", vj_new_num((double)r->line_ns[s] / 1e9));
        vj_obj_set(e, "steal_share", vj_new_num(r->steal_sec[s]));   /* NaN: null */
        vj_obj_set(e, "late_max_us", r->late_has[s] ? vj_new_num((double)r->late_max_ns[s] / 1e3) : vj_new_null());
        vj_obj_set(e, "foreign_share", vj_new_num(r->foreign_sec[s]));   /* NaN: null */
        vj_arr_push(ps, e);
    }
    vj_obj_set(o, "per_second", ps);
    if (r->attempt > 0) /* results.json's attempts.<run>-a<N> (RESULTS.md) */
        vj_obj_set(o, "attempt", vj_new_int(r->attempt));
    return o;
}

void rf_free(rf_run *r)
{
    free(r->kinds);
    free(r->arrivals);
    free(r->standins);
    free(r->lookups_sent);
    free(r->busy_ns);
    free(r->line_ns);
    free(r->late_max_ns);
    free(r->late_has);
    free(r->steal_sec);
    free(r->foreign_sec);
    free(r->live_sec);
    free(r->errors_sec);
    ou_win_free(&r->win);
    df_brk_free(&r->brk);
    vj_free(r->extra);
    r->extra = NULL;
    r->live_sec = r->errors_sec = NULL;
    r->arrivals = r->standins = r->lookups_sent = r->busy_ns = r->line_ns = r->late_max_ns = NULL;
    r->late_has = NULL;
    r->steal_sec = r->foreign_sec = NULL;
}
