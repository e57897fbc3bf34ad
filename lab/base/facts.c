/* facts: the machine and build facts of every record (facts.h). */
#include "facts.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static char *first_line_of(const char *cmd)
{
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    char buf[512];
    char *out = NULL;
    if (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\r\n")] = 0;
        out = strdup(buf);
    }
    pclose(f);
    return out;
}

/* The git commit ("unknown" outside a clone) and the dirty flag (-1: no
 * clone), from the environment when facts_build_pin put them there. */
static void git_facts(char *commit, size_t n, int *dirty)
{
    const char *ec = getenv("LAB_GIT_COMMIT"), *ed = getenv("LAB_GIT_DIRTY");
    if (ec && *ec && ed && (!strcmp(ed, "true") || !strcmp(ed, "false") || !strcmp(ed, "null"))) {
        snprintf(commit, n, "%s", ec);
        *dirty = !strcmp(ed, "null") ? -1 : !strcmp(ed, "true");
        return;
    }
    char *c = first_line_of("git rev-parse HEAD 2>/dev/null");
    char *d = c ? first_line_of("git status --porcelain --untracked-files=no 2>/dev/null | head -1") : NULL;
    snprintf(commit, n, "%s", c ? c : "unknown");
    *dirty = c ? (d && *d) : -1;
    free(c);
    free(d);
}

void *facts_build(void)
{
    json_t *o = json_object();
    char commit[512];
    int dirty;
    git_facts(commit, sizeof commit, &dirty);
    json_object_set_new(o, "git_commit", json_string(commit));
    json_object_set_new(o, "git_dirty", dirty < 0 ? json_null() : json_boolean(dirty));
    json_object_set_new(o, "compiler", json_string("gcc " __VERSION__));
    json_object_set_new(o, "cflags", json_string(LAB_CFLAGS));
    return o;
}

void facts_build_pin(void)
{
    char commit[512];
    int dirty;
    git_facts(commit, sizeof commit, &dirty);
    setenv("LAB_GIT_COMMIT", commit, 1);
    setenv("LAB_GIT_DIRTY", dirty < 0 ? "null" : dirty ? "true" : "false", 1);
}

void *facts_host(void)
{
    json_t *o = json_object();
    struct utsname u;
    if (uname(&u) == 0) {
        json_object_set_new(o, "os", json_string(u.sysname));
        json_object_set_new(o, "kernel", json_string(u.release));
        json_object_set_new(o, "arch", json_string(u.machine));
    }
    json_object_set_new(o, "cpus_online", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ')
                        c++;
                    c[strcspn(c, "\n")] = 0;
                    json_object_set_new(o, "cpu_model", json_string(c));
                }
                break;
            }
        }
        fclose(f);
    }
    f = fopen("/proc/meminfo", "r");
    if (f) {
        long kb = 0;
        if (fscanf(f, "MemTotal: %ld kB", &kb) == 1)
            json_object_set_new(o, "mem_total_kb", json_integer(kb));
        fclose(f);
    }
    return o;
}

