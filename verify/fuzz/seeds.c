/* seeds: writes a small well-formed study (tests/synth.h) under argv[1], the
 * valid examples fuzz/mkseeds.sh copies into the seed corpora: one run of
 * every raw file kind (a second store, events with a breaker's rows, a
 * machine file), the reference, the schedule, the arms file and the
 * manifest.  Not part of the verifier; built by `make -C verify fuzz-seeds`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: seeds DIR\n");
        return 2;
    }
    const char *root = argv[1];
    syn_ref ref;
    syn_make_ref(&ref, 20, 7);
    syn_run r;
    syn_kind_run(&r, "H3-fb25", 1, "LLKLLDELLK", &ref, 7000000000000LL);
    syn_quiet_machine(&r, 3);
    static syn_erow ev[5];
    ev[0] = (syn_erow){7000000100000LL, 'L', 3, 0, 0};
    ev[1] = (syn_erow){7000000200000LL, 'F', 3, 1, 0};
    ev[2] = (syn_erow){7000000300000LL, 'C', 3, 2, 5000000};
    ev[3] = (syn_erow){7000000400000LL, 'O', -1, 0, 0};
    ev[4] = (syn_erow){7000000500000LL, 'K', -1, 0, 0};
    r.e = malloc(sizeof ev);
    memcpy(r.e, ev, sizeof ev);
    r.ne = 5;
    if (syn_write_run(root, &r, 6) || syn_write_reference(root, &ref) || syn_write_manifest(root))
        return 1;
    syn_free_run(&r);
    syn_free_ref(&ref);
    return 0;
}
