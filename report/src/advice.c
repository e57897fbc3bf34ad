/* advice: which verdict each item of templates/advice.tsv rests on and
 * which of its sentences it says (see advice.h).  The rules and their
 * sentences are the file's; this only matches a row to verified.json. */
#include "advice.h"

#include <stdio.h>
#include <string.h>

#include "rdata.h"

const char *ad_kind(const char *fig, int diff)
{
    size_t n = strlen(fig);
    if (n > 3 && !strcmp(fig + n - 3, "_ms"))
        return diff ? "sms" : "ms";
    if (!strncmp(fig, "slot_ms_", 8))
        return diff ? "sms" : "ms";
    if (n > 6 && !strcmp(fig + n - 6, "_share"))
        return diff ? "spp" : "pct";
    if (n >= 19 && !strcmp(fig + n - 19, "lookups_per_request"))
        return diff ? "sx" : "x";
    if (n > 3 && !strcmp(fig + n - 3, "_us"))
        return "us";
    if (!strcmp(fig, "answers_per_s"))
        return diff ? "sx" : "x";
    return "int";
}

static const char *cell(json_t *row, const char *col)
{
    const char *s = json_string_value(json_object_get(row, col));
    return s ? s : "-";
}

/* the index of the verdict of a against b on fig, or -1 */
static long find_verdict(json_t *root, const char *a, const char *b, const char *fig)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(root, "verdicts"), i, v)
    {
        const char *va = json_string_value(json_object_get(v, "a"));
        const char *vb = json_string_value(json_object_get(v, "b"));
        const char *vf = json_string_value(json_object_get(v, "figure"));
        if (va && vb && vf && !strcmp(va, a) && !strcmp(vb, b) && !strcmp(vf, fig))
            return (long)i;
    }
    return -1;
}

/* the outcome of a verdict in the file's words (advice.h) */
static const char *outcome(json_t *v)
{
    json_t *rounds = json_object_get(v, "rounds");
    const char *verdict = json_string_value(json_object_get(v, "verdict"));
    const char *dir = json_string_value(json_object_get(v, "direction"));
    if (!json_is_array(rounds) || json_array_size(rounds) == 0)
        return "unmeasured";
    if (verdict && !strcmp(verdict, "too close to call"))
        return "close";
    if (verdict && !strcmp(verdict, "clearly different") && dir && !strcmp(dir, "a>b"))
        return "gt";
    if (verdict && !strcmp(verdict, "clearly different") && dir && !strcmp(dir, "a<b"))
        return "lt";
    return "odd";
}

static int has_guess(json_t *root, const char *id)
{
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(root, "guesses"), i, g)
    {
        const char *gid = json_string_value(json_object_get(g, "id"));
        if (gid && !strcmp(gid, id))
            return 1;
    }
    return 0;
}

int ad_design(json_t *root, json_t *design, const char *dir, char *err, size_t el)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/advice.tsv", dir);
    json_t *t = rd_table(path, err, el);
    if (!t)
        return -1;
    json_t *list = json_array();
    const char *id;
    json_t *row;
    json_object_foreach(t, id, row)
    {
        const char *a = cell(row, "a"), *b = cell(row, "b"), *fig = cell(row, "figure");
        json_t *it = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "name", id, "a", a, "b", b, "figure", fig, "what",
                               cell(row, "what"), "extra", cell(row, "extra"));
        const char *oc;
        if (!strcmp(a, "-")) {
            oc = "arithmetic";
        } else {
            json_object_set_new(it, "kind", json_string(ad_kind(fig, 0)));
            json_object_set_new(it, "dkind", json_string(ad_kind(fig, 1)));
            long vi = find_verdict(root, a, b, fig);
            if (vi < 0) {
                oc = "missing";
            } else {
                char idx[32];
                snprintf(idx, sizeof idx, "%ld", vi);
                json_object_set_new(it, "v", json_string(idx));
                oc = outcome(json_array_get(json_object_get(root, "verdicts"), (size_t)vi));
            }
        }
        json_object_set_new(it, "outcome", json_string(oc));
        const char *col = !strcmp(oc, "arithmetic") ? "gt" : oc;
        if (!strcmp(oc, "gt") || !strcmp(oc, "lt") || !strcmp(oc, "close") || !strcmp(oc, "arithmetic"))
            json_object_set_new(it, "sentence", json_string(cell(row, col)));
        /* the row's guesses that the study has, in the row's order */
        json_t *gs = json_array();
        char buf[512];
        snprintf(buf, sizeof buf, "%s", cell(row, "guesses"));
        char *save = NULL;
        for (char *g = strtok_r(buf, " ", &save); g; g = strtok_r(NULL, " ", &save))
            if (strcmp(g, "-") && has_guess(root, g))
                json_array_append_new(gs, json_string(g));
        json_object_set_new(it, "guesses", gs);
        json_array_append_new(list, it);
    }
    json_decref(t);
    json_object_set_new(design, "advice", list);
    return 0;
}
