/* cost: the measurement's machine time and, for a rented machine, its price
 * (`make cost`).  Definitions: pipeline/APCOST.md.
 *
 *   cost --root OUT [--start UTC --end UTC --price-per-hour USD] [--prov DIR]
 *
 * Reads OUT/provenance/stage-NAME.json (every stage but cost itself),
 * OUT/provenance/runs/RUN.json (measure's per-run records) and, for runs
 * without such a record, OUT/results/raw/RUN/run.json; writes
 * OUT/results/cost.json atomically and DIR/stage-cost.json (default
 * OUT/provenance).  UTC times look like 2026-11-30T05:29:36Z.  Without the
 * three rental settings the price is null, with a note.
 *
 * Exit 0 done; 1 failed (the message names the file); 2 usage.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costcalc.h"
#include "opt.h"
#include "paths.h"
#include "prov.h"
#include "util.h"

static const char ABOUT[] =
    "cost: the measurement's machine time and, for a rented machine, its price (pipeline/APCOST.md)\n"
    "usage: cost --root OUT [--start UTC --end UTC --price-per-hour USD] [--prov DIR]";

int main(int argc, char **argv)
{
    ut_set_prog("cost");
    const char *root = NULL, *start = NULL, *end = NULL, *provdir = NULL, *price_s = NULL;
    /* An empty --start, --end or --price-per-hour means "not given", as
     * make passes them. */
    const opt_spec spec[] = {
        {"--root", OPT_STR, &root, 0, 0, "OUT", "reads OUT/" PATH_PROV_DIR " and OUT/" PATH_RAW_DIR "; writes OUT/" PATH_RESULTS_DIR},
        {"--start", OPT_STR, &start, 0, 0, "UTC", "the rented machine's start, e.g. 2026-11-30T05:29:36Z"},
        {"--end", OPT_STR, &end, 0, 0, "UTC", "its end"},
        {"--price-per-hour", OPT_STR, &price_s, 0, 0, "USD", "its price per hour (a number >= 0)"},
        {"--prov", OPT_STR, &provdir, 0, 0, "DIR", "provenance record's folder (default OUT/" PATH_PROV_DIR ")"},
        {0}};
    int prc = opt_parse(argc, argv, spec, ABOUT, NULL);
    if (prc != OPT_OK)
        return prc == OPT_HELP ? 0 : 2;
    if (!root) {
        ut_err("--root is required (try --help)");
        return 2;
    }
    start = start && start[0] ? start : NULL;
    end = end && end[0] ? end : NULL;
    double price = -1;
    char why[96];
    if (price_s && price_s[0] && opt_f64(price_s, 0, HUGE_VAL, &price, why, sizeof why) != 0) {
        ut_err("option --price-per-hour: \"%s\": %s", price_s, why);
        return 2;
    }
    char provbuf[4200], path[4200], dir[4200], err[UT_ERRLEN] = "";
    if (!provdir) {
        snprintf(provbuf, sizeof provbuf, "%s/" PATH_PROV_DIR, root);
        provdir = provbuf;
    }
    prov *pv = prov_begin("cost", argc, argv);
    json_t *c = NULL;
    int rc = costcalc_json(root, start, end, price, &c, err, sizeof err);
    if (rc == 0) {
        char *text = json_dumps(c, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
        size_t n = text ? strlen(text) : 0;
        char *t2 = text ? realloc(text, n + 2) : NULL;
        if (!t2) {
            free(text);
            snprintf(err, sizeof err, "out of memory");
            rc = -1;
        } else {
            t2[n] = '\n';
            t2[n + 1] = 0;
            snprintf(dir, sizeof dir, "%s/" PATH_RESULTS_DIR, root);
            snprintf(path, sizeof path, "%s/" PATH_COST_JSON, root);
            rc = ut_mkdir_p(dir, err, sizeof err) == 0 && ut_write_file(path, t2, n + 1, err, sizeof err) == 0 &&
                         prov_output(pv, path, err, sizeof err) == 0
                     ? 0
                     : -1;
            free(t2);
        }
    }
    if (rc == 0) {
        json_t *t = json_object_get(c, "totals"), *r = json_object_get(c, "rental");
        printf("cost: %lld stages, %lld runs: wall %.1f s (%.4f machine hours), CPU %.1f s\n",
               (long long)json_integer_value(json_object_get(t, "stages")),
               (long long)json_integer_value(json_object_get(t, "runs")),
               json_number_value(json_object_get(t, "wall_s")), json_number_value(json_object_get(t, "machine_hours")),
               json_number_value(json_object_get(t, "cpu_s")));
        if (json_is_number(json_object_get(r, "price_usd")))
            printf("cost: rented %.4f h at %.4f USD/h: %.4f USD\n", json_number_value(json_object_get(r, "hours")),
                   json_number_value(json_object_get(r, "price_per_hour_usd")),
                   json_number_value(json_object_get(r, "price_usd")));
        else
            printf("cost: %s\n", json_string_value(json_object_get(r, "note")));
        printf("cost: wrote %s\n", path);
    } else {
        ut_err("%s", err[0] ? err : "failed");
    }
    json_decref(c);
    char perr[UT_ERRLEN];
    if (prov_end(pv, rc == 0 ? 0 : 1, provdir, perr, sizeof perr) != 0) {
        ut_err("%s", perr);
        rc = -1;
    }
    return rc == 0 ? 0 : 1;
}
