/* pgxstub: pipeline/common/pgx.h's calls without a database, for the harnesses
 * that reach a parser through collect's code.  Each call reads every
 * parameter it is given (so a dangling or unterminated one is caught by
 * AddressSanitizer) and succeeds; pgx_query returns no rows (NULL).
 * fz_pg_calls counts the calls, fz_pg_guesses and fz_pg_comparisons the
 * rows inserted into those tables.  Header only: include it in one harness.
 */
#ifndef TESTS_FUZZ_PGXSTUB_H
#define TESTS_FUZZ_PGXSTUB_H

#include <string.h>

#include "pgx.h"

static size_t fz_pg_calls, fz_pg_bytes;
static size_t fz_pg_guesses, fz_pg_comparisons; /* rows inserted into these tables */

int pgx_exec(PGconn *db, const char *sql, char *err, size_t errlen)
{
    (void)db, (void)err, (void)errlen;
    fz_pg_calls++;
    fz_pg_bytes += strlen(sql);
    return 0;
}

int pgx_exec_params(PGconn *db, const char *sql, int n, const char *const *vals, char *err, size_t errlen)
{
    (void)db, (void)err, (void)errlen;
    fz_pg_calls++;
    fz_pg_bytes += strlen(sql);
    fz_pg_guesses += !strncmp(sql, "INSERT INTO guesses ", 20);
    fz_pg_comparisons += !strncmp(sql, "INSERT INTO comparisons ", 24);
    for (int i = 0; i < n; i++)
        if (vals[i])
            fz_pg_bytes += strlen(vals[i]);
    return 0;
}

int pgx_copy(PGconn *db, const char *sql, const char *buf, size_t len, char *err, size_t errlen)
{
    (void)db, (void)err, (void)errlen;
    fz_pg_calls++;
    fz_pg_bytes += strlen(sql) + (len ? (size_t)(unsigned char)buf[len - 1] : 0);
    return 0;
}

int pgx_exec_file(PGconn *db, const char *path, char *err, size_t errlen)
{
    (void)db, (void)path, (void)err, (void)errlen;
    fz_pg_calls++;
    return 0;
}

int pgx_send(PGconn *db, const char *sql, char *err, size_t errlen)
{
    (void)db, (void)err, (void)errlen;
    fz_pg_calls++;
    fz_pg_bytes += strlen(sql);
    return 0;
}

int pgx_send_file(PGconn *db, const char *path, char *err, size_t errlen)
{
    (void)db, (void)err, (void)errlen;
    fz_pg_calls++;
    fz_pg_bytes += strlen(path);
    return 0;
}

int pgx_wait(PGconn *db, const char *name, char *err, size_t errlen)
{
    (void)db, (void)err, (void)errlen;
    fz_pg_calls++;
    fz_pg_bytes += name ? strlen(name) : 0;
    return 0;
}

void pgx_cancel(PGconn *db)
{
    (void)db;
    fz_pg_calls++;
}

PGresult *pgx_query(PGconn *db, const char *sql, char *err, size_t errlen)
{
    (void)db, (void)sql, (void)err, (void)errlen;
    fz_pg_calls++;
    return NULL;
}

#endif
