/* replay: a harness's corpus through its LLVMFuzzerTestOneInput, without
 * libFuzzer (make test: every input once, no random time).
 *
 *   replay DIR|FILE ...
 *
 * Each file (a directory's regular files, in name order) is read whole and
 * given to the harness once; a crash or a sanitizer report stops the
 * program with its report.  Prints the count of inputs replayed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *b = malloc(cap);
    for (size_t k; b && (k = fread(b + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb)
                free(b);
            b = nb;
        }
    }
    int bad = ferror(f) || !b;
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(b);
        return -1;
    }
    /* an exact-size copy, so that a read past the input is caught */
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, b, n);
    free(b);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

int main(int argc, char **argv)
{
    long count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 2;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i]) != 0)
                return 2;
            count++;
            continue;
        }
        struct dirent **e;
        int n = scandir(argv[i], &e, NULL, by_name);
        if (n < 0) {
            perror(argv[i]);
            return 2;
        }
        for (int k = 0; k < n; k++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e[k]->d_name);
            if (e[k]->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
                if (replay_file(p) != 0)
                    return 2;
                count++;
            }
            free(e[k]);
        }
        free(e);
    }
    printf("%s: %ld inputs replayed, no crash\n", argv[0], count);
    return 0;
}
