/* report: renders the verified numbers (results/verified.json, written by
 * the independent verifier) into results/report.html (one self-contained
 * page: figures inline, CSS inline, nothing fetched), results/report.md and
 * the SVG files of results/figures/.  See report/README.md.
 *
 *   report [--root DIR]                  DIR/results/verified.json -> DIR/results/
 *   report --in FILE --out DIR           FILE -> DIR/report.html, DIR/report.md, DIR/figures/
 *   report --map FILE --figure OUT.svg   the map tool's map (format "lab-map 1") -> its figure
 *                                        alone (src/map.h: the same function as figures/map.svg)
 *   [--arms FILE] [--templates DIR]      the registered arms (lab/arms.tsv, read as data) and the
 *                                        section templates (report/templates/): by default those
 *                                        of the repository the report was built in
 *
 * The prose is in the templates (src/tsec.h, src/tpl.h); this file says
 * which section comes when, and writes the files.
 * Refuses to render (exit 1) unless verified.json says "ok": true.
 * Exit 0 done; 1 refused or failed (message on stderr); 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "advice.h"
#include "defences.h"
#include "figures.h"
#include "floods.h"
#include "fmt.h"
#include "machine.h"
#include "map.h"
#include "outage.h"
#include "page.h"
#include "quiet.h"
#include "rdata.h"
#include "tsec.h"

static void usage(FILE *o)
{
    fprintf(o, "usage: report [--root DIR] | report --in FILE --out DIR | report --map FILE --figure OUT.svg\n"
               "  --root DIR   read DIR/results/verified.json, write DIR/results/report.{html,md} and figures/\n"
               "  --in FILE    verified.json to read\n"
               "  --out DIR    folder for report.html, report.md and figures/\n"
               "  --map FILE   the lab's map of floods by load (\"format\": \"lab-map 1\", make map's map.json):\n"
               "               draw its figure alone into --figure OUT.svg (the page's map.svg, without points)\n"
               "  --arms FILE  the registered arms (default: the lab/arms.tsv of the repository built in)\n"
               "  --templates DIR  the section templates and arm-words.tsv (default: its report/templates)\n"
               "Refuses to render unless verified.json says \"ok\": true.\n");
}

/* ------------------------------------------------------------ the templates' data */

/* The sections' design data (tsec.h): rd_design's arms, and what the C
 * chooses for the text: the measured and unmeasured arms' names, the
 * frozen lookup's runs, whether the AP figure is drawn, and each verdict
 * with a, b and figure (its index as name, the kind of its differences,
 * whether each arm was measured). */
static json_t *design_data(json_t *root, const fg_choice *c, const fl_choice *fc, const char *tpl_dir)
{
    json_t *d = rd_design(root), *m = json_array(), *u = json_array(), *fr = json_array(), *vd = json_array();
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(d, "arms"), i, a)
    {
        json_t *name = json_object_get(a, "name");
        json_array_append(json_is_true(json_object_get(a, "measured")) ? m : u, name);
    }
    for (int k = 0; k < c->nfrozen; k++)
        json_array_append_new(fr, json_string(c->frozen_run[k]));
    json_t *vs = rd_at(root, "/verdicts"), *v;
    json_array_foreach(vs, i, v)
    {
        const char *va = json_string_value(json_object_get(v, "a"));
        const char *vb = json_string_value(json_object_get(v, "b"));
        const char *fig = json_string_value(json_object_get(v, "figure"));
        if (!va || !vb || !fig)
            continue;
        char idx[32];
        snprintf(idx, sizeof idx, "%zu", i);
        json_array_append_new(vd, json_pack("{s:s, s:s, s:b, s:b, s:b}", "name", idx, "kind", ad_kind(fig, 1),
                                            "ma", rd_measured(root, va), "mb", rd_measured(root, vb), "same",
                                            !strcmp(va, vb)));
    }
    json_object_set_new(d, "measured", m);
    json_object_set_new(d, "unmeasured", u);
    json_object_set_new(d, "frozen", fr);
    json_object_set_new(d, "ap_ready", json_boolean(fig_ap_ready(root)));
    /* the flooded runs of ap.json (format lab-ap 2), for templates/ap.md.in */
    json_object_set_new(d, "ap_flooded",
                        json_integer((json_int_t)json_object_size(rd_at(root, "/ap/copied_from_ap_json/flooded_runs"))));
    json_object_set_new(d, "verdicts", vd);
    ot_design(root, d);
    df_design(root, d);
    mc_design(root, d);
    qt_design(root, d);
    fl_design(root, fc, d);
    mp_design(root, d);
    char qp[4200], qerr[4400];
    snprintf(qp, sizeof qp, "%s/quiet-rules.tsv", tpl_dir);
    json_t *qr = rd_table(qp, qerr, sizeof qerr);
    if (!qr) {
        fprintf(stderr, "report: %s\n", qerr);
        exit(1);
    }
    json_object_set_new(d, "quiet_rules", qr);
    if (ad_design(root, d, tpl_dir, qerr, sizeof qerr)) {
        fprintf(stderr, "report: %s\n", qerr);
        exit(1);
    }
    return d;
}

/* ------------------------------------------------------------ files */

static int mkdir_p(const char *d)
{
    char t[4096];
    snprintf(t, sizeof t, "%s", d);
    for (char *s = t + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(t, 0755) && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return mkdir(t, 0755) && errno != EEXIST ? -1 : 0;
}

static void rm_dir(const char *d)
{
    DIR *dir = opendir(d);
    if (!dir)
        return;
    struct dirent *de;
    while ((de = readdir(dir))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", d, de->d_name);
        unlink(p);
    }
    closedir(dir);
    rmdir(d);
}

/* --map FILE --figure OUT: the map tool's map drawn alone, by the page's
 * own figure function (map.h); OUT is written to a temporary name and
 * renamed, so that it is never half-written */
static int map_mode(const char *in, const char *out)
{
    json_error_t jerr;
    json_t *m = json_load_file(in, JSON_REJECT_DUPLICATES, &jerr);
    if (!m) {
        fprintf(stderr, "report: cannot read %s: %s (line %d)\n", in, jerr.text, jerr.line);
        return 1;
    }
    const char *fmt = json_string_value(json_object_get(m, "format"));
    char err[512];
    if (!fmt || strcmp(fmt, "lab-map 1")) {
        fprintf(stderr, "report: %s: format: not \"lab-map 1\" (the map tool's map.json)\n", in);
        json_decref(m);
        return 1;
    }
    if (mp_check(m, err, sizeof err)) {
        fprintf(stderr, "report: %s: %s\n", in, err);
        json_decref(m);
        return 1;
    }
    /* the temporary name keeps the file's name first: the SVG's ids are prefixed by it */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
    int rc = mp_draw(m, tmp);
    json_decref(m);
    if (!rc && rename(tmp, out)) {
        fprintf(stderr, "report: cannot rename %s to %s: %s\n", tmp, out, strerror(errno));
        rc = -1;
    }
    if (rc) {
        unlink(tmp);
        fprintf(stderr, "report: failed, %s not written\n", out);
        return 1;
    }
    printf("report: wrote %s\n", out);
    return 0;
}

int main(int argc, char **argv)
{
    const char *root_dir = ".", *in = NULL, *out = NULL, *map_in = NULL, *map_out = NULL;
    const char *arms_file = REPO_DIR "/lab/arms.tsv", *tpl_dir = REPO_DIR "/report/templates";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--root") && more)
            root_dir = argv[++i];
        else if (!strcmp(a, "--in") && more)
            in = argv[++i];
        else if (!strcmp(a, "--out") && more)
            out = argv[++i];
        else if (!strcmp(a, "--map") && more)
            map_in = argv[++i];
        else if (!strcmp(a, "--figure") && more)
            map_out = argv[++i];
        else if (!strcmp(a, "--arms") && more)
            arms_file = argv[++i];
        else if (!strcmp(a, "--templates") && more)
            tpl_dir = argv[++i];
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "report: unknown or incomplete option \"%s\"\n", a);
            usage(stderr);
            return 2;
        }
    }
    if ((map_in || map_out) && (!map_in || !map_out || in || out)) {
        fprintf(stderr, "report: --map FILE and --figure OUT.svg go together, without --in or --out\n");
        usage(stderr);
        return 2;
    }
    char inpath[4096], outdir[4096];
    snprintf(inpath, sizeof inpath, "%s", in ? in : "");
    if (!in)
        snprintf(inpath, sizeof inpath, "%s/results/verified.json", root_dir);
    if (out)
        snprintf(outdir, sizeof outdir, "%s", out);
    else
        snprintf(outdir, sizeof outdir, "%s/results", root_dir);

    char derr[4400] = "";
    if (rd_design_load(arms_file, tpl_dir, derr, sizeof derr) != 0) {
        fprintf(stderr, "report: the registered arms: %s\n", derr);
        return 1;
    }
    if (map_in)
        return map_mode(map_in, map_out);
    json_error_t jerr;
    json_t *root = json_load_file(inpath, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        fprintf(stderr, "report: cannot read %s: %s (line %d)%s\n", inpath, jerr.text, jerr.line,
                access(inpath, F_OK) ? "; run `make factcheck` first, it writes verified.json" : "");
        return 1;
    }
    json_t *ok = json_object_get(root, "ok");
    if (!json_is_true(ok)) {
        char m[64], f[64];
        fmt_value(json_object_get(root, "mismatches"), "int", m, sizeof m);
        fmt_value(json_object_get(root, "findings"), "int", f, sizeof f);
        fprintf(stderr,
                "report: refusing to render: %s says \"ok\": %s (%s mismatches, %s findings; findings are null "
                "when the secret scan was skipped). Only numbers the verifier confirmed are published: run "
                "`make factcheck` and fix what it reports.\n",
                inpath, json_is_false(ok) ? "false" : "not true", m, f);
        json_decref(root);
        return 1;
    }
    if (!json_is_object(json_object_get(root, "extra"))) {
        fprintf(stderr, "report: %s has no \"extra\" member: it was written by an older verifier; run `make "
                        "factcheck` again\n", inpath);
        json_decref(root);
        return 1;
    }
    if (mkdir_p(outdir)) {
        fprintf(stderr, "report: cannot make %s: %s\n", outdir, strerror(errno));
        json_decref(root);
        return 1;
    }
    char tmpfig[4200], figdir[4200], oldfig[4200], html[4200], md[4200];
    snprintf(tmpfig, sizeof tmpfig, "%s/.figures.tmp.%ld", outdir, (long)getpid());
    snprintf(oldfig, sizeof oldfig, "%s/.figures.old.%ld", outdir, (long)getpid());
    snprintf(figdir, sizeof figdir, "%s/figures", outdir);
    snprintf(html, sizeof html, "%s/report.html", outdir);
    snprintf(md, sizeof md, "%s/report.md", outdir);
    rm_dir(tmpfig);
    if (mkdir(tmpfig, 0755)) {
        fprintf(stderr, "report: cannot make %s: %s\n", tmpfig, strerror(errno));
        json_decref(root);
        return 1;
    }

    fg_choice c;
    fg_choose(root, &c);
    fl_choice fc;
    fl_choose(root, &fc);
    int rc = 0;
    rc |= fig_dials(root, tmpfig);
    rc |= fig_exceed(root, tmpfig);
    rc |= fig_errors(root, tmpfig);
    rc |= fig_frozen(root, tmpfig, &c);
    rc |= fig_split(root, tmpfig);
    rc |= fig_slots(root, tmpfig);
    rc |= fl_figures(root, tmpfig, &fc);
    rc |= mp_figures(root, tmpfig);
    rc |= fig_hedge(root, tmpfig);
    rc |= fig_steps(root, tmpfig);
    if (fig_ap_ready(root))
        rc |= fig_ap(root, tmpfig);
    rc |= ot_figure(root, tmpfig);
    rc |= df_figures(root, tmpfig);
    rc |= qt_figures(root, tmpfig);

    page *p = pg_new(root, tmpfig);
    if (!rc) {
        /* the order of the page: templates (T), and the sections still written in C */
        json_t *design = design_data(root, &c, &fc, tpl_dir);
#define T(name) (rc |= ts_render(p, root, design, tpl_dir, (name)))
        T("head");
        T("main");
        T("advice");
        T("nolimit");
        T("limits");
        T("frozen");
        T("standins");
        T("deadline");
        T("flood");
        T("predicted");
        T("odds");
        T("map");
        T("hedge");
        T("ap");
        T("outage");
        T("defences");
        T("arms");
        T("verdicts");
        T("guesses");
        T("steps");
        T("machine");
        T("quiet");
        T("cost");
        T("method");
#undef T
        json_decref(design);
    }
    /* the figures first (the Markdown links them), then the two pages */
    if (!rc) {
        rm_dir(oldfig);
        if (access(figdir, F_OK) == 0 && rename(figdir, oldfig)) {
            fprintf(stderr, "report: cannot move the old %s aside: %s\n", figdir, strerror(errno));
            rc = -1;
        } else if (rename(tmpfig, figdir)) {
            fprintf(stderr, "report: cannot rename %s to %s: %s\n", tmpfig, figdir, strerror(errno));
            rc = -1;
        }
        rm_dir(oldfig);
    }
    if (!rc)
        rc = pg_write(p, rd_word("page.title"), html, md);
    if (rc)
        rm_dir(tmpfig);
    pg_free(p);
    json_decref(root);
    if (rc) {
        fprintf(stderr, "report: failed, nothing published\n");
        return 1;
    }
    printf("report: wrote %s, %s and %s/\n", html, md, figdir);
    return 0;
}
