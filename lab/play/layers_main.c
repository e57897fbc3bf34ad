/* layers: layered retries in the terminal (make layers; issue 29, part 4).
 * N layers (a caller and N-1 services) in front of a store that is down,
 * each trying up to T times with the lab's own policy code
 * (lab/play/layers.h): for N = 1 to --layers, without a budget, with the
 * lab's retry budget (r2bud: 10% of the requests plus 10 a second) at every
 * layer, and at the bottom layer only, the calls reaching the store per
 * request (over the run and its steady part) beside the value the rule
 * gives, and the calls each layer receives per request.  --json FILE
 * writes the same ("format": "lab-layers 1") atomically.  Exit codes: 0;
 * 1 out of memory or a file not written; 2 a bad option or setting.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"
#include "opt.h"
#include "util.h"

#define MAX_ROWS (3 * LAY_MAX_LAYERS)

typedef struct {
    lay_config c;
    lay_result r;
} row;

static double per(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

static void print_table(const row *v, size_t n, const lay_config *base, int budgets)
{
    printf("Layered retries: N layers in front of a store that is down, each trying up to %d times (try_ms %d, no "
           "pause);\n%g requests a second for %g s, %s; calls take no time.  Budget: the lab's r2bud, a retry "
           "allowed while\nthe retries of the last second stay within %d%% of its requests plus %d.  steady: the "
           "requests from %g s on.\n\n",
           base->tries, LAY_TRY_MS, base->rate, base->seconds,
           base->poisson ? "Poisson arrivals (lab/core/arrivals.h, --seed)" : "evenly spaced", LAY_RB_PCT,
           LAY_RB_FLOOR, (double)v[0].r.steady_from_ns / 1e9);
    printf("%-6s %-12s %9s %9s %9s   %s\n", "layers", "budget", "the rule", "run", "steady",
           "calls received per request (steady): layer 1, 2 ... store");
    for (size_t i = 0; i < n; i++) {
        const lay_config *c = &v[i].c;
        const lay_result *r = &v[i].r;
        char b[64], rec[256];
        size_t o = 0;
        for (int k = 0; k <= c->layers && o < sizeof rec; k++)
            o += (size_t)snprintf(rec + o, sizeof rec - o, "%s%.4g", k ? " / " : "",
                                  per(r->steady_calls[k], r->steady_requests));
        printf("%-6d %-12s %9.4g %9.4g %9.4g   %s\n", c->layers, lay_budget_name(c, b, sizeof b), lay_expected(c),
               per(r->calls[c->layers], r->requests), per(r->steady_calls[c->layers], r->steady_requests), rec);
    }
    printf("\nthe rule: calls reaching the store per request; without a budget T^N exactly; a layer with a budget "
           "receiving Q a second\nsends on Q + min((T-1) Q, Q/10 + 10), the budget full while every call fails "
           "(the rule's rounding down left out).\nrun: over the whole run; steady: over the steady part.\n");
    if (!budgets)
        printf("(no budget rows: a retry budget needs retries, tries 2 or more)\n");
}

static json_t *row_json(const row *w)
{
    const lay_config *c = &w->c;
    const lay_result *r = &w->r;
    char b[64];
    json_t *o = json_object(), *bl = json_array(), *rec = json_array(), *srec = json_array(), *ref = json_array(),
           *sref = json_array();
    for (int k = 0; k <= c->layers; k++) {
        json_array_append_new(rec, json_real(per(r->calls[k], r->requests)));
        json_array_append_new(srec, json_real(per(r->steady_calls[k], r->steady_requests)));
    }
    for (int k = 0; k < c->layers; k++) {
        if ((c->budget >> k) & 1)
            json_array_append_new(bl, json_integer(k + 1));
        json_array_append_new(ref, json_integer((json_int_t)r->refused[k]));
        json_array_append_new(sref, json_integer((json_int_t)r->steady_refused[k]));
    }
    json_object_set_new(o, "layers", json_integer(c->layers));
    json_object_set_new(o, "tries", json_integer(c->tries));
    json_object_set_new(o, "budget", json_string(lay_budget_name(c, b, sizeof b)));
    json_object_set_new(o, "budget_layers", bl);
    json_object_set_new(o, "rule_store_calls_per_request", json_real(lay_expected(c)));
    json_object_set_new(o, "requests", json_integer((json_int_t)r->requests));
    json_object_set_new(o, "steady_requests", json_integer((json_int_t)r->steady_requests));
    json_object_set_new(o, "store_calls", json_integer((json_int_t)r->calls[c->layers]));
    json_object_set_new(o, "steady_store_calls", json_integer((json_int_t)r->steady_calls[c->layers]));
    json_object_set_new(o, "store_calls_per_request", json_real(per(r->calls[c->layers], r->requests)));
    json_object_set_new(o, "steady_store_calls_per_request",
                        json_real(per(r->steady_calls[c->layers], r->steady_requests)));
    json_object_set_new(o, "received_per_request", rec);
    json_object_set_new(o, "steady_received_per_request", srec);
    json_object_set_new(o, "budget_refusals", ref);
    json_object_set_new(o, "steady_budget_refusals", sref);
    return o;
}

int main(int argc, char **argv)
{
    ut_set_prog("layers");
    lay_config base = {.layers = 3, .tries = 3, .rate = 300, .seconds = 30, .seed = 1};
    const char *json = NULL;
    int64_t seed = 1;
    const opt_spec spec[] = {
        {"--layers", OPT_INT, &base.layers, 1, LAY_MAX_LAYERS, "N", "layers in front of the store, the table's rows 1 to N (3)"},
        {"--tries", OPT_INT, &base.tries, 1, ARMS_MAX_LOOKUPS, "T", "tries at each layer (3)"},
        {"--rate", OPT_DBL, &base.rate, 0.001, 1000000, "R", "requests a second (300)"},
        {"--seconds", OPT_DBL, &base.seconds, 0.001, 3600, "S", "the run's seconds (30)"},
        {"--seed", OPT_I64, &seed, 0, 4294967295.0, "N", "the Poisson schedule's seed (1; with --poisson)"},
        {"--poisson", OPT_FLAG, &base.poisson, 0, 0, NULL, "Poisson arrivals (default: evenly spaced)"},
        {"--json", OPT_STR, &json, 0, 0, "FILE", "write the table here too (lab-layers 1)"},
        {0}};
    int rc = opt_parse(argc, argv, spec, "layers: layered retries in front of a store that is down", NULL);
    if (rc != OPT_OK)
        return rc == OPT_HELP ? 0 : 2;
    base.seed = (uint64_t)seed;
    int budgets = base.tries > 1;
    row v[MAX_ROWS];
    size_t n = 0;
    for (int l = 1; l <= base.layers; l++) {
        unsigned all = (1u << l) - 1, bottom = 1u << (l - 1);
        unsigned placements[3] = {0, all, bottom};
        int np = !budgets ? 1 : l == 1 ? 2 : 3;
        for (int p = 0; p < np; p++) {
            v[n].c = base;
            v[n].c.layers = l;
            v[n].c.budget = placements[p];
            char err[512], b[64];
            if (lay_run(&v[n].c, &v[n].r, err, sizeof err) != 0) {
                ut_err("%d layers, budget %s: %s", l, lay_budget_name(&v[n].c, b, sizeof b), err);
                return strstr(err, "out of memory") ? 1 : 2;
            }
            n++;
        }
    }
    print_table(v, n, &base, budgets);
    if (json) {
        json_t *o = json_object(), *rows = json_array();
        json_object_set_new(o, "format", json_string("lab-layers 1"));
        json_object_set_new(o, "tries", json_integer(base.tries));
        json_object_set_new(o, "try_ms", json_integer(LAY_TRY_MS));
        json_object_set_new(o, "rate", json_real(base.rate));
        json_object_set_new(o, "seconds", json_real(base.seconds));
        json_object_set_new(o, "arrivals", json_string(base.poisson ? "poisson" : "even"));
        json_object_set_new(o, "seed", json_integer((json_int_t)base.seed));
        json_object_set_new(o, "rb_pct", json_integer(LAY_RB_PCT));
        json_object_set_new(o, "rb_floor", json_integer(LAY_RB_FLOOR));
        json_object_set_new(o, "steady_from_s", json_real((double)v[0].r.steady_from_ns / 1e9));
        for (size_t i = 0; i < n; i++)
            json_array_append_new(rows, row_json(&v[i]));
        json_object_set_new(o, "rows", rows);
        char *txt = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        char err[512];
        if (!txt || ut_write_file(json, txt, strlen(txt), err, sizeof err) != 0) {
            ut_err("%s: %s", json, txt ? err : "out of memory");
            rc = 1;
        }
        free(txt);
        json_decref(o);
    }
    return rc;
}
