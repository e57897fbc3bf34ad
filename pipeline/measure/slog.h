/* slog: the system log lines written while a run lasted, for its record.
 *
 * slog_probe picks the first source this machine has: journalctl (with a
 * journal), /var/log/syslog (readable), the kernel log (/dev/kmsg, else the
 * `dmesg` command), or none.  slog_begin notes the position before a run
 * (the journal's cursor, the syslog file's size and inode, /dev/kmsg opened
 * at its end, or dmesg's line count); slog_end reads what came after and
 * returns {"source", "lines", ["note"]} (at most SLOG_MAX_LINES lines; the
 * note says when more were dropped, or why the lines may be incomplete).
 *
 * Every line goes through pipeline/common/redact.h (provenance is published and
 * scanned for secrets), and bytes that are not UTF-8 are written as \xNN.
 * slog_add_lines does the same for any text (a run's own output).
 *
 * Ownership: slog_end frees what slog_begin took and returns a new JSON
 * object the caller owns.
 */
#ifndef PIPELINE_SLOG_H
#define PIPELINE_SLOG_H

#include <jansson.h>
#include <stddef.h>
#include <sys/types.h>

#define SLOG_MAX_LINES 20000

enum { SLOG_NONE, SLOG_JOURNAL, SLOG_SYSLOG, SLOG_KMSG, SLOG_DMESG };

typedef struct {
    int kind;
    char *cursor;  /* journal: the last entry's cursor before the run */
    long since_s;  /* journal: realtime seconds before the run (when no cursor) */
    off_t off;     /* syslog: size before */
    ino_t ino;     /* syslog: inode before */
    int fd;        /* kmsg: positioned at the end before the run */
    size_t nlines; /* dmesg command: lines before */
} slog_pos;

int slog_probe(void);
const char *slog_source(int kind); /* "journalctl", "/var/log/syslog", "dmesg" or "none" */
void slog_begin(int kind, slog_pos *lp);
json_t *slog_end(slog_pos *lp);

/* Text split into lines, redacted, appended to arr (at most cap in all;
 * the others counted in *dropped when given). */
void slog_add_lines(json_t *arr, const char *text, size_t cap, size_t *dropped);

#endif
