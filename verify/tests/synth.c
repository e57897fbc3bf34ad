/* synth: synthetic studies written exactly per RAWFORMAT.md, for the tests and the bench; see synth.h. */
#include "synth.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "vjson.h"
#include "vutil.h"

int syn_mkdirs(const char *path)
{
    char *p = vu_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0755);
            *s = '/';
        }
    }
    int rc = mkdir(p, 0755);
    free(p);
    return rc == 0 || errno == EEXIST ? 0 : -1;
}

int syn_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "synth: cannot write %s\n", path);
        return -1;
    }
    fputs(text, f);
    return fclose(f) ? -1 : 0;
}

/* ---- text building with delta encoding ---- */

static char *put_ll(char *p, long long v)
{
    char tmp[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = tmp[--n];
    return p;
}

typedef struct {
    long long prev;
    int seen;
} delta;

static char *put_time(char *p, delta *d, int has, long long v)
{
    if (!has) {
        *p++ = '-';
        return p;
    }
    long long out = d->seen ? v - d->prev : v;
    d->prev = v;
    d->seen = 1;
    return put_ll(p, out);
}

static int write_gz(const char *path, const vu_buf *b, int level, size_t *size, char sha[65])
{
    char mode[8];
    snprintf(mode, sizeof mode, "wb%d", level);
    gzFile g = gzopen(path, mode);
    if (!g) {
        fprintf(stderr, "synth: cannot write %s\n", path);
        return -1;
    }
    size_t off = 0;
    while (off < b->len) {
        unsigned chunk = (unsigned)(b->len - off > (1u << 30) ? (1u << 30) : b->len - off);
        if (gzwrite(g, b->p + off, chunk) != (int)chunk) {
            gzclose(g);
            return -1;
        }
        off += chunk;
    }
    if (gzclose(g) != Z_OK)
        return -1;
    unsigned char *buf;
    size_t len;
    char err[256];
    if (vu_read_file(path, &buf, &len, err, sizeof err))
        return -1;
    vu_sha256_hex(buf, len, sha);
    *size = len;
    free(buf);
    return 0;
}

static void reserve(vu_buf *b, size_t more)
{
    if (b->len + more + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 1 << 16;
        while (c < b->len + more + 1)
            c *= 2;
        b->p = vu_xrealloc(b->p, c);
        b->cap = c;
    }
}

static vj_node *file_entry(size_t rows, size_t size, const char *sha)
{
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "rows", vj_new_int((long long)rows));
    vj_obj_set(o, "sha256", vj_new_str(sha));
    vj_obj_set(o, "size", vj_new_int((long long)size));
    return o;
}

/* ---- format 4 (RAWFORMAT.md): µs offsets from decoded bases ---- */

#define ENC_ABSENT (-0x7fffffffffffffffLL - 1)

/* value = floor((x - base) / 1000), rounded toward -inf */
static long long fdiv1000(long long d)
{
    long long q = d / 1000;
    return d % 1000 < 0 ? q - 1 : q;
}

/* the bases a reader decodes, built file by file while syn_write_run writes
 * them in the page's order (tester, service, stores) */
typedef struct {
    long long req, start[5];
} enc_other;

typedef struct {
    size_t nt;
    long long *sched, *ans;     /* decoded tester instants by j (ans ENC_ABSENT: none) */
    long long *astart;          /* decoded aK_start_t of the first service row of req (ENC_ABSENT: none) */
    unsigned char *vseen;
    enc_other *other;           /* service rows of reqs outside [0, nt) */
    size_t no;
} enc_ctx;

static enc_ctx *g_enc;

/* the reference a run without its own ref is written against: the last one
 * made or written (syn_make_ref, syn_write_reference[_table]) */
static const syn_ref *g_ref;

/* x written as an offset after base (its decoded value in *dec) */
static char *put_off(char *p, int has, long long x, long long base, long long *dec)
{
    if (!has) {
        *p++ = '-';
        return p;
    }
    long long v = fdiv1000(x - base);
    if (dec)
        *dec = base + 1000 * v;
    return put_ll(p, v);
}

/* put_off, a negative value written 0 when clamp (the instant is then its
 * base: RAWFORMAT.md, "A window's edge") */
static char *put_off_min(char *p, int has, long long x, long long base, long long *dec, int clamp)
{
    if (!has || !clamp || x - base >= 0)
        return put_off(p, has, x, base, dec);
    if (dec)
        *dec = base;
    return put_ll(p, 0);
}

/* RAWFORMAT.md, "A window's edge": a row of a store that has the run's
 * fault (the first; the second too with slowboth) whose floored arrival
 * dec lies before an edge (from_ns or to_ns) that the logged one x is at or
 * after */
static int edge_crossed(const syn_run *r, int store, long long dec, long long x)
{
    if (!r->fault || !r->has_window || (store == 2 && strcmp(r->fault, "slowboth")))
        return 0;
    long long from = r->t0 + r->from_ns, to = r->t0 + r->to_ns;
    return (dec < from && from <= x) || (!r->to_null && dec < to && to <= x);
}

/* the reference of a tester row: L score, K last_known, D default_score */
static int ref_equal(const syn_run *r, const syn_trow *t, size_t j)
{
    const syn_ref *ref = r->ref ? r->ref : g_ref;
    if (!ref || r->no_eq || !t->has_score || t->kind == 'E' || r->test_rows <= 0)
        return 0;
    size_t row = j % (size_t)r->test_rows;
    if (t->kind == 'D')
        return t->score == ref->default_score;
    if (row >= ref->rows)
        return 0;
    return t->score == (t->kind == 'L' ? ref->score[row] : ref->last_known[row]);
}

/* the text of tester.tsv: request j is line j + 3; sched_t is the
 * schedule's (open loop) or send_t (closed loop), not written */
static void tester_text(const syn_run *r, vu_buf *b)
{
    enc_ctx *e = g_enc;
    vu_buf_puts(b, "# lab-raw 4 tester\nsend_us\tanswer_us\tstatus\tkind\tscore\tconn\twaited\n");
    long long *off = NULL;
    size_t noff = r->rate > 0 ? syn_schedule(r->round, r->rate, r->seconds, &off) : 0;
    for (size_t i = 0; i < r->nt; i++) {
        const syn_trow *t = &r->t[i];
        reserve(b, 256);
        char *p = b->p + b->len;
        long long sched = t->sched, dsend = 0;
        if (r->rate > 0) {
            if (i < noff)
                sched = r->t0 + off[i];
            p = put_off(p, !t->no_send, t->send, sched, NULL);
        } else {
            p = put_off(p, !t->no_send, t->send, r->t0, &dsend);
            if (!t->no_send)
                sched = dsend;
        }
        *p++ = '\t';
        long long dans = ENC_ABSENT;
        p = put_off(p, t->has_answer, t->answer, sched, &dans);
        e->sched[i] = sched;
        e->ans[i] = t->has_answer ? dans : ENC_ABSENT;
        *p++ = '\t';
        p = put_ll(p, t->status);
        *p++ = '\t';
        *p++ = t->kind;
        *p++ = '\t';
        if (ref_equal(r, t, i))
            *p++ = '=';
        else if (t->has_score)
            p += sprintf(p, "%.9g", (double)t->score);
        else
            *p++ = '-';
        *p++ = '\t';
        if (t->no_send)
            *p++ = '-';
        else
            p = put_ll(p, t->conn);
        *p++ = '\t';
        p = put_ll(p, t->waited);
        *p++ = '\n';
        b->len = (size_t)(p - b->p);
    }
    free(off);
}

/* the text of service.tsv */
static void service_text(const syn_run *r, vu_buf *b)
{
    enc_ctx *e = g_enc;
    vu_buf_puts(b, "# lab-raw 4 service\nreq\tarrive_us\tanswer_us\tstatus\tkind\tlookups\tstore\t"
                   "a0_start_us\ta0_end_us\ta0_out\ta1_start_us\ta1_end_us\ta1_out\ta2_start_us\ta2_end_us\ta2_out\t"
                   "a3_start_us\ta3_end_us\ta3_out\ta4_start_us\ta4_end_us\ta4_out\n");
    for (size_t i = 0; i < r->nv; i++) {
        const syn_vrow *v = &r->v[i];
        reserve(b, 512);
        char *p = b->p + b->len;
        int in = v->has_req && v->req >= 0 && (size_t)v->req < e->nt;
        if (v->has_req)
            p = put_ll(p, v->req);
        else
            *p++ = '-';
        *p++ = '\t';
        long long arrive = 0, start[5];
        p = put_off(p, 1, v->arrive, in ? e->sched[v->req] : r->t0, &arrive);
        *p++ = '\t';
        p = put_off(p, 1, v->answer, in && e->ans[v->req] != ENC_ABSENT ? e->ans[v->req] : arrive, NULL);
        *p++ = '\t';
        p = put_ll(p, v->status);
        *p++ = '\t';
        *p++ = v->kind;
        *p++ = '\t';
        p = put_ll(p, v->lookups);
        *p++ = '\t';
        p = put_ll(p, v->store ? v->store : 1);
        for (int a = 0; a < 5; a++) {
            start[a] = ENC_ABSENT;
            *p++ = '\t';
            p = put_off(p, v->a_has[a], v->a_start[a], arrive, &start[a]);
            *p++ = '\t';
            /* an A lookup's end is after its start + W, W the dice alone (a slow
             * store's slowness is in aK_end_us, RAWFORMAT.md) */
            long long ebase = start[a];
            if (v->a_has[a] && v->a_out[a] == 'A' && v->has_req)
                ebase += syn_planned(r, v->req, a);
            p = put_off(p, v->a_has[a], v->a_end[a], ebase, NULL);
            *p++ = '\t';
            *p++ = v->a_has[a] ? v->a_out[a] : '-';
        }
        *p++ = '\n';
        b->len = (size_t)(p - b->p);
        if (!v->has_req)
            continue;
        if (in && !e->vseen[v->req]) {
            e->vseen[v->req] = 1;
            memcpy(e->astart + 5 * v->req, start, sizeof start);
        } else if (!in) {
            e->other = vu_xrealloc(e->other, (e->no + 1) * sizeof *e->other);
            e->other[e->no].req = v->req;
            memcpy(e->other[e->no++].start, start, sizeof start);
        }
    }
}

/* the decoded aK_start_t of the first service row with req (ENC_ABSENT: none) */
static long long enc_start(const enc_ctx *e, long long req, long long att)
{
    if (att < 0 || att >= 5)
        return ENC_ABSENT;
    if (req >= 0 && (size_t)req < e->nt)
        return e->vseen[req] ? e->astart[5 * req + att] : ENC_ABSENT;
    for (size_t i = 0; i < e->no; i++)
        if (e->other[i].req == req)
            return e->other[i].start[att];
    return ENC_ABSENT;
}

/* the text of store.tsv (or store2.tsv: the same columns and first line);
 * an A row's end_us is after start_t + W, W the wait dice's */
static void rows_text(const syn_run *r, const syn_srow *rows, size_t nrows, vu_buf *b)
{
    vu_buf_puts(b, "# lab-raw 4 store\nreq\tattempt\tarrive_us\tstart_us\tend_us\tbudget_ns\toutcome\tline\tbusy\n");
    for (size_t i = 0; i < nrows; i++) {
        const syn_srow *s = &rows[i];
        reserve(b, 256);
        char *p = b->p + b->len;
        p = put_ll(p, s->req);
        *p++ = '\t';
        p = put_ll(p, s->attempt);
        *p++ = '\t';
        int store = rows == r->s2 ? 2 : 1;
        long long base = enc_start(g_enc, s->req, s->attempt), arrive = 0, start = 0;
        base = base == ENC_ABSENT ? r->t0 : base;
        long long av = fdiv1000(s->arrive - base);
        /* RAWFORMAT.md, "A window's edge": rounded up when floored it would
         * decode before an edge the logged arrival is at or after; the row's
         * other offsets then floored, a negative one written 0 */
        int edge = r->edge_rule && edge_crossed(r, store, base + 1000 * av, s->arrive);
        av += edge;
        arrive = base + 1000 * av;
        p = put_ll(p, av + s->arrive_us_off);
        *p++ = '\t';
        p = put_off_min(p, s->has_start, s->start, arrive, &start, edge);
        *p++ = '\t';
        long long ebase = s->has_start ? start : arrive;
        if (s->outcome == 'A' && s->has_start)
            ebase += syn_planned_at(r, store, s->req, s->attempt, s->arrive);
        p = put_off_min(p, s->has_end, s->end, ebase, NULL, edge);
        *p++ = '\t';
        p = put_ll(p, s->budget);
        *p++ = '\t';
        *p++ = s->outcome;
        *p++ = '\t';
        p = put_ll(p, s->line);
        *p++ = '\t';
        p = put_ll(p, s->busy);
        *p++ = '\n';
        b->len = (size_t)(p - b->p);
    }
}

static void store_text(const syn_run *r, vu_buf *b)
{
    rows_text(r, r->s, r->ns, b);
}

static void store2_text(const syn_run *r, vu_buf *b)
{
    rows_text(r, r->s2, r->ns2, b);
}

/* the text of machine.tsv */
static void machine_text(const syn_run *r, vu_buf *b)
{
    vu_buf_puts(b, "# lab-raw 4 machine\nt\tscope\ttotal\tidle\tsteal\tlab\n");
    delta d = {0, 0};
    for (size_t i = 0; i < r->nm; i++) {
        const syn_mrow *m = &r->m[i];
        reserve(b, 128);
        char *p = b->p + b->len;
        p = put_time(p, &d, 1, m->t);
        *p++ = '\t';
        *p++ = m->scope;
        *p++ = '\t';
        p = put_ll(p, m->total);
        *p++ = '\t';
        p = put_ll(p, m->idle);
        *p++ = '\t';
        p = put_ll(p, m->steal);
        *p++ = '\t';
        p = put_ll(p, m->lab);
        *p++ = '\n';
        b->len = (size_t)(p - b->p);
    }
}

/* the text of events.tsv */
static void events_text(const syn_run *r, vu_buf *b)
{
    vu_buf_puts(b, "# lab-raw 4 events\nt\twhat\tconn\ttries\twait_ns\n");
    delta d = {0, 0};
    for (size_t i = 0; i < r->ne; i++) {
        const syn_erow *e = &r->e[i];
        reserve(b, 128);
        char *p = b->p + b->len;
        p = put_time(p, &d, 1, e->t);
        *p++ = '\t';
        *p++ = e->what;
        *p++ = '\t';
        p = put_ll(p, e->conn);
        *p++ = '\t';
        p = put_ll(p, e->tries);
        *p++ = '\t';
        p = put_ll(p, e->wait);
        *p++ = '\n';
        b->len = (size_t)(p - b->p);
    }
}

void syn_set_fault(syn_run *r, const char *name)
{
    r->fault = name;
    r->fault_spec = NULL;
    r->nested = 0;
    r->has_window = !strcmp(name, "down") || !strcmp(name, "hang") || !strcmp(name, "reset") || !strcmp(name, "never") ||
                    !strcmp(name, "slow") || !strcmp(name, "slowboth");
    r->from_ns = llround(r->seconds / 3 * 1e9);
    r->to_null = !strcmp(name, "never");
    r->to_ns = r->to_null ? 0 : llround(2 * r->seconds / 3 * 1e9);
}

/* run.json's fault (RAWFORMAT.md) */
static vj_node *fault_json(const syn_run *r)
{
    vj_node *f = vj_new_obj();
    const char *name = r->fault ? r->fault : "none";
    vj_obj_set(f, "name", vj_new_str(name));
    vj_obj_set(f, "spec", vj_new_str(r->fault_spec ? r->fault_spec : name));
    if (!r->has_window) {
        vj_obj_set(f, "window", vj_new_null());
        return f;
    }
    vj_node *w = r->nested ? vj_new_obj() : f;
    vj_obj_set(w, "from_ns", vj_new_int(r->from_ns));
    vj_obj_set(w, "to_ns", r->to_null ? vj_new_null() : vj_new_int(r->to_ns));
    if (r->nested)
        vj_obj_set(f, "window", w);
    return f;
}

static int cmp_ll_syn(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

/* run.json's "quiet": the claim the test asks for, with the figures it
 * looked at computed from the rows (RAWFORMAT.md, RESULTS.md) */
static vj_node *claim_json(const syn_run *r)
{
    long long at = 0, ai = 0, as = 0, mt = 0, mi = 0, na = 0, nm = 0;
    double second = 0, foreign = 0;
    for (size_t i = 0; i < r->nm; i++) {
        const syn_mrow *m = &r->m[i];
        if (m->scope == 'A') {
            at += m->total;
            ai += m->idle;
            as += m->steal;
            double x = m->total ? (double)m->steal / (double)m->total : 0;
            if (!na++ || x > second)
                second = x;
        } else {
            mt += m->total;
            mi += m->idle;
            long long f = m->total - m->idle - m->steal - m->lab;
            double x = m->total && f > 0 ? (double)f / (double)m->total : 0;
            if (!nm++ || x > foreign)
                foreign = x;
        }
    }
    /* lateness over the rows sent (a never-sent one has no send_t) */
    long long *late = vu_xcalloc(r->nt + 1, sizeof *late);
    size_t nl = 0;
    for (size_t i = 0; i < r->nt; i++)
        if (!r->t[i].no_send)
            late[nl++] = r->t[i].send - r->t[i].sched;
    qsort(late, nl, sizeof *late, cmp_ll_syn);
    double p99 = NAN, max = NAN;
    if (nl) {
        double h = (double)(nl - 1) * 0.99;
        size_t f = (size_t)h, g = f + 1 < nl ? f + 1 : f;
        p99 = ((double)late[f] + (h - (double)f) * (double)(late[g] - late[f])) / 1e6;
        max = (double)late[nl - 1] / 1e6;
    }
    free(late);
    vj_node *o = vj_new_obj();
    const char *cr = r->claim_rules ? r->claim_rules : "";
    vj_obj_set(o, "quiet", vj_new_bool(!*cr));
    vj_node *rules = vj_new_arr(), *reasons = vj_new_arr();
    for (const char *p = cr; *p;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        char *name = vu_xstrndup(p, l);
        vj_arr_push(rules, vj_new_str(name));
        char *why = vu_xasprintf("the run broke the rule %s of the quiet file", name);
        vj_arr_push(reasons, vj_new_str(why));
        free(why);
        free(name);
        p += l + (c ? 1 : 0);
    }
    vj_obj_set(o, "rules", rules);
    vj_obj_set(o, "steal_share", at ? vj_new_num((double)as / (double)at) : vj_new_null());
    vj_obj_set(o, "steal_second_max", na ? vj_new_num(second) : vj_new_null());
    vj_obj_set(o, "other_idle_share", at - mt ? vj_new_num((double)(ai - mi) / (double)(at - mt)) : vj_new_null());
    vj_obj_set(o, "late_p99_ms", vj_new_num(p99));
    vj_obj_set(o, "late_max_ms", vj_new_num(max));
    vj_obj_set(o, "foreign_second_max", nm ? vj_new_num(foreign) : vj_new_null());
    vj_obj_set(o, "reasons", reasons);
    return o;
}

/* dir/<name>.tsv.gz from text(r), and its entry (rows, size, sha256) in files */
static int write_events(const char *dir, const char *name, void (*text)(const syn_run *, vu_buf *), size_t rows,
                        const syn_run *r, int level, vj_node *files)
{
    char path[4200], file[64];
    size_t size;
    char sha[65];
    vu_buf b = {0};
    text(r, &b);
    snprintf(file, sizeof file, "%s.tsv.gz", name);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = write_gz(path, &b, level, &size, sha);
    vu_buf_free(&b);
    if (rc)
        return -1;
    vj_obj_set(files, file, file_entry(rows, size, sha));
    return 0;
}

/* arm_spec: every column of lab/arms.tsv (RAWFORMAT.md), the defences' from r->spec */
static vj_node *spec_json(const syn_run *r)
{
    const syn_spec *p = &r->spec;
    char wait[2] = {syn_wait_of(r), 0};
    vj_node *spec = vj_new_obj();
    vj_obj_set(spec, "name", vj_new_str(r->arm));
    vj_obj_set(spec, "wait", vj_new_str(wait));
    vj_obj_set(spec, "rate", vj_new_int(r->rate));
    vj_obj_set(spec, "policy", vj_new_str("synthetic"));
    vj_obj_set(spec, "try_ms", vj_new_int(25));
    vj_obj_set(spec, "tries", vj_new_int(p->tries ? p->tries : 1));
    vj_obj_set(spec, "pause", vj_new_str("none"));
    vj_obj_set(spec, "pause_ms", vj_new_arr());
    static const char *const zero[] = {"hedge_ms", "limit_ms", "deadline_ms", "reserve_ms", "down"};
    for (size_t k = 0; k < sizeof zero / sizeof *zero; k++)
        vj_obj_set(spec, zero[k], vj_new_int(0));
    vj_obj_set(spec, "standin", vj_new_int(1));
    vj_obj_set(spec, "fault", vj_new_str(r->fault_spec ? r->fault_spec : r->fault ? r->fault : "none"));
    const struct {
        const char *name;
        int v;
    } d[] = {{"brk_fails", p->brk_fails}, {"brk_window", p->brk_window}, {"brk_share", p->brk_share},
             {"brk_cool_ms", p->brk_cool_ms}, {"brk_probes", p->brk_probes}, {"store2", p->store2},
             {"inflight", p->inflight}, {"bulkhead", p->bulkhead}, {"rb_pct", p->rb_pct},
             {"rb_floor", p->rb_floor}, {"hedge_p", p->hedge_p}};
    for (size_t k = 0; k < sizeof d / sizeof *d; k++)
        vj_obj_set(spec, d[k].name, vj_new_int(d[k].v));
    if (p->has_hedge2 || p->hedge2)
        vj_obj_set(spec, "hedge2", vj_new_int(p->hedge2));
    return spec;
}

/* run.json with the fields RAWFORMAT.md lists; takes files */
static int write_run_json(const char *dir, const syn_run *r, vj_node *files)
{
    char path[4200];
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "arm", vj_new_str(r->arm));
    if (!r->machine || *r->machine)
        vj_obj_set(o, "machine", vj_new_str(r->machine ? r->machine : "local"));
    vj_obj_set(o, "arm_spec", spec_json(r));
    vj_obj_set(o, "stores", vj_new_int(r->stores ? r->stores : 1));
    vj_obj_set(o, "fault", fault_json(r));
    vj_obj_set(o, "round", vj_new_int(r->round));
    vj_obj_set(o, "seconds", vj_new_num(r->seconds));
    vj_obj_set(o, "settle_s", vj_new_num(2.5));
    vj_obj_set(o, "rate", vj_new_int(r->rate));
    vj_obj_set(o, "schedule_seed", vj_new_int(1000003LL * r->round + 17));
    if (!r->no_freeze_share)
        vj_obj_set(o, "freeze_share", vj_new_num(syn_freeze_share(r)));
    vj_obj_set(o, "t0_ns", vj_new_int(r->t0));
    if (r->start_utc)
        vj_obj_set(o, "start_utc", vj_new_str(r->start_utc));
    vj_obj_set(o, "requests", vj_new_int((long long)r->nt));
    vj_obj_set(o, "test_rows", vj_new_int(r->test_rows));
    vj_node *idle = vj_new_obj();
    vj_obj_set(idle, "idle_share", vj_new_num(0.987));
    vj_obj_set(idle, "steal_share", vj_new_num(0.001));
    vj_obj_set(idle, "passed", vj_new_bool(1));
    vj_obj_set(idle, "enabled", vj_new_bool(1));
    vj_obj_set(o, "idle", idle);
    vj_obj_set(o, "cores", vj_new_str("0"));
    vj_node *build = vj_new_obj();
    vj_obj_set(build, "git_commit", vj_new_str("29a1fbaaa81f6add8ceef91c4812195e5c086322"));
    vj_obj_set(build, "compiler", vj_new_str("gcc 12.2.0"));
    vj_obj_set(o, "build", build);
    vj_node *host = vj_new_obj();
    vj_obj_set(host, "kernel", vj_new_str("6.18.44-fc-v657"));
    vj_obj_set(host, "mem_total_kb", vj_new_int(24684092));
    vj_obj_set(o, "host", host);
    vj_node *ver = vj_new_obj();
    vj_obj_set(ver, "zlib", vj_new_str("1.2.13"));
    vj_obj_set(ver, "xgboost", vj_new_str("1.7.4"));
    vj_obj_set(o, "versions", ver);
    vj_obj_set(o, "files", files);
    vj_obj_set(o, "quiet", claim_json(r));
    vu_buf jb = {0};
    vj_write(o, &jb);
    vj_free(o);
    snprintf(path, sizeof path, "%s/run.json", dir);
    int rc = syn_write_text(path, jb.p);
    vu_buf_free(&jb);
    return rc;
}

int syn_write_run(const char *root, const syn_run *r, int level)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/results/raw/%s-r%d", root, r->arm, r->round);
    if (syn_mkdirs(dir))
        return -1;
    vj_node *files = vj_new_obj();
    enc_ctx e;
    memset(&e, 0, sizeof e);
    e.nt = r->nt;
    e.sched = vu_xcalloc(r->nt + 1, sizeof *e.sched);
    e.ans = vu_xcalloc(r->nt + 1, sizeof *e.ans);
    e.astart = vu_xcalloc(5 * r->nt + 5, sizeof *e.astart);
    e.vseen = vu_xcalloc(r->nt + 1, 1);
    g_enc = &e;
    int rc = write_events(dir, "tester", tester_text, r->nt, r, level, files) ||
             write_events(dir, "service", service_text, r->nv, r, level, files) ||
             write_events(dir, "store", store_text, r->ns, r, level, files) ||
             (r->stores == 2 && write_events(dir, "store2", store2_text, r->ns2, r, level, files)) ||
             write_events(dir, "events", events_text, r->ne, r, level, files) ||
             write_events(dir, "machine", machine_text, r->nm, r, level, files);
    g_enc = NULL;
    free(e.sched);
    free(e.ans);
    free(e.astart);
    free(e.vseen);
    free(e.other);
    if (rc) {
        vj_free(files);
        return -1;
    }
    return write_run_json(dir, r, files);
}

void syn_free_run(syn_run *r)
{
    free(r->t);
    free(r->v);
    free(r->s);
    free(r->s2);
    r->s2 = NULL;
    r->ns2 = 0;
    free(r->m);
    free(r->e);
    r->e = NULL;
    r->ne = 0;
    r->t = NULL;
    r->v = NULL;
    r->s = NULL;
    r->m = NULL;
    r->nt = r->nv = r->ns = r->nm = 0;
}

void syn_quiet_machine(syn_run *r, int readings)
{
    free(r->m);
    r->m = vu_xcalloc((size_t)(2 * readings + 1), sizeof *r->m);
    r->nm = 0;
    for (int k = 1; k <= readings; k++) {
        long long t = r->t0 + (long long)k * 1000000000LL;
        r->m[r->nm++] = (syn_mrow){t, 'A', 200, 190, 0, 7};
        r->m[r->nm++] = (syn_mrow){t, 'M', 100, 92 + k % 3, 0, 7};
    }
}

int syn_write_quiet(const char *root, const char *text)
{
    char *dir = vu_xasprintf("%s/data", root);
    int rc = syn_mkdirs(dir);
    char *p = vu_xasprintf("%s/quiet.tsv", dir);
    if (!rc)
        rc = syn_write_text(p, text ? text : SYN_QUIET_TSV);
    free(p);
    free(dir);
    return rc;
}

/* ---- random runs ---- */

static unsigned long long rng_next(unsigned long long *s)
{
    /* splitmix64 */
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double rng_u(unsigned long long *s)
{
    return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static int cmp_srow_end(const void *x, const void *y)
{
    const syn_srow *a = x, *b = y;
    if (a->has_end != b->has_end)
        return a->has_end ? -1 : 1;
    if (!a->has_end)
        return 0;
    return (a->end > b->end) - (a->end < b->end);
}

static int cmp_vrow_answer(const void *x, const void *y)
{
    const syn_vrow *a = x, *b = y;
    return (a->answer > b->answer) - (a->answer < b->answer);
}

void syn_gen_run(syn_run *r, const char *arm, int round, double seconds, double rate, unsigned long long seed,
                 const syn_ref *ref, long long t0)
{
    memset(r, 0, sizeof *r);
    snprintf(r->arm, sizeof r->arm, "%s", arm);
    r->round = round;
    r->rate = (int)rate;
    r->seconds = seconds;
    r->t0 = t0;
    r->test_rows = (long long)ref->rows;
    r->ref = ref;
    long long *off;
    size_t n = syn_schedule(round, rate, seconds, &off);
    r->t = vu_xcalloc(n + 1, sizeof *r->t);
    r->v = vu_xcalloc(n + 1, sizeof *r->v);
    r->s = vu_xcalloc(n * 3 + 1, sizeof *r->s);
    unsigned long long st = seed;
    /* the store stops 1.5 s after the schedule: a lookup still in its slot then is pending */
    const long long limit = 25000000, stop = t0 + llround((seconds + 1.5) * 1e9);
    for (size_t j = 0; j < n; j++) {
        syn_trow *t = &r->t[r->nt++];
        t->j = (long long)j;
        t->row = (long long)(j % ref->rows);
        t->sched = t0 + off[j];
        t->send = t->sched + 20000 + (long long)(rng_u(&st) * 80000);
        syn_vrow *v = &r->v[r->nv++];
        v->req = (long long)j;
        v->row = t->row;
        v->has_req = v->has_row = 1;
        v->arrive = t->send + 15000 + (long long)(rng_u(&st) * 10000);
        /* one or two lookups; each waits its planned wait (the dice) in its slot */
        int tries = rng_u(&st) < 0.05 ? 2 : 1;
        long long at = v->arrive + 3000;
        int answered = 0;
        long long done = 0;
        for (int a = 0; a < tries; a++) {
            long long wait = syn_planned(r, v->req, a);
            syn_srow *s = &r->s[r->ns++];
            s->req = v->req;
            s->attempt = a;
            s->row = t->row;
            s->arrive = at + 8000;
            s->planned = wait;
            s->budget = 0;
            s->line = 0;
            s->busy = (int)(rng_u(&st) * 6);
            s->has_start = 1;
            s->start = s->arrive + (rng_u(&st) < 0.1 ? (long long)(rng_u(&st) * 300000) : 0);
            long long end = s->start + wait;
            if (end > stop) {
                s->outcome = 'P';
                s->has_end = 0;
            } else {
                s->outcome = 'A';
                s->has_end = 1;
                s->end = end;
            }
            v->a_has[a] = 1;
            v->a_start[a] = at;
            if (s->has_end && s->end + 9000 - at <= limit) {
                v->a_end[a] = s->end + 9000;
                v->a_out[a] = 'A';
                answered = 1;
                done = v->a_end[a];
            } else {
                v->a_end[a] = at + limit;
                v->a_out[a] = 'T';
                done = v->a_end[a];
            }
            at = done + 100;
            if (answered)
                break;
        }
        v->lookups = 0;
        for (int a = 0; a < 5; a++)
            v->lookups += v->a_has[a];
        v->answer = done + 4000 + (long long)(rng_u(&st) * 3000);
        t->has_answer = 1;
        t->answer = v->answer + 30000 + (long long)(rng_u(&st) * 20000);
        float lk = ref->last_known[t->row];
        if (answered) {
            v->kind = 'L';
            t->kind = 'L';
            t->score = ref->score[t->row];
        } else if (lk == ref->default_score) {
            v->kind = t->kind = 'D';
            t->score = ref->default_score;
        } else {
            v->kind = t->kind = 'K';
            t->score = lk;
        }
        v->status = t->status = 200;
        t->has_score = 1;
        /* 1 in 500: the tester gave up before an answer came (the service's row stays) */
        if (rng_u(&st) < 0.002) {
            t->has_answer = 0;
            t->status = 0;
            t->kind = 'E';
            t->has_score = 0;
        }
        t->waited = rng_u(&st) < 0.01;
    }
    free(off);
    qsort(r->v, r->nv, sizeof *r->v, cmp_vrow_answer);
    qsort(r->s, r->ns, sizeof *r->s, cmp_srow_end);
    syn_assign_conns(r);
    /* one reading a second, and one more while the last answers come */
    syn_quiet_machine(r, (int)ceil(seconds) + 1);
}

void syn_make_ref(syn_ref *ref, size_t rows, unsigned long long seed)
{
    g_ref = ref;
    ref->rows = rows;
    ref->score = vu_xmalloc(rows * sizeof *ref->score);
    ref->last_known = vu_xmalloc(rows * sizeof *ref->last_known);
    ref->default_score = strtof("0.272524476", NULL);
    unsigned long long st = seed;
    for (size_t i = 0; i < rows; i++) {
        /* scores as the lab prints them (%.9g) read back as floats */
        char t[32];
        snprintf(t, sizeof t, "%.9g", rng_u(&st));
        ref->score[i] = strtof(t, NULL);
        if (rng_u(&st) < 0.05) {
            ref->last_known[i] = ref->default_score;
        } else {
            snprintf(t, sizeof t, "%.9g", rng_u(&st));
            ref->last_known[i] = strtof(t, NULL);
        }
    }
}

void syn_free_ref(syn_ref *ref)
{
    if (g_ref == ref)
        g_ref = NULL;
    free(ref->score);
    free(ref->last_known);
    ref->score = ref->last_known = NULL;
}

int syn_write_reference(const char *root, const syn_ref *ref)
{
    g_ref = ref;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/results/reference", root);
    if (syn_mkdirs(dir))
        return -1;
    vu_buf b = {0};
    vu_buf_puts(&b, "customer\tcutoff\tlabel\tscore\tlast_known\n");
    for (size_t i = 0; i < ref->rows; i++)
        vu_buf_printf(&b, "%zu\t2011-%02zu-01\t%zu\t%.9g\t%.9g\n", 12346 + i, 6 + i % 6, i % 3 == 0 ? (size_t)1 : 0,
                      (double)ref->score[i], (double)ref->last_known[i]);
    snprintf(path, sizeof path, "%s/scores.tsv", dir);
    int rc = syn_write_text(path, b.p);
    vu_buf_free(&b);
    if (rc)
        return rc;
    char js[512];
    snprintf(js, sizeof js,
             "{\n \"shop\": \"generated\",\n \"default_score\": %.9g,\n \"test_rows\": %zu,\n \"test_ap\": 0.570016972,\n"
             " \"model\": {\"library\": \"xgboost 1.7.4\"}\n}\n",
             (double)ref->default_score, ref->rows);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    return syn_write_text(path, js);
}

static void walk(const char *root, const char *rel, vu_buf *out)
{
    char *dir = vu_xasprintf("%s/%s", root, rel);
    char **names;
    size_t n;
    char err[256];
    if (vu_list_dir(dir, &names, &n, err, sizeof err)) {
        free(dir);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char *r = vu_xasprintf("%s/%s", rel, names[i]);
        char *full = vu_xasprintf("%s/%s", root, r);
        if (vu_is_dir(full)) {
            walk(root, r, out);
        } else if (!strcmp(rel, "results/reference") && !strncmp(names[i], "ap_", 3)) {
            /* the ap_ reference files are manifest-ap.tsv's (pipeline/APCOST.md 1.10) */
        } else {
            unsigned char *b;
            size_t len;
            if (!vu_read_file(full, &b, &len, err, sizeof err)) {
                char sha[65];
                vu_sha256_hex(b, len, sha);
                vu_buf_printf(out, "%s\t%zu\t%s\n", r, len, sha);
                free(b);
            }
        }
        free(r);
        free(full);
    }
    vu_free_names(names, n);
    free(dir);
}

int syn_write_manifest(const char *root)
{
    char dir[4096], path[4200];
    /* the schedule and the arms file, once (syn_write_study_files) */
    if (syn_write_study_files(root))
        return -1;
    snprintf(dir, sizeof dir, "%s/provenance", root);
    if (syn_mkdirs(dir))
        return -1;
    vu_buf b = {0};
    vu_buf_puts(&b, "path\tsize\tsha256\n");
    walk(root, "results/raw", &b);
    walk(root, "results/attempts", &b);
    walk(root, "results/reference", &b);
    snprintf(path, sizeof path, "%s/manifest-measure.tsv", dir);
    int rc = syn_write_text(path, b.p);
    vu_buf_free(&b);
    return rc;
}

/* ---- hand-made studies for the AP check ---- */

int syn_write_reference_table(const char *root, const syn_ref *ref, const char *const *customer,
                              const char *const *cutoff, const int *label)
{
    g_ref = ref;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/results/reference", root);
    if (syn_mkdirs(dir))
        return -1;
    vu_buf b = {0};
    vu_buf_puts(&b, "customer\tcutoff\tlabel\tscore\tlast_known\n");
    for (size_t i = 0; i < ref->rows; i++)
        vu_buf_printf(&b, "%s\t%s\t%d\t%.9g\t%.9g\n", customer[i], cutoff[i], label[i], (double)ref->score[i],
                      (double)ref->last_known[i]);
    snprintf(path, sizeof path, "%s/scores.tsv", dir);
    int rc = syn_write_text(path, b.p);
    vu_buf_free(&b);
    if (rc)
        return rc;
    char js[512];
    snprintf(js, sizeof js, "{\n \"shop\": \"hand-made\",\n \"model_seed\": 1,\n \"default_score\": %.9g,\n \"test_rows\": %zu\n}\n",
             (double)ref->default_score, ref->rows);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    return syn_write_text(path, js);
}

int syn_results_from_verified(const char *root)
{
    char *vp = vu_xasprintf("%s/results/verified.json", root);
    vj_node *v;
    char err[512];
    int rc = vj_parse_file(vp, &v, err, sizeof err);
    free(vp);
    if (rc) {
        fprintf(stderr, "synth: %s\n", err);
        return -1;
    }
    vj_node *o = vj_new_obj();
    vj_obj_set(o, "format", vj_new_str("lab-results 1"));
    for (size_t i = 0; i < v->n; i++) {
        const char *k = v->keys[i];
        if (!strcmp(k, "runs") || !strcmp(k, "arms") || !strcmp(k, "verdicts") || !strcmp(k, "guesses") ||
            !strcmp(k, "odds") || !strcmp(k, "verdict_family") || !strcmp(k, "attempts") || !strcmp(k, "twin") ||
            !strcmp(k, "map")) {
            vj_obj_set(o, k, v->items[i]);
            v->items[i] = vj_new_null();
        }
    }
    vu_buf b = {0};
    vj_write(o, &b);
    char *rp = vu_xasprintf("%s/results/results.json", root);
    rc = syn_write_text(rp, b.p);
    vu_buf_free(&b);
    vj_free(o);
    vj_free(v);
    free(rp);
    return rc;
}
