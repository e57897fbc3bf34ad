/* guesstab: see guesstab.h for the contract. */
#include "guesstab.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms.h"
#include "opt.h"
#include "tsv.h"
#include "util.h"

/* Every figure of data/README.md's table (each defined in pipeline/RESULTS.md). */
const char *const GUESS_FIGURES[] = {
    "n", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "live_share", "standin_share", "last_known_share",
    "default_share", "error_share", "lookups_per_request", "slot_ms_per_lookup", "slot_ms_per_request",
    "cut_short", "late_p99_us", "answers_per_s", "lost", "retried_permanent", "during_lookups_per_request",
    "first_live_after_ms", "recovered_s",
    "before_requests", "before_live", "before_standins", "before_errors", "before_lost", "before_lookups",
    "before_unanswered_lookups",
    "during_requests", "during_live", "during_standins", "during_errors", "during_lost", "during_lookups",
    "during_unanswered_lookups",
    "after_requests", "after_live", "after_standins", "after_errors", "after_lost", "after_lookups",
    "after_unanswered_lookups",
    "brk_opened", "brk_half_opened", "brk_closed", "brk_transitions", "brk_open_ms", "brk_half_ms", "brk_closed_ms",
    "brk_illegal", "budget_refused", "budget_over", "inflight_refused", "store1_during_live_share",
    "store2_during_live_share", "store2_during_p99_ms", "store2_p99_ms", "before_lookups_100ms",
    "recovery_lookups_100ms_max", "longest_line", "freezes", "freeze_share", "false_timeouts", "healthy_timeouts",
    "healthy_timeout_share", "during_standin_share", "during_p99_ms", "store1_during_busy", "store2_during_busy"};
const size_t GUESS_NFIGURES = sizeof GUESS_FIGURES / sizeof GUESS_FIGURES[0];

int guess_is_figure(const char *s)
{
    for (size_t i = 0; i < GUESS_NFIGURES; i++)
        if (!strcmp(s, GUESS_FIGURES[i]))
            return 1;
    return 0;
}

/* What a clause is checked against, and where it stands (for messages). */
typedef struct {
    guesstab *t;
    const char *const *arms;
    size_t narms;
    const char *arms_from;
    const tsv_at *at;
    const char *id;
    int c; /* the clause's number, 1-based */
} ctx;

__attribute__((format(printf, 4, 5))) static int fail(const ctx *x, char *err, size_t errlen, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ut_seterr(err, errlen, "%s:%zu: guess %s, clause %d: %s", x->at->path, x->at->line, x->id, x->c, what);
    return -1;
}

/* A token copied into a field of GUESS_NAME bytes. */
static int copy(const ctx *x, char *dst, const char *tok, char *err, size_t errlen)
{
    if (strlen(tok) >= GUESS_NAME)
        return fail(x, err, errlen, "\"%.40s...\" is longer than %d bytes", tok, GUESS_NAME - 1);
    strcpy(dst, tok);
    return 0;
}

static int arm_name(const ctx *x, char *dst, const char *tok, char *err, size_t errlen)
{
    if (copy(x, dst, tok, err, errlen) != 0)
        return -1;
    if (!x->arms)
        return 0;
    for (size_t i = 0; i < x->narms; i++)
        if (!strcmp(x->arms[i], tok))
            return 0;
    return fail(x, err, errlen, "no arm \"%s\" in the registered arms (%s)", tok, x->arms_from);
}

static int figure_name(const ctx *x, char *dst, const char *tok, char *err, size_t errlen)
{
    if (!guess_is_figure(tok))
        return fail(x, err, errlen,
                    "no figure \"%s\" among the figures a guess may name (data/README.md, pipeline/RESULTS.md)", tok);
    return copy(x, dst, tok, err, errlen);
}

/* "ARM.figure" into arm, figure. */
static int term(const ctx *x, char *arm, char *fig, char *tok, char *err, size_t errlen)
{
    char *dot = strrchr(tok, '.');
    if (!dot || dot == tok || !dot[1])
        return fail(x, err, errlen, "\"%s\" is not ARM.figure", tok);
    *dot = 0;
    int rc = arm_name(x, arm, tok, err, errlen) != 0 || figure_name(x, fig, dot + 1, err, errlen) != 0 ? -1 : 0;
    *dot = '.';
    return rc;
}

#define CMP_FORM "every|any|median ARM.figure OP NUMBER [* ARM.figure]"
#define PAIR_FORM "apart|close ARM ARM figure"

/* One clause's text (its words split in place) into *out. */
static int clause(const ctx *x, char *text, guess_clause *out, char *err, size_t errlen)
{
    char *w[8], *save = NULL;
    int n = 0;
    for (char *t = strtok_r(text, " ", &save); t; t = strtok_r(NULL, " ", &save))
        if (n < 8)
            w[n++] = t;
        else
            n++;
    memset(out, 0, sizeof *out);
    if (n == 0)
        return fail(x, err, errlen, "empty: not \"" CMP_FORM "\" nor \"" PAIR_FORM "\"");
    if (!strcmp(w[0], "apart") || !strcmp(w[0], "close")) {
        if (n != 4)
            return fail(x, err, errlen, "\"%s\" with %d words: not \"" PAIR_FORM "\"", w[0], n);
        out->kind = !strcmp(w[0], "apart") ? GUESS_APART : GUESS_CLOSE;
        if (arm_name(x, out->arm, w[1], err, errlen) != 0 || arm_name(x, out->arm2, w[2], err, errlen) != 0 ||
            figure_name(x, out->figure, w[3], err, errlen) != 0)
            return -1;
        strcpy(out->figure2, out->figure);
        return 0;
    }
    if (strcmp(w[0], "every") && strcmp(w[0], "any") && strcmp(w[0], "median"))
        return fail(x, err, errlen, "\"%s\" is not every, any, median, apart or close", w[0]);
    if (n != 4 && n != 6)
        return fail(x, err, errlen, "\"%s\" with %d words: not \"" CMP_FORM "\"", w[0], n);
    out->kind = GUESS_CMP;
    strcpy(out->quant, w[0]);
    if (term(x, out->arm, out->figure, w[1], err, errlen) != 0)
        return -1;
    if (strcmp(w[2], "<") && strcmp(w[2], "<=") && strcmp(w[2], ">") && strcmp(w[2], ">="))
        return fail(x, err, errlen, "\"%s\" is not an operator (<, <=, > or >=)", w[2]);
    strcpy(out->op, w[2]);
    double num;
    char why[96];
    if (opt_f64(w[3], -HUGE_VAL, HUGE_VAL, &num, why, sizeof why) != 0)
        return fail(x, err, errlen, "\"%s\" is not a number: %s", w[3], why);
    if (copy(x, out->num, w[3], err, errlen) != 0)
        return -1;
    if (n == 6) {
        if (strcmp(w[4], "*"))
            return fail(x, err, errlen, "\"%s\" where \"*\" is wanted (NUMBER * ARM.figure)", w[4]);
        if (term(x, out->arm2, out->figure2, w[5], err, errlen) != 0)
            return -1;
    }
    return 0;
}

static int oom(const tsv_at *at, char *err, size_t errlen)
{
    ut_seterr(err, errlen, "%s: out of memory", at->path);
    return -1;
}

/* One guess: its fields, then its clauses (split on " and "). */
static int row(void *vx, char **f, int nf, const tsv_at *at, char *err, size_t errlen)
{
    (void)nf;
    ctx *x = vx;
    guesstab *t = x->t;
    if (!f[0][0] || strlen(f[0]) >= GUESS_NAME)
        return tsv_field_err(err, errlen, at, "id", f[0], "is %s", f[0][0] ? "longer than 63 bytes" : "empty");
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].id, f[0]))
            return tsv_field_err(err, errlen, at, "id", f[0], "is given twice (line %zu too)", t->v[i].line);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        guess_row *nv = realloc(t->v, cap * sizeof *nv);
        if (!nv)
            return oom(at, err, errlen);
        t->v = nv;
        t->cap = cap;
    }
    guess_row *g = &t->v[t->n];
    memset(g, 0, sizeof *g);
    t->n++;
    strcpy(g->id, f[0]);
    g->k = (int)at->record;
    g->line = at->line;
    g->text = strdup(f[1]);
    g->predicate = strdup(f[2]);
    char *work = strdup(f[2]);
    int cap = 1;
    for (const char *p = f[2]; (p = strstr(p, " and ")); p += 5)
        cap++;
    g->c = calloc((size_t)cap, sizeof *g->c);
    if (!g->text || !g->predicate || !work || !g->c) {
        free(work);
        return oom(at, err, errlen);
    }
    x->at = at;
    x->id = g->id;
    int rc = 0;
    char *p = work;
    for (int c = 0; rc == 0 && p; c++) {
        char *and = strstr(p, " and ");
        if (and)
            *and = 0;
        x->c = c + 1;
        rc = clause(x, p, &g->c[c], err, errlen);
        g->nc = c + 1;
        p = and ? and + 5 : NULL;
    }
    free(work);
    return rc;
}

int guesstab_load(const char *path, const char *const *arms, size_t narms, const char *arms_from, guesstab *t,
                  char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    ctx x = {t, arms, narms, arms_from ? arms_from : "the arms given", NULL, "", 0};
    tsv_spec s = {path, "id\tguess\tpredicate", 3, 0};
    if (tsv_read(&s, row, &x, err, errlen) == 0)
        return 0;
    guesstab_free(t);
    return -1;
}

int guesstab_load_registered(const char *path, const char *arms_path, guesstab *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    arm_table a;
    if (arms_load(arms_path, &a, err, errlen) != 0)
        return -1;
    const char **names = malloc((a.n ? a.n : 1) * sizeof *names);
    if (!names) {
        arms_free(&a);
        ut_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (size_t i = 0; i < a.n; i++)
        names[i] = a.v[i].name;
    int rc = guesstab_load(path, names, a.n, arms_path, t, err, errlen);
    free(names);
    arms_free(&a);
    return rc;
}

void guesstab_free(guesstab *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].text);
        free(t->v[i].predicate);
        free(t->v[i].c);
    }
    free(t->v);
    memset(t, 0, sizeof *t);
}
