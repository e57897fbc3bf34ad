/* fmt: how the report prints a number, one rule per kind of value.
 *
 * Contract: fmt_value writes the text of one value of verified.json in the
 * format named by kind; a missing node or null prints "—" (no digits).
 * Kinds (the HTML keeps the kind in data-fmt, so a test can read every
 * printed number back):
 *   int     integer with thousands separators         44,001 (a median of two
 *           rounds may end in .5: one decimal then)   10.5
 *   ms      milliseconds: 4 digits at most            1,030 · 25.7 · 4.28 · 0.512
 *   ns_ms   nanoseconds printed as milliseconds (the ms rule)
 *   us_ms   microseconds printed as milliseconds (the ms rule)
 *   sms     signed milliseconds (the ms rule, + or −)
 *   pct     a share printed as a percentage           1.62% · 94.3% · 0.040%
 *   spp     signed difference of shares, in percentage points
 *   pp      a difference of shares as a size, in points  2.00 pp
 *   x       a ratio, 3 decimals                       1.017
 *   sx      signed ratio difference, 3 decimals
 *   us      microseconds                              1,547 · 126 · 49.9 · 3.72
 *   s       seconds                                   35.0 · 2.10 · 0.753
 *   kb      kilobytes, integer with separators
 *   str     a string as it is
 *   right   true → "right", false → "wrong"
 *   tf      true → "true", false → "false"
 *   yn      true → "yes", false → "no"
 *   len     the number of items of a list or members of an object (int's rule)
 * Negative numbers use U+2212 (−).  Returns 0, or -1 when the node does
 * not fit the kind (the text then says "?").
 */
#ifndef FMT_H
#define FMT_H

#include <jansson.h>
#include <stddef.h>

/* 1 when kind is one of the kinds above */
int fmt_known(const char *kind);
int fmt_value(const json_t *v, const char *kind, char *out, size_t n);
/* the same rules on a plain double (for figure labels) */
void fmt_num(double v, const char *kind, char *out, size_t n);

#endif
