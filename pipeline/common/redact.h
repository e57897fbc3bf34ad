/* redact: takes out of a log line what must not be published.
 *
 * First every password is masked as in every record of the lab (prov_mask,
 * pipeline/common/prov.h: scheme://user:***@host, password=***).  Then replaced, each
 * by a bracketed word naming what stood there:
 *   IPv4 addresses other than loopback (127.0.0.0/8) and 0.0.0.0  -> [ip]
 *   IPv6 addresses other than ::1 and ::                            -> [ip6]
 *   host names: dotted names ending in a public or cloud suffix
 *     (.com .net .org .io .internal .local .cloud ...) and the machine's
 *     own host name                                                  -> [host]
 *   12-digit numbers standing alone (cloud account ids)              -> [account]
 *   cloud resource ids: i- sg- vpc- subnet- eni- ami- vol- + 8 or 17 hex -> [id]
 *   access key ids (AKIA/ASIA + 16) and long key-like tokens after
 *     key=, secret=, token=, password=                                -> [key]
 *   e-mail addresses                                                 -> [email]
 * Everything else is kept as it was: ordinary numbers, versions such as
 * 6.18.44, loopback addresses, times.
 *
 * redact_line writes the result into out (at most outlen bytes, always
 * NUL-terminated) and returns the number of replacements.  A working copy
 * is allocated and freed inside (out of memory ends the program); not
 * thread-safe (the host name is looked up once).
 */
#ifndef PIPELINE_REDACT_H
#define PIPELINE_REDACT_H

#include <stddef.h>

int redact_line(const char *in, char *out, size_t outlen);

#endif
