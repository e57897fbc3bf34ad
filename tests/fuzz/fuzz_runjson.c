/* fuzz_runjson: collect's checks of a run's run.json (read_run_json in
 * pipeline/collect/collectload.c: arm, round, seconds, t0_ns, the fault with its
 * window through lab/core/faults.c's fault_parse, arm_spec and stores), on any
 * JSON text.  collectload.c is compiled into this harness (the reader is
 * static); the database calls are stubs.  Properties: a run.json accepted
 * has 1 or 2 stores, a known fault, and a window only for a scenario with
 * one (from < to when to is given); a refusal names the file.
 */
#include "../../pipeline/collect/collectload.c"

#include "fuzzfile.h"
#include "pgxstub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *rj = json_loadb((const char *)data, size, 0, &je);
    if (!rj)
        return 0;
    run_info ri;
    memset(&ri, 0, sizeof ri);
    char err[UT_ERRLEN] = "";
    if (read_run_json(rj, "run.json", &ri, err, sizeof err) != 0) {
        FZ_ASSERT(strstr(err, "run.json") != NULL);
    } else {
        FZ_ASSERT(ri.nstores == 1 || ri.nstores == 2);
        fault_spec f;
        char why[160];
        FZ_ASSERT(fault_parse(ri.p[P_FAULT], &f, why, sizeof why) == 0);
        FZ_ASSERT(fault_has_window(f.kind) || ri.p[P_FROM] == NULL);
        if (ri.p[P_FROM] && ri.p[P_TO])
            FZ_ASSERT(strtoll(ri.p[P_FROM], NULL, 10) < strtoll(ri.p[P_TO], NULL, 10));
        for (int i = 0; i < P_N; i++)
            if (ri.p[i])
                (void)strlen(ri.p[i]);
    }
    json_decref(rj);
    return 0;
}
