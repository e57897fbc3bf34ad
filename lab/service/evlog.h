/* evlog: the scoring service's events file, events.tsv.gz (lab/RAWFORMAT.md).
 *
 * One writer for every row of the file: the connections to each store
 * (lab/service/storeconn.c: L lost, F a reconnect try failed, C connected again,
 * numbered across the stores) and the circuit breaker (the service, from
 * pol_shared's on_brk: O W P H K, conn -1).  Every writer runs on the
 * service's one thread and stamps a row with the moment it happened, taken
 * after every earlier row's, so the rows come in time order as written;
 * evlog_row keeps them in that order and complains (stderr, once) if a row
 * would go back in time (it is written with its true time all the same).
 *
 * Rows cost what rawlog's cost: one binary record into a buffer.
 *
 * Ownership: evlog_open allocates; evlog_close (writes the file) or
 * evlog_abort (removes it) frees.
 */
#ifndef LAB_EVLOG_H
#define LAB_EVLOG_H

#include <stddef.h>
#include <stdint.h>

typedef struct evlog evlog;

int evlog_open(evlog **out, const char *path, char *err, size_t errlen);
/* One row: t, what (L F C O W P H K), conn (-1 for the breaker), tries, wait_ns. */
void evlog_row(evlog *e, int64_t t, char what, int conn, int tries, int64_t wait_ns);
size_t evlog_rows(const evlog *e);
/* Writes the file (atomically) and frees: 0, or -1 with the reason in err. */
int evlog_close(evlog *e, char *err, size_t errlen);
void evlog_abort(evlog *e);

#endif
