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

void *facts_build(void)
{
    json_t *o = json_object();
    char *commit = first_line_of("git rev-parse HEAD 2>/dev/null");
    char *dirty = first_line_of("git status --porcelain --untracked-files=no 2>/dev/null | head -1");
    json_object_set_new(o, "git_commit", json_string(commit ? commit : "unknown"));
    json_object_set_new(o, "git_dirty", commit ? json_boolean(dirty && *dirty) : json_null());
    json_object_set_new(o, "compiler", json_string("gcc " __VERSION__));
    json_object_set_new(o, "cflags", json_string(LAB_CFLAGS));
    free(commit);
    free(dirty);
    return o;
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

