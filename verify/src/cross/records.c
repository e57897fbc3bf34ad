/* records: see records.h. */
#include "records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vutil.h"

static int cmp_record(const void *a, const void *b)
{
    return strcmp(((const pv_record *)a)->name, ((const pv_record *)b)->name);
}

void pv_load(const char *root, pv_records *r)
{
    memset(r, 0, sizeof *r);
    char *dir = vu_xasprintf("%s/" PV_DIR, root);
    char **names;
    size_t n;
    char err[4300];
    if (!vu_is_dir(dir) || vu_list_dir(dir, &names, &n, err, sizeof err)) {
        free(dir);
        return;
    }
    r->v = vu_xcalloc(n + 1, sizeof *r->v);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(names[i]);
        if (l <= 5 || strcmp(names[i] + l - 5, ".json") || l - 5 >= sizeof r->v->name)
            continue;
        char *p = vu_xasprintf("%s/%s", dir, names[i]);
        if (!vu_is_file(p)) {
            free(p);
            continue;
        }
        pv_record *rec = &r->v[r->n++];
        snprintf(rec->name, sizeof rec->name, "%.*s", (int)(l - 5), names[i]);
        char *rel = vu_xasprintf(PV_DIR "/%s", names[i]);
        if (vj_parse_file(p, &rec->tree, err, sizeof err)) {
            mm_add(NULL, rel, "JSON", err, "a JSON object (RESULTS.md)");
            rec->tree = NULL;
        } else if (rec->tree->type != VJ_OBJ) {
            mm_add(NULL, rel, "JSON", "not an object", "a JSON object (RESULTS.md)");
            vj_free(rec->tree);
            rec->tree = NULL;
        }
        free(rel);
        free(p);
    }
    vu_free_names(names, n);
    free(dir);
    /* by name ("x-r1" before "x-r1.attempt-1"), not by file name */
    qsort(r->v, r->n, sizeof *r->v, cmp_record);
}

const pv_record *pv_find(const pv_records *r, const char *name)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->v[i].name, name))
            return &r->v[i];
    return NULL;
}

int pv_exit_code(const pv_record *rec, long long *code)
{
    const vj_node *e = rec ? vj_get(rec->tree, "exit_code") : NULL;
    if (!e || e->type != VJ_NUM || !e->is_int)
        return -1;
    *code = e->i;
    return 0;
}

void pv_free(pv_records *r)
{
    for (size_t i = 0; i < r->n; i++)
        vj_free(r->v[i].tree);
    free(r->v);
    memset(r, 0, sizeof *r);
}
