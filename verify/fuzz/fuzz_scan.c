/* fuzz_scan: the whole scanner on one file (scanwalk.c through scan_paths,
 * as `verify --scan FILE` runs it): containers opened by their bytes,
 * nested, decoded, then every rule of scan.c, scanrules.c, scanassign.c
 * and scanpath.c.  The bounds are the scanner's own but for the bytes per
 * file (16 MiB here instead of 1 GiB, so that a bomb is cut where the
 * fuzzer's memory limit allows); the findings go to /dev/null. */
#include "fuzzhelp.h"
#include "scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *null;
    if (!null)
        null = fopen("/dev/null", "w");
    if (!null)
        abort();
    const char *p = fz_write("release.bin", data, size);
    char path[1024];
    snprintf(path, sizeof path, "%s", p);
    const char *paths[1] = {path};
    scan_opts o;
    scan_opts_default(&o, null, SCAN_LINES, 20);
    o.max_bytes = (size_t)16 << 20;
    scan_stats st;
    char err[512];
    if (scan_paths(paths, 1, &o, &st, err, sizeof err))
        abort();
    if (st.files != 1 || st.findings < 0)
        abort();
    return 0;
}
