/* fuzz_predicate: the guesses' grammar (predicate.c, data/README.md).  An
 * input is one predicate text (up to its first NUL); what parses is then
 * judged on made-up rounds: each arm's rounds and figures are drawn from a
 * hash of its name (some rounds without a value), so every quantifier and
 * the verdict rule run.  A clause's judgement is 0 or 1, and "apart" and
 * "close" of the same arms are never both true. */
#include "fuzzhelp.h"
#include "predicate.h"
#include "runfig.h"

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static size_t rounds(void *ctx, const char *arm, int *out, size_t max)
{
    (void)ctx;
    unsigned h = hash(arm);
    size_t n = h % 6;
    for (size_t i = 0; i < n && i < max; i++)
        out[i] = (int)(i + 1 + (h >> 8) % 2 * i);
    return n < max ? n : max;
}

static int value(void *ctx, const char *arm, int round, int fig, double *v)
{
    (void)ctx;
    unsigned h = hash(arm) * 31u + (unsigned)round * 7u + (unsigned)fig;
    if (h % 7 == 0)
        return 0;
    *v = (double)(h % 1000) / 10.0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    pr_pred p;
    char err[512] = "";
    pr_data d = {NULL, rounds, value};
    if (pr_parse(text, &p, err, sizeof err) == 0) {
        if (p.n == 0)
            abort();
        for (size_t i = 0; i < p.n; i++) {
            const pr_clause *c = &p.c[i];
            if (c->fig < 0 || c->fig >= F_NFIG)
                abort();
            int r = pr_eval_clause(c, &d);
            if (r != 0 && r != 1)
                abort();
            if (c->q == PQ_APART || c->q == PQ_CLOSE) {
                pr_clause o = *c;
                o.q = c->q == PQ_APART ? PQ_CLOSE : PQ_APART;
                if (r && pr_eval_clause(&o, &d))
                    abort();
            }
            pr_verdict v;
            pr_verdict_compute(&d, c->arm, c->has_term || c->q >= PQ_APART ? c->arm2 : c->arm, c->fig, &v);
            if (v.n > PR_MAXR)
                abort();
        }
        pr_free(&p);
    } else if (!err[0]) {
        abort();   /* a refusal says why */
    }
    free(text);
    return 0;
}
