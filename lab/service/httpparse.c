/* httpparse: see httpparse.h. */
#include "httpparse.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util.h"

static const char *find_crlf2(const char *b, size_t n)
{
    for (size_t i = 0; i + 3 < n; i++)
        if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n')
            return b + i;
    return NULL;
}

static int parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0 || len > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int header_is(const char *name, size_t nlen, const char *want)
{
    return strlen(want) == nlen && strncasecmp(name, want, nlen) == 0;
}

int http_parse(const char *buf, size_t n, size_t max_head, size_t max_body, http_req *h, char *why,
               size_t whylen)
{
    memset(h, 0, sizeof *h);
    h->budget_ns = -1;
    const char *end = find_crlf2(buf, n < max_head ? n : max_head);
    if (!end) {
        if (n >= max_head) {
            ut_seterr(why, whylen, "request head over %zu bytes", max_head);
            return HTTP_BAD;
        }
        /* A request line must look like one early, or we stop reading garbage. */
        return HTTP_INCOMPLETE;
    }
    size_t head = (size_t)(end - buf) + 4;
    const char *line_end = memchr(buf, '\r', head);
    const char *sp1 = memchr(buf, ' ', (size_t)(line_end - buf));
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1)) : NULL;
    if (!sp1 || !sp2) {
        ut_seterr(why, whylen, "malformed request line");
        return HTTP_BAD;
    }
    size_t mlen = (size_t)(sp1 - buf), plen = (size_t)(sp2 - sp1 - 1), vlen = (size_t)(line_end - sp2 - 1);
    if (mlen == 3 && !memcmp(buf, "GET", 3))
        h->method = HTTP_GET;
    else if (mlen == 4 && !memcmp(buf, "POST", 4))
        h->method = HTTP_POST;
    else
        h->method = HTTP_OTHER;
    const char *path = sp1 + 1;
    h->path_is_score = plen == 6 && !memcmp(path, "/score", 6);
    h->path_is_health = plen == 7 && !memcmp(path, "/health", 7);
    h->path_is_calls = plen == 6 && !memcmp(path, "/calls", 6);
    int http10;
    if (vlen == 8 && !memcmp(sp2 + 1, "HTTP/1.1", 8))
        http10 = 0;
    else if (vlen == 8 && !memcmp(sp2 + 1, "HTTP/1.0", 8))
        http10 = 1;
    else {
        ut_seterr(why, whylen, "not HTTP/1.1 or HTTP/1.0");
        return HTTP_BAD;
    }
    h->close = http10;
    int have_len = 0;
    uint64_t clen = 0;
    const char *p = line_end + 2;
    while (p < end + 2) {
        const char *le = memchr(p, '\r', (size_t)(end + 2 - p));
        if (!le || le[1] != '\n') {
            ut_seterr(why, whylen, "header line without CRLF");
            return HTTP_BAD;
        }
        if (le == p)
            break;
        const char *colon = memchr(p, ':', (size_t)(le - p));
        if (!colon || colon == p) {
            ut_seterr(why, whylen, "header line without a name and a colon");
            return HTTP_BAD;
        }
        size_t nl = (size_t)(colon - p);
        const char *v = colon + 1;
        while (v < le && (*v == ' ' || *v == '\t'))
            v++;
        const char *ve = le;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        size_t vl = (size_t)(ve - v);
        if (header_is(p, nl, "Content-Length")) {
            uint64_t x;
            if (have_len || parse_u64(v, vl, UINT64_MAX, &x) != 0) {
                ut_seterr(why, whylen, have_len ? "Content-Length given twice" : "Content-Length is not a number");
                return HTTP_BAD;
            }
            have_len = 1;
            clen = x;
        } else if (header_is(p, nl, "Transfer-Encoding")) {
            ut_seterr(why, whylen, "Transfer-Encoding is not supported; send Content-Length");
            return HTTP_BAD;
        } else if (header_is(p, nl, "Connection")) {
            if (vl == 5 && !strncasecmp(v, "close", 5))
                h->close = 1;
            else if (vl == 10 && !strncasecmp(v, "keep-alive", 10))
                h->close = 0;
        } else if (header_is(p, nl, "X-Budget-Ns")) {
            uint64_t x;
            if (parse_u64(v, vl, INT64_MAX, &x) != 0) {
                ut_seterr(why, whylen, "X-Budget-Ns is not a whole number of ns");
                return HTTP_BAD;
            }
            h->budget_ns = (int64_t)x;
        }
        p = le + 2;
    }
    if (clen > max_body) {
        ut_seterr(why, whylen, "body of %llu bytes is over the %zu allowed", (unsigned long long)clen, max_body);
        return HTTP_TOO_LARGE;
    }
    if (h->method == HTTP_POST && !have_len) {
        ut_seterr(why, whylen, "POST needs a Content-Length");
        return HTTP_BAD;
    }
    if (n < head + clen)
        return HTTP_INCOMPLETE;
    h->body = buf + head;
    h->body_len = (size_t)clen;
    h->total = head + (size_t)clen;
    return HTTP_OK;
}

static size_t skip_ws(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

int http_score_body(const char *s, size_t n, uint32_t *id, uint32_t *row, char *why, size_t whylen)
{
    int have_id = 0, have_row = 0;
    size_t i = skip_ws(s, 0, n);
    if (i >= n || s[i] != '{') {
        ut_seterr(why, whylen, "body is not a JSON object");
        return -1;
    }
    i = skip_ws(s, i + 1, n);
    if (i < n && s[i] == '}')
        goto fields;
    for (;;) {
        if (i >= n || s[i] != '"') {
            ut_seterr(why, whylen, "body is not valid JSON: expected a field name at byte %zu", i);
            return -1;
        }
        size_t k = i + 1;
        while (k < n && s[k] != '"' && s[k] != '\\')
            k++;
        if (k >= n || s[k] != '"') {
            ut_seterr(why, whylen, "body is not valid JSON: field name not closed");
            return -1;
        }
        const char *name = s + i + 1;
        size_t nlen = k - i - 1;
        int is_id = nlen == 2 && !memcmp(name, "id", 2), is_row = nlen == 3 && !memcmp(name, "row", 3);
        if (!is_id && !is_row) {
            ut_seterr(why, whylen, "unknown field \"%.*s\" (expected id and row)", (int)(nlen > 40 ? 40 : nlen),
                      name);
            return -1;
        }
        i = skip_ws(s, k + 1, n);
        if (i >= n || s[i] != ':') {
            ut_seterr(why, whylen, "body is not valid JSON: expected ':' after \"%s\"", is_id ? "id" : "row");
            return -1;
        }
        i = skip_ws(s, i + 1, n);
        size_t d = i;
        while (d < n && s[d] >= '0' && s[d] <= '9')
            d++;
        uint64_t v;
        int bad_end = d < n && (s[d] == '.' || s[d] == 'e' || s[d] == 'E');
        if (bad_end || parse_u64(s + i, d - i, UINT32_MAX, &v) != 0) {
            ut_seterr(why, whylen, "field %s is not a whole number from 0 to 4294967295", is_id ? "id" : "row");
            return -1;
        }
        if ((is_id && have_id) || (is_row && have_row)) {
            ut_seterr(why, whylen, "field %s given twice", is_id ? "id" : "row");
            return -1;
        }
        if (is_id) {
            *id = (uint32_t)v;
            have_id = 1;
        } else {
            *row = (uint32_t)v;
            have_row = 1;
        }
        i = skip_ws(s, d, n);
        if (i < n && s[i] == ',') {
            i = skip_ws(s, i + 1, n);
            continue;
        }
        if (i < n && s[i] == '}')
            break;
        ut_seterr(why, whylen, "body is not valid JSON: expected ',' or '}' at byte %zu", i);
        return -1;
    }
fields:
    if (skip_ws(s, i + 1, n) != n) {
        ut_seterr(why, whylen, "body has bytes after the JSON object");
        return -1;
    }
    if (!have_id || !have_row) {
        ut_seterr(why, whylen, "field %s is missing", have_id ? "row" : "id");
        return -1;
    }
    return 0;
}
