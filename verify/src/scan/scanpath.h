/* scanpath: the scanner's rule for paths of the machine a file was made on
 * (the design's standard: nothing committed carries one; RESULTS.md,
 * "Secrets in the records": the folder a stage ran in is written ".").
 *
 * Contract.  sp_buffer looks through a whole text buffer and adds to l
 * (scanrules.h) one finding `machine-path` per absolute path that names a
 * user's or the machine's working folders (verify/README.md, "The
 * scanner's rules and why", gives the list and what is left alone):
 *   /home/<name>, /Users/<name>, C:\Users\<name>   a user's home
 *   /root/<more>                                   inside root's home
 *   /tmp/, /var/tmp/, /private/tmp/ + a name made by mktemp, or a folder
 *     with more path inside it; /var/folders/..., /run/user/<id>
 *   the study's root folder (sp_set_root) and the scanner's working folder
 *     (its absolute path, when it has two or more parts)
 * A path starts at the beginning of the text, after a byte that cannot be
 * part of a path, after `scheme://` or right after a short option (-I/home/...).
 * A placeholder (/home/<you>, /home/$USER, /tmp/lab.XXXXXX, /tmp/x-*) is left
 * alone.  The finding spans the whole path.
 *
 * sp_set_root sets the study's root folder (made absolute; NULL clears it);
 * the working folder is read once, at the first scan.  Process-wide state:
 * the scanner is single-threaded.
 */
#ifndef SCANPATH_H
#define SCANPATH_H

#include <stddef.h>

#include "scanrules.h"

void sp_buffer(sr_list *l, const unsigned char *b, size_t n);
void sp_set_root(const char *root);

#endif
