/* tsv: the one reader of the tab-separated files the lab and the stages
 * read by hand, with its one grammar (docs/DESIGN.md section 10: "one TSV
 * reader with one comment grammar").
 *
 * The grammar, the same for every file it reads:
 * - a line ends at "\n"; a "\r" just before it is dropped (a file saved with
 *   Windows line ends means the same); the last line may lack its "\n"
 *   unless the spec asks for it (a machine-written file: a cut last line is
 *   then refused, not read short);
 * - a line whose first byte is "#" is a comment and an empty line is
 *   nothing: both are skipped wherever they stand, before the header too;
 * - the first other line is the header: its fields must be exactly the
 *   spec's names, tab-separated (or there is none, when the spec names none);
 * - every other line is one record of exactly the spec's number of
 *   tab-separated fields (a field may be empty; no quoting, no escapes);
 * - a line longer than TSV_MAXLINE bytes, a NUL byte, a missing or wrong
 *   header, a wrong field count, or no header at all is refused.
 * Every error names the file and the line, "PATH:LINE: ...", and the field
 * where one is at fault (tsv_field_err, for the callers' checks).
 *
 * Ownership: tsv_read reads the whole file into its own buffer; the fields
 * handed to the callback point into it and live only during the call (copy
 * what you keep).  Returns 0, or -1 with the message in err (the callback's
 * own message when the callback returned nonzero).
 */
#ifndef LAB_TSV_H
#define LAB_TSV_H

#include <stddef.h>

#define TSV_MAXLINE 4096  /* the longest line, in bytes without its "\n" */
#define TSV_MAXFIELDS 64  /* the most fields a record may have */

typedef struct {
    const char *path;     /* the file read, named in every message */
    const char *header;   /* the header line, e.g. "a\tb\tfigure\tnote"; NULL: none */
    int nfields;          /* each record's fields, exactly (1..TSV_MAXFIELDS) */
    int final_newline;    /* 1: the last line must end with "\n" */
} tsv_spec;

/* Where a record stands: its line in the file (1-based, comments counted)
 * and its place among the records (1-based, comments not counted). */
typedef struct {
    const char *path;
    size_t line, record;
} tsv_at;

/* One record: f[0..nf) its fields (nf = the spec's nfields).  0 to go on;
 * nonzero stops the reading, after a message in err (tsv_field_err). */
typedef int (*tsv_record_fn)(void *ctx, char **f, int nf, const tsv_at *at, char *err, size_t errlen);

int tsv_read(const tsv_spec *s, tsv_record_fn fn, void *ctx, char *err, size_t errlen);

/* "PATH:LINE: field NAME \"VALUE\" " and then fmt's text into err (fmt
 * e.g. "is empty" or "of arm X: out of range"); returns -1. */
int tsv_field_err(char *err, size_t errlen, const tsv_at *at, const char *field, const char *value,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
