/* scanassign: the scanner's rules that need the words around a secret.
 *
 * Contract.  sa_buffer looks through a whole text buffer and adds to l
 * (scanrules.h) one finding per secret value it sees:
 *   password-assignment   password=, passwd:, "db_password": "...", --password x
 *   secret-assignment     client_secret = "...", "secret": "..."
 *   hex-secret            32 or more hex digits assigned to a key, token or secret name
 *   generic-api-key       a random-looking value assigned to a key, token, auth or
 *                         credential name
 *   url-password          scheme://user:password@host
 *   bearer-token          Bearer <token>
 *   basic-auth            Authorization: Basic <base64 of user:password>
 *   telegram-bot-api-token, azure-ad-client-secret, paypal-braintree-access-token
 * A value that is masked (holds "***", or has no letter or digit) or an
 * obvious placeholder ($VAR, ${VAR}, <...>, {{...}}, %s, [REDACTED], null,
 * true, one repeated character, a word such as YOUR_API_KEY) is left alone;
 * verify/README.md lists every case.  Each finding spans the value only.
 */
#ifndef SCANASSIGN_H
#define SCANASSIGN_H

#include <stddef.h>

#include "scanrules.h"

void sa_buffer(sr_list *l, const unsigned char *b, size_t n);

#endif
