/* vtime: the one reading of a UTC instant the verifier accepts, for every
 * time of the study's JSON files (run.json's start_utc and end_utc, the
 * records', prereg.json's and prediction.json's registered_utc, the stages'
 * of cost.json, provenance.md's).
 *
 * Contract: vt_parse_utc reads "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+00:00)"
 * (a real date of the proleptic Gregorian calendar, digits beyond the 9th
 * of the fraction ignored): 0 and the instant (seconds since 1970,
 * nanoseconds), or -1 (a NULL text too).  Pure; nothing allocated.
 */
#ifndef VTIME_H
#define VTIME_H

int vt_parse_utc(const char *text, long long *sec, long *nsec);

#endif
