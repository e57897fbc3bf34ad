/* pgx: the few libpq calls collect makes, each with its error in err
 * ("database: <PostgreSQL's message>", on one line: libpq's line breaks
 * and indents become single spaces).
 *
 * pgx_exec runs one or more statements; pgx_exec_params one statement with
 * text parameters (a NULL value is SQL NULL); pgx_copy sends a buffer of
 * COPY text rows to a COPY ... FROM STDIN statement; pgx_exec_file runs a
 * whole .sql file (its path in the error), pgx_exec_named statements read
 * from one (name: its path, in the error); pgx_query returns the rows of
 * one SELECT, which the caller frees with PQclear (NULL on error).
 * pgx_send sends statements to run while the caller goes on (on another
 * connection), pgx_send_file a whole .sql file; pgx_wait waits for them to
 * end (their first error, name before it: the file's path), pgx_cancel
 * stops them and discards what they return.
 * All but pgx_cancel return 0 or -1.  Nothing here opens or closes the
 * connection.
 */
#ifndef PIPELINE_PGX_H
#define PIPELINE_PGX_H

#include <libpq-fe.h>
#include <stddef.h>

int pgx_exec(PGconn *db, const char *sql, char *err, size_t errlen);
int pgx_exec_params(PGconn *db, const char *sql, int n, const char *const *vals, char *err, size_t errlen);
int pgx_copy(PGconn *db, const char *sql, const char *buf, size_t len, char *err, size_t errlen);
int pgx_exec_file(PGconn *db, const char *path, char *err, size_t errlen);
int pgx_exec_named(PGconn *db, const char *sql, const char *name, char *err, size_t errlen);
int pgx_send(PGconn *db, const char *sql, char *err, size_t errlen);
int pgx_send_file(PGconn *db, const char *path, char *err, size_t errlen);
int pgx_wait(PGconn *db, const char *name, char *err, size_t errlen);
void pgx_cancel(PGconn *db);
PGresult *pgx_query(PGconn *db, const char *sql, char *err, size_t errlen);

#endif
