/* vfiles: the files the verifier read or scanned under the study's root,
 * for verified.json's "files" (pipeline/RESULTS.md, "make release": one
 * {path, size, sha256} per file, paths relative to the root, in byte order
 * of path, verified.json itself left out).
 *
 * Contract: vf_start(root, out) hooks vu_read_file (vutil.h); from then on
 * every file read whose path lies under root is recorded with its path
 * relative to root and the size and sha256 of the bytes read.  Paths are
 * compared lexically, both made absolute against the working folder and
 * "." and ".." resolved (a symbolic link is not followed: a file read as
 * root/x is listed as x).  A file read again with other bytes is a
 * mismatch (mm_add): it changed while the verifier read it, so no single
 * sha256 stands for what was verified.  The file out (verified.json) is
 * never listed, nor what `make report` writes from it afterwards
 * (vf_written_after: results/report.md, results/report.html and everything
 * under results/figures/), which the study's scan leaves alone too: a file
 * written after the verifier cannot be vouched for by it (make report scans
 * them with --scan).  vf_add_tree(rel) reads every regular file under root/rel
 * that is not yet listed (the scanner's folders: a file the scan opened its
 * own way is listed all the same).  vf_json returns the list (the caller
 * owns the tree); vf_count the number of files; vf_stop unhooks and frees
 * everything.  vf_shown is a path as verified.json writes it (malloc'd):
 * relative to the root when under it (a path of the machine would be a
 * finding of the scanner's machine-path rule), else as given.  One list
 * per process.
 */
#ifndef VFILES_H
#define VFILES_H

#include <stddef.h>

#include "vjson.h"

void vf_start(const char *root, const char *out);
void vf_add_tree(const char *rel);
int vf_written_after(const char *rel);
vj_node *vf_json(void);
size_t vf_count(void);
char *vf_shown(const char *path);
void vf_stop(void);

#endif
