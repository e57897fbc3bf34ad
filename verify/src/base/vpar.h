/* vpar: the verifier's parallel parts (--jobs N), with an output that does
 * not depend on N.
 *
 * Contract: vp_set_jobs(n) sets the number of threads vp_for uses (n < 1:
 * vp_default_jobs(), the online CPUs, at most VP_MAX_JOBS); vp_jobs gives it.
 * vp_for(n, fn, ctx) calls fn(ctx, i) once for each i in [0, n): with one
 * job, or when called from a thread other than the one that set the jobs,
 * in order on the calling thread, as a plain loop; else on vp_jobs()
 * threads (the caller one of them), each i's mismatches captured
 * (mism.h) and replayed in the order of i once every i is done, so that what
 * is printed and counted is the same as the plain loop's.  fn must touch
 * only what belongs to its i (or read what nothing writes meanwhile), and
 * print nothing but through mm_add.
 *
 * vp_spawn(fn, ctx) starts fn(ctx) on a thread of its own when vp_jobs() >
 * 1 (its mismatches captured), and returns a handle; with one job it only
 * remembers fn, which vp_join then calls on the caller's thread.
 * vp_spawn_idle(fn, ctx) is vp_spawn with the thread at the idle priority
 * (SCHED_IDLE, where the system allows it): it takes a core only when the
 * other threads leave one free (the serial stretches between vp_for's
 * loops), so that it does not slow the loops down by taking a third of
 * two cores; what it has not done by the join it finishes alone, back at
 * the normal priority (vp_join sets it: on a machine busy with other
 * processes an idle thread would wait for them all).
 * vp_join(t) waits for it, replays its mismatches on the calling thread
 * and frees the handle: what fn prints through mm_add comes out at the
 * join, as if fn had been called there.  A spawned fn must print nothing
 * but through mm_add (or into its own stream, written out after the join).
 */
#ifndef VPAR_H
#define VPAR_H

#include <stddef.h>

#define VP_MAX_JOBS 64

int vp_default_jobs(void);
void vp_set_jobs(int n);
int vp_jobs(void);

typedef void (*vp_fn)(void *ctx, size_t i);
void vp_for(size_t n, vp_fn fn, void *ctx);

typedef struct vp_task vp_task;
vp_task *vp_spawn(void (*fn)(void *ctx), void *ctx);
vp_task *vp_spawn_idle(void (*fn)(void *ctx), void *ctx);
void vp_join(vp_task *t);

#endif
