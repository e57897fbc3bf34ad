/* machine: the page's sections on the machine, "The machine and the idle
 * gate" (the host facts of the first run, and per run the idle gate, CPU
 * shares, peak memory and wall time, from extra.runs.<run>.machine) and "The
 * cost" (the machine time summed over the runs, extra.machine).  Their
 * words are templates/machine.md.in and cost.md.in.
 *
 * Contract: mc_design gives those templates their choices:
 * design.machine_first, the first run (absent when none), and
 * design.machine_same, true when every run reports the first one's host
 * facts.  The tree is borrowed.
 */
#ifndef MACHINE_H
#define MACHINE_H

#include <jansson.h>

void mc_design(json_t *root, json_t *design);

#endif
