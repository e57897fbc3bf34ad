/* replay: runs a harness's LLVMFuzzerTestOneInput once on every file given
 * (a folder: every file in it), without libFuzzer, so that `make test`
 * replays the corpora with any C compiler.  Prints how many inputs it ran;
 * a failed check inside the harness aborts (the file's name is printed
 * first, on stderr). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *current;

/* a harness that fails names its input, then dies as it would have */
static void on_signal(int sig)
{
    static const char msg[] = "replay: failed on ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0) {
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static long one(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 4096, n = 0;
    uint8_t *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap)
            b = realloc(b, cap *= 2);
    }
    if (!b || ferror(f)) {
        perror(path);
        exit(2);
    }
    fclose(f);
    /* an exact-size copy: ASan then sees a read one byte past the input */
    uint8_t *in = malloc(n ? n : 1);
    memcpy(in, b, n);
    free(b);
    current = path;
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    return 1;
}

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static long walk(const char *path)
{
    struct stat st;
    if (stat(path, &st)) {
        perror(path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode))
        return one(path);
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        exit(2);
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
        sprintf(names[n++], "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp);
    long count = 0;
    for (size_t i = 0; i < n; i++) {
        count += walk(names[i]);
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    signal(SIGABRT, on_signal);
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    long count = 0;
    for (int i = 1; i < argc; i++)
        count += walk(argv[i]);
    printf("%s: %ld inputs replayed\n", argc > 1 ? argv[1] : "(none)", count);
    return 0;
}
