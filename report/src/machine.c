/* machine.c: the sections on the machine (host facts, idle gate, CPU, memory) and its time.  The contract is in machine.h. */
#include "machine.h"

#include <string.h>

#include "rdata.h"

void mc_section(page *p, json_t *root)
{
    pg_h(p, 2, "machine", "The machine and the idle gate");
    json_t *runs = rd_at(root, "/extra/runs");
    const char *first = NULL, *run;
    json_t *e;
    int same = 1;
    json_object_foreach(runs, run, e)
    {
        if (!first) {
            first = run;
            continue;
        }
        json_t *h0 = rd_at(root, "/extra/runs/%s/machine/host", first), *h1 = json_object_get(json_object_get(e, "machine"), "host");
        if (!json_equal(h0, h1))
            same = 0;
    }
    pg_p_begin(p, NULL);
    pg_t(p, "All three processes (tester, service, store) ran on one host and, by default, were pinned to one core. "
            "Before each run the idle gate waits until the machine is at least 95%% idle over 2 s, and records "
            "idle, steal and logged-in users. %s",
         !first ? "No run was measured." : same ? "Every run reports the same host facts:" : "The runs report different host facts; the first run's:");
    pg_p_end(p);
    if (first) {
        const char *h[] = {"host fact", "value"};
        tb_begin(p, NULL, 2, h);
        static const char *const hk[][3] = {
            {"processor", "host/cpu_model", "str"}, {"processors online", "host/cpus_online", "int"},
            {"memory (kB)", "host/mem_total_kb", "kb"}, {"kernel", "host/kernel", "str"},
            {"architecture", "host/arch", "str"},  {"system", "host/os", "str"},
            {"cores the processes were pinned to", "cores", "str"},
            {"nice value asked for the tester", "tester_nice", "int"},
        };
        for (size_t i = 0; i < sizeof hk / sizeof hk[0]; i++) {
            tb_row(p);
            tb_th(p, "%s", hk[i][0]);
            tb_td_begin(p, "l");
            pg_v(p, hk[i][2], "/extra/runs/%s/machine/%s", first, hk[i][1]);
            tb_td_end(p);
        }
        tb_end(p);
    }
    pg_h(p, 3, "machine-runs", "Each run");
    const char *h[] = {"run", "gate on", "gate passed", "idle", "steal", "waited (s)", "users at start",
                       "users at end", "CPU tester", "CPU service", "CPU store", "peak memory tester (kB)",
                       "service (kB)", "store (kB)", "wall (s)"};
    tb_begin(p, "machine", 15, h);
    json_object_foreach(runs, run, e)
    {
        tb_row(p);
        tb_th(p, "%s", run);
        static const char *const k[][2] = {
            {"idle/enabled", "tf"},      {"idle/passed", "tf"},       {"idle/idle_share", "pct"},
            {"idle/steal_share", "pct"}, {"idle/waited_s", "s"},      {"idle/users_start", "int"},
            {"idle/users_end", "int"},   {"cpu/tester/share", "pct"}, {"cpu/service/share", "pct"},
            {"cpu/store/share", "pct"},  {"peak_rss_kb/tester", "kb"}, {"peak_rss_kb/service", "kb"},
            {"peak_rss_kb/store", "kb"}, {"cpu/wall_s", "s"},
        };
        for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
            tb_td_begin(p, NULL);
            pg_v(p, k[i][1], "/extra/runs/%s/machine/%s", run, k[i][0]);
            tb_td_end(p);
        }
    }
    tb_end(p);
    pg_p_begin(p, NULL);
    pg_t(p, "CPU: the share of the run's wall time each process used (user plus system). A gate that was off "
            "(tests only) leaves idle and steal empty.");
    pg_p_end(p);
}

void mc_cost(page *p, json_t *root)
{
    (void)root;
    pg_h(p, 2, "cost", "The cost");
    pg_p_begin(p, NULL);
    pg_t(p, "The measurement's machine time, summed over the runs from their run.json records.");
    pg_p_end(p);
    const char *h[] = {"", "value"};
    tb_begin(p, NULL, 2, h);
    static const char *const k[][3] = {
        {"runs", "runs", "int"},
        {"scheduled seconds of requests", "scheduled_s", "s"},
        {"wall seconds of the runs", "wall_s", "s"},
        {"CPU seconds, tester", "cpu_s/tester", "s"},
        {"CPU seconds, service", "cpu_s/service", "s"},
        {"CPU seconds, store", "cpu_s/store", "s"},
        {"CPU seconds, all three", "cpu_s_total", "s"},
        {"largest peak memory, service (kB)", "peak_rss_kb_max/service", "kb"},
        {"largest peak memory, store (kB)", "peak_rss_kb_max/store", "kb"},
        {"runs with the idle gate on", "idle_gate_enabled_runs", "int"},
        {"runs whose gate passed", "idle_gate_passed_runs", "int"},
        {"lowest idle share at a gate", "idle_share_min", "pct"},
        {"highest steal share at a gate", "steal_share_max", "pct"},
        {"most users logged in at a start or end", "users_max", "int"},
        {"first run started (UTC)", "first_start_utc", "str"},
        {"last run ended (UTC)", "last_end_utc", "str"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        tb_row(p);
        tb_th(p, "%s", k[i][0]);
        tb_td_begin(p, NULL);
        pg_v(p, k[i][2], "/extra/machine/%s", k[i][1]);
        tb_td_end(p);
    }
    tb_end(p);
    pg_p_begin(p, "note");
    pg_t(p, "The price of a rented machine is not on this page: the verifier does not check the lab's cost file, "
            "and this page prints only what the verifier recomputed.");
    pg_p_end(p);
}
