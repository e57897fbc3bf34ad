/* collectmap: the map's check and load.  The contract is collectmap.h's. */
#include "collectmap.h"

#include <stdio.h>
#include <string.h>

#include "pgx.h"
#include "util.h"

/* ------------------------------------------------------------ the check */

static int fail(char *err, size_t errlen, const char *path, const char *where, const char *why)
{
    ut_seterr(err, errlen, "%s: %s: %s", path, where, why);
    return -1;
}

static int is_int_in(json_t *v, json_int_t lo, json_int_t hi)
{
    return json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi;
}

static int num_or_null(json_t *v) { return json_is_null(v) || json_is_number(v); }

static int str_ok(json_t *v) { return json_is_string(v) && json_string_length(v) > 0; }

/* Some run of the prediction is "<arm>-r<round>". */
static int arm_has_runs(json_t *root, const char *arm)
{
    const char *run;
    json_t *o;
    size_t n = strlen(arm);
    json_object_foreach(json_object_get(root, "runs"), run, o)
    {
        (void)o;
        if (!strncmp(run, arm, n) && run[n] == '-' && run[n + 1] == 'r')
            return 1;
    }
    return 0;
}

static int check_policy(const char *path, json_t *root, json_t *loads, size_t p, json_t *po, char *err,
                        size_t errlen)
{
    char w[160];
    if (!json_is_object(po))
        return snprintf(w, sizeof w, "map.policies[%zu]", p), fail(err, errlen, path, w, "not an object");
    const char *str[] = {"policy", "template"};
    for (int i = 0; i < 2; i++)
        if (!str_ok(json_object_get(po, str[i])))
            return snprintf(w, sizeof w, "map.policies[%zu].%s", p, str[i]),
                   fail(err, errlen, path, w, "not a non-empty string");
    json_t *cells = json_object_get(po, "cells");
    if (!json_is_array(cells) || json_array_size(cells) != json_array_size(loads))
        return snprintf(w, sizeof w, "map.policies[%zu].cells", p),
               fail(err, errlen, path, w, "not a list of one cell per load");
    size_t l;
    json_t *c;
    json_array_foreach(cells, l, c)
    {
        json_t *n = json_object_get(c, "n");
        snprintf(w, sizeof w, "map.policies[%zu].cells[%zu]", p, l);
        if (!json_is_object(c))
            return fail(err, errlen, path, w, "not an object");
        if (!json_equal(json_object_get(c, "load"), json_array_get(loads, l)))
            return fail(err, errlen, path, w, "its load is not the map's load at its place");
        if (!is_int_in(n, 1, INT32_MAX))
            return snprintf(w + strlen(w), sizeof w - strlen(w), ".n"), fail(err, errlen, path, w, "not an integer >= 1");
        if (!is_int_in(json_object_get(c, "k"), 0, json_integer_value(n)))
            return snprintf(w + strlen(w), sizeof w - strlen(w), ".k"),
                   fail(err, errlen, path, w, "not an integer in 0 .. n");
        const char *f[] = {"onset_median_s", "standin_share_median"};
        for (int i = 0; i < 2; i++)
            if (!num_or_null(json_object_get(c, f[i])))
                return snprintf(w + strlen(w), sizeof w - strlen(w), ".%s", f[i]),
                       fail(err, errlen, path, w, "not a number or null");
    }
    const char *side[] = {"flooded", "calm"};
    for (int i = 0; i < 2; i++) {
        json_t *counts = json_object_get(json_object_get(json_object_get(po, "trigger"), side[i]), "counts"), *v;
        snprintf(w, sizeof w, "map.policies[%zu].trigger.%s.counts", p, side[i]);
        if (!json_is_array(counts))
            return fail(err, errlen, path, w, "not a list");
        size_t j;
        json_array_foreach(counts, j, v) if (!is_int_in(v, 0, INT32_MAX)) return fail(err, errlen, path, w,
                                                                                      "not a list of integers >= 0");
    }
    json_t *arms = json_object_get(po, "arms"), *a;
    snprintf(w, sizeof w, "map.policies[%zu].arms", p);
    if (!json_is_array(arms))
        return fail(err, errlen, path, w, "not a list");
    size_t j;
    json_array_foreach(arms, j, a)
    {
        snprintf(w, sizeof w, "map.policies[%zu].arms[%zu]", p, j);
        json_t *name = json_object_get(a, "arm"), *ld = json_object_get(a, "load"), *x;
        if (!str_ok(name) || !arm_has_runs(root, json_string_value(name)))
            return fail(err, errlen, path, w, "its arm is not an arm of the prediction's runs");
        int on = 0;
        size_t q;
        json_array_foreach(loads, q, x) on |= json_equal(x, ld);
        if (!on)
            return fail(err, errlen, path, w, "its load is not one of the map's loads");
    }
    return 0;
}

int collectmap_check(const char *path, json_t *root, char *err, size_t errlen)
{
    json_t *m = json_object_get(root, "map");
    if (!m || json_is_null(m))
        return 0;
    if (!json_is_object(m))
        return fail(err, errlen, path, "map", "not an object or null");
    json_t *sec = json_object_get(m, "seconds"), *cp = json_object_get(m, "capacity_p"),
           *loads = json_object_get(m, "loads"), *pols = json_object_get(m, "policies"), *v;
    if (!json_is_number(sec) || json_number_value(sec) <= 0)
        return fail(err, errlen, path, "map.seconds", "not a number above 0");
    if (!str_ok(json_object_get(m, "seeds")))
        return fail(err, errlen, path, "map.seeds", "not a non-empty string");
    if (!json_is_number(cp) || json_number_value(cp) <= 0 || json_number_value(cp) >= 1)
        return fail(err, errlen, path, "map.capacity_p", "not a number in (0, 1)");
    if (!json_is_integer(json_object_get(m, "trigger_load")))
        return fail(err, errlen, path, "map.trigger_load", "not an integer");
    if (!json_is_array(loads) || !json_array_size(loads))
        return fail(err, errlen, path, "map.loads", "not a non-empty list");
    size_t i;
    json_int_t last = 0;
    json_array_foreach(loads, i, v)
    {
        if (!is_int_in(v, last + 1, INT32_MAX))
            return fail(err, errlen, path, "map.loads", "not integers above 0, ascending");
        last = json_integer_value(v);
    }
    if (!json_is_array(pols))
        return fail(err, errlen, path, "map.policies", "not a list");
    json_array_foreach(pols, i, v) if (check_policy(path, root, loads, i, v, err, errlen) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------ the load */

static const char *txt(json_t *v, char *buf, size_t n)
{
    if (!v || json_is_null(v))
        return NULL;
    if (json_is_integer(v))
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, n, "%.17g", json_real_value(v));
    else
        snprintf(buf, n, "%s", json_string_value(v) ? json_string_value(v) : "");
    return buf;
}

#define INS(sql, n, ...)                                                                                       \
    do {                                                                                                       \
        const char *v_[] = {__VA_ARGS__};                                                                      \
        if (pgx_exec_params(db, sql, n, v_, err, errlen) != 0)                                                 \
            return -1;                                                                                         \
    } while (0)

int collectmap_load(PGconn *db, json_t *root, char *err, size_t errlen)
{
    json_t *m = json_object_get(root, "map");
    if (!json_is_object(m))
        return 0;
    char a[64], b[64], c[64], d[64], e[64], f[64], g[64];
    INS("INSERT INTO map_top VALUES ($1, $2, $3, $4)", 4, txt(json_object_get(m, "seconds"), a, sizeof a),
        json_string_value(json_object_get(m, "seeds")), txt(json_object_get(m, "capacity_p"), b, sizeof b),
        txt(json_object_get(m, "trigger_load"), c, sizeof c));
    size_t i, p, j;
    json_t *v, *po;
    json_array_foreach(json_object_get(m, "loads"), i, v)
    {
        snprintf(a, sizeof a, "%zu", i);
        INS("INSERT INTO map_loads VALUES ($1, $2)", 2, a, txt(v, b, sizeof b));
    }
    json_array_foreach(json_object_get(m, "policies"), p, po)
    {
        char ps[24];
        snprintf(ps, sizeof ps, "%zu", p);
        INS("INSERT INTO map_policies VALUES ($1, $2, $3)", 3, ps, json_string_value(json_object_get(po, "policy")),
            json_string_value(json_object_get(po, "template")));
        json_array_foreach(json_object_get(po, "cells"), i, v)
        {
            snprintf(a, sizeof a, "%zu", i);
            INS("INSERT INTO map_cells VALUES ($1, $2, $3, $4, $5, $6, $7)", 7, ps, a,
                txt(json_object_get(v, "load"), b, sizeof b), txt(json_object_get(v, "k"), c, sizeof c),
                txt(json_object_get(v, "n"), d, sizeof d), txt(json_object_get(v, "onset_median_s"), e, sizeof e),
                txt(json_object_get(v, "standin_share_median"), f, sizeof f));
        }
        const char *side[] = {"flooded", "calm"};
        for (int s = 0; s < 2; s++)
            json_array_foreach(json_object_get(json_object_get(json_object_get(po, "trigger"), side[s]), "counts"), j,
                               v)
            {
                if (json_integer_value(v) == 0)
                    continue;
                snprintf(a, sizeof a, "%zu", j);
                INS("INSERT INTO map_trigger VALUES ($1, $2, $3, $4)", 4, ps, s == 0 ? "true" : "false", a,
                    txt(v, g, sizeof g));
            }
        json_array_foreach(json_object_get(po, "arms"), j, v)
        {
            snprintf(a, sizeof a, "%zu", j);
            INS("INSERT INTO map_arms VALUES ($1, $2, $3, $4)", 4, ps, a,
                json_string_value(json_object_get(v, "arm")), txt(json_object_get(v, "load"), b, sizeof b));
        }
    }
    return 0;
}
