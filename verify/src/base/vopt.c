/* vopt: the verifier's command line, read from one table of options; see vopt.h. */
#include "vopt.h"

#include <string.h>

#include "vnum.h"

void vopt_help(const vopt *t, size_t n, const char *head, const char *foot, FILE *o)
{
    if (head)
        fputs(head, o);
    for (size_t i = 0; i < n; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", t[i].name, t[i].arg ? " " : "", t[i].arg ? t[i].arg : "");
        fprintf(o, "  %-19s ", left);
        /* a help of several lines: the next ones under the first */
        for (const char *h = t[i].help; *h; h++) {
            fputc(*h, o);
            if (*h == '\n')
                fputs("                      ", o);
        }
        fputc('\n', o);
    }
    if (foot)
        fputs(foot, o);
}

static const vopt *find(const vopt *t, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, name))
            return &t[i];
    return NULL;
}

/* the value v of option o into its dst: VOPT_RUN or VOPT_BAD (said on stderr) */
static int take(const vopt *o, const char *v, const char *prog)
{
    if (o->kind == VOPT_STR) {
        *(const char **)o->dst = v;
        return VOPT_RUN;
    }
    if (o->kind == VOPT_LIST) {
        vopt_list *l = o->dst;
        if (l->n >= l->cap) {
            fprintf(stderr, "%s: option %s: given more than %zu times (\"%s\")\n", prog, o->name, l->cap, v);
            return VOPT_BAD;
        }
        l->v[l->n++] = v;
        return VOPT_RUN;
    }
    long long x;
    int num = vn_i64(v, strlen(v), o->lo, o->hi, &x);
    if (num == VN_SYNTAX) {
        fprintf(stderr, "%s: option %s: \"%s\" is not an integer\n", prog, o->name, v);
        return VOPT_BAD;
    }
    if (num == VN_RANGE) {
        fprintf(stderr, "%s: option %s: \"%s\" is out of range (%ld to %ld)\n", prog, o->name, v, o->lo, o->hi);
        return VOPT_BAD;
    }
    *(long *)o->dst = (long)x;
    return VOPT_RUN;
}

int vopt_parse(const vopt *t, size_t n, int argc, char **argv, const char *prog, const char *head,
               const char *foot)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            vopt_help(t, n, head, foot, stdout);
            return VOPT_HELP;
        }
        const vopt *o = find(t, n, a);
        if (!o) {
            if (a[0] == '-')
                fprintf(stderr, "%s: unknown option \"%s\" (%s --help lists them)\n", prog, a, prog);
            else
                fprintf(stderr, "%s: unexpected argument \"%s\" (not an option; %s --help lists them)\n", prog, a,
                        prog);
            return VOPT_BAD;
        }
        if (o->kind == VOPT_FLAG) {
            *(int *)o->dst = 1;
            continue;
        }
        /* "--root --no-scan": the next word is an option, not the value */
        if (i + 1 >= argc || find(t, n, argv[i + 1])) {
            fprintf(stderr, "%s: option %s needs a value (%s)\n", prog, o->name, o->arg);
            return VOPT_BAD;
        }
        if (take(o, argv[++i], prog) != VOPT_RUN)
            return VOPT_BAD;
    }
    return VOPT_RUN;
}
