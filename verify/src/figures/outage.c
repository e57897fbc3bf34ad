/* outage: see outage.h. */
#include "outage.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "rawcols.h"
#include "rawread.h"
#include "stats.h"
#include "vnum.h"
#include "vutil.h"

#define NS_PER_S 1000000000LL

const char *const ou_scen_name[OU_NSCEN] = {"none",  "down",    "hang", "reset",   "never",
                                            "flaky", "missing", "slow", "slowboth"};

/* the scenarios RAWFORMAT.md gives a window, and docs/DESIGN.md 5.9's slow
 * and slowboth (RESULTS.md, "A fault window": windowed like down) */
static int windowed(ou_scen s)
{
    return s == OU_DOWN || s == OU_HANG || s == OU_RESET || s == OU_NEVER || s == OU_SLOW || s == OU_SLOWBOTH;
}


/* ---- run.json's fault ---- */

static int reject_fault(char *err, size_t errlen, const char *path, const vj_node *at, const char *msg)
{
    snprintf(err, errlen, "%s:%d: %s (RAWFORMAT.md, run.json's fault)", path, at ? at->line : 1, msg);
    return -1;
}

/* the window, exactly as RAWFORMAT.md spells it: from_ns and to_ns in
 * fault itself, or, for a scenario without one, "window": null instead of
 * those two.  Anything else (a window object, both forms, neither) cannot
 * be read with confidence: 0, or -1 when unusable */
static int read_window(const vj_node *f, const char *path, long long t0, ou_fault *o, char *err, size_t errlen)
{
    const vj_node *win = vj_get(f, "window");
    int flat = vj_get(f, "from_ns") || vj_get(f, "to_ns");
    if (win && win->type != VJ_NULL)
        return reject_fault(err, errlen, path, win,
                            "fault.window is not null (a window is from_ns and to_ns in fault itself)");
    if (win && flat)
        return reject_fault(err, errlen, path, win, "fault has both \"window\": null and from_ns/to_ns");
    if (win)
        return 0;
    if (!flat)
        return reject_fault(err, errlen, path, f, "fault has neither from_ns and to_ns nor \"window\": null");
    const vj_node *from = vj_get(f, "from_ns"), *to = vj_get(f, "to_ns");
    if (!from || from->type != VJ_NUM || !from->is_int)
        return reject_fault(err, errlen, path, from ? from : f, "the window's from_ns is not an integer");
    if (!to || !(to->type == VJ_NULL || (to->type == VJ_NUM && to->is_int)))
        return reject_fault(err, errlen, path, to ? to : f, "the window's to_ns is neither an integer nor null");
    o->has_window = 1;
    o->from_ns = from->i;
    o->to_end = to->type == VJ_NULL;
    o->to_ns = o->to_end ? 0 : to->i;
    if (__builtin_add_overflow(t0, o->from_ns, &o->F) ||
        (!o->to_end && __builtin_add_overflow(t0, o->to_ns, &o->U)))
        return reject_fault(err, errlen, path, f, "t0_ns plus the window overflows 64 bits");
    return 0;
}

/* the window the spec promises (RAWFORMAT.md, "Fault scenarios"): the
 * name alone gives [round(S/3 1e9), round(2S/3 1e9)) (never: to the end);
 * name@a-b gives fractions a and b of S (never@a: from a to the end).
 * 0 and the window, or -1 when the spec cannot be read.  tol: 0 for the
 * default, 1 ns for fractions (their rounding is not written down). */
static int spec_window(const char *spec, const char *name, ou_scen s, double seconds, long long *from, long long *to,
                       int *to_end, long long *tol)
{
    size_t nl = strlen(name);
    *to_end = s == OU_NEVER;
    *to = 0;
    if (!strcmp(spec, name)) {
        *from = llround(seconds / 3 * 1e9);
        if (!*to_end)
            *to = llround(2 * seconds / 3 * 1e9);
        *tol = 0;
        return 0;
    }
    if (strncmp(spec, name, nl) || spec[nl] != '@' || !spec[nl + 1])
        return -1;
    const char *a = spec + nl + 1, *dash = strchr(a + 1, '-');
    double fa, fb = 0;
    if (vn_f64(a, dash ? (size_t)(dash - a) : strlen(a), &fa))
        return -1;
    if (dash && vn_f64(dash + 1, strlen(dash + 1), &fb))
        return -1;
    if (!dash && s != OU_NEVER)
        return -1;
    *to_end = !dash;
    *from = llround(fa * seconds * 1e9);
    if (dash)
        *to = llround(fb * seconds * 1e9);
    *tol = 1;
    return 0;
}

static void window_text(long long from, long long to, int to_end, char *out, size_t n)
{
    if (to_end)
        snprintf(out, n, "from_ns %lld, to_ns null", from);
    else
        snprintf(out, n, "from_ns %lld, to_ns %lld", from, to);
}

/* the promises about a usable fault: mismatches only */
static void check_fault(const ou_fault *o, const char *spec, const char *run, double seconds)
{
    const char *name = ou_scen_name[o->scen];
    char lab[160], want[256];
    window_text(o->from_ns, o->to_ns, o->to_end, lab, sizeof lab);
    if (windowed(o->scen) != o->has_window) {
        snprintf(want, sizeof want, "%s (%s %s a window, RAWFORMAT.md)", o->has_window ? "\"window\": null" : "a window",
                 name, o->has_window ? "has no" : "has");
        mm_add(NULL, run, "run.json fault.window", o->has_window ? lab : "null", want);
    }
    if (o->has_window) {
        long long end = llround(seconds * 1e9), to = o->to_end ? end : o->to_ns;
        if (o->from_ns < 0 || o->from_ns >= to || to > end) {
            snprintf(want, sizeof want, "0 <= from_ns < to_ns <= seconds * 1e9 = %lld (a window inside the run)", end);
            mm_add(NULL, run, "run.json fault.window", lab, want);
        }
        if (windowed(o->scen) && o->to_end != (o->scen == OU_NEVER))
            mm_add(NULL, run, "run.json fault.to_ns", lab,
                   o->scen == OU_NEVER ? "null (never: the window lasts to the end of the run)"
                                       : "an integer (only never lasts to the end of the run)");
    }
    if (!spec) {
        mm_add(NULL, run, "run.json fault.spec", "(absent)", "the arm's fault column, a string");
        return;
    }
    long long from, to, tol;
    int to_end;
    if (spec_window(spec, name, o->scen, seconds, &from, &to, &to_end, &tol)) {
        snprintf(want, sizeof want, "\"%s\" or \"%s@a-b\" (fractions of seconds%s; RAWFORMAT.md)", name, name,
                 o->scen == OU_NEVER ? ", or never@a" : "");
        mm_add(NULL, run, "run.json fault.spec", spec, want);
        return;
    }
    if (!windowed(o->scen) || !o->has_window) {
        if (strcmp(spec, name))
            mm_add(NULL, run, "run.json fault.spec", spec, name);
        return;
    }
    if (llabs(o->from_ns - from) > tol || to_end != o->to_end || (!to_end && llabs(o->to_ns - to) > tol)) {
        char w[160];
        window_text(from, to, to_end, w, sizeof w);
        snprintf(want, sizeof want, "%s (the window of spec \"%s\" and seconds %g%s)", w, spec, seconds,
                 tol ? ", within 1 ns" : "");
        mm_add(NULL, run, "run.json fault.window", lab, want);
    }
}

int ou_read_fault(const vj_node *rj, const char *path, const char *run, double seconds, long long t0, ou_fault *o,
                  char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->U = LLONG_MAX;
    o->end = t0 + llround(seconds * 1e9);
    const vj_node *f = vj_get(rj, "fault");
    if (!f || f->type != VJ_OBJ)
        return reject_fault(err, errlen, path, f, f ? "fault is not an object" : "fault is absent");
    const char *name = vj_get_str(f, "name");
    int s = -1;
    for (int k = 0; name && k < OU_NSCEN; k++)
        if (!strcmp(name, ou_scen_name[k]))
            s = k;
    if (s < 0) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "fault.name %s%.60s%s is not one of none down hang reset never flaky missing slow slowboth",
                 name ? "\"" : "", name ? name : "(absent or not a string)", name ? "\"" : "");
        return reject_fault(err, errlen, path, f, msg);
    }
    o->scen = (ou_scen)s;
    if (read_window(f, path, t0, o, err, errlen))
        return -1;
    check_fault(o, vj_get_str(f, "spec"), run, seconds);
    return 0;
}

int ou_phase(const ou_fault *w, long long t)
{
    return t < w->F ? 0 : t < w->U ? 1 : 2;
}

/* ---- the store's outcomes against the scenario ---- */

void ou_store_init(ou_store *st, const ou_fault *w, long long test_rows)
{
    memset(st, 0, sizeof *st);
    if (w->scen == OU_MISSING && test_rows > 0 && test_rows < (1LL << 31)) {
        st->nrows = test_rows;
        st->row_state = vu_xcalloc((size_t)test_rows, 1);
    }
}

void ou_store_free(ou_store *st)
{
    free(st->row_state);
    memset(st, 0, sizeof *st);
}

/* outcomes that may occur only in some scenarios: NULL, or what is wrong */
static const char *rare_outcome(const ou_fault *w, int in, int before, int has_start, int has_end, long long end,
                                char oc, char *want, size_t n)
{
    ou_scen s = w->scen;
    const char *name = ou_scen_name[s];
    int ok = oc == 'E' ? ((s == OU_DOWN || s == OU_NEVER) && in) || s == OU_FLAKY
             : oc == 'N' ? s == OU_MISSING
             : oc == 'H' ? s == OU_HANG && in
             : s == OU_RESET && before;
    if (!ok) {
        snprintf(want, n, "not %c (fault %s: %s)", oc, name,
                 oc == 'E'   ? "E is an arrival in a down or never window, or a flaky draw"
                 : oc == 'N' ? "N is a missing row's"
                 : oc == 'H' ? "H is an arrival in a hang window"
                             : "R is a lookup in flight when a reset window starts: arrived before it");
        return "outcome";
    }
    if (oc != 'R' && has_start) {
        snprintf(want, n, "- (outcome %c: at once, no slot)", oc);
        return "start_t";
    }
    /* end_t decoded from µs may be up to 999 ns before the one logged */
    if (oc == 'H' && has_end && end < w->U - OU_US_SLACK) {
        snprintf(want, n, "at or after the window's end %lld (H: answered at the window's end)", w->U);
        return "end_t";
    }
    if (oc == 'R' && has_end && end < w->F - OU_US_SLACK) {
        snprintf(want, n, "at or after the window's start %lld (R: its connection closed then)", w->F);
        return "end_t";
    }
    return NULL;
}

static const char *store_check_at(const ou_fault *w, ou_store *st, long long row, long long arrive, int has_start,
                                  int has_end, long long end, char oc, char *want, size_t n)
{
    int in = w->has_window && arrive >= w->F && arrive < w->U, before = w->has_window && arrive < w->F;
    if (oc == 'E' || oc == 'N' || oc == 'H' || oc == 'R') {
        const char *bad = rare_outcome(w, in, before, has_start, has_end, end, oc, want, n);
        if (bad)
            return bad;
    }
    if ((w->scen == OU_DOWN || w->scen == OU_NEVER) && in && oc != 'E') {
        snprintf(want, n, "E (arrive_t in the %s window [%lld, %s): unavailable at once)", ou_scen_name[w->scen], w->F,
                 w->to_end ? "end of run" : "U");
        return "outcome";
    }
    if (w->scen == OU_HANG && in && oc != 'H') {
        snprintf(want, n, "H (arrive_t in the hang window: held to its end)");
        return "outcome";
    }
    if (w->scen == OU_RESET && in) {
        snprintf(want, n, "outside the reset window [%lld, %lld) (no lookup can arrive in it)", w->F, w->U);
        return "arrive_t";
    }
    if (st->row_state && row >= 0 && row < st->nrows) {
        unsigned char now = oc == 'N' ? 1 : 2;
        if (st->row_state[row] && st->row_state[row] != now) {
            snprintf(want, n, "%s (row %lld: a missing row is not found in every lookup, another in none)",
                     now == 1 ? "not N" : "N", row);
            return "outcome";
        }
        st->row_state[row] = now;
    }
    return NULL;
}

/* arrive_t decoded from µs (RAWFORMAT.md, format 4) lies in [a - 999, a]
 * of the logged a: when that span holds a window's edge, either side may
 * be the true one, and the row passes if it passes on one of them (the
 * missing rows' memory is written only by a check that passes) */
const char *ou_store_check(const ou_fault *w, ou_store *st, long long row, long long arrive, int has_start,
                           int has_end, long long end, char oc, char *want, size_t n)
{
    const char *bad = store_check_at(w, st, row, arrive, has_start, has_end, end, oc, want, n);
    if (bad && w->has_window && arrive <= LLONG_MAX - OU_US_SLACK &&
        ou_phase(w, arrive) != ou_phase(w, arrive + OU_US_SLACK)) {
        char want2[512];
        if (!store_check_at(w, st, row, arrive + OU_US_SLACK, has_start, has_end, end, oc, want2, sizeof want2))
            return NULL;
    }
    return bad;
}

/* ---- the window figures ---- */

void ou_win_init(ou_win *x, const ou_fault *w)
{
    memset(x, 0, sizeof *x);
    x->first_live = LLONG_MAX;
    /* B_k counts only while U + (k+1) s <= t0 + seconds s */
    if (w->has_window && !w->to_end && w->end > w->U) {
        x->nrec = (w->end - w->U) / NS_PER_S;
        x->rec_rows = vu_xcalloc((size_t)x->nrec + 1, sizeof *x->rec_rows);
        x->rec_live = vu_xcalloc((size_t)x->nrec + 1, sizeof *x->rec_live);
    }
}

void ou_win_free(ou_win *x)
{
    free(x->rec_rows);
    free(x->rec_live);
    free(x->dlat);
    memset(x, 0, sizeof *x);
}

void ou_win_request(ou_win *x, const ou_fault *w, long long sched, char kind, int has_answer, long long answer)
{
    if (!w->has_window)
        return;
    long long *c = x->c[ou_phase(w, sched)];
    c[OU_P_REQUESTS]++;
    if (kind == 'L')
        c[OU_P_LIVE]++;
    else if (kind == 'K' || kind == 'D')
        c[OU_P_STANDINS]++;
    else if (kind == 'E' && has_answer)
        c[OU_P_ERRORS]++;
    if (!has_answer)
        c[OU_P_LOST]++;
    if (has_answer && ou_phase(w, sched) == 1) {
        if (x->ndlat == x->capdlat) {
            x->capdlat = x->capdlat ? 2 * x->capdlat : 4096;
            x->dlat = vu_xrealloc(x->dlat, x->capdlat * sizeof *x->dlat);
        }
        x->dlat[x->ndlat++] = answer - sched;
    }
    if (w->to_end)
        return;
    if (kind == 'L' && has_answer && answer >= w->U && answer < x->first_live)
        x->first_live = answer;
    if (sched >= w->U) {
        long long k = (sched - w->U) / NS_PER_S;
        if (k < x->nrec) {
            x->rec_rows[k]++;
            if (kind == 'L')
                x->rec_live[k]++;
        }
    }
}

void ou_win_lookup(ou_win *x, const ou_fault *w, long long start, char out)
{
    if (!w->has_window || out == 'R')
        return;
    long long *c = x->c[ou_phase(w, start)];
    c[OU_P_LOOKUPS]++;
    if (out == 'T' || out == 'C' || out == 'X')
        c[OU_P_UNANSWERED]++;
}

/* U': U, or t0_ns + seconds 1e9 when U is +infinity (RESULTS.md) */
static long long u_prime(const ou_fault *w)
{
    return w->to_end ? w->end : w->U;
}

void ou_win_store_row(ou_win *x, const ou_fault *w, int store, int has_start, long long start, int has_end,
                      long long end)
{
    if (!w->has_window || !has_start || store < 1 || store > 2)
        return;
    /* e: end_t, or U' when end_t is absent; the length of [start_t, e) ∩ [F, U') */
    long long up = u_prime(w), e = has_end ? end : up;
    long long lo = start > w->F ? start : w->F, hi = e < up ? e : up;
    if (hi > lo)
        x->busy_ns[store - 1] += (__int128)hi - lo;
}

void ou_win_figs(ou_win *x, const ou_fault *w, double fig[OU_NFIG])
{
    for (int k = 0; k < OU_NFIG; k++)
        fig[k] = NAN;
    if (!w->has_window)
        return;
    fig[OU_WIN_FROM_MS] = (double)w->from_ns / 1e6;
    if (!w->to_end)
        fig[OU_WIN_TO_MS] = (double)w->to_ns / 1e6;
    for (int p = 0; p < 3; p++)
        for (int k = 0; k < OU_PN; k++)
            fig[OU_PHASE0 + OU_PN * p + k] = (double)x->c[p][k];
    if (x->c[1][OU_P_REQUESTS] > 0)
        fig[OU_DURING_LOOKUPS_PER_REQUEST] = (double)x->c[1][OU_P_LOOKUPS] / (double)x->c[1][OU_P_REQUESTS];
    if (!w->to_end && x->first_live != LLONG_MAX)
        fig[OU_FIRST_LIVE_AFTER_MS] = (double)(x->first_live - w->U) / 1e6;
    if (x->c[1][OU_P_REQUESTS] > 0)
        fig[OU_DURING_STANDIN_SHARE] = (double)x->c[1][OU_P_STANDINS] / (double)x->c[1][OU_P_REQUESTS];
    /* the percentile as for p99_ms (stats.h); null without answered rows */
    if (x->ndlat) {
        st_sort_ll(x->dlat, x->ndlat);
        fig[OU_DURING_P99_MS] = st_pct_ll(x->dlat, x->ndlat, 0.99) / 1e6;
    }
    /* a window of no length (a mismatch of its own, check_fault) has no mean: null */
    long long span = u_prime(w) - w->F;
    if (span > 0) {
        fig[OU_STORE1_DURING_BUSY] = (double)x->busy_ns[0] / (double)span;
        if (x->stores == 2)
            fig[OU_STORE2_DURING_BUSY] = (double)x->busy_ns[1] / (double)span;
    }
    /* the first whole second after U with n >= 1 rows whose share not live
     * is back within 1 point of the share before the window, in integers
     * (RESULTS.md): 100 B (n - live) < 100 n (B - BL) + n B when B > 0,
     * 100 (n - live) < n when B = 0.  128 bits: no product can overflow */
    __int128 B = x->c[0][OU_P_REQUESTS], BL = x->c[0][OU_P_LIVE];
    for (long long k = 0; k < x->nrec; k++) {
        __int128 n = x->rec_rows[k], off = n - x->rec_live[k];
        if (n > 0 && (B > 0 ? 100 * B * off < 100 * n * (B - BL) + n * B : 100 * off < n)) {
            fig[OU_RECOVERED_S] = (double)k;
            break;
        }
    }
}

/* ---- events.tsv.gz ---- */

long long ou_wait_bound(long long tries)
{
    if (tries >= 7)
        return 1000000000LL; /* 1e7 * 2^7 is already past the cap */
    if (tries >= 0)
        return 10000000LL << tries;
    /* not a count of tries (a row mismatch of its own): the formula still */
    return (long long)ceil(ldexp(1e7, tries < -100 ? -100 : (int)tries));
}

/* one connection's state: its last row (0 none, L, F, C), failed tries
 * since it was lost, and the last row's t and wait_ns */
typedef struct {
    char last;
    long long fails, t, wait;
} conn_state;

#define OU_MAXCONN 65535

/* the row promises of one events row for its connection */
static void conn_checks(const char *run, long line, const rr_row *row, conn_state *c)
{
    const char *fn = "events.tsv.gz";
    char what = row->c[E_WHAT], b[256];
    long long t = row->v[E_T], tries = row->v[E_TRIES], want_tries;
    int waiting = c->last == 'L' || c->last == 'F';
    if (what == 'L') {
        if (waiting)
            mm_row(run, fn, line, "what", "L", "F or C: after L or F the connection's next row is its next try");
        c->fails = 0;
        want_tries = 0;
    } else {
        if (!waiting)
            mm_row(run, fn, line, "what", row->text[E_WHAT],
                   "L: a connection's rows start with its loss, and the row after C is L");
        if (what == 'F')
            c->fails++;
        want_tries = c->fails;
    }
    if (tries != want_tries) {
        snprintf(b, sizeof b, "%lld (%s)", want_tries,
                 what == 'L' ? "0 for L" : what == 'F' ? "k for the k-th F since the loss" : "the failed tries before C");
        mm_row(run, fn, line, "tries", row->text[E_TRIES], b);
    }
    long long next;
    if (waiting && what != 'L' && !__builtin_add_overflow(c->t, c->wait, &next) && t < next) {
        snprintf(b, sizeof b, "at or after %lld, the previous row's t + wait_ns (the try is made then or later); decoded %lld",
                 next, t);
        mm_row(run, fn, line, "t", row->text[E_T], b);
    }
    c->last = what;
    c->t = t;
    c->wait = row->v[E_WAIT];
}

int ou_events(const char *path, const unsigned char *gz, size_t gzlen, const char *run, ou_brk_fn on_brk, void *ctx,
              ou_events_count *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    rr_file f;
    rr_row row;
    int rc = rr_open(&f, path, gz, gzlen, "events", events_cols, E_NCOL, err, errlen);
    conn_state *cs = NULL;
    size_t ncs = 0;
    long long prev_t = LLONG_MIN;
    const char *fn = "events.tsv.gz";
    char b[256];
    while (rc == 0) {
        int k = rr_next(&f, &row, err, errlen);
        if (k < 0)
            rc = -1;
        if (k <= 0)
            break;
        long line = f.line;
        out->rows++;
        char what = row.c[E_WHAT];
        long long t = row.v[E_T], conn = row.v[E_CONN], wait = row.v[E_WAIT];
        if (t < prev_t) {
            snprintf(b, sizeof b, "at or after %lld, the previous row's (rows in time order); decoded %lld", prev_t, t);
            mm_row(run, fn, line, "t", row.text[E_T], b);
        }
        prev_t = t;
        if (strchr(RC_BREAKER, what)) {
            if (on_brk)
                on_brk(ctx, line, &row);
            continue;
        }
        if (what == 'L')
            out->lost++;
        else if (what == 'F')
            out->failed++;
        else
            out->regained++;
        /* RESULTS.md's reconnect_wait_over: a pause outside the backoff's
         * bounds is counted (a figure that must be 0), not a malformed row */
        if (what != 'C' && (wait < 0 || wait >= ou_wait_bound(row.v[E_TRIES]))) {
            out->wait_over++;
            if (!out->first_over_line)
                out->first_over_line = line;
        }
        if (what == 'C' && wait != 0)
            mm_row(run, fn, line, "wait_ns", row.text[E_WAIT], "0 (C: connected again)");
        if (conn < 0 || conn > OU_MAXCONN) {
            mm_row(run, fn, line, "conn", row.text[E_CONN], "a connection number, 0 to 65535");
            continue;
        }
        if ((size_t)conn >= ncs) {
            size_t n2 = (size_t)conn + 8;
            cs = vu_xrealloc(cs, n2 * sizeof *cs);
            memset(cs + ncs, 0, (n2 - ncs) * sizeof *cs);
            ncs = n2;
        }
        conn_checks(run, line, &row, &cs[conn]);
    }
    free(cs);
    out->tmin = f.tmin;
    out->tmin_line = f.tmin_line;
    rr_close(&f);
    return rc;
}
