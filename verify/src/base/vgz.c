/* vgz: a gzip file inflated whole with libdeflate, or -1 for the caller's zlib path; see vgz.h. */
#include "vgz.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

#ifdef VERIFY_HAVE_LIBDEFLATE
#include <libdeflate.h>

int vgz_available(void)
{
    return 1;
}

static int all_zero(const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

int vgz_whole(const unsigned char *gz, size_t n, size_t cap, int zero_tail, unsigned char **out, size_t *outn,
              size_t **starts, size_t *nstarts)
{
    *out = NULL;
    *outn = 0;
    if (starts) {
        *starts = NULL;
        *nstarts = 0;
    }
    if (n < 18 || gz[0] != 0x1f || gz[1] != 0x8b)
        return -1;
    if (cap == 0)
        cap = SIZE_MAX;
    /* room: the last member's ISIZE (the whole, for one member), at least 4 n;
     * at most what deflate can reach (1032 to 1) from n bytes: a claimed
     * ISIZE is not trusted with an allocation; more room is made as needed */
    size_t isize = (size_t)gz[n - 4] | (size_t)gz[n - 3] << 8 | (size_t)gz[n - 2] << 16 | (size_t)gz[n - 1] << 24;
    size_t room = isize > 4 * n ? isize : 4 * n, most = n > SIZE_MAX / 1033 ? SIZE_MAX / 2 : 1032 * n + 65536;
    if (room > most)
        room = most;
    if (room >= cap)
        room = cap - 1;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d)
        return -1;
    unsigned char *o = vu_xmalloc(room + 1);
    size_t *st = NULL, nst = 0, at = 0, got = 0;
    int ok = 0;
    for (;;) {
        if (n - at < 18 || (gz[at + 3] & 0x02)) /* too short for a member, or FHCRC */
            break;
        size_t in_used = 0, out_got = 0;
        enum libdeflate_result r =
            libdeflate_gzip_decompress_ex(d, gz + at, n - at, o + got, room - got, &in_used, &out_got);
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
            if (room >= cap - 1)
                break; /* cap bytes or more: the caller's path says so */
            room = room > (cap - 1) / 2 ? cap - 1 : 2 * room;
            o = vu_xrealloc(o, room + 1);
            continue; /* this member again, with more room */
        }
        if (r != LIBDEFLATE_SUCCESS)
            break;
        if (starts) {
            st = vu_xrealloc(st, (nst + 1) * sizeof *st);
            st[nst++] = at;
        }
        got += out_got;
        at += in_used;
        size_t left = n - at;
        if (left >= 2 && gz[at] == 0x1f && gz[at + 1] == 0x8b)
            continue;
        ok = left == 0 || (zero_tail && all_zero(gz + at, left));
        break;
    }
    libdeflate_free_decompressor(d);
    if (!ok) {
        free(o);
        free(st);
        return -1;
    }
    o[got] = 0;
    *out = o;
    *outn = got;
    if (starts) {
        *starts = st;
        *nstarts = nst;
    }
    return 0;
}

#else /* built without libdeflate: the callers' zlib path every time */

int vgz_available(void)
{
    return 0;
}

int vgz_whole(const unsigned char *gz, size_t n, size_t cap, int zero_tail, unsigned char **out, size_t *outn,
              size_t **starts, size_t *nstarts)
{
    (void)gz, (void)n, (void)cap, (void)zero_tail;
    *out = NULL;
    *outn = 0;
    if (starts) {
        *starts = NULL;
        *nstarts = 0;
    }
    return -1;
}

#endif
