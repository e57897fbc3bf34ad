/* map: the map of floods by load in the terminal (make map).  Every
 * policy of the 450/s arms at every load from 300 to 600 requests a second
 * (lab/play/playmap.h), over --seeds of --seconds: the table of hidden
 * capacities and trigger sizes, the chance of a flood per round by policy
 * and load, and what it cost (wall time, lookups a second).  --json FILE
 * writes the map (pipeline/RESULTS.md's prediction `map`, with "format":
 * "lab-map 1") atomically; the figure is the report's (make map draws it
 * from that file).  Exit codes: 0; 1 out of memory or a file not written;
 * 2 a bad option or arms file.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arms.h"
#include "opt.h"
#include "playmap.h"
#include "playopt.h"
#include "util.h"

/* "375 (350-400)", "below 300", "600+ (no flood)" */
static const char *cap_text(const pmap_capacity *c, const pmap *m, char *buf, size_t len)
{
    char lo[16], hi[16];
    snprintf(lo, sizeof lo, c->lo >= 0 ? "%d" : "<%d", c->lo >= 0 ? c->lo : m->loads[0]);
    snprintf(hi, sizeof hi, c->hi >= 0 ? "%d" : "<%d", c->hi >= 0 ? c->hi : m->loads[0]);
    if (c->load < 0)
        snprintf(buf, len, "below %d (%s-%s)", m->loads[0], lo, hi);
    else if (!c->tips)
        snprintf(buf, len, "%d+ (never 1%%)", c->load);
    else
        snprintf(buf, len, "%d (%s-%s)", c->load, lo, hi);
    return buf;
}

static void print_table(const pmap *m)
{
    printf("The map: the chance of a flood per %g s round over %zu seeds, by policy and load (requests a second);\n"
           "each share's Wilson 95%% interval is in the map's JSON (--json) and its figure\n\n",
           m->seconds, m->nseeds);
    printf("%-8s", "policy");
    for (size_t l = 0; l < m->nloads; l++)
        printf(" %6d", m->loads[l]);
    printf("\n");
    for (size_t p = 0; p < m->npol; p++) {
        printf("%-8s", m->policy[p]);
        for (size_t l = 0; l < m->nloads; l++) {
            pmap_cell c;
            pmap_cell_of(m, p, l, &c);
            if (c.k == 0)
                printf(" %6s", "0");
            else
                printf(" %5.1f%%", 100 * c.share);
        }
        printf("\n");
    }
    printf("\nHidden capacity: the highest load at which the chance of a flood per round stays below %g%% at it and\n"
           "every lower load (in brackets: the same on the Wilson 95%% bounds, upper then lower); trigger: the most\n"
           "freezes holding the store's slots at once at %d/s, median over flooded seeds (before the flood's first\n"
           "second ended) and over calm seeds (whole round)\n\n",
           100 * PMAP_CAPACITY_P, PMAP_TRIGGER_LOAD);
    printf("%-8s %-22s %8s %8s %14s %12s\n", "policy", "hidden capacity", "flooded", "calm", "trigger flooded",
           "trigger calm");
    for (size_t p = 0; p < m->npol; p++) {
        pmap_capacity c;
        pmap_trigger tf, tc;
        char buf[64];
        pmap_capacity_of(m, p, &c);
        pmap_trigger_of(m, p, 1, &tf);
        pmap_trigger_of(m, p, 0, &tc);
        char a[16] = "-", b[16] = "-";
        if (tf.n)
            snprintf(a, sizeof a, "%g", tf.median);
        if (tc.n)
            snprintf(b, sizeof b, "%g", tc.median);
        printf("%-8s %-22s %8zu %8zu %14s %12s\n", m->policy[p], cap_text(&c, m, buf, sizeof buf), tf.n, tc.n, a, b);
    }
    printf("\nwhere the time went (summed over the threads): ");
    for (size_t p = 0; p < m->npol; p++)
        printf("%s%s %.1f s (%.0f M lookups)", p ? ", " : "", m->policy[p], m->pol_s[p], (double)m->pol_lookups[p] / 1e6);
    printf("\nmap: %zu policies x %zu loads x %zu seeds of %g s on %d threads: %.1f s of wall time, %.1f million "
           "lookups simulated, %.2f million lookups a second\n",
           m->npol, m->nloads, m->nseeds, m->seconds, m->threads, m->wall_s, (double)m->lookups / 1e6,
           m->wall_s > 0 ? (double)m->lookups / m->wall_s / 1e6 : 0.0);
}

int main(int argc, char **argv)
{
    ut_set_prog("map");
    const char *arms = "lab/arms.tsv", *seeds = "1-1000", *json = NULL, *policies = NULL;
    double seconds = PMAP_SECONDS;
    int threads = 2, slots = 16, conns = 2;
    const opt_spec spec[] = {
        {"--arms", OPT_STR, &arms, 0, 0, "FILE", "the arms (lab/arms.tsv): each policy's template"},
        {"--seeds", OPT_STR, &seeds, 0, 0, "LIST", "seeds, as play's (1-1000)"},
        {"--seconds", OPT_DBL, &seconds, 0.001, 3600, "S", "each round's seconds (30)"},
        {"--threads", OPT_INT, &threads, 1, 64, "N", "threads (2: this machine's cores)"},
        {"--slots", OPT_INT, &slots, 1, 65536, "N", "the store's slots (16)"},
        {"--json", OPT_STR, &json, 0, 0, "FILE", "write the map here (lab-map 1)"},
        {"--policies", OPT_STR, &policies, 0, 0, "LIST", "some of the policies (" PMAP_POLICIES ")"},
        {0}};
    int rc = opt_parse(argc, argv, spec, "map: the chance of a flood per round, by policy and load", NULL);
    if (rc != OPT_OK)
        return rc == OPT_HELP ? 0 : 2;
    char err[512];
    arm_table t;
    if (arms_load(arms, &t, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 2;
    }
    pmap m = {.seconds = seconds, .threads = threads, .slots = slots, .conns = conns};
    uint32_t *sv = NULL;
    if (playopt_seeds(seeds, &sv, &m.nseeds) != 0 || !m.nseeds) {
        ut_err("--seeds \"%s\": not a list of seeds such as 1-1000", seeds);
        arms_free(&t);
        return 2;
    }
    m.seeds = sv;
    if (pmap_setup(&m, &t, policies, err, sizeof err) != 0) {
        ut_err("%s: %s", arms, err);
        free(sv);
        arms_free(&t);
        return 2;
    }
    rc = 0;
    if (pmap_run(&m) != 0) {
        ut_err("out of memory");
        rc = 1;
    } else {
        print_table(&m);
        if (json) {
            json_t *o = pmap_json(&m, seeds);
            json_object_set_new(o, "format", json_string("lab-map 1"));
            char *txt = o ? json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
            size_t n = txt ? strlen(txt) : 0;
            if (!txt || ut_write_file(json, txt, n, err, sizeof err) != 0) {
                ut_err("%s: %s", json, txt ? err : "out of memory");
                rc = 1;
            }
            free(txt);
            json_decref(o);
        }
    }
    pmap_free(&m);
    free(sv);
    arms_free(&t);
    return rc;
}
