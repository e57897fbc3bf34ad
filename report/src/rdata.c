/* rdata.c: paths into verified.json and the design's arms.  The contract is in rdata.h. */
#include "rdata.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *walk(json_t *root, const char *path)
{
    json_t *n = root;
    const char *p = path;
    while (n && *p) {
        if (*p != '/')
            return NULL;
        p++;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char key[512];
        if (len >= sizeof key)
            return NULL;
        memcpy(key, p, len);
        key[len] = 0;
        if (json_is_object(n)) {
            n = json_object_get(n, key);
        } else if (json_is_array(n)) {
            char *end;
            long i = strtol(key, &end, 10);
            if (!len || *end || i < 0)
                return NULL;
            n = json_array_get(n, (size_t)i);
        } else {
            return NULL;
        }
        p += len;
    }
    return n;
}

json_t *rd_at(json_t *root, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    return walk(root, path);
}

int rd_num(json_t *root, double *out, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    json_t *n = walk(root, path);
    if (!json_is_number(n))
        return -1;
    *out = json_number_value(n);
    return 0;
}

const char *rd_str(json_t *root, const char *fmt, ...)
{
    char path[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    return json_string_value(walk(root, path));
}

int rd_measured(json_t *root, const char *arm)
{
    return json_is_object(json_object_get(json_object_get(root, "arms"), arm));
}

static const char *const design_arms[] = {
    "Z-capacity", "F3-none",  "L3-none",  "H3-none", "H3-t10",   "H3-t25",   "H3-t50",  "H3-t100",
    "H3-fb25",    "H3-dl",    "H3-dldown", "H3-r2",  "H3-r2b",   "H3-r2bj",  "L3-t25",  "L3-hedge",
    "H3-hedge",   "H4-fb25",  "H4-dldown", "H4-r2",  "H4-r2b",   "H4-r2bj",
    /* the second lesson: the store fails (the scenario ends the name) */
    "H3-none-down", "H3-fb25-down", "H3-r2-down", "H3-r2bj-down", "H3-fb25-hang", "H3-r2-hang",
    "H3-fb25-reset", "H3-r2-reset", "H3-fb25-never", "H3-r2-never", "H3-fb25-flaky", "H3-r2-flaky",
    "H3-fb25-missing", "H3-r2-missing",
    /* the defences (issue 13), in the order of the lab's arm table */
    "H3-brk-down", "H3-brk-hang", "H3-brk-reset", "H3-brk-never", "H3-brkw-down", "H3-brkr2-down",
    "H3-brkr2-hang", "H4-brkr2", "H3-r4x-down", "H3-r4xf-down", "H3-r4xe-down", "H4-r4xf", "H3-pool-hang",
    "H3-bulk-hang", "H3-r2bud-down", "H4-r2bud", "H4-r2dl", "H3-t23", "H4-hedge", "L3-ahedge", "H3-ahedge",
};
#define NDESIGN (sizeof design_arms / sizeof design_arms[0])

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t rd_arms(json_t *root, rd_arm **out)
{
    json_t *arms = json_object_get(root, "arms");
    size_t extra_n = 0, cap = NDESIGN + json_object_size(arms) + 1;
    rd_arm *a = calloc(cap, sizeof *a);
    const char **others = calloc(json_object_size(arms) + 1, sizeof *others);
    if (!a || !others) {
        fprintf(stderr, "report: out of memory\n");
        exit(1);
    }
    size_t n = 0;
    for (size_t i = 0; i < NDESIGN; i++) {
        snprintf(a[n].name, sizeof a[n].name, "%s", design_arms[i]);
        a[n].measured = rd_measured(root, design_arms[i]);
        n++;
    }
    const char *key;
    json_t *v;
    json_object_foreach(arms, key, v)
    {
        int known = 0;
        for (size_t i = 0; i < NDESIGN; i++)
            known |= !strcmp(key, design_arms[i]);
        if (!known)
            others[extra_n++] = key;
    }
    qsort(others, extra_n, sizeof *others, cmp_str);
    for (size_t i = 0; i < extra_n; i++) {
        snprintf(a[n].name, sizeof a[n].name, "%s", others[i]);
        a[n].measured = 1;
        n++;
    }
    free(others);
    *out = a;
    return n;
}

void rd_arms_free(rd_arm *a)
{
    free(a);
}

static const char *const faults[][2] = {
    {"down", "store down"},
    {"hang", "store hangs"},
    {"reset", "store resets"},
    {"never", "store down for good"},
    {"flaky", "flaky store"},
    {"missing", "missing rows"},
};
#define NFAULTS (sizeof faults / sizeof faults[0])

/* the index of the arm's fault scenario in faults[] (its name's last part), or -1 */
static int fault_of(const char *arm)
{
    const char *d1 = strchr(arm, '-'), *d2 = strrchr(arm, '-');
    if (!d1 || d2 == d1)
        return -1;
    for (size_t i = 0; i < NFAULTS; i++)
        if (!strcmp(d2 + 1, faults[i][0]))
            return (int)i;
    return -1;
}

const char *rd_arm_fault(const char *arm)
{
    int f = fault_of(arm);
    return f < 0 ? "none" : faults[f][0];
}

static void arm_words(const char *arm, char *out, size_t n);

void rd_arm_words(const char *arm, char *out, size_t n)
{
    int f = fault_of(arm);
    if (f < 0) {
        arm_words(arm, out, n);
        return;
    }
    /* the arm without its scenario, then the scenario */
    char base[64], w[160];
    snprintf(base, sizeof base, "%.*s", (int)(strrchr(arm, '-') - arm), arm);
    arm_words(base, w, sizeof w);
    snprintf(out, n, "%s; %s", w, faults[f][1]);
}

/* the defences' retry labels: rNx, rNxf, rNxe (capped backoff), rNbud
 * (a retry budget), rNdl (a deadline passed down); 1 when p is one */
static int retry_words(const char *p, char *pol, size_t n)
{
    int k, used = 0;
    if (sscanf(p, "r%d%n", &k, &used) != 1 || used < 2)
        return 0;
    const char *rest = p + used;
    const char *w = !strcmp(rest, "x")     ? "capped pauses"
                    : !strcmp(rest, "xf")  ? "capped pauses, full jitter"
                    : !strcmp(rest, "xe")  ? "capped pauses, equal jitter"
                    : !strcmp(rest, "bud") ? "under a budget"
                    : !strcmp(rest, "dl")  ? "deadline passed down"
                                           : NULL;
    if (!w)
        return 0;
    snprintf(pol, n, "%d retries, %s", k, w);
    return 1;
}

static void arm_words(const char *arm, char *out, size_t n)
{
    if (!strcmp(arm, "Z-capacity")) {
        snprintf(out, n, "capacity: store at no wait, requests back to back");
        return;
    }
    const char *dash = strchr(arm, '-');
    if (!dash || dash == arm) {
        snprintf(out, n, "%s", arm);
        return;
    }
    const char *wait = arm[0] == 'F' ? "healthy store (2 ms)"
                       : arm[0] == 'L' ? "long tail"
                       : arm[0] == 'H' ? "freezes"
                       : arm[0] == 'Z' ? "no wait"
                                       : "wait ?";
    char rate[32];
    if (dash - arm == 2 && arm[1] == '3')
        snprintf(rate, sizeof rate, "300/s");
    else if (dash - arm == 2 && arm[1] == '4')
        snprintf(rate, sizeof rate, "450/s");
    else
        snprintf(rate, sizeof rate, "rate %.*s", (int)(dash - arm - 1), arm + 1);
    const char *p = dash + 1;
    char pol[96];
    int t;
    if (!strcmp(p, "none"))
        snprintf(pol, sizeof pol, "no limit");
    else if (!strcmp(p, "dl"))
        snprintf(pol, sizeof pol, "25 ms deadline, stand-in");
    else if (!strcmp(p, "dldown"))
        snprintf(pol, sizeof pol, "deadline passed down");
    else if (!strcmp(p, "r2"))
        snprintf(pol, sizeof pol, "2 retries at once, stand-in");
    else if (!strcmp(p, "r2b"))
        snprintf(pol, sizeof pol, "2 retries, fixed pause");
    else if (!strcmp(p, "r2bj"))
        snprintf(pol, sizeof pol, "2 retries, random pause");
    else if (!strcmp(p, "hedge"))
        snprintf(pol, sizeof pol, "ask twice after 10 ms");
    else if (!strcmp(p, "ahedge"))
        snprintf(pol, sizeof pol, "ask twice after the recent p95");
    else if (!strcmp(p, "brk"))
        snprintf(pol, sizeof pol, "breaker, 25 ms limit, stand-in");
    else if (!strcmp(p, "brkw"))
        snprintf(pol, sizeof pol, "breaker on a failure share, stand-in");
    else if (!strcmp(p, "brkr2"))
        snprintf(pol, sizeof pol, "breaker, 2 retries, stand-in");
    else if (!strcmp(p, "pool"))
        snprintf(pol, sizeof pol, "second store, one shared limit");
    else if (!strcmp(p, "bulk"))
        snprintf(pol, sizeof pol, "second store, a bulkhead");
    else if (retry_words(p, pol, sizeof pol)) {
    } else if (sscanf(p, "fb%d", &t) == 1)
        snprintf(pol, sizeof pol, "%d ms limit, stand-in", t);
    else if (sscanf(p, "t%d", &t) == 1)
        snprintf(pol, sizeof pol, "%d ms limit, error", t);
    else
        snprintf(pol, sizeof pol, "policy %s", p);
    snprintf(out, n, "%s, %s, %s", wait, rate, pol);
}

int rd_arm_family(const char *arm)
{
    const char *d = strchr(arm, '-');
    char pol[64];
    snprintf(pol, sizeof pol, "%s", d ? d + 1 : arm);
    if (fault_of(arm) >= 0)
        *strrchr(pol, '-') = 0;
    const char *p = pol;
    int t;
    if (!strcmp(p, "none") || !strcmp(p, "capacity"))
        return 0;
    if (!strcmp(p, "dl"))
        return 3;
    if (!strcmp(p, "dldown"))
        return 4;
    if (p[0] == 'r' && p[1] >= '1' && p[1] <= '9')
        return 5;
    if (!strcmp(p, "hedge") || !strcmp(p, "ahedge"))
        return 6;
    if (sscanf(p, "fb%d", &t) == 1)
        return 2;
    if (sscanf(p, "t%d", &t) == 1)
        return 1;
    return 7;
}

size_t rd_rounds(json_t *root, const char *arm, int *out, size_t max)
{
    json_t *r = rd_at(root, "/arms/%s/rounds", arm);
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(r) && n < max; i++)
        if (json_is_integer(json_array_get(r, i)))
            out[n++] = (int)json_integer_value(json_array_get(r, i));
    return n;
}
