/* costcalc: the measurement's machine time and, for a rented machine, its
 * price (`make cost`, pipeline/APCOST.md part 2): the cost.json object of a
 * root folder, from the provenance records alone.  No XGBoost, no prepared
 * file: the program pipeline/cost/cost.c links only this, lab/util, lab/prov and
 * lab/opt.
 *
 *   costcalc_parse_utc  "YYYY-MM-DDTHH:MM:SSZ" -> seconds since 1970-01-01
 *                       00:00 UTC (a real calendar day, nothing around it)
 *   costcalc_json       the cost.json object of a root folder: stages from
 *                       OUT/provenance/stage-*.json (but stage-cost.json),
 *                       runs from OUT/provenance/runs/RUN.json or else
 *                       OUT/results/raw/RUN/run.json, totals, and the rental
 *
 * Ownership: *out gets a new JSON object the caller releases with
 * json_decref.  Returns 0 or -1 with a message in err (naming the record's
 * file, or the setting); on failure *out is NULL.
 */
#ifndef PIPELINE_COSTCALC_H
#define PIPELINE_COSTCALC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

int costcalc_parse_utc(const char *s, int64_t *out);

/* start and end (UTC strings) and price_per_hour (< 0: not given) are the
 * rented machine's settings: all three or none. */
int costcalc_json(const char *root, const char *start, const char *end, double price_per_hour, json_t **out,
                  char *err, size_t errlen);

#endif
