/* answer: see answer.h. */
#include "answer.h"

#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "opt.h"

/* s[0..n) without blanks around it, into tok (at most toklen - 1 bytes). */
static int token(const char *s, size_t n, char *tok, size_t toklen)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n >= toklen)
        return -1;
    memcpy(tok, s, n);
    tok[n] = '\0';
    return 0;
}

int ans_head_parse(const char *buf, size_t n, size_t max_body, ans_head *h, char *why, size_t whylen)
{
    const char *hend = memmem(buf, n, "\r\n\r\n", 4);
    if (!hend) {
        if (n > ANS_MAX_HEAD) {
            snprintf(why, whylen, "answer headers longer than 64 KiB");
            return -1;
        }
        return 0;
    }
    /* the lines below are walked with strstr: a NUL would end them early */
    if (memchr(buf, '\0', (size_t)(hend - buf))) {
        snprintf(why, whylen, "a NUL byte in the answer's head");
        return -1;
    }
    char code[4], reason[64] = "";
    int status;
    if (strncmp(buf, "HTTP/1.", 7) != 0 || buf[8] != ' ' || token(buf + 9, 3, code, sizeof code) != 0 ||
        strlen(code) != 3 || (buf[12] != ' ' && buf[12] != '\r') ||
        opt_int(code, 100, 999, &status, reason, sizeof reason) != 0) {
        char line[96];
        snprintf(line, sizeof line, "%.80s", buf);
        line[strcspn(line, "\r\n")] = '\0';
        snprintf(why, whylen, "bad status line: %s", line);
        return -1;
    }
    memset(h, 0, sizeof *h);
    h->status = status;
    int have_len = 0;
    for (const char *line = strstr(buf, "\r\n") + 2; line < hend; line = strstr(line, "\r\n") + 2) {
        const char *eol = strstr(line, "\r\n");
        if (!strncasecmp(line, "Content-Length:", 15)) {
            char tok[32];
            int64_t v;
            if (token(line + 15, (size_t)(eol - line - 15), tok, sizeof tok) != 0 ||
                opt_i64(tok, 0, (int64_t)max_body, &v, reason, sizeof reason) != 0) {
                snprintf(why, whylen, "bad Content-Length: %s", reason[0] ? reason : "too long");
                return -1;
            }
            h->body_len = (size_t)v;
            have_len = 1;
        } else if (!strncasecmp(line, "Connection:", 11)) {
            for (const char *p = line + 11; p + 5 <= eol; p++)
                if (!strncasecmp(p, "close", 5))
                    h->close = 1;
        }
    }
    if (!have_len) {
        snprintf(why, whylen, "(status %d) has no Content-Length", status);
        return -1;
    }
    h->head_len = (size_t)(hend + 4 - buf);
    return 1;
}

/* The value of "key" in a flat JSON object: a pointer just past the ':'
 * and any blanks, or NULL. */
static const char *find_key(const char *s, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = s; (p = strchr(p, '"')) != NULL; p++) {
        if (!strncmp(p + 1, key, kl) && p[kl + 1] == '"') {
            const char *v = p + kl + 2;
            while (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n')
                v++;
            if (*v != ':')
                continue;
            v++;
            while (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n')
                v++;
            return v;
        }
    }
    return NULL;
}

/* The number starting at v (up to ',', '}' or a blank) into tok. */
static int number_at(const char *v, char *tok, size_t toklen)
{
    return v ? token(v, strcspn(v, ",} \t\r\n"), tok, toklen) : -1;
}

int ans_body_parse(const char *body, int status, int64_t j, char *kind, float *score, char *why,
                   size_t whylen)
{
    char tok[48], reason[64];
    const char *v = find_key(body, "id");
    if (v || status == 200) {
        int64_t id;
        if (number_at(v, tok, sizeof tok) != 0 ||
            opt_i64(tok, INT64_MIN, INT64_MAX, &id, reason, sizeof reason) != 0) {
            snprintf(why, whylen, "(status %d) has no numeric \"id\": %.200s", status, body);
            return -1;
        }
        if (id != j) {
            snprintf(why, whylen, "carries id %" PRId64, id);
            return -1;
        }
    }
    *kind = 'E';
    if (status == 200) {
        const char *k = find_key(body, "kind");
        if (k && !strncmp(k, "\"live\"", 6))
            *kind = 'L';
        else if (k && !strncmp(k, "\"last_known\"", 12))
            *kind = 'K';
        else if (k && !strncmp(k, "\"default\"", 9))
            *kind = 'D';
    }
    if (*kind != 'E') {
        double d;
        if (number_at(find_key(body, "score"), tok, sizeof tok) != 0 ||
            opt_f64(tok, -FLT_MAX, FLT_MAX, &d, reason, sizeof reason) != 0) {
            snprintf(why, whylen, "has kind %c but no numeric \"score\": %.200s", *kind, body);
            return -1;
        }
        *score = (float)d;
    }
    return 0;
}
