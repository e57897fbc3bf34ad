/* rawread: reading the lab's event files (lab/RAWFORMAT.md) fast.
 *
 * Contract: rr_open takes a whole gzip file already in memory (the caller
 * owns it and keeps it alive until rr_close) and checks the two header lines:
 * "# lab-raw 4 <kind>" (format version 4: a file of another version is
 * refused, naming the file and line 1) and exactly the expected column names in
 * order.  rr_next then yields one row at a time: integer, offset and time
 * columns in v[], the float column in f[] (read as a 32-bit float, as the
 * format promises), code columns in c[] (a code outside the column's list
 * is an unparsable value); has[k] is 0 when the field was "-" (absent), 2
 * when it was "=" (only in a column whose `eq` is 1: the score equal to its
 * reference; f[] is then 0 and rawdec.h gives it its value).  Time columns
 * (RR_TIME: events' and machine's "t") are delta-decoded here: v[] holds the
 * absolute instant; the file remembers the lowest one (tmin, tmin_line,
 * tmin_col).  Offset columns (RR_OFFSET, "*_us") are left as the integer
 * written: their bases are in other rows and files (rawdec.h decodes them).  Any malformed input (truncated gzip stream, wrong field
 * count, empty field, unparsable value, an integer beyond 64 bits, a last
 * line without "\n") stops the file with a message naming the file and
 * line.  Numbers are read with vnum.h (the whole field, range, overflow).
 * Row text is only valid until the next rr_next.  Call rr_close after
 * rr_open whatever it returned.  rr_gunzip inflates a whole buffer (for the
 * scanner); the caller frees *out.
 */
#ifndef RAWREAD_H
#define RAWREAD_H

#include <stddef.h>
#include <zlib.h>

typedef enum { RR_INT, RR_TIME, RR_OFFSET, RR_FLOAT, RR_CODE } rr_coltype;

typedef struct {
    const char *name;
    rr_coltype type;
    int optional;   /* 1: "-" (absent) allowed by RAWFORMAT.md; 0: "-" is malformed */
    const char *codes;  /* RR_CODE: the codes RAWFORMAT.md lists; NULL: any one character */
    int eq;             /* 1: "=" allowed (tester.tsv.gz's score: equal to its reference) */
} rr_col;

/* the format version this reader reads (RAWFORMAT.md, line 1 of a file) */
#define RR_VERSION 4

#define RR_MAXCOL 24

typedef struct {
    long long v[RR_MAXCOL];
    float f[RR_MAXCOL];
    char c[RR_MAXCOL];
    unsigned char has[RR_MAXCOL];
    const char *text[RR_MAXCOL];
} rr_row;

typedef struct {
    const char *path;
    const unsigned char *gz;
    size_t gzlen;
    z_stream zs;
    int zinit, zdone;
    char *buf;
    size_t cap, beg, end;
    long line;
    int ncol;
    const rr_col *cols;
    long long tsum[RR_MAXCOL];
    unsigned char tseen[RR_MAXCOL];
    /* the lowest decoded time so far, its line and column (tmin_line 0: none yet) */
    long long tmin;
    long tmin_line;
    int tmin_col;
} rr_file;

int rr_open(rr_file *f, const char *path, const unsigned char *gz, size_t gzlen, const char *kind,
            const rr_col *cols, int ncol, char *err, size_t errlen);
/* 1: a row; 0: end of file; -1: malformed (message in err) */
int rr_next(rr_file *f, rr_row *row, char *err, size_t errlen);
void rr_close(rr_file *f);

/* Inflate a whole gzip buffer (all members).  0, or -1 with a message;
 * on -1 *out still holds what could be inflated (caller frees). */
int rr_gunzip(const unsigned char *gz, size_t gzlen, unsigned char **out, size_t *outlen, char *err,
              size_t errlen);

#endif
