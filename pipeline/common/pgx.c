/* pgx: see pgx.h for the contract. */
#include "pgx.h"

#include <stdio.h>
#include <stdlib.h>

#include "util.h"

/* "database: <message>" on one line: libpq's messages run over several
 * ("server closed the connection unexpectedly\n\tThis probably means ..."),
 * and a failed stage says what went wrong in one line. */
static void db_err(PGconn *db, char *err, size_t errlen)
{
    char m[UT_ERRLEN];
    size_t n = 0;
    for (const char *p = PQerrorMessage(db); *p && n < sizeof m - 1; p++) {
        int space = *p == ' ' || *p == '\n' || *p == '\t' || *p == '\r';
        if (!space)
            m[n++] = *p;
        else if (n && m[n - 1] != ' ')
            m[n++] = ' ';
    }
    while (n && m[n - 1] == ' ')
        n--;
    m[n] = 0;
    ut_seterr(err, errlen, "database: %s", m);
}

int pgx_exec(PGconn *db, const char *sql, char *err, size_t errlen)
{
    PGresult *r = PQexec(db, sql);
    int st = PQresultStatus(r);
    int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        db_err(db, err, errlen);
    PQclear(r);
    return ok ? 0 : -1;
}

int pgx_exec_params(PGconn *db, const char *sql, int n, const char *const *vals, char *err, size_t errlen)
{
    PGresult *r = PQexecParams(db, sql, n, NULL, vals, NULL, NULL, 0);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    if (!ok)
        db_err(db, err, errlen);
    PQclear(r);
    return ok ? 0 : -1;
}

int pgx_copy(PGconn *db, const char *sql, const char *buf, size_t len, char *err, size_t errlen)
{
    PGresult *r = PQexec(db, sql);
    if (PQresultStatus(r) != PGRES_COPY_IN) {
        db_err(db, err, errlen);
        PQclear(r);
        return -1;
    }
    PQclear(r);
    size_t off = 0;
    while (off < len) {
        size_t chunk = len - off > (1 << 20) ? (1 << 20) : len - off;
        if (PQputCopyData(db, buf + off, (int)chunk) != 1) {
            db_err(db, err, errlen);
            return -1;
        }
        off += chunk;
    }
    if (PQputCopyEnd(db, NULL) != 1) {
        db_err(db, err, errlen);
        return -1;
    }
    int ok = 1;
    while ((r = PQgetResult(db))) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            ok = 0;
            db_err(db, err, errlen);
        }
        PQclear(r);
    }
    return ok ? 0 : -1;
}

/* err prefixed with name (a file's path) */
static void name_err(const char *name, char *err, size_t errlen)
{
    char m[UT_ERRLEN];
    snprintf(m, sizeof m, "%s: %s", name, err);
    ut_seterr(err, errlen, "%s", m);
}

int pgx_exec_named(PGconn *db, const char *sql, const char *name, char *err, size_t errlen)
{
    int rc = pgx_exec(db, sql, err, errlen);
    if (rc != 0)
        name_err(name, err, errlen);
    return rc;
}

int pgx_exec_file(PGconn *db, const char *path, char *err, size_t errlen)
{
    char *sql = NULL;
    size_t n;
    if (ut_read_file(path, &sql, &n, err, errlen) != 0)
        return -1;
    int rc = pgx_exec_named(db, sql, path, err, errlen);
    free(sql);
    return rc;
}

int pgx_send(PGconn *db, const char *sql, char *err, size_t errlen)
{
    if (PQsendQuery(db, sql) == 1)
        return 0;
    db_err(db, err, errlen);
    return -1;
}

int pgx_send_file(PGconn *db, const char *path, char *err, size_t errlen)
{
    char *sql = NULL;
    size_t n;
    if (ut_read_file(path, &sql, &n, err, errlen) != 0)
        return -1;
    int rc = pgx_send(db, sql, err, errlen);
    if (rc != 0)
        name_err(path, err, errlen);
    free(sql);
    return rc;
}

int pgx_wait(PGconn *db, const char *name, char *err, size_t errlen)
{
    int rc = 0;
    PGresult *r;
    while ((r = PQgetResult(db))) {
        int st = PQresultStatus(r);
        if (rc == 0 && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
            db_err(db, err, errlen);
            name_err(name, err, errlen);
            rc = -1;
        }
        PQclear(r);
    }
    return rc;
}

void pgx_cancel(PGconn *db)
{
    PGcancel *c = PQgetCancel(db);
    char m[256];
    if (c) {
        PQcancel(c, m, sizeof m);
        PQfreeCancel(c);
    }
    PGresult *r;
    while ((r = PQgetResult(db)))
        PQclear(r);
}

PGresult *pgx_query(PGconn *db, const char *sql, char *err, size_t errlen)
{
    PGresult *r = PQexec(db, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        db_err(db, err, errlen);
        PQclear(r);
        return NULL;
    }
    return r;
}
