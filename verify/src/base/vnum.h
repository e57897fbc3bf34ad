/* vnum: the verifier's checked number parsing, for every number read from
 * a file or the command line (the lab's own parsers are not used: verify/
 * stands alone).
 *
 * Contract.  Each parser reads exactly the len bytes at s (the whole field:
 * no blank before or after, nothing left over) and returns VN_OK with the
 * value in *out, or VN_SYNTAX (not a number of that kind) or VN_RANGE (a
 * number, but out of range; *out untouched).  The caller names the file
 * and line, or the option, in its message.
 *
 *   integer: '-'? digits, within [lo, hi] (and always within 64 bits:
 *            more is VN_RANGE, not a wrap)
 *   decimal: '-'? digits ['.' digits] [('e'|'E') ['+'|'-'] digits], with at
 *            least one digit before or after the point: what %g, %.9g and
 *            JSON write.  No hex, no "inf" or "nan", no '+' in front.  A
 *            value beyond the type's finite range is VN_RANGE; one below
 *            its smallest magnitude rounds to a subnormal or 0 (as strtod).
 */
#ifndef VNUM_H
#define VNUM_H

#include <stddef.h>

enum { VN_OK = 0, VN_SYNTAX = 1, VN_RANGE = 2 };

int vn_i64(const char *s, size_t len, long long lo, long long hi, long long *out);
int vn_f64(const char *s, size_t len, double *out);
int vn_f32(const char *s, size_t len, float *out);

#endif
