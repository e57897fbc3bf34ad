/* costcalc: see costcalc.h; definitions in pipeline/APCOST.md, part 2. */
#include "costcalc.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "util.h"

/* The number written by the w digits at s (all checked to be digits). */
static int digits(const char *s, int w)
{
    int v = 0;
    for (int i = 0; i < w; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

int costcalc_parse_utc(const char *s, int64_t *out)
{
    if (!s || strlen(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
        s[19] != 'Z')
        return -1;
    for (int i = 0; i < 19; i++)
        if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && (s[i] < '0' || s[i] > '9'))
            return -1;
    int y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
    int h = digits(s + 11, 2), mi = digits(s + 14, 2), se = digits(s + 17, 2);
    if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59)
        return -1;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > mdays[mo - 1] || (mo == 2 && d == 29 && !leap))
        return -1;
    *out = (int64_t)ut_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return 0;
}

/* ================================================================ listing */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void free_names(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Sorted names in dir ending with suffix (and, if prefix, starting with it)
 * of regular files, or of folders when dirs is set.  A missing dir: none. */
static int names_in(const char *dir, const char *prefix, const char *suffix, int dirs, char ***out, size_t *n,
                    char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        ut_seterr(err, errlen, "%s: cannot list: %s", dir, strerror(errno));
        return -1;
    }
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name), ls = strlen(suffix), lp = prefix ? strlen(prefix) : 0;
        if (e->d_name[0] == '.' || l < ls + lp || strcmp(e->d_name + l - ls, suffix) != 0 ||
            (prefix && strncmp(e->d_name, prefix, lp) != 0))
            continue;
        char full[4200];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(full, &st) != 0 || (dirs ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
            continue;
        char **nv = *n == cap ? realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof *nv) : *out;
        char *name = nv ? strdup(e->d_name) : NULL;
        if (nv)
            *out = nv;
        if (!name) {
            closedir(d);
            free_names(*out, *n);
            *out = NULL;
            *n = 0;
            ut_seterr(err, errlen, "out of memory");
            return -1;
        }
        (*out)[(*n)++] = name;
    }
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof **out, cmp_str);
    return 0;
}

/* ================================================================ records */

static int num_field(json_t *o, const char *k, double *v)
{
    json_t *x = json_object_get(o, k);
    if (!json_is_number(x))
        return -1;
    *v = json_number_value(x);
    return 0;
}

/* What the records add up to.  fs and ls point at strings of records that
 * the entries of stages and runs keep alive (json_object_set). */
typedef struct {
    json_t *stages, *runs;
    int64_t first, last;
    const char *fs, *ls;     /* earliest start_utc, latest end_utc */
    double st_wall, st_cpu, st_wall_no_measure, run_wall, run_cpu;
} tally;

/* Keep the earliest start and latest end of the records seen. */
static void span_add(tally *t, json_t *o)
{
    const char *a = json_string_value(json_object_get(o, "start_utc"));
    const char *b = json_string_value(json_object_get(o, "end_utc"));
    int64_t ta, tb;
    if (a && costcalc_parse_utc(a, &ta) == 0 && ta < t->first) {
        t->first = ta;
        t->fs = a;
    }
    if (b && costcalc_parse_utc(b, &tb) == 0 && tb > t->last) {
        t->last = tb;
        t->ls = b;
    }
}

/* A field of rec copied into e, null when rec has none. */
static void copy_field(json_t *e, json_t *rec, const char *k)
{
    json_t *v = json_object_get(rec, k);
    json_object_set(e, k, v ? v : json_null());
}

/* One stage record: provenance/stage-NAME.json. */
static int add_stage(tally *t, const char *dir, const char *file, char *err, size_t errlen)
{
    char path[8800];
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    json_t *rec = json_load_file(path, 0, &je);
    double w, u, s;
    if (!rec || num_field(rec, "wall_s", &w) != 0 || num_field(rec, "cpu_user_s", &u) != 0 ||
        num_field(rec, "cpu_sys_s", &s) != 0) {
        ut_seterr(err, errlen, "%s: %s", path, rec ? "needs numbers wall_s, cpu_user_s and cpu_sys_s" : je.text);
        json_decref(rec);
        return -1;
    }
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(file) - 11), file + 6);
    json_t *e = json_object();
    json_object_set_new(e, "stage", json_string(name));
    copy_field(e, rec, "start_utc");
    copy_field(e, rec, "end_utc");
    copy_field(e, rec, "exit_code");
    json_object_set_new(e, "wall_s", json_real(w));
    json_object_set_new(e, "cpu_user_s", json_real(u));
    json_object_set_new(e, "cpu_sys_s", json_real(s));
    json_object_set_new(e, "cpu_s", json_real(u + s));
    json_array_append_new(t->stages, e);
    t->st_wall += w;
    t->st_cpu += u + s;
    if (strcmp(name, "measure") != 0)
        t->st_wall_no_measure += w;
    span_add(t, rec);
    json_decref(rec);
    return 0;
}

static int add_stages(tally *t, const char *root, char *err, size_t errlen)
{
    char dir[4200];
    char **st = NULL;
    size_t nst = 0;
    snprintf(dir, sizeof dir, "%s/" PATH_PROV_DIR, root);
    if (names_in(dir, "stage-", ".json", 0, &st, &nst, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < nst && rc == 0; i++)
        if (strcmp(st[i], "stage-cost.json") != 0)  /* cost's own record: not part of the measurement */
            rc = add_stage(t, dir, st[i], err, errlen);
    free_names(st, nst);
    return rc;
}

/* The cpu block of a run: {tester,service,store: {user_s, sys_s}}; total in *cpu. */
static json_t *cpu_block(json_t *cpu, double *total)
{
    static const char *const who[] = {"tester", "service", "store"};
    json_t *o = json_object();
    *total = 0;
    for (int i = 0; i < 3; i++) {
        json_t *p = json_object_get(cpu, who[i]);
        double u, s;
        if (!p || num_field(p, "user_s", &u) != 0 || num_field(p, "sys_s", &s) != 0) {
            json_decref(o);
            return NULL;
        }
        json_object_set_new(o, who[i], json_pack("{s:f,s:f}", "user_s", u, "sys_s", s));
        *total += u + s;
    }
    return o;
}

/* The wall time of a run: measure's wall_s (from_rec), else end_utc -
 * start_utc of run.json in whole seconds; NAN when there is none. */
static double run_wall(json_t *rec, int from_rec)
{
    double w = NAN;
    if (from_rec) {
        num_field(rec, "wall_s", &w);
        return w;
    }
    int64_t a, b;
    const char *sa = json_string_value(json_object_get(rec, "start_utc"));
    const char *sb = json_string_value(json_object_get(rec, "end_utc"));
    if (sa && sb && costcalc_parse_utc(sa, &a) == 0 && costcalc_parse_utc(sb, &b) == 0)
        w = (double)(b - a);
    return w;
}

/* One run from path: measure's record (from_rec) or run.json.  A folder
 * without run.json is not a run: skipped. */
static int add_run(tally *t, const char *path, const char *rname, int from_rec, char *err, size_t errlen)
{
    json_error_t je;
    json_t *rec = json_load_file(path, 0, &je);
    if (!rec) {
        if (!from_rec && access(path, F_OK) != 0)
            return 0;
        ut_seterr(err, errlen, "%s: %s", path, je.text);
        return -1;
    }
    json_t *e = json_object();
    json_object_set_new(e, "run", json_string(rname));
    json_object_set_new(e, "source", json_string(from_rec ? PATH_RUNS_DIR : PATH_RAW_DIR " run.json"));
    copy_field(e, rec, "start_utc");
    copy_field(e, rec, "end_utc");
    if (from_rec)
        copy_field(e, rec, "exit_code");
    else
        json_object_set_new(e, "exit_code", json_integer(0));
    double w = run_wall(rec, from_rec);
    if (!isfinite(w)) {
        ut_seterr(err, errlen, "%s: no wall time (wall_s, or start_utc and end_utc)", path);
        json_decref(e);
        json_decref(rec);
        return -1;
    }
    double c = 0;
    json_t *cb = cpu_block(json_object_get(rec, "cpu"), &c);
    json_object_set_new(e, "wall_s", json_real(w));
    json_object_set_new(e, "cpu_s", cb ? json_real(c) : json_null());
    json_object_set_new(e, "cpu", cb ? cb : json_null());
    json_array_append_new(t->runs, e);
    t->run_wall += w;
    t->run_cpu += cb ? c : 0;
    span_add(t, rec);
    json_decref(rec);
    return 0;
}

/* The union of provenance/runs/RUN.json and results/raw/RUN/run.json by
 * run name, in name order; measure's record wins when both exist. */
static int add_runs(tally *t, const char *root, char *err, size_t errlen)
{
    char dir[4200], rawdir[4200], path[8800];
    char **rn = NULL, **raw = NULL;
    size_t nrn = 0, nraw = 0;
    int rc = -1;
    snprintf(dir, sizeof dir, "%s/" PATH_RUNS_DIR, root);
    snprintf(rawdir, sizeof rawdir, "%s/" PATH_RAW_DIR, root);
    if (names_in(dir, NULL, ".json", 0, &rn, &nrn, err, errlen) != 0 ||
        names_in(rawdir, NULL, "", 1, &raw, &nraw, err, errlen) != 0)
        goto done;
    for (size_t i = 0; i < nrn; i++)
        rn[i][strlen(rn[i]) - 5] = 0;  /* the run's name: merged with raw/ in name order */
    if (nrn)
        qsort(rn, nrn, sizeof *rn, cmp_str);
    size_t ir = 0, iw = 0;
    while (ir < nrn || iw < nraw) {
        char rname[256];
        int from_rec = ir < nrn && !(iw < nraw && strcmp(raw[iw], rn[ir]) < 0);
        if (from_rec) {
            snprintf(rname, sizeof rname, "%s", rn[ir++]);
            if (iw < nraw && !strcmp(raw[iw], rname))
                iw++;  /* the record stands for its run.json */
            snprintf(path, sizeof path, "%s/%s.json", dir, rname);
        } else {
            snprintf(rname, sizeof rname, "%s", raw[iw++]);
            snprintf(path, sizeof path, "%s/%s/run.json", rawdir, rname);
        }
        if (add_run(t, path, rname, from_rec, err, errlen) != 0)
            goto done;
    }
    rc = 0;
done:
    free_names(rn, nrn);
    free_names(raw, nraw);
    return rc;
}

/* ================================================================ totals and rental */

static json_t *totals_json(const tally *t)
{
    double wall = t->st_wall_no_measure + t->run_wall, cpu = t->st_cpu + t->run_cpu;
    json_t *tot = json_object();
    json_object_set_new(tot, "stages", json_integer((json_int_t)json_array_size(t->stages)));
    json_object_set_new(tot, "runs", json_integer((json_int_t)json_array_size(t->runs)));
    json_object_set_new(tot, "stages_wall_s", json_real(t->st_wall));
    json_object_set_new(tot, "stages_cpu_s", json_real(t->st_cpu));
    json_object_set_new(tot, "runs_wall_s", json_real(t->run_wall));
    json_object_set_new(tot, "runs_cpu_s", json_real(t->run_cpu));
    json_object_set_new(tot, "wall_s", json_real(wall));
    json_object_set_new(tot, "cpu_s", json_real(cpu));
    json_object_set_new(tot, "machine_hours", json_real(wall / 3600.0));
    json_object_set_new(tot, "first_start_utc", t->fs ? json_string(t->fs) : json_null());
    json_object_set_new(tot, "last_end_utc", t->ls ? json_string(t->ls) : json_null());
    json_object_set_new(tot, "span_s", t->fs && t->ls ? json_integer((json_int_t)(t->last - t->first)) : json_null());
    return tot;
}

/* The rented machine's settings: all three or none; *given = 1 with all. */
typedef struct {
    int given;
    const char *start, *end;
    int64_t ts, te;
    double price;
} rental;

static int check_rental(rental *r, char *err, size_t errlen)
{
    int n = (r->start != NULL) + (r->end != NULL) + (r->price >= 0);
    r->given = n == 3;
    if (n != 0 && n != 3) {
        ut_seterr(err, errlen, "the rental settings go together: --start, --end and --price-per-hour");
        return -1;
    }
    if (!r->given)
        return 0;
    if (costcalc_parse_utc(r->start, &r->ts) != 0 || costcalc_parse_utc(r->end, &r->te) != 0) {
        ut_seterr(err, errlen, "--start and --end must be UTC times like 2026-11-30T05:29:36Z (got \"%s\", "
                  "\"%s\")", r->start, r->end);
        return -1;
    }
    if (r->te < r->ts) {
        ut_seterr(err, errlen, "--end %s is before --start %s", r->end, r->start);
        return -1;
    }
    if (!isfinite(r->price)) {
        ut_seterr(err, errlen, "--price-per-hour must be a number >= 0");
        return -1;
    }
    return 0;
}

static json_t *rental_json(const rental *r, const tally *t)
{
    json_t *rent = json_object();
    if (r->given) {
        double hours = (double)(r->te - r->ts) / 3600.0;
        json_object_set_new(rent, "start_utc", json_string(r->start));
        json_object_set_new(rent, "end_utc", json_string(r->end));
        json_object_set_new(rent, "hours", json_real(hours));
        json_object_set_new(rent, "price_per_hour_usd", json_real(r->price));
        json_object_set_new(rent, "price_usd", json_real(hours * r->price));
        json_object_set_new(rent, "covers_records",
                            t->fs && t->ls ? json_boolean(t->first >= r->ts && t->last <= r->te) : json_null());
        json_object_set_new(rent, "note", json_null());
        return rent;
    }
    static const char *const keys[] = {"start_utc", "end_utc", "hours", "price_per_hour_usd", "price_usd",
                                       "covers_records"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        json_object_set_new(rent, keys[i], json_null());
    json_object_set_new(rent, "note", json_string("no rented machine given (--start, --end, --price-per-hour): "
                                                  "no price"));
    return rent;
}

int costcalc_json(const char *root, const char *start, const char *end, double price_per_hour, json_t **out,
                  char *err, size_t errlen)
{
    *out = NULL;
    rental r = {0, start, end, 0, 0, price_per_hour};
    tally t = {json_array(), json_array(), INT64_MAX, INT64_MIN, NULL, NULL, 0, 0, 0, 0, 0};
    int rc = -1;
    if (check_rental(&r, err, errlen) != 0 || add_stages(&t, root, err, errlen) != 0 ||
        add_runs(&t, root, err, errlen) != 0)
        goto done;
    json_t *top = json_object();
    json_object_set_new(top, "format", json_string("lab-cost 1"));
    json_object_set_new(top, "definitions", json_string("pipeline/APCOST.md"));
    json_object_set(top, "stages", t.stages);
    json_object_set(top, "runs", t.runs);
    json_object_set_new(top, "totals", totals_json(&t));
    json_object_set_new(top, "rental", rental_json(&r, &t));
    *out = top;
    rc = 0;
done:
    json_decref(t.stages);
    json_decref(t.runs);
    return rc;
}
