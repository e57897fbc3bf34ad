/* playflood: the per-second counts of a simulated run of play (lab/play/play.c,
 * lab/play/playsim.c) and the lab's one definition of a flood: `flooded`,
 * `flood_from_s`, `drained` and `missed_seconds`, computed from them (the
 * study's figures of those names are this definition).  Pure logic: no
 * clock, no memory of its own.
 *
 * The definition: the run's seconds are s = 0 .. ceil(seconds) - 1 of
 * scheduled arrival.  Second s is *missed* when at least one request
 * was scheduled in it and over half of those got a stand-in or an error
 * (an error counts a request answered with a 504 or not at all): arrivals
 * >= 1 and 2 * missed > arrivals.  The run is *flooded* when N seconds in a
 * row are missed, N = min(3, ceil(seconds)); the flood starts at the first
 * second of the first such N in a row; it *drained* when the last second
 * is not missed.  A second without arrivals is not missed, and breaks a
 * row.  Seconds past the run (lookups sent late, kept for the timeline)
 * never count.
 *
 * The same definition as the run goes (pflood_watch: playsim's early stop,
 * lab/play/playmap.h): a second is *settled* when every request scheduled
 * in it has its answer (req == settled); the watch takes the run's seconds
 * in order as each settles, and says the run is flooded as soon as N
 * settled seconds in a row are missed.  A settled second's counts never
 * change again, so the flood it finds, and its first second, are the ones
 * pflood_of finds on the whole run (tests/pipeline/test_playmap.c).
 */
#ifndef LAB_PLAYFLOOD_H
#define LAB_PLAYFLOOD_H

#include <stddef.h>
#include <stdint.h>

#define PFLOOD_ROW 3 /* seconds in a row, at most */

/* One second of a run (by arrival, except lookups: by sending; line_max:
 * the longest line a lookup sent in it found at its store). */
typedef struct {
    uint32_t req, lookups, missed, line_max;
    uint32_t settled; /* requests scheduled in it that have their answer (counted with playsim's flood stop) */
    uint32_t frz_max; /* the most freezes holding the store's slots at once in it (playsim's cfg.freezes) */
} play_second;

typedef struct {
    int flooded;             /* 0 or 1 */
    long from_s;             /* the flood's first second; -1 when not flooded */
    int drained;             /* flooded and the last second not missed; 0 when not flooded */
    uint32_t missed_seconds; /* missed seconds among the run's */
} pflood;

/* The run's seconds: ceil(seconds) (0 for a run of no time). */
size_t pflood_nsec(double seconds);
/* The flood of a run of `seconds` from its per-second counts sec[0 .. nsec)
 * (nsec may be below pflood_nsec(seconds): the seconds missing had no
 * arrivals; seconds from pflood_nsec(seconds) on are left out). */
void pflood_of(const play_second *sec, size_t nsec, double seconds, pflood *f);

/* 1 when second s is missed (arrivals >= 1 and over half of them missed). */
int pflood_missed(const play_second *s);

/* The flood found as the seconds settle. */
typedef struct {
    size_t cur, row, need, total; /* the next second to settle; missed in a row; N; the run's seconds */
    int flooded;
    long from_s;
} pflood_watch;
void pflood_watch_begin(pflood_watch *w, double seconds);
/* Takes the seconds from w->cur on that have settled (sec[0 .. nsec));
 * 1 when the run is flooded (w->from_s its first second), else 0. */
int pflood_watch_step(pflood_watch *w, const play_second *sec, size_t nsec);

#endif
