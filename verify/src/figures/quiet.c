/* quiet: the rules of a quiet run and their limits from the quiet file; see quiet.h. */
#include "quiet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mism.h"
#include "vnum.h"
#include "vutil.h"

/* RESULTS.md's table, in its order */
const char *const qr_rule_name[QR_NRULE] = {
    "steal_run_max", "steal_second_max", "late_p99_max_ms", "late_max_max_ms", "other_idle_min",
    "foreign_second_max",
};

/* the figures of run.json's "quiet" object (RAWFORMAT.md), by rule */
static const char *const claim_fig[QR_NRULE] = {
    "steal_share", "steal_second_max", "late_p99_ms", "late_max_ms", "other_idle_share", "foreign_second_max",
};

/* "a, b, c": every rule, for the messages */
static void all_names(char *out, size_t len)
{
    size_t n = 0;
    out[0] = 0;
    for (int k = 0; k < QR_NRULE && n < len; k++)
        n += (size_t)snprintf(out + n, len - n, "%s%s", k ? ", " : "", qr_rule_name[k]);
}

static int rule_by_name(const char *s, size_t len)
{
    for (int k = 0; k < QR_NRULE; k++)
        if (strlen(qr_rule_name[k]) == len && !memcmp(qr_rule_name[k], s, len))
            return k;
    return -1;
}

/* one rule line "rule<TAB>limit": 0, or 2 with the message */
static int rule_line(const char *path, long line, char *p, qr_rules *q, int *n, long *first_line, char *err,
                     size_t errlen)
{
    char *tab = strchr(p, '\t');
    if (!*p) {
        snprintf(err, errlen, "%s:%ld: an empty line (a rule line is `rule<TAB>limit`; comments start with #)", path,
                 line);
        return 2;
    }
    if (!tab || strchr(tab + 1, '\t')) {
        snprintf(err, errlen, "%s:%ld: \"%.60s\" is not `rule<TAB>limit` (2 tab-separated fields)", path, line, p);
        return 2;
    }
    int k = rule_by_name(p, (size_t)(tab - p));
    if (k < 0) {
        char names[256];
        all_names(names, sizeof names);
        snprintf(err, errlen, "%s:%ld: unknown rule \"%.*s\" (pipeline/RESULTS.md knows %s)", path, line,
                 (int)(tab - p > 60 ? 60 : tab - p), p, names);
        return 2;
    }
    if (first_line[k]) {
        snprintf(err, errlen, "%s:%ld: rule %s given twice (first on line %ld)", path, line, qr_rule_name[k],
                 first_line[k]);
        return 2;
    }
    const char *v = tab + 1;
    if (vn_f64(v, strlen(v), &q->limit[k])) {
        snprintf(err, errlen, "%s:%ld: limit \"%.40s\" of rule %s is not a number", path, line, v, qr_rule_name[k]);
        return 2;
    }
    first_line[k] = line;
    q->order[(*n)++] = k;
    return 0;
}

int qr_load(const char *path, qr_rules *q, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    unsigned char *b;
    size_t len;
    if (vu_read_file(path, &b, &len, err, errlen))
        return 2;
    vu_sha256_hex(b, len, q->sha256);
    char *p = (char *)b, *end = p + len;
    long line = 0, first_line[QR_NRULE] = {0};
    int header = 0, rc = 0, n = 0;
    while (p < end && !rc) {
        line++;
        char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        *e = 0;
        if (e > p && e[-1] == '\r')
            e[-1] = 0;
        if (*p == '#') {
            /* a comment */
        } else if (!header) {
            if (strcmp(p, "rule\tlimit")) {
                snprintf(err, errlen, "%s:%ld: header is \"%.60s\", expected \"rule<TAB>limit\"", path, line, p);
                rc = 2;
            }
            header = 1;
        } else {
            rc = rule_line(path, line, p, q, &n, first_line, err, errlen);
        }
        p = e + 1;
    }
    free(b);
    if (!rc && !header) {
        snprintf(err, errlen, "%s: no header line \"rule<TAB>limit\" (pipeline/RESULTS.md, \"Quiet runs\")", path);
        rc = 2;
    }
    /* RESULTS.md: every rule of its table exactly once */
    for (int k = 0; k < QR_NRULE && !rc; k++) {
        if (first_line[k])
            continue;
        char names[256];
        all_names(names, sizeof names);
        snprintf(err, errlen,
                 "%s: rule %s is missing (pipeline/RESULTS.md, \"Quiet runs\": every rule exactly once: %s)", path,
                 qr_rule_name[k], names);
        rc = 2;
    }
    return rc;
}

unsigned qr_judge(const qr_rules *q, const qr_figs *f)
{
    unsigned broken = 0;
    for (int k = 0; k < QR_NRULE; k++) {
        if (!f->has[k])
            continue;
        int b = k == QR_OTHER_IDLE_MIN ? f->v[k] < q->limit[k] : f->v[k] > q->limit[k];
        if (b)
            broken |= 1u << k;
    }
    return broken;
}

vj_node *qr_names(unsigned broken)
{
    vj_node *a = vj_new_arr();
    for (int k = 0; k < QR_NRULE; k++)
        if (broken & (1u << k))
            vj_arr_push(a, vj_new_str(qr_rule_name[k]));
    return a;
}

/* ["a", "b"] */
static void names_text(const vj_node *a, char *out, size_t len)
{
    if (!a || a->type != VJ_ARR) {
        vj_scalar_text(a, out, len);
        return;
    }
    size_t n = (size_t)snprintf(out, len, "[");
    for (size_t i = 0; i < a->n && n < len; i++) {
        char t[128];
        vj_scalar_text(a->items[i], t, sizeof t);
        n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "", t);
    }
    if (n < len)
        snprintf(out + n, len - n, "]");
}

static int same_names(const vj_node *lab, const vj_node *mine)
{
    if (!lab || lab->type != VJ_ARR || lab->n != mine->n)
        return 0;
    for (size_t i = 0; i < lab->n; i++)
        if (lab->items[i]->type != VJ_STR || strcmp(lab->items[i]->text, mine->items[i]->text))
            return 0;
    return 1;
}

void qr_check_claim(unsigned broken, const qr_figs *f, const vj_node *claim, const char *run)
{
    vj_node *mine = qr_names(broken);
    char a[512], b[512];
    names_text(mine, b, sizeof b);
    if (!claim || claim->type != VJ_OBJ) {
        vj_scalar_text(claim, a, sizeof a);
        mm_addf(NULL, run, "run.json quiet", a, "{\"quiet\": %s, \"rules\": %s} (RAWFORMAT.md)",
                broken ? "false" : "true", b);
        vj_free(mine);
        return;
    }
    const vj_node *qq = vj_get(claim, "quiet");
    if (!qq || qq->type != VJ_BOOL || qq->b != !broken) {
        vj_scalar_text(qq, a, sizeof a);
        if (broken)
            mm_addf(NULL, run, "run.json quiet.quiet", a, "false (the raw files break %s)", b);
        else
            mm_add(NULL, run, "run.json quiet.quiet", a, "true (the raw files break no rule of the quiet file)");
    }
    const vj_node *rules = vj_get(claim, "rules");
    if (!same_names(rules, mine)) {
        names_text(rules, a, sizeof a);
        mm_addf(NULL, run, "run.json quiet.rules", a, "%s (in the order of RESULTS.md's table of rules)", b);
    }
    /* the figures it looked at: each a number, or null exactly when the
     * verifier has no value either (their digits are not compared: the
     * page does not say how they are rounded) */
    for (int k = 0; k < QR_NRULE; k++) {
        const vj_node *x = vj_get(claim, claim_fig[k]);
        int ok = x && (x->type == VJ_NUM ? f->has[k] : x->type == VJ_NULL ? !f->has[k] : 0);
        if (ok)
            continue;
        char what[64];
        snprintf(what, sizeof what, "run.json quiet.%s", claim_fig[k]);
        vj_scalar_text(x, a, sizeof a);
        mm_add(NULL, run, what, a, f->has[k] ? "a number (the raw files have one)" : "null (nothing to look at)");
    }
    vj_free(mine);
}

vj_node *qr_limits_json(const qr_rules *q)
{
    vj_node *a = vj_new_arr();
    for (int i = 0; i < QR_NRULE; i++) {
        vj_node *o = vj_new_obj();
        vj_obj_set(o, "rule", vj_new_str(qr_rule_name[q->order[i]]));
        vj_obj_set(o, "limit", vj_new_num(q->limit[q->order[i]]));
        vj_arr_push(a, o);
    }
    return a;
}
