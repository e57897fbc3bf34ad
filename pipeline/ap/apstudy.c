/* apstudy: see apstudy.h for the contract. */
#include "apstudy.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "util.h"

void apstudy_round_free(apstudy_round *r)
{
    if (!r)
        return;
    free(r->mask);
    memset(r, 0, sizeof *r);
}

int apstudy_round_select(const testerraw_run *raw, int round, size_t m, size_t ntest, apstudy_round *out,
                         char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (m > raw->n) {
        ut_seterr(err, errlen, "round %d: %zu requests asked, the run has %zu", round, m, raw->n);
        return -1;
    }
    out->mask = calloc(ntest ? ntest : 1, 1);
    if (!out->mask) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    out->round = round;
    out->requests_in_run = raw->n;
    out->requests = m;
    for (size_t j = 0; j < m; j++) {
        switch (raw->kind[j]) {
        case 'L':
            out->live++;
            break;
        case 'E':
            out->error++;
            break;
        case 'K':
        case 'D':
            if (raw->kind[j] == 'K')
                out->last_known++;
            else
                out->dflt++;
            if (!out->mask[raw->row[j]]) {
                out->mask[raw->row[j]] = 1;
                out->rows++;
            }
            break;
        }
    }
    return 0;
}

void apstudy_arm_free(apstudy_arm *a)
{
    if (!a)
        return;
    for (size_t q = 0; q < a->nrounds; q++)
        apstudy_round_free(&a->rounds[q]);
    free(a->rounds);
    memset(a, 0, sizeof *a);
}

/* The round k of a folder named exactly <arm>-r<k> (k >= 1 in decimal, no
 * leading zero), or -1. */
static int round_of(const char *name, const char *arm)
{
    size_t la = strlen(arm);
    if (strncmp(name, arm, la) != 0 || name[la] != '-' || name[la + 1] != 'r')
        return -1;
    const char *d = name + la + 2;
    int k;
    if (*d == '0' || strlen(d) > 6 || !(*d >= '1' && *d <= '9') || opt_int(d, 1, 999999, &k, NULL, 0) != 0)
        return -1;
    return k;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The rounds of one arm under raw/, ascending (none when raw/ is missing). */
static int list_rounds(const char *raw, const char *arm, int **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(raw);
    if (!d) {
        if (errno == ENOENT)
            return 0;
        ut_seterr(err, errlen, "%s: cannot list: %s", raw, strerror(errno));
        return -1;
    }
    struct dirent *e;
    size_t cap = 0;
    while ((e = readdir(d))) {
        int k = round_of(e->d_name, arm);
        if (k < 1)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            int *nr = realloc(*out, cap * sizeof *nr);
            if (!nr) {
                closedir(d);
                ut_seterr(err, errlen, "out of memory");
                return -1;
            }
            *out = nr;
        }
        (*out)[(*n)++] = k;
    }
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof **out, cmp_int);
    return 0;
}

int apstudy_arm_load(const char *raw, const char *name, size_t ntest, prov *pv, apstudy_arm *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    int *ks = NULL;
    size_t nk = 0;
    if (list_rounds(raw, name, &ks, &nk, err, errlen) != 0)
        return -1;
    if (nk == 0)
        return 0;
    char path[8400];
    int bad = 0;
    size_t m = SIZE_MAX;
    out->rounds = calloc(nk, sizeof *out->rounds);
    testerraw_run *rr = calloc(nk, sizeof *rr);
    if (!out->rounds || !rr) {
        ut_seterr(err, errlen, "out of memory");
        bad = 1;
    }
    /* M: the fewest requests of a round, so that every round counts the same requests */
    for (size_t q = 0; q < nk && !bad; q++) {
        snprintf(path, sizeof path, "%s/%s-r%d/tester.tsv.gz", raw, name, ks[q]);
        bad = (pv && prov_input(pv, path, err, errlen) != 0) || testerraw_read(path, ntest, &rr[q], err, errlen) != 0;
        if (!bad && rr[q].n < m)
            m = rr[q].n;
    }
    for (size_t q = 0; q < nk && !bad; q++) {
        bad = apstudy_round_select(&rr[q], ks[q], m, ntest, &out->rounds[q], err, errlen) != 0;
        if (!bad)
            out->nrounds++;
    }
    for (size_t q = 0; rr && q < nk; q++)
        testerraw_free(&rr[q]);
    free(rr);
    free(ks);
    if (bad) {
        apstudy_arm_free(out);
        return -1;
    }
    return 0;
}

int apstudy_run_load(const char *raw, const char *run, int round, size_t ntest, prov *pv, apstudy_arm *out,
                     char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (strlen(run) >= sizeof out->name) {
        ut_seterr(err, errlen, "run %s: the name is too long", run);
        return -1;
    }
    snprintf(out->name, sizeof out->name, "%s", run);
    char path[8400];
    snprintf(path, sizeof path, "%s/%s/tester.tsv.gz", raw, run);
    out->rounds = calloc(1, sizeof *out->rounds);
    if (!out->rounds) {
        ut_seterr(err, errlen, "out of memory");
        return -1;
    }
    testerraw_run rr = {0};
    int bad = (pv && prov_input(pv, path, err, errlen) != 0) || testerraw_read(path, ntest, &rr, err, errlen) != 0 ||
              apstudy_round_select(&rr, round, rr.n, ntest, &out->rounds[0], err, errlen) != 0;
    testerraw_free(&rr);
    if (bad) {
        apstudy_arm_free(out);
        return -1;
    }
    out->nrounds = 1;
    return 0;
}
