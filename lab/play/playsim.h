/* playsim: play's simulation of one arm (lab/play/play.c prints it, pipeline/measure/predict.c
 * predicts a study with it).  A deterministic simulation of the lab's store
 * and the service's policy that counts time in integer nanoseconds instead
 * of measuring it: no clock and no I/O while a seed runs.
 *
 * What is simulated (every choice mirrors the lab's programs):
 * - Tester: the lab tester's Poisson schedule, bit for bit: round `seed`'s
 *   arrivals (lab/core/arrivals.h).  Request j arrives at off_j.  The tester costs no time, so a deadline
 *   arrives whole (pol_start with budget -1: the arm's own deadline_ms).
 * - Service: costs no time.  Each request runs lab/core/policy.c itself
 *   (pol_start, pol_on_timer, pol_on_answer); what it asks for is carried
 *   out as the service does: lookups reach the store at once, timer 0 and 1
 *   are events at absolute times (POL_TIMER_KEEP leaves a timer,
 *   POL_TIMER_OFF clears it; a per-request, per-timer generation counter
 *   makes a cleared or re-set timer's old event a no-op), answers reach the
 *   policy at once.  Lookups the policy stops waiting for are not recalled:
 *   they keep their place in the store, as in the lab.  The defences that
 *   look across requests (lab/core/policy.h: circuit breaker, retry budget,
 *   compartments, adaptive hedge) live in one pol_shared per simulated
 *   service, set up afresh for each seed (pol_shared_init) and handed to
 *   every pol_start, as the service does; a lookup a gate refuses (O B Y)
 *   is tried, not sent: the policy ends it at once and play only counts it.
 *   The breaker's changes reach play through on_brk (lab/play/playdef.c counts
 *   them and the time in each state).
 * - A second store (an arm with store2 above 0 or hedge2 1: arms_stores):
 *   its own storeq with the same slots and the same dice, no fault (but
 *   slowboth's slowness), no connections to lose.  Request j asks row
 *   j % rows (rows of --table) and its lookups go to the store
 *   pol_lookup_store gives: the request's (pol_store_of, the policy's
 *   pol_state.store), or for a hedge2 arm's hedge (attempt 1) the second.
 *   Both stores' events run in the one order of scheduling.
 * - Store: lab/core/storeq.c, the very queue lab/store/store.c runs (slots, one FIFO
 *   line, budget drops).  Lookup (seed, j, attempt) waits
 *   waits_planned_ns(kind, seed, j, attempt), the dice of lab round `seed`.
 * - The store's fault (lab/core/faults.h, the arm's `fault`), with t0 = 0 and
 *   the window of fault_window_of(fault, seconds).  A lookup's fate is
 *   fault_lookup's, decided when it reaches the store (round = seed, row =
 *   j % the table's rows): down, never and flaky answer *unavailable* at
 *   once, missing *not found* at once (no slot); hang holds it to the
 *   window's end, then answers *unavailable* (no slot); slow and slowboth
 *   plan it fault_slow_ns longer than its dice (at the first store; with
 *   slowboth at the second too: fault_at_store).  reset: at the
 *   window's start the store forgets every lookup it holds (a slot's time
 *   ends there) and the service loses all its connections (conns, 2 as
 *   the service): every lookup a request waits for is lost
 *   (POL_ANS_LOST), and every lookup while there is no connection is
 *   refused at once, not sent (POL_ANS_REFUSED).  Connection c tries again
 *   at from + the sum of pol_reconnect_ns(seed, c, 0, k) over k = 0, 1 ...,
 *   each try in the window refused, until one at or after the window's end
 *   connects; the first connection back ends the refusals.  (In the lab
 *   the connections are lost one after another and a retry may go out on
 *   the one not yet closed; here both go at the same ns.)  Every answer
 *   goes through pol_on_answer, as in the service.
 * - Events run in order of (time in ns, order of scheduling); an arrival at
 *   the same ns as an event comes after it.  So every tie resolves the same
 *   way every time (an answer due at the very ns its try runs out is on time
 *   when its slot was taken before the timer was set).  The store's due
 *   times take their numbers from play's own counter, so its events and
 *   play's timers run in that one order.  Pending timers sit in a binary
 *   heap, or, when not earlier than the last one there, in one of two
 *   queues in time order (timer 0, timer 1), which is cheaper and changes
 *   no order.  A timer due after a live answer the policy still waits for
 *   gets no event: it would find the request answered.  Arrivals stop after
 *   `seconds`; the run goes on until no event is left: every request
 *   answered, every lookup ended (the lab's tester stops waiting after 10 s;
 *   here nothing is cut off), except a lookup a hang holds to the run's end
 *   (hang@0.5-end): with no limit its request is never answered (lost).
 * So seed k of play meets the same arrivals and waits as round k of the lab
 * at the same rate and length; only the machine's own time is missing.
 *
 * The machine's own time (psim_set_noise; off unless set): a replica of a
 * seed in which every sent lookup reaches its store d ns after the service
 * sent it, d = scale * Q(u): Q the quantile function of the per-lookup
 * delay (nq values at the shares 0, 1/(nq-1), ..., 1, linear between
 * them), u = ut_u64_unit(ut_hash4(key, seed, lookup id, PSIM_NOISE_SALT))
 * (a counter-based draw: the same replica gives the same delays in any
 * order, another key other ones), and holds its slot o ns longer than its
 * planned wait, o = scale * O(u') with O the overshoot's quantile function
 * (when nover is above 0) and u' drawn with PSIM_OVER_SALT: the store's own
 * lateness, which the lab's store has too.  (The answer's way back is
 * folded into d: the service sees it after d + line + wait + o, as in the
 * lab; the store sees the lookup that much later.)  Everything else is as without it: the
 * service's timers run from the send, the store's budget from the arrival
 * (the lab sends a budget as a duration), the answer reaches the service
 * at once.  A lookup in flight when a reset cuts the connections never
 * arrives (it was lost with them).  The noise model's fit and the
 * replicas are pipeline/measure/predict.c's.
 *
 * The figures of a seed (play_result, lab/play/playout.h; each defined in
 * lab/play/play.c's head) are the study's per-run figures of the same
 * names, with the simulation's requests in place of the tester's rows:
 * p99_ms (and p50_ms when asked), the counts behind standin_share, error_share and
 * lookups_per_request, slot_ns, longest_line (line_max: the longest line a
 * lookup found waiting when it reached its store, not counting itself, as
 * the store's `line` column; lookups a fault answers at once count too),
 * the flood (lab/play/playflood.h: a request never answered counts as an
 * error), the window's (lab/play/playwin.h) and the defences' (lab/play/playdef.h).
 *
 * For the map (lab/play/playmap.h), two options:
 * - cfg.flood_stop: the flood is watched as the run goes (pflood_watch,
 *   lab/play/playflood.h: each second taken as every request scheduled in
 *   it has its answer) and the seed stops the moment it is flooded:
 *   res->stopped is 1, res->flood's `flooded` and `from_s` are the whole
 *   run's (the same definition on seconds that no longer change),
 *   `drained` and `missed_seconds` 0, and of the other figures only n,
 *   standins, errors and lookups are set, as counted up to the stop (p99_ms
 *   and p50_ms NAN).  A calm seed runs to its end as without the option.
 * - cfg.freezes: a *freeze holding a slot* is a lookup of the first store
 *   whose planned wait (the dice, lab/core/waits.h) is 1 s or more, from
 *   when it takes a slot until its slot ends (answered, or dropped at its
 *   budget); res->frz_trigger is the most of them at the same moment
 *   before the end of the flood's first second (a flooded seed) or in the
 *   whole run (a calm one): the trigger's size.  -1 without the option.
 * - cfg.lean: only the figures the map reads are computed (n, standins,
 *   errors, lookups, line_max, slot_ns, the flood, frz_trigger; the window's
 *   counts as without it); p99_ms and p50_ms are NAN and the defences'
 *   figures (res->def) all 0.
 *
 * Speed: the direct path.  A request whose first lookup takes a free slot
 * and is due strictly before the policy's window ends (lab/core/policy.h's
 * pol_direct_window: its first try's limit and its hedge delay; most
 * requests of a calm stretch) needs nothing between its start and that
 * answer: it gets no pol_state, pol_direct_start tells the shared
 * defences of its start, and at the answer pol_direct_end and the
 * request's end are carried out at once, without pol_start, the policy's
 * action, the answers' ring or its timers (which would get no event).  It
 * is taken in runs with no fault, no noise, no trace and one store, and
 * changes no figure: cfg.full_path turns it off, and
 * tests/lab/test_playdirect.c holds the two paths to the same results.
 *
 * Speed: the plain loop.  A run with no fault, no noise, no trace, no
 * timeline and one store (every cell of the map) runs a copy of the event
 * loop compiled for it (playsim.c, PLAIN), in which the branches on those
 * are gone; every call the loop makes is inlined into it (the store's
 * queue and the policy's code included: still policy.c's, only compiled
 * in place).  The other runs take the general copy, the same source.
 * Neither changes an event or its order.
 *
 * Speed: a simulation keeps its arrays from seed to seed (grown when
 * needed), so a seed after the first touches no new memory, and so do
 * other arms (psim_set_arm).  A psim_seed shared by several runs keeps one
 * seed's dice and arrivals, drawn once for all of them (the arms of a study
 * run the same seeds: pipeline/measure/predict.c); the values are the very ones drawn
 * without it, and a run reads the shared arrivals in place (not copied).
 *
 * Ownership: psim_new allocates a simulation, psim_free frees it; the arm
 * it was given must outlive it.  psim_seed_new / psim_seed_free likewise.
 * The arrays psim_timeline and psim_trace point to belong to the
 * simulation and stay valid until its next run.
 */
#ifndef LAB_PLAYSIM_H
#define LAB_PLAYSIM_H

#include <stddef.h>
#include <stdint.h>

#include "arms.h"
#include "playout.h"

typedef struct psim psim;
typedef struct psim_seed psim_seed;

typedef struct {
    const arm *a;
    uint32_t rows;    /* rows of the store's table: request j asks row j % rows */
    int slots, conns; /* each store's slots; the service's connections to the first */
    int timeline;     /* keep per second the lookups sent and the longest line */
    int trace;        /* keep per request and lookup what psim_trace gives */
    int p50;          /* compute p50_ms too */
    int flood_stop;   /* stop a seed as soon as it is flooded (below) */
    int freezes;      /* count the freezes holding the first store's slots (below) */
    int full_path;    /* never take the direct path (below): for its tests */
    int lean;         /* only the map's figures (below) */
} psim_cfg;

/* A simulation of cfg->a, its arrays empty; NULL when out of memory. */
psim *psim_new(const psim_cfg *cfg);
void psim_free(psim *S);
/* S simulates cfg->a from now on (with the same slots as before), its
 * arrays kept: one simulation runs many arms without new memory.  0, or
 * -1 when out of memory. */
int psim_set_arm(psim *S, const psim_cfg *cfg);

/* The machine's own time in the runs to come (NULL: none); q holds nq >= 2
 * delays in ns, ascending, and must outlive the runs.  0, or -1 when out
 * of memory. */
typedef struct {
    uint64_t key;      /* the replica: its delays are drawn with this key */
    double scale;      /* >= 0: every delay of the replica times this */
    const int64_t *q;  /* the delay's quantiles, ns, ascending */
    size_t nq;
    const int64_t *over; /* the overshoot's quantiles, ns, ascending (NULL: none) */
    size_t nover;
} psim_noise;
#define PSIM_NOISE_SALT 0x6e6f697365ULL /* "noise" */
#define PSIM_OVER_SALT 0x6f766572ULL    /* "over" */
int psim_set_noise(psim *S, const psim_noise *n);
/* The delay of lookup `lid` (request * POL_MAX_LOOKUPS + attempt) of seed
 * `seed` under n: the draw above (for tests and predict's fit). */
int64_t psim_noise_ns(const psim_noise *n, uint32_t seed, uint32_t lid);
/* Its overshoot (0 without one). */
int64_t psim_over_ns(const psim_noise *n, uint32_t seed, uint32_t lid);

/* One seed of `seconds` of arrivals, run to its end, its figures into res.
 * `shared` (NULL: none) gives the seed's dice and arrivals when it holds
 * them, and keeps them for the next simulation of the same seed.  0, or
 * -1 when out of memory. */
int psim_run(psim *S, double seconds, uint32_t seed, psim_seed *shared, play_result *res);

/* The last run's seconds (nsec of them; the timeline's counts with cfg.timeline). */
void psim_timeline(const psim *S, const play_second **sec, size_t *nsec);
/* The last run's requests (with cfg.trace). */
void psim_trace(const psim *S, play_trace *t);

psim_seed *psim_seed_new(void);
void psim_seed_free(psim_seed *C);

#endif
