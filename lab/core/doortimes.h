/* doortimes: the service's front-door timeouts, named once: the service's
 * defaults (lab/service/service.c, --header-timeout-s, --idle-timeout-s)
 * and what the run driver (lab/run/run.c) passes and records in run.json.
 *
 * Why these values (docs/DESIGN.md, "The front door sheds"): a measured
 * run's request head reaches the service in one write, whole within
 * microseconds, so a head unfinished after DOOR_HEADER_TIMEOUT_S seconds
 * is a stalled client, never the lab's tester.  The tester's 64 keep-alive
 * connections are taken most recently used first, so at a low rate some
 * carry no request for the whole run: the idle timeout must outlast a run
 * (its seconds, the tester's 10 s drain, the store's settling), hence
 * door_idle_timeout_s: DOOR_IDLE_TIMEOUT_S, or the run's length and
 * DOOR_IDLE_OVER_RUN_S more when a run is longer than that.
 * Header-only, no state.
 */
#ifndef LAB_DOORTIMES_H
#define LAB_DOORTIMES_H

#define DOOR_HEADER_TIMEOUT_S 10.0 /* a request head not complete this long after its first byte: 408, closed */
#define DOOR_IDLE_TIMEOUT_S 300.0  /* a keep-alive connection with no request this long: closed */
#define DOOR_IDLE_OVER_RUN_S 60.0  /* the least the idle timeout outlasts a run of the tester */
#define DOOR_MIN_TIMEOUT_S 0.01    /* the bounds of either timeout's option (tests use a short one) */
#define DOOR_MAX_TIMEOUT_S 86400.0

/* The idle timeout for a run whose tester sends for run_s seconds. */
static inline double door_idle_timeout_s(double run_s)
{
    return run_s + DOOR_IDLE_OVER_RUN_S > DOOR_IDLE_TIMEOUT_S ? run_s + DOOR_IDLE_OVER_RUN_S : DOOR_IDLE_TIMEOUT_S;
}

#endif
