/* slog: see slog.h for the contract. */
#include "slog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mfiles.h"
#include "proc.h"
#include "redact.h"

/* A log line as a JSON string, redacted first (addresses, host names, ids,
 * keys: pipeline/common/redact.h), since provenance is published and scanned; when
 * it is not UTF-8, every byte above 0x7f is written as \xNN (jansson stores
 * UTF-8 only). */
static json_t *line_json(const char *p0, size_t len0)
{
    char raw[4096], red[8192];
    size_t cut = len0 < sizeof raw - 1 ? len0 : sizeof raw - 1;
    memcpy(raw, p0, cut);
    raw[cut] = 0;
    for (size_t i = 0; i < cut; i++)
        if (!raw[i])
            raw[i] = ' ';
    redact_line(raw, red, sizeof red);
    const char *p = red;
    size_t len = strlen(red);
    json_t *s = json_stringn(p, len);
    if (s)
        return s;
    char *b = malloc(len * 4 + 1), *q = b;
    if (!b)
        exit(1);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch >= 0x80 || ch == 0) {
            snprintf(q, 5, "\\x%02x", ch);
            q += 4;
        } else {
            *q++ = (char)ch;
        }
    }
    *q = 0;
    s = json_string(b);
    free(b);
    return s ? s : json_string("(unreadable line)");
}

void slog_add_lines(json_t *arr, const char *text, size_t cap, size_t *dropped)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (json_array_size(arr) < cap)
            json_array_append_new(arr, line_json(p, len));
        else if (dropped)
            (*dropped)++;
        p += len + (nl ? 1 : 0);
    }
}

static const char *LOG_NAMES[] = {"none", "journalctl", "/var/log/syslog", "dmesg", "dmesg"};

const char *slog_source(int kind) { return LOG_NAMES[kind]; }

int slog_probe(void)
{
    /* journalctl exits 0 even where it has no journal ("No journal files were found.") */
    char *argv[] = {"journalctl", "--no-pager", "-n", "1", NULL};
    char *out = NULL;
    int rc = proc_capture(argv, &out, 1);
    int journal = rc == 0 && out && !strstr(out, "No journal files");
    free(out);
    out = NULL;
    if (journal)
        return SLOG_JOURNAL;
    struct stat st;
    if (stat("/var/log/syslog", &st) == 0 && S_ISREG(st.st_mode) && access("/var/log/syslog", R_OK) == 0)
        return SLOG_SYSLOG;
    int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return SLOG_KMSG;
    }
    char *dargv[] = {"dmesg", NULL};
    rc = proc_capture(dargv, &out, 0);
    free(out);
    return rc == 0 ? SLOG_DMESG : SLOG_NONE;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

void slog_begin(int kind, slog_pos *lp)
{
    memset(lp, 0, sizeof *lp);
    lp->kind = kind;
    lp->fd = -1;
    if (kind == SLOG_JOURNAL) {
        char *argv[] = {"journalctl", "-q", "--no-pager", "-n", "1", "--show-cursor", "-o", "cat", NULL};
        char *out = NULL;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        lp->since_s = (long)ts.tv_sec;
        if (proc_capture(argv, &out, 0) == 0) {
            char *c = strstr(out, "-- cursor: ");
            if (c) {
                c += 11;
                c[strcspn(c, "\r\n")] = 0;
                lp->cursor = mf_str("%s", c);
            }
        }
        free(out);
    } else if (kind == SLOG_SYSLOG) {
        struct stat st;
        if (stat("/var/log/syslog", &st) == 0) {
            lp->off = st.st_size;
            lp->ino = st.st_ino;
        }
    } else if (kind == SLOG_KMSG) {
        lp->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (lp->fd >= 0)
            lseek(lp->fd, 0, SEEK_END);
    } else if (kind == SLOG_DMESG) {
        char *argv[] = {"dmesg", NULL};
        char *out = NULL;
        if (proc_capture(argv, &out, 0) == 0)
            lp->nlines = count_lines(out);
        free(out);
    }
}

/* Each reader appends the lines written since slog_begin to `lines`,
 * counts those beyond the cap in *dropped, and returns a note or NULL. */
static const char *read_journal(slog_pos *lp, json_t *lines, size_t *dropped)
{
    const char *note = NULL;
    char *out = NULL;
    char *after = lp->cursor ? mf_str("--after-cursor=%s", lp->cursor) : mf_str("--since=@%ld", lp->since_s);
    char *argv[] = {"journalctl", "-q", "--no-pager", "-o", "short-iso", after, NULL};
    if (proc_capture(argv, &out, 0) == 0)
        slog_add_lines(lines, out, SLOG_MAX_LINES, dropped);
    else
        note = "journalctl failed after the run";
    if (!lp->cursor)
        note = "the journal was empty before the run: lines since the whole second the run began";
    free(after);
    free(out);
    return note;
}

static const char *read_syslog(const slog_pos *lp, json_t *lines, size_t *dropped)
{
    const char *note = NULL;
    FILE *f = fopen("/var/log/syslog", "r");
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0) {
        if (st.st_ino == lp->ino && st.st_size >= lp->off)
            fseeko(f, lp->off, SEEK_SET);
        else
            note = "/var/log/syslog was rotated during the run: lines of the new file only";
        size_t cap = 1 << 16, n = 0;
        char *out = malloc(cap);
        size_t r;
        while (out && (r = fread(out + n, 1, cap - n - 1, f)) > 0) {
            n += r;
            if (cap - n < 4096)
                out = realloc(out, cap *= 2);
        }
        if (out) {
            out[n] = 0;
            slog_add_lines(lines, out, SLOG_MAX_LINES, dropped);
        }
        free(out);
    } else {
        note = "/var/log/syslog could not be read after the run";
    }
    if (f)
        fclose(f);
    return note;
}

static const char *read_kmsg(slog_pos *lp, json_t *lines, size_t *dropped)
{
    /* records "prio,seq,usec,flags;text\n" then " KEY=value" lines */
    char buf[8192];
    while (lp->fd >= 0) {
        ssize_t n = read(lp->fd, buf, sizeof buf - 1);
        if (n < 0 && (errno == EINTR || errno == EPIPE))
            continue; /* EPIPE: records overwritten meanwhile; the next read goes on */
        if (n <= 0)
            break; /* EAGAIN: no more */
        buf[n] = 0;
        char *semi = strchr(buf, ';');
        unsigned long long usec = 0;
        if (!semi || sscanf(buf, "%*d,%*u,%llu", &usec) != 1)
            continue;
        semi[1 + strcspn(semi + 1, "\n")] = 0;
        if (json_array_size(lines) < SLOG_MAX_LINES) {
            char *t = mf_str("[%5llu.%06llu] %s", usec / 1000000, usec % 1000000, semi + 1);
            json_array_append_new(lines, line_json(t, strlen(t)));
            free(t);
        } else {
            (*dropped)++;
        }
    }
    if (lp->fd >= 0)
        close(lp->fd);
    lp->fd = -1;
    return NULL;
}

static const char *read_dmesg(const slog_pos *lp, json_t *lines, size_t *dropped)
{
    char *argv[] = {"dmesg", NULL}, *out = NULL;
    if (proc_capture(argv, &out, 0) == 0) {
        const char *p = out;
        for (size_t i = 0; i < lp->nlines && p; i++) {
            p = strchr(p, '\n');
            if (p)
                p++;
        }
        if (p)
            slog_add_lines(lines, p, SLOG_MAX_LINES, dropped);
    }
    free(out);
    return "`dmesg` lines after the count taken before the run (the ring buffer may have wrapped)";
}

json_t *slog_end(slog_pos *lp)
{
    json_t *o = json_object(), *lines = json_array();
    size_t dropped = 0;
    const char *note;
    if (lp->kind == SLOG_JOURNAL)
        note = read_journal(lp, lines, &dropped);
    else if (lp->kind == SLOG_SYSLOG)
        note = read_syslog(lp, lines, &dropped);
    else if (lp->kind == SLOG_KMSG)
        note = read_kmsg(lp, lines, &dropped);
    else if (lp->kind == SLOG_DMESG)
        note = read_dmesg(lp, lines, &dropped);
    else
        note = "none of journalctl, /var/log/syslog, /dev/kmsg or dmesg can be read on this machine";
    free(lp->cursor);
    lp->cursor = NULL;
    json_object_set_new(o, "source", json_string(LOG_NAMES[lp->kind]));
    json_object_set_new(o, "lines", lines);
    if (dropped) {
        char *t = mf_str("%zu further lines not kept (at most %d)", dropped, SLOG_MAX_LINES);
        json_object_set_new(o, "note", json_string(t));
        free(t);
    } else if (note) {
        json_object_set_new(o, "note", json_string(note));
    }
    return o;
}
