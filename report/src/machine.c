/* machine.c: the choices of the sections on the machine (templates/machine.md.in, cost.md.in).  The contract is in machine.h. */
#include "machine.h"

#include "rdata.h"

void mc_design(json_t *root, json_t *design)
{
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
    if (first)
        json_object_set_new(design, "machine_first", json_string(first));
    json_object_set_new(design, "machine_same", json_boolean(same));
}
