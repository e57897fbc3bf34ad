/* schedule: see schedule.h. */
#include "schedule.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vnum.h"
#include "vutil.h"

#define LINE1 "# lab-schedule 1: profile "
#define LINE1_2 "# lab-schedule 2: profile "
#define LINE1_WANT                                                                                              \
    "# lab-schedule 1: profile <name>, <R> rounds of <A> arms, <S> s each[, closed loop <C> s][; ...], or "      \
    "format 2: # lab-schedule 2: profile <name>, <R> rounds[; ...] (RESULTS.md)"
#define HEADER1 "k\tround\tposition\tarm"
#define HEADER2 "k\tround\tposition\tarm\tseconds"

/* the integer at *p up to the text sep: 0 and *p moved past sep, or -1 */
static int int_until(const char **p, const char *sep, long lo, long hi, long *out)
{
    const char *e = strstr(*p, sep);
    long long v;
    if (!e || vn_i64(*p, (size_t)(e - *p), lo, hi, &v))
        return -1;
    *out = (long)v;
    *p = e + strlen(sep);
    return 0;
}

/* a number of seconds above 0 at *p up to the text sep, into v and text: 0
 * and *p moved past sep, or -1 */
static int seconds_until(const char **p, const char *sep, double *v, char *text, size_t tlen)
{
    const char *e = strstr(*p, sep);
    if (!e || (size_t)(e - *p) >= tlen || vn_f64(*p, (size_t)(e - *p), v) || !(*v > 0))
        return -1;
    memcpy(text, *p, (size_t)(e - *p));
    text[e - *p] = 0;
    *p = e + strlen(sep);
    return 0;
}

/* line 1: 0, or -1 (the caller says what it wanted) */
static int read_line1(const char *t, sd_schedule *s)
{
    if (!strncmp(t, LINE1_2, strlen(LINE1_2)))
        s->format = 2;
    else if (!strncmp(t, LINE1, strlen(LINE1)))
        s->format = 1;
    else
        return -1;
    const char *p = t + strlen(LINE1), *c = strstr(p, ", ");
    if (!c || c == p || (size_t)(c - p) >= sizeof s->profile)
        return -1;
    memcpy(s->profile, p, (size_t)(c - p));
    s->profile[c - p] = 0;
    if (strpbrk(s->profile, " \t"))
        return -1;
    p = c + 2;
    if (s->format == 2) {
        /* "<R> rounds", then the end or "; ..." */
        const char *e = strstr(p, " rounds");
        long long v;
        if (!e || vn_i64(p, (size_t)(e - p), 1, 1000000, &v))
            return -1;
        s->rounds = (long)v;
        p = e + 7;
        return *p == 0 || *p == ';' ? 0 : -1;
    }
    if (int_until(&p, " rounds of ", 1, 1000000, &s->rounds) || int_until(&p, " arms, ", 1, 1000000, &s->arms))
        return -1;
    if (seconds_until(&p, " s each", &s->seconds, s->seconds_text, sizeof s->seconds_text))
        return -1;
    if (!strncmp(p, ", closed loop ", 14)) {
        p += 14;
        if (seconds_until(&p, " s", &s->closed_seconds, s->closed_text, sizeof s->closed_text))
            return -1;
    }
    return *p == 0 || *p == ';' ? 0 : -1;
}

static void bad_line(long line, const char *what, const char *lab, const char *want)
{
    char where[64];
    snprintf(where, sizeof where, SD_REL ":%ld", line);
    mm_add(NULL, where, what, lab, want);
}

/* one planned run: its fields checked against the lines before it */
static void read_run(sd_schedule *s, char *text, long line, size_t *cap)
{
    char *f[5];
    int nf = vu_split_tabs(text, f, 5), want_nf = s->format == 2 ? 5 : 4;
    if (nf != want_nf) {
        char lab[32];
        snprintf(lab, sizeof lab, "%d fields", nf);
        bad_line(line, "fields", lab, want_nf == 5 ? "5 (k round position arm seconds)" : "4 (k round position arm)");
        return;
    }
    long long k, round, pos;
    /* format 2: A_r is not on line 1; the positions of a round are checked
     * to be 1 .. A_r once all are read (check_rounds) */
    int bk = vn_i64(f[0], strlen(f[0]), 1, 1L << 40, &k), br = vn_i64(f[1], strlen(f[1]), 1, s->rounds, &round),
        bp = vn_i64(f[2], strlen(f[2]), 1, s->format == 2 ? 1000000 : s->arms, &pos);
    double sec = 0;
    int bs = s->format == 2 && (strlen(f[4]) >= sizeof s->v->seconds_text || vn_f64(f[4], strlen(f[4]), &sec) ||
                                !(sec > 0));
    if (bk || (long)k != line - 2) {
        char want[64];
        snprintf(want, sizeof want, "%ld (k is 1, 2, ... in file order)", line - 2);
        bad_line(line, "k", f[0], want);
    }
    if (br)
        bad_line(line, "round", f[1], "1 to R of line 1");
    if (bp)
        bad_line(line, "position", f[2], s->format == 2 ? "1 to A_r, the runs of its round" : "1 to A of line 1");
    if (!*f[3] || strlen(f[3]) >= sizeof s->v->arm)
        bad_line(line, "arm", f[3], "an arm's name");
    if (bs)
        bad_line(line, "seconds", f[4], "the run's length in seconds, a decimal number above 0");
    if (!br && s->format == 2 && s->n > 0 && round < s->v[s->n - 1].round) {
        char want[96];
        snprintf(want, sizeof want, "%d or more (rounds in ascending order: line %ld is round %d)",
                 s->v[s->n - 1].round, s->v[s->n - 1].line, s->v[s->n - 1].round);
        bad_line(line, "round", f[1], want);
    }
    if (br || bp || bs || !*f[3] || strlen(f[3]) >= sizeof s->v->arm)
        return;
    char run[160];
    snprintf(run, sizeof run, "%s-r%lld", f[3], round);
    for (size_t i = 0; i < s->n; i++) {
        char want[96];
        snprintf(want, sizeof want, "once (first at line %ld)", s->v[i].line);
        if (!strcmp(s->v[i].run, run))
            bad_line(line, "run planned twice", run, want);
        else if (s->v[i].round == round && s->v[i].position == pos)
            bad_line(line, "round and position", run, want);
    }
    if (s->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        s->v = vu_xrealloc(s->v, *cap * sizeof *s->v);
    }
    sd_line *l = &s->v[s->n++];
    l->k = line - 2;
    l->line = line;
    l->round = (int)round;
    l->position = (int)pos;
    snprintf(l->arm, sizeof l->arm, "%s", f[3]);
    snprintf(l->run, sizeof l->run, "%s", run);
    l->seconds = sec;
    snprintf(l->seconds_text, sizeof l->seconds_text, "%s", s->format == 2 ? f[4] : "");
}

/* format 2: every round 1 .. R has runs, at positions 1 .. A_r */
static void check_rounds(const sd_schedule *s)
{
    for (long r = 1; r <= s->rounds; r++) {
        size_t count = 0;
        long maxpos = 0, first = 0;
        for (size_t i = 0; i < s->n; i++) {
            if (s->v[i].round != r)
                continue;
            if (!count)
                first = s->v[i].line;
            count++;
            if (s->v[i].position > maxpos)
                maxpos = s->v[i].position;
        }
        char where[64];
        if (count == 0) {
            snprintf(where, sizeof where, SD_REL);
            mm_addf(NULL, where, "round", "(no run)", "runs in every round 1 .. %ld of line 1 (round %ld)", s->rounds,
                    r);
        } else if ((long)count != maxpos) {
            char lab[64];
            snprintf(where, sizeof where, SD_REL ":%ld", first);
            snprintf(lab, sizeof lab, "positions up to %ld for %zu runs", maxpos, count);
            mm_addf(NULL, where, "positions of round", lab, "1 .. %zu, each once (round %ld)", count, r);
        }
    }
}

/* R x A lines, A distinct arms */
static void check_counts(const sd_schedule *s)
{
    size_t distinct = 0;
    for (size_t i = 0; i < s->n; i++) {
        size_t j = 0;
        while (j < i && strcmp(s->v[j].arm, s->v[i].arm))
            j++;
        distinct += j == i;
    }
    if ((long)s->n != s->rounds * s->arms) {
        char lab[64];
        snprintf(lab, sizeof lab, "%zu planned runs", s->n);
        mm_addf(NULL, SD_REL, "planned runs", lab, "%ld (%ld rounds of %ld arms, line 1)", s->rounds * s->arms,
                s->rounds, s->arms);
    }
    if ((long)distinct != s->arms) {
        char lab[64];
        snprintf(lab, sizeof lab, "%zu distinct arms", distinct);
        mm_addf(NULL, SD_REL, "arms", lab, "%ld (line 1)", s->arms);
    }
}

void sd_load(const char *root, sd_schedule *s)
{
    memset(s, 0, sizeof *s);
    char *path = vu_xasprintf("%s/" SD_REL, root);
    unsigned char *b;
    size_t len;
    char err[4300];
    if (!vu_is_file(path)) {
        mm_add(NULL, SD_REL, "file", "(absent)",
               "the planned runs, written by make measure (RESULTS.md): without them a removed round cannot be told");
        free(path);
        return;
    }
    s->present = 1;
    if (vu_read_file(path, &b, &len, err, sizeof err)) {
        mm_add(NULL, SD_REL, "file", "unreadable", err);
        free(path);
        return;
    }
    free(path);
    char *p = (char *)b, *end = p + len;
    long line = 0;
    size_t cap = 0;
    int l1 = 0;
    while (p < end) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (line == 1) {
            if (read_line1(p, s)) {
                bad_line(1, "line 1", p, LINE1_WANT);
                break;
            }
            l1 = 1;
        } else if (line == 2) {
            if (strcmp(p, s->format == 2 ? HEADER2 : HEADER1)) {
                bad_line(2, "header", p,
                         s->format == 2 ? "k round position arm seconds (tab-separated, format 2)"
                                        : "k round position arm (tab-separated, format 1)");
                break;
            }
            s->ok = 1;
        } else {
            read_run(s, p, line, &cap);
        }
        p = e + 1;
    }
    if (line == 0)
        bad_line(1, "line 1", "(absent)", LINE1_WANT);
    else if (l1 && line == 1)
        bad_line(2, "header", "(absent)",
                 s->format == 2 ? "k round position arm seconds (tab-separated)" : "k round position arm (tab-separated)");
    if (s->ok && s->format == 2)
        check_rounds(s);
    else if (s->ok)
        check_counts(s);
    else
        s->n = 0;
    free(b);
}

const sd_line *sd_find(const sd_schedule *s, const char *run)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].run, run))
            return &s->v[i];
    return NULL;
}

int sd_tiny(const sd_schedule *s)
{
    return s->ok && !strcmp(s->profile, "tiny");
}

double sd_line_seconds(const sd_schedule *s, const am_file *arms, const sd_line *l, const char **text, int *closed)
{
    if (s->format == 2) {
        /* schedule.h: a format 2 line is kept only with seconds above 0 */
        assert(l->seconds > 0);
        if (text)
            *text = l->seconds_text;
        if (closed)
            *closed = 0;
        return l->seconds;
    }
    return sd_run_seconds(s, arms, l->arm, text, closed);
}

double sd_arm_seconds(const sd_schedule *s, const am_file *arms, const char *arm, int *rounds)
{
    double sec = NAN;
    int n = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->v[i].arm, arm))
            continue;
        double x = sd_line_seconds(s, arms, &s->v[i], NULL, NULL);
        if (n == 0)
            sec = x;
        else if (x != sec)
            sec = NAN;
        /* rounds: distinct rounds (a run is planned once: one line a round) */
        n++;
    }
    if (rounds)
        *rounds = n;
    return n ? sec : NAN;
}

int sd_has_round(const sd_schedule *s, const char *arm, int round)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].round == round && !strcmp(s->v[i].arm, arm))
            return 1;
    return 0;
}

double sd_run_seconds(const sd_schedule *s, const am_file *arms, const char *arm, const char **text, int *closed)
{
    if (s->format == 2) {
        for (size_t i = 0; arm && i < s->n; i++)
            if (!strcmp(s->v[i].arm, arm))
                return sd_line_seconds(s, arms, &s->v[i], text, closed);
        if (text)
            *text = "(no line of the arm)";
        if (closed)
            *closed = 0;
        return NAN;
    }
    const am_arm *a = arm ? am_find(arms, arm) : NULL;
    const vj_node *rate = a ? vj_get(a->spec, "rate") : NULL;
    int c = s->closed_seconds > 0 && rate && rate->type == VJ_NUM && rate->num == 0;
    if (text)
        *text = c ? s->closed_text : s->seconds_text;
    if (closed)
        *closed = c;
    return c ? s->closed_seconds : s->seconds;
}

void sd_free(sd_schedule *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
