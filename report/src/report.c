/* report: renders the verified numbers (results/verified.json, written by
 * the independent verifier) into results/report.html (one self-contained
 * page: figures inline, CSS inline, nothing fetched), results/report.md and
 * the SVG files of results/figures/.  See report/README.md.
 *
 *   report [--root DIR]                  DIR/results/verified.json -> DIR/results/
 *   report --in FILE --out DIR           FILE -> DIR/report.html, DIR/report.md, DIR/figures/
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

#include "defences.h"
#include "figures.h"
#include "floods.h"
#include "fmt.h"
#include "machine.h"
#include "outage.h"
#include "page.h"
#include "quiet.h"
#include "rdata.h"

static void usage(FILE *o)
{
    fprintf(o, "usage: report [--root DIR] | report --in FILE --out DIR\n"
               "  --root DIR   read DIR/results/verified.json, write DIR/results/report.{html,md} and figures/\n"
               "  --in FILE    verified.json to read\n"
               "  --out DIR    folder for report.html, report.md and figures/\n"
               "  --arms FILE  the registered arms (default: the lab/arms.tsv of the repository built in)\n"
               "  --templates DIR  the section templates and arm-words.tsv (default: its report/templates)\n"
               "Refuses to render unless verified.json says \"ok\": true.\n");
}

/* ------------------------------------------------------------ helpers */

static int measured(json_t *root, const char *arm)
{
    return rd_measured(root, arm);
}

static const char *kind_of_figure(const char *fig, int diff)
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

/* ------------------------------------------------------------ sections */

static void sec_head(page *p, json_t *root)
{
    pg_h(p, 1, "top", "Timeouts and fallbacks: what a service should answer when its store is slow");
    pg_p_begin(p, "lead");
    pg_t(p, "A scoring service must fetch six numbers about a customer from a feature store before its model can "
            "score. When the store is slow, what should it answer? Each arm below is one way: wait, give up with an "
            "error, give up with a stand-in score, one deadline for the whole request (kept by the service or passed "
            "down to the store), retry, or ask twice. The store has 16 slots; with freezes, 1 lookup in 100 freezes "
            "for 1 to 2 s. Requests arrive at random, 300 or 450 a second, and latency runs from each request's "
            "scheduled arrival.");
    pg_p_end(p);
    pg_p_begin(p, "note");
    pg_strong(p, "Verified. ");
    pg_t(p, "Every number on this page is read from results/verified.json, the independent verifier's own "
            "recomputation from the raw files: ");
    pg_v(p, "int", "/mismatches");
    pg_t(p, " mismatches with the lab's results, ");
    pg_v(p, "int", "/findings");
    pg_t(p, " secret-scan findings; ");
    pg_v(p, "int", "/checks/runs_found");
    pg_t(p, " runs found, ");
    pg_v(p, "int", "/checks/runs_rejected");
    pg_t(p, " rejected; ");
    pg_v(p, "int", "/checks/answers_checked");
    pg_t(p, " answers checked against the reference scores; ");
    pg_v(p, "int", "/checks/manifest_files_hashed");
    pg_t(p, " files checked against the fingerprint manifest; verified at ");
    pg_v(p, "str", "/checks/utc");
    pg_t(p, ".");
    pg_p_end(p);

    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    pg_p_begin(p, NULL);
    pg_t(p, "Arms measured in this study: ");
    int first = 1;
    for (size_t i = 0; i < na; i++)
        if (arms[i].measured) {
            pg_t(p, "%s%s", first ? "" : ", ", arms[i].name);
            first = 0;
        }
    if (first)
        pg_t(p, "none");
    pg_t(p, ". Not measured: ");
    first = 1;
    for (size_t i = 0; i < na; i++)
        if (!arms[i].measured) {
            pg_t(p, "%s%s", first ? "" : ", ", arms[i].name);
            first = 0;
        }
    if (first)
        pg_t(p, "none");
    pg_t(p, ". An arm is named wait-rate-policy: H3-fb25 is freezes (H), 300 requests a second (3; 4 is 450), "
            "a 25 ms limit and then a stand-in; L is the long tail without freezes, F a healthy store (2 ms "
            "always), Z no wait at all.");
    pg_p_end(p);
    rd_arms_free(arms);

    static const char *const toc[][2] = {
        {"main", "The slowest 1 in 100, every arm"},
        {"nolimit", "How many requests waited longer than this?"},
        {"limits", "How many errors each limit gave"},
        {"frozen", "One frozen lookup, followed through"},
        {"standins", "Live answers and stand-ins"},
        {"deadline", "A deadline, kept or passed down"},
        {"flood", "Retries at 450 a second"},
        {"predicted", "Predicted before measuring"},
        {"odds", "Rare events and their odds"},
        {"hedge", "Asking twice"},
        {"ap", "What the stand-ins cost the ranking"},
        {"outage", "The store goes down"},
        {"defences", "The defences"},
        {"arms", "Every arm's figures"},
        {"verdicts", "Every verdict"},
        {"guesses", "Every guess, right or wrong"},
        {"steps", "The slowest requests, step by step"},
        {"machine", "The machine and the idle gate"},
        {"quiet", "Quiet runs"},
        {"cost", "The cost"},
        {"method", "How to read this page"},
    };
    pg_h(p, 2, "contents", "Contents");
    pg_ul_begin(p);
    for (size_t i = 0; i < sizeof toc / sizeof toc[0]; i++) {
        pg_li_begin(p);
        pg_t(p, "%s", toc[i][1]);
        pg_li_end(p);
    }
    pg_ul_end(p);
}

/* "ARM's p99 was X ms (median of its rounds)" or "not measured" */
static void say_median(page *p, json_t *root, const char *arm, const char *fig, const char *kind)
{
    if (measured(root, arm)) {
        pg_v(p, kind, "/arms/%s/%s/median", arm, fig);
        if (!strcmp(kind, "ms"))
            pg_t(p, " ms");
    } else {
        pg_nm(p);
    }
}

static int sec_main(page *p, json_t *root)
{
    pg_h(p, 2, "main", "The slowest 1 in 100, every arm");
    if (pg_figure(p, "dials", "The slowest 1 in 100, every arm",
                  "Each row is one arm. The scale runs from 1 ms to 3 s and each mark is 10 times the one before. "
                  "The dot is the median over rounds of the slowest 1 in 100 (p99), the bar runs from the lowest "
                  "to the highest round. The capacity arm (closed loop) is left out."))
        return -1;
    pg_p_begin(p, NULL);
    pg_t(p, "With freezes and no limit (H3-none) the slowest 1 in 100 took ");
    say_median(p, root, "H3-none", "p99_ms", "ms");
    pg_t(p, "; with a 25 ms limit and a stand-in (H3-fb25) it took ");
    say_median(p, root, "H3-fb25", "p99_ms", "ms");
    pg_t(p, ", and the price was ");
    say_median(p, root, "H3-fb25", "standin_share", "pct");
    pg_t(p, " stand-in answers. Two retries at once (H3-r2): ");
    say_median(p, root, "H3-r2", "p99_ms", "ms");
    pg_t(p, " with ");
    say_median(p, root, "H3-r2", "standin_share", "pct");
    pg_t(p, " stand-ins and ");
    say_median(p, root, "H3-r2", "lookups_per_request", "x");
    pg_t(p, " lookups per request. Asking twice after 10 ms (H3-hedge): ");
    say_median(p, root, "H3-hedge", "p99_ms", "ms");
    pg_t(p, ". All values are medians over rounds.");
    pg_p_end(p);
    return 0;
}

static int sec_nolimit(page *p, json_t *root)
{
    pg_h(p, 2, "nolimit", "How many requests waited longer than this?");
    if (pg_figure(p, "exceed", "How many requests waited longer than this?",
                  "Read each line as: this share of requests waited longer than the time below. Both scales grow "
                  "by 10 times at each mark. No limit: F3-none (healthy store), L3-none (long tail), H3-none "
                  "(freezes); a 25 ms limit with an error (H3-t25) and with a stand-in (H3-fb25)."))
        return -1;
    pg_p_begin(p, NULL);
    pg_t(p, "The middle request hardly changes: its wait was ");
    say_median(p, root, "H3-none", "p50_ms", "ms");
    pg_t(p, " with freezes and no limit, ");
    say_median(p, root, "L3-none", "p50_ms", "ms");
    pg_t(p, " with the long tail alone. The damage is in the slowest: the single slowest request of H3-none "
            "took ");
    say_median(p, root, "H3-none", "max_ms", "ms");
    pg_t(p, " (median over rounds).");
    pg_p_end(p);
    return 0;
}

static int sec_limits(page *p, json_t *root)
{
    pg_h(p, 2, "limits", "How many errors each limit gave");
    if (pg_figure(p, "errors", "How many errors each limit gave",
                  "A limit of T ms on the lookup, then an error (HTTP 504) and no score. The bar is the share of "
                  "requests answered with an error; under each bar, the slowest 1 in 100, which sits just above "
                  "the limit by design."))
        return -1;
    pg_p_begin(p, NULL);
    pg_t(p, "A 10 ms limit cut off ");
    say_median(p, root, "H3-t10", "error_share", "pct");
    pg_t(p, " of requests, a 25 ms limit ");
    say_median(p, root, "H3-t25", "error_share", "pct");
    pg_t(p, ", 50 ms ");
    say_median(p, root, "H3-t50", "error_share", "pct");
    pg_t(p, ", 100 ms ");
    say_median(p, root, "H3-t100", "error_share", "pct");
    pg_t(p, ". A short limit also cuts off lookups that were merely slow, not frozen.");
    pg_p_end(p);
    return 0;
}

static int sec_frozen(page *p, json_t *root, const fg_choice *c)
{
    (void)root;
    pg_h(p, 2, "frozen", "One frozen lookup, followed through");
    pg_p_begin(p, NULL);
    pg_t(p, "A timeout protects the person waiting. What happens to the lookup itself? Here is the first request "
            "of the run whose first lookup drew a freeze (a planned wait over 1 s), followed from its scheduled "
            "arrival to the store's answer that nobody wanted any more.");
    if (c->nfrozen == 2)
        pg_t(p, " Below it, the same request in the same round with the deadline passed down to the store: every "
                "arm of a round meets the same dice.");
    pg_p_end(p);
    if (pg_figure(p, "frozen", "One frozen lookup, followed through service and store",
                  "Each bar is one step of one request's life, on a log time scale from its scheduled arrival. "
                  "The service stops waiting at its limit and answers; unless the store is told the deadline, it "
                  "keeps the lookup in a slot until the freeze ends."))
        return -1;
    if (!c->nfrozen) {
        pg_p_begin(p, "note");
        pg_t(p, "No run of a freezing arm with a limit was measured, or none drew a freeze: not measured.");
        pg_p_end(p);
        return 0;
    }
    const char *heads[3] = {"step (time from the scheduled arrival, ms)", c->frozen_run[0], c->frozen_run[1]};
    tb_begin(p, NULL, 1 + c->nfrozen, heads);
    static const char *const rows[][3] = {
        {"request number", "j", "int"},
        {"table row asked", "row", "int"},
        {"wait drawn for its first lookup (ms)", "planned_ns", "ns_ms"},
        {"remaining budget the lookup carried (ms; 0: none)", "budget_ns", "ns_ms"},
        {"scheduled arrival", "sched_ns", "ns_ms"},
        {"tester sent the request", "send_ns", "ns_ms"},
        {"service read the request", "service_arrive_ns", "ns_ms"},
        {"service sent the lookup", "lookup_sent_ns", "ns_ms"},
        {"store read the lookup", "store_arrive_ns", "ns_ms"},
        {"store gave it a slot", "store_start_ns", "ns_ms"},
        {"service stopped waiting for it", "service_gave_up_ns", "ns_ms"},
        {"service answered", "service_answer_ns", "ns_ms"},
        {"tester read the answer", "answer_ns", "ns_ms"},
        {"store answered the lookup (or dropped it)", "store_end_ns", "ns_ms"},
        {"kind of answer (L live, K last-known, D default, E error)", "kind", "str"},
        {"the service's record of the lookup (A used, T timed out, D dropped)", "a0_out", "str"},
        {"the store's outcome (A answered after its wait, D dropped)", "store_outcome", "str"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        tb_row(p);
        tb_th(p, "%s", rows[i][0]);
        for (int k = 0; k < c->nfrozen; k++) {
            tb_td_begin(p, NULL);
            pg_v(p, rows[i][2], "/extra/runs/%s/frozen_example/%s", c->frozen_run[k], rows[i][1]);
            tb_td_end(p);
        }
    }
    tb_end(p);
    return 0;
}

static int sec_standins(page *p, json_t *root)
{
    pg_h(p, 2, "standins", "Live answers and stand-ins");
    if (pg_figure(p, "split", "Live answers and stand-ins (all rounds together)",
                  "For each measured arm, the share of all its requests (every round together) that got the "
                  "customer's score one month earlier (last-known), the default score (a customer new a month "
                  "earlier), or an error. Everything else got the model's live score (right)."))
        return -1;
    pg_p_begin(p, NULL);
    if (measured(root, "H3-fb25")) {
        pg_t(p, "With a 25 ms limit and a stand-in (H3-fb25), ");
        pg_v(p, "int", "/arms/H3-fb25/live_total");
        pg_t(p, " of ");
        pg_v(p, "int", "/arms/H3-fb25/n_total");
        pg_t(p, " requests got the live score, all rounds together; ");
        pg_v(p, "int", "/arms/H3-fb25/last_known_total");
        pg_t(p, " got last month's score and ");
        pg_v(p, "int", "/arms/H3-fb25/default_total");
        pg_t(p, " the default score. A limit with an error and a limit with a stand-in stop at the same 25 ms: "
                "their slowest 1 in 100 was ");
        say_median(p, root, "H3-t25", "p99_ms", "ms");
        pg_t(p, " and ");
        say_median(p, root, "H3-fb25", "p99_ms", "ms");
        pg_t(p, ".");
    } else {
        pg_t(p, "The 25 ms stand-in arm (H3-fb25): ");
        pg_nm(p);
        pg_t(p, ".");
    }
    pg_p_end(p);
    return 0;
}

static int sec_deadline(page *p, json_t *root)
{
    pg_h(p, 2, "deadline", "A deadline, kept or passed down");
    pg_p_begin(p, NULL);
    pg_t(p, "A timeout limits one step; a deadline limits the whole trip. The deadline arms give each request "
            "25 ms from its scheduled arrival and keep 2 ms back for scoring. H3-dl keeps the deadline in the "
            "service; H3-dldown also sends the remaining budget with the lookup, so the store drops it when the "
            "budget runs out and frees the slot.");
    pg_p_end(p);
    if (pg_figure(p, "slots", "The store's slot time per lookup: deadline kept or passed down",
                  "Slot time per lookup (the time a lookup held one of the store's 16 slots, divided by the "
                  "lookups the store received), round by round. Rounds pair up: every arm of a round meets the "
                  "same dice."))
        return -1;
    pg_p_begin(p, NULL);
    pg_t(p, "Slot time per lookup, median over rounds: ");
    say_median(p, root, "H3-dl", "slot_ms_per_lookup", "ms");
    pg_t(p, " with the deadline kept in the service, ");
    say_median(p, root, "H3-dldown", "slot_ms_per_lookup", "ms");
    pg_t(p, " with it passed down, where the store cut ");
    if (measured(root, "H3-dldown"))
        pg_v(p, "int", "/arms/H3-dldown/cut_short_total");
    else
        pg_nm(p);
    pg_t(p, " lookups short over all rounds. What the user saw: the slowest 1 in 100 was ");
    say_median(p, root, "H3-dl", "p99_ms", "ms");
    pg_t(p, " and ");
    say_median(p, root, "H3-dldown", "p99_ms", "ms");
    pg_t(p, "; stand-ins ");
    say_median(p, root, "H3-dl", "standin_share", "pct");
    pg_t(p, " and ");
    say_median(p, root, "H3-dldown", "standin_share", "pct");
    pg_t(p, ". The verdicts below say which of these differences hold in every round.");
    pg_p_end(p);
    return 0;
}

static int sec_hedge(page *p, json_t *root)
{
    pg_h(p, 2, "hedge", "Asking twice");
    if (pg_figure(p, "hedge", "Asking twice against the plain limit",
                  "A hedged request sends a second lookup when the first has not answered after 10 ms and takes "
                  "whichever answers first, within the same 25 ms limit. Left: the slowest 1 in 100; right: the "
                  "price, in lookups per request. Long tail (L3) and freezes (H3)."))
        return -1;
    pg_p_begin(p, NULL);
    pg_t(p, "Long tail: ");
    say_median(p, root, "L3-t25", "p99_ms", "ms");
    pg_t(p, " with the plain limit, ");
    say_median(p, root, "L3-hedge", "p99_ms", "ms");
    pg_t(p, " asking twice, for ");
    say_median(p, root, "L3-hedge", "lookups_per_request", "x");
    pg_t(p, " lookups per request. Freezes: ");
    say_median(p, root, "H3-fb25", "p99_ms", "ms");
    pg_t(p, " and ");
    say_median(p, root, "H3-hedge", "p99_ms", "ms");
    pg_t(p, ". In this store each second lookup draws its own wait; if the whole store is slow, both are slow.");
    pg_p_end(p);
    return 0;
}

static int sec_ap(page *p, json_t *root)
{
    static const char *const kinds[3] = {"last_known", "default", "none"};
    static const char *const kn[3] = {"last month's score", "the default score", "no score"};
    pg_h(p, 2, "ap", "What the stand-ins cost the ranking");
    if (fig_ap_ready(root)) {
        if (pg_figure(p, "ap", "What the stand-ins cost the ranking (change in AP, 95% interval)",
                      "The change in average precision (AP over the whole test table, the mean of its cutoffs) when "
                      "the rows that got a stand-in in a round get each kind of stand-in, against every answer "
                      "live, averaged over the rounds. Dots and bars: the mean over the model seeds and its 95% "
                      "interval (a paired bootstrap over customers), copied from the lab's ap.json; black ticks: "
                      "model seed 1, recomputed by the verifier. An interval that holds zero is too close to call."))
            return -1;
        json_t *seeds = rd_at(root, "/ap/copied_from_ap_json/model_seeds");
        pg_p_begin(p, NULL);
        pg_t(p, "Recomputed by the verifier, for model seed 1 (the reference scores): from the raw tester files, "
                "which rows got a stand-in in each round and how many, and the AP with each kind of stand-in. "
                "With every answer live, seed 1's AP is ");
        pg_v(p, "pct", "/ap/live_ap/default_seed");
        pg_t(p, " over ");
        pg_v(p, "int", "/ap/test_rows");
        pg_t(p, " rows of ");
        pg_v(p, "int", "/ap/customers");
        pg_t(p, " customers. Copied from the lab's ap.json, not recomputed: the means over the ");
        if (json_array_size(seeds) > 0)
            pg_v(p, "int", "/ap/copied_from_ap_json/model_seeds/%zu", json_array_size(seeds) - 1);
        else
            pg_nm(p);
        pg_t(p, " model seeds (each a model the lab retrained), their 95%% intervals (");
        pg_v(p, "int", "/ap/copied_from_ap_json/bootstrap/used");
        pg_t(p, " of ");
        pg_v(p, "int", "/ap/copied_from_ap_json/bootstrap/resamples");
        pg_t(p, " bootstrap resamples kept) and the verdicts. The verifier checked that they agree with seed 1 "
                "and with each other: seed 1's entry is its own number, each mean is the mean of its seeds, the "
                "verdict follows the interval.");
        json_t *skipped = rd_at(root, "/ap/skipped_arms");
        if (json_array_size(skipped) > 0) {
            pg_t(p, " Chosen but without runs, so not measured: ");
            for (size_t i = 0; i < json_array_size(skipped); i++) {
                if (i)
                    pg_t(p, ", ");
                pg_v(p, "str", "/ap/skipped_arms/%zu", i);
            }
            pg_t(p, ".");
        }
        pg_p_end(p);
        const char *heads[] = {"arm", "stand-in", "rows with a stand-in (recomputed)", "change, seed 1 (recomputed)",
                               "change, mean over the seeds (copied)", "95% interval (copied)", "verdict (copied)"};
        tb_begin(p, NULL, 7, heads);
        json_t *arms = rd_at(root, "/ap/copied_from_ap_json/arms");
        const char *key;
        json_t *a;
        json_object_foreach(arms, key, a)
        {
            for (int k = 0; k < 3; k++) {
                tb_row(p);
                tb_th(p, "%s", key);
                tb_td_begin(p, "l");
                pg_t(p, "%s", kn[k]);
                tb_td_end(p);
                tb_td_begin(p, NULL);
                pg_v(p, "pct", "/ap/arms/%s/standin_rows_share", key);
                tb_td_end(p);
                tb_td_begin(p, NULL);
                pg_v(p, "spp", "/ap/arms/%s/kinds/%s/change_default_seed", key, kinds[k]);
                tb_td_end(p);
                tb_td_begin(p, NULL);
                pg_v(p, "spp", "/ap/copied_from_ap_json/arms/%s/kinds/%s/change", key, kinds[k]);
                tb_td_end(p);
                tb_td_begin(p, NULL);
                pg_v(p, "spp", "/ap/copied_from_ap_json/arms/%s/kinds/%s/ci95/0", key, kinds[k]);
                pg_t(p, " to ");
                pg_v(p, "spp", "/ap/copied_from_ap_json/arms/%s/kinds/%s/ci95/1", key, kinds[k]);
                tb_td_end(p);
                tb_td_begin(p, "l");
                pg_v(p, "str", "/ap/copied_from_ap_json/arms/%s/kinds/%s/verdict", key, kinds[k]);
                if (json_is_string(rd_at(a, "/kinds/%s/direction", kinds[k]))) {
                    pg_t(p, ", AP ");
                    pg_v(p, "str", "/ap/copied_from_ap_json/arms/%s/kinds/%s/direction", key, kinds[k]);
                }
                tb_td_end(p);
            }
        }
        tb_end(p);
        pg_p_begin(p, NULL);
        pg_t(p, "Changes in percentage points of AP; negative: the stand-ins cost AP. The change belongs to the share "
                "of the table's rows that carried a stand-in, which is smaller than the share of answers that were "
                "stand-ins: only the rows asked in a round can get one, and AP is over every row.");
        pg_p_end(p);
        return 0;
    }
    pg_p_begin(p, "note");
    pg_t(p, "Not on this page: the stand-ins' cost in AP, which the verifier has not checked. The verifier says: ");
    pg_v(p, "str", "/checks/ap/note");
    pg_t(p, ". The page prints only what the verifier checked, so this figure waits for a checked ap.json.");
    pg_p_end(p);
    return 0;
}

static void sec_arms(page *p, json_t *root)
{
    pg_h(p, 2, "arms", "Every arm's figures");
    pg_p_begin(p, NULL);
    pg_t(p, "Each cell is the median over the arm's rounds, with the lowest and highest round in brackets; "
            "only quiet runs count (a round whose run was disturbed is named in the rounds column and left "
            "out, see Quiet runs). Times in ms from the scheduled arrival; shares of all requests.");
    pg_p_end(p);
    rd_arm *arms;
    size_t na = rd_arms(root, &arms);
    const char *h1[] = {"arm", "what it does", "rounds", "requests (all rounds)", "p50 ms", "p90 ms", "p99 ms",
                        "p99.9 ms", "max ms", "tester late, p99 µs"};
    pg_h(p, 3, "arms-time", "How long requests waited");
    tb_begin(p, "arms", 10, h1);
    for (size_t i = 0; i < na; i++) {
        const char *a = arms[i].name;
        char words[160];
        rd_arm_words(a, words, sizeof words);
        tb_row(p);
        tb_th(p, "%s", a);
        tb_th(p, "%s", words);
        if (!arms[i].measured) {
            tb_td_span(p, 8, "l");
            pg_nm(p);
            tb_td_end(p);
            continue;
        }
        tb_td_begin(p, NULL);
        json_t *rr = rd_at(root, "/arms/%s/rounds", a);
        for (size_t k = 0; k < json_array_size(rr); k++) {
            if (k)
                pg_t(p, ", ");
            pg_v(p, "int", "/arms/%s/rounds/%zu", a, k);
        }
        /* rounds whose run was disturbed are not in the medians (Quiet runs) */
        json_t *dr = rd_at(root, "/arms/%s/rounds_disturbed", a);
        if (json_array_size(dr)) {
            pg_t(p, json_array_size(rr) ? " (left out, disturbed: " : "none (disturbed: ");
            for (size_t k = 0; k < json_array_size(dr); k++) {
                if (k)
                    pg_t(p, ", ");
                pg_v(p, "int", "/arms/%s/rounds_disturbed/%zu", a, k);
            }
            pg_t(p, ")");
        }
        tb_td_end(p);
        tb_td_begin(p, NULL);
        pg_v(p, "int", "/arms/%s/n_total", a);
        tb_td_end(p);
        static const char *const f[] = {"p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms"};
        for (int k = 0; k < 5; k++) {
            tb_td_begin(p, NULL);
            pg_range(p, "ms", a, f[k]);
            tb_td_end(p);
        }
        tb_td_begin(p, NULL);
        pg_range(p, "us", a, "late_p99_us");
        tb_td_end(p);
    }
    tb_end(p);

    pg_h(p, 3, "arms-answers", "What they answered and what it cost the store");
    const char *h2[] = {"arm", "live", "stand-in", "last-known", "default", "error", "lookups per request",
                        "slot ms per lookup", "slot ms per request", "cut short by the store", "answers per second"};
    tb_begin(p, "arms", 11, h2);
    for (size_t i = 0; i < na; i++) {
        const char *a = arms[i].name;
        tb_row(p);
        tb_th(p, "%s", a);
        if (!arms[i].measured) {
            tb_td_span(p, 10, "l");
            pg_nm(p);
            tb_td_end(p);
            continue;
        }
        static const char *const f[] = {"live_share", "standin_share", "last_known_share", "default_share",
                                        "error_share"};
        for (int k = 0; k < 5; k++) {
            tb_td_begin(p, NULL);
            pg_range(p, "pct", a, f[k]);
            tb_td_end(p);
        }
        tb_td_begin(p, NULL);
        pg_range(p, "x", a, "lookups_per_request");
        tb_td_end(p);
        tb_td_begin(p, NULL);
        pg_range(p, "ms", a, "slot_ms_per_lookup");
        tb_td_end(p);
        tb_td_begin(p, NULL);
        pg_range(p, "ms", a, "slot_ms_per_request");
        tb_td_end(p);
        tb_td_begin(p, NULL);
        pg_range(p, "int", a, "cut_short");
        tb_td_end(p);
        tb_td_begin(p, NULL);
        pg_range(p, "s", a, "answers_per_s");
        tb_td_end(p);
    }
    tb_end(p);
    rd_arms_free(arms);
}

static void sec_verdicts(page *p, json_t *root)
{
    pg_h(p, 2, "verdicts", "Every verdict");
    pg_p_begin(p, NULL);
    pg_t(p, "Two arms are clearly different on a figure when, in every round both have (at least two), the "
            "difference has the same sign: rounds pair up because they share their dice. Otherwise the "
            "difference is too close to call.");
    pg_p_end(p);
    const char *h[] = {"a", "b", "figure", "what it asks", "a − b, round by round", "verdict"};
    tb_begin(p, "verdicts", 6, h);
    json_t *vs = rd_at(root, "/verdicts");
    for (size_t i = 0; i < json_array_size(vs); i++) {
        json_t *v = json_array_get(vs, i);
        const char *a = json_string_value(json_object_get(v, "a"));
        const char *b = json_string_value(json_object_get(v, "b"));
        const char *fig = json_string_value(json_object_get(v, "figure"));
        if (!a || !b || !fig)
            continue;
        tb_row(p);
        tb_td_begin(p, "l nw");
        pg_v(p, "str", "/verdicts/%zu/a", i);
        tb_td_end(p);
        tb_td_begin(p, "l nw");
        pg_v(p, "str", "/verdicts/%zu/b", i);
        tb_td_end(p);
        tb_td_begin(p, "l");
        pg_v(p, "str", "/verdicts/%zu/figure", i);
        tb_td_end(p);
        tb_td_begin(p, "l");
        pg_v(p, "str", "/verdicts/%zu/note", i);
        tb_td_end(p);
        tb_td_begin(p, "l");
        json_t *rr = json_object_get(v, "rounds");
        const char *kind = kind_of_figure(fig, 1);
        for (size_t k = 0; k < json_array_size(rr); k++) {
            if (k)
                pg_t(p, "; ");
            pg_t(p, "round ");
            pg_v(p, "int", "/verdicts/%zu/rounds/%zu", i, k);
            pg_t(p, ": ");
            pg_v(p, kind, "/verdicts/%zu/diffs/%zu", i, k);
            if (!strcmp(kind, "sms"))
                pg_t(p, " ms");
        }
        int ma = measured(root, a), mb = measured(root, b);
        if (!ma || !mb) {
            if (json_array_size(rr))
                pg_t(p, "; ");
            pg_nm(p);
            pg_t(p, ": ");
            if (!ma)
                pg_v(p, "str", "/verdicts/%zu/a", i);
            if (!ma && !mb && strcmp(a, b))
                pg_t(p, ", ");
            if (!mb && (ma || strcmp(a, b)))
                pg_v(p, "str", "/verdicts/%zu/b", i);
        } else if (!json_array_size(rr)) {
            pg_t(p, "no round in common");
        }
        tb_td_end(p);
        tb_td_begin(p, "l");
        pg_v(p, "str", "/verdicts/%zu/verdict", i);
        if (json_is_string(json_object_get(v, "direction"))) {
            pg_t(p, " (");
            pg_v(p, "str", "/verdicts/%zu/direction", i);
            pg_t(p, ")");
        }
        tb_td_end(p);
    }
    tb_end(p);
}

static void sec_guesses(page *p, json_t *root)
{
    pg_h(p, 2, "guesses", "Every guess, right or wrong");
    pg_p_begin(p, NULL);
    pg_t(p, "The guesses were written before any timed run, each with a machine-checkable predicate. A clause "
            "about an arm without runs is false, so a guess about an arm this study did not measure counts as "
            "wrong.");
    pg_p_end(p);
    const char *h[] = {"id", "the guess", "its predicate", "clauses", "right or wrong"};
    tb_begin(p, "guesses", 5, h);
    json_t *gs = rd_at(root, "/guesses");
    json_t *texts = rd_at(root, "/extra/guesses");
    for (size_t i = 0; i < json_array_size(gs); i++) {
        json_t *g = json_array_get(gs, i);
        const char *id = json_string_value(json_object_get(g, "id"));
        tb_row(p);
        tb_th(p, "%s", id ? id : "");
        tb_td_begin(p, "l");
        size_t ti = (size_t)-1;
        for (size_t k = 0; k < json_array_size(texts); k++) {
            const char *tid = json_string_value(json_object_get(json_array_get(texts, k), "id"));
            if (id && tid && !strcmp(id, tid)) {
                ti = k;
                break;
            }
        }
        if (ti != (size_t)-1)
            pg_v(p, "str", "/extra/guesses/%zu/guess", ti);
        tb_td_end(p);
        tb_td_begin(p, "l");
        pg_v(p, "str", "/guesses/%zu/predicate", i);
        tb_td_end(p);
        tb_td_begin(p, "l");
        json_t *cl = json_object_get(g, "clauses");
        for (size_t k = 0; k < json_array_size(cl); k++) {
            if (k)
                pg_t(p, ", ");
            pg_v(p, "tf", "/guesses/%zu/clauses/%zu", i, k);
        }
        tb_td_end(p);
        tb_td_begin(p, json_is_true(json_object_get(g, "right")) ? "l right" : "l wrong");
        pg_v(p, "right", "/guesses/%zu/right", i);
        tb_td_end(p);
    }
    tb_end(p);
}

static int sec_steps(page *p, json_t *root)
{
    pg_h(p, 2, "steps", "The slowest requests, step by step");
    pg_p_begin(p, NULL);
    pg_t(p, "For the slowest 1%% of each run's answered requests, the mean of their latency split into steps: the "
            "tester's lateness (sent minus scheduled), the trip to the service, waiting for the lookups (from the "
            "service reading the request to the end of its last lookup), scoring and answering, and the trip "
            "back to the tester. The steps add up to the latency. On one core the tester often reads an answer "
            "before the service has noted the time it finished writing it, so the last step can be slightly "
            "negative.");
    pg_p_end(p);
    if (pg_figure(p, "steps", "The slowest 1 in 100 requests: where their time went",
                  "One bar per run of the arms with a limit or deadline; the number at the right is the mean "
                  "latency of the run's slowest 1% of answered requests."))
        return -1;
    const char *h[] = {"run", "answered", "in the slowest 1%", "the fastest of them, ms", "mean latency, ms",
                       "tester late, ms", "to the service, ms", "waiting for lookups, ms", "scoring and answer, ms",
                       "back to the tester, ms"};
    tb_begin(p, "steps", 10, h);
    json_t *runs = rd_at(root, "/extra/runs");
    const char *run;
    json_t *e;
    json_object_foreach(runs, run, e)
    {
        tb_row(p);
        tb_th(p, "%s", run);
        static const char *const k[] = {"answered", "requests", "fastest_of_them_ms", "latency_ms", "late_ms",
                                        "to_service_ms", "lookups_ms", "score_answer_ms", "back_ms"};
        for (int i = 0; i < 9; i++) {
            tb_td_begin(p, NULL);
            pg_v(p, i < 2 ? "int" : "ms", "/extra/runs/%s/slowest_steps/%s", run, k[i]);
            tb_td_end(p);
        }
    }
    tb_end(p);
    return 0;
}

static void sec_method(page *p, json_t *root)
{
    pg_h(p, 2, "method", "How to read this page");
    pg_ul_begin(p);
    pg_li_begin(p);
    pg_t(p, "Latency runs from a request's scheduled arrival to the last byte of its answer, so a slow service "
            "cannot hide its slowness by delaying the tester. Percentiles interpolate linearly between closest "
            "ranks (numpy's default); an arm's figure is the median over its rounds.");
    pg_li_end(p);
    pg_li_begin(p);
    pg_t(p, "The lines of \"how many waited longer\" are drawn at ");
    pg_v(p, "int", "/extra/exceed_grid_ns/0");
    pg_t(p, " ns and then at ");
    json_t *g = rd_at(root, "/extra/exceed_grid_ns");
    pg_t(p, "points equally spaced on a log scale up to ");
    if (json_array_size(g))
        pg_v(p, "int", "/extra/exceed_grid_ns/%zu", json_array_size(g) - 1);
    pg_t(p, " ns; a request never answered counts as waiting longer than every point.");
    pg_li_end(p);
    pg_li_begin(p);
    pg_t(p, "A frozen lookup is one whose planned wait was over one second. The example is the lowest request "
            "number whose first lookup froze.");
    pg_li_end(p);
    pg_li_begin(p);
    pg_t(p, "Every printed value carries, in the page's source, the path of the number it comes from in "
            "verified.json (data-src). The page fetches nothing: figures and styles are inline.");
    pg_li_end(p);
    pg_li_begin(p);
    pg_t(p, "How the study was made, stage by stage and run by run (commands, times, versions, fingerprints, the "
            "preregistration, runs measured again and why): ");
    pg_link(p, "provenance.md", "provenance.md");
    pg_t(p, ", beside this page, written from the provenance records; the verifier writes it again and finds it "
            "equal.");
    pg_li_end(p);
    pg_ul_end(p);
    pg_h(p, 3, "checks", "What the verifier checked");
    const char *h[] = {"check", "value"};
    tb_begin(p, NULL, 2, h);
    static const char *const k[][3] = {
        {"mismatches in the fingerprint manifest", "/checks/mismatches_by_check/manifest", "int"},
        {"mismatches in the raw files and answers", "/checks/mismatches_by_check/raw_files_and_answers", "int"},
        {"mismatches with the lab's results", "/checks/mismatches_by_check/results_json", "int"},
        {"files scanned for secrets", "/checks/scan/files", "int"},
        {"of them compressed", "/checks/scan/gzip_files", "int"},
        {"bytes scanned", "/checks/scan/bytes", "int"},
        {"findings", "/checks/scan/findings", "int"},
        {"tolerance: times", "/checks/tolerances/times", "str"},
        {"tolerance: ratios", "/checks/tolerances/ratios", "str"},
        {"tolerance: per-second means", "/checks/tolerances/per_second_means", "str"},
        {"tolerance: counts", "/checks/tolerances/counts", "str"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        tb_row(p);
        tb_th(p, "%s", k[i][0]);
        tb_td_begin(p, "l");
        pg_v(p, k[i][2], "%s", k[i][1]);
        tb_td_end(p);
    }
    tb_end(p);
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

int main(int argc, char **argv)
{
    const char *root_dir = ".", *in = NULL, *out = NULL;
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
    char inpath[4096], outdir[4096];
    snprintf(inpath, sizeof inpath, "%s", in ? in : "");
    if (!in)
        snprintf(inpath, sizeof inpath, "%s/results/verified.json", root_dir);
    if (out)
        snprintf(outdir, sizeof outdir, "%s", out);
    else
        snprintf(outdir, sizeof outdir, "%s/results", root_dir);

    char derr[4400] = "", words_file[4200];
    snprintf(words_file, sizeof words_file, "%s/arm-words.tsv", tpl_dir);
    if (rd_design_load(arms_file, words_file, derr, sizeof derr) != 0) {
        fprintf(stderr, "report: the registered arms: %s\n", derr);
        return 1;
    }
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
    rc |= fig_hedge(root, tmpfig);
    rc |= fig_steps(root, tmpfig);
    if (fig_ap_ready(root))
        rc |= fig_ap(root, tmpfig);
    rc |= ot_figure(root, tmpfig);
    rc |= df_figures(root, tmpfig);
    rc |= qt_figures(root, tmpfig);

    page *p = pg_new(root, tmpfig);
    if (!rc) {
        sec_head(p, root);
        rc |= sec_main(p, root);
        rc |= sec_nolimit(p, root);
        rc |= sec_limits(p, root);
        rc |= sec_frozen(p, root, &c);
        rc |= sec_standins(p, root);
        rc |= sec_deadline(p, root);
        rc |= fl_section(p, root, &fc);
        rc |= fl_predicted(p, root);
        fl_odds(p, root);
        rc |= sec_hedge(p, root);
        rc |= sec_ap(p, root);
        rc |= ot_section(p, root);
        rc |= df_section(p, root);
        sec_arms(p, root);
        sec_verdicts(p, root);
        sec_guesses(p, root);
        rc |= sec_steps(p, root);
        mc_section(p, root);
        rc |= qt_section(p, root);
        mc_cost(p, root);
        sec_method(p, root);
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
        rc = pg_write(p, "Timeouts and fallbacks: the verified results", html, md);
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
