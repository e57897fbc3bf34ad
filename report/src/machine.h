/* machine: the page's sections on the machine: "The machine and the idle
 * gate" (the host facts of the first run, and per run the idle gate, CPU
 * shares, peak memory and wall time, from extra.runs.<run>.machine) and "The
 * cost" (the machine time summed over the runs, extra.machine).
 *
 * Contract: the tree is borrowed; every printed value is traced (pg_v).
 * Nothing is allocated that outlives a call.
 */
#ifndef MACHINE_H
#define MACHINE_H

#include <jansson.h>

#include "page.h"

void mc_section(page *p, json_t *root);
void mc_cost(page *p, json_t *root);

#endif
