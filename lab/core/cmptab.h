/* cmptab: the one reader of the registered comparisons file
 * (pipeline/comparisons.tsv), for both of its readers: the prediction
 * (pipeline/measure/predict.c sizes each comparison) and collect
 * (pipeline/collect/collect.c loads them into PostgreSQL).  It lives in
 * lab/core because the stages may not include each other and the
 * prediction links only the lab's modules.
 *
 * The file: lab/base/tsv.h's grammar ("#" comment lines and empty lines
 * skipped anywhere), the header "a b figure note" (tab-separated), then
 * one comparison a line: arm a, arm b, the figure compared, a note.  a, b
 * and figure are non-empty and under CMPTAB_NAME bytes; the note is any
 * text (empty too).  Each comparison keeps its number k (1, 2, ... in file
 * order, comments not counted: the line number minus 1 in a file without
 * comments) and its line.  Whether the arms and figure exist is the
 * readers' business, not the file's.
 *
 * Ownership: cmptab_load fills a caller's table; cmptab_free releases it
 * (safe on a zeroed or failed table).  0, or -1 with "PATH:LINE: ..." in err.
 */
#ifndef LAB_CMPTAB_H
#define LAB_CMPTAB_H

#include <stddef.h>

#define CMPTAB_NAME 64

typedef struct {
    char a[CMPTAB_NAME], b[CMPTAB_NAME], figure[CMPTAB_NAME];
    char *note;   /* malloc'd */
    int k;        /* 1, 2, ...: its place among the comparisons */
    size_t line;  /* its line in the file */
} cmptab_row;

typedef struct {
    cmptab_row *v;
    size_t n, cap;
} cmptab;

int cmptab_load(const char *path, cmptab *t, char *err, size_t errlen);
void cmptab_free(cmptab *t);

#endif
