/* scanassign: the scanner's rules that need the words around a secret; see scanassign.h. */
#include "scanassign.h"

#include <ctype.h>
#include <string.h>

/* ---- bytes ---- */

static int is_alnum(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}
static int is_hexd(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
/* a byte of a name: letters, digits, _ . - */
static int id_byte(unsigned char c)
{
    return is_alnum(c) || c == '_' || c == '.' || c == '-';
}
static int url_byte(unsigned char c)
{
    return is_alnum(c) || c == '_' || c == '-';
}
/* c is one of set (never the NUL byte) */
static int in_set(unsigned char c, const char *set)
{
    return c && strchr(set, c) != NULL;
}
static int ci_has(const unsigned char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= n; i++)
        if (!strncasecmp((const char *)s + i, w, wl))
            return 1;
    return 0;
}

/* ---- the name a value is assigned to ---- */

enum { K_NONE, K_PASSWORD, K_SECRET, K_GENERIC };

/* the last word of a name that says the value is about the secret, not the
 * secret itself: password_file, token_url, secret_name, key_id ... */
static const char *const about[] = {
    "id",     "ids",     "name",    "names",   "length",  "len",    "size",     "file",    "files",   "path",
    "paths",  "dir",     "type",    "types",   "ref",     "url",    "uri",      "urls",    "endpoint", "version",
    "count",  "field",   "fields",  "env",     "var",     "vars",   "header",   "format",  "kind",    "arn",
    "alias",  "algorithm", "alg",   "prefix",  "suffix",  "index",  "idx",      "mode",    "policy",  "label",
    "schema", "column",  "timeout", "ttl",     "expiry",  "expires", "expiration", "bits", "usage",   "source",
    "provider", "store", "manager", "rotation", "method", "scheme", "scope",    "scopes",  "hint",    "min",
    "max",    "required", "enabled", "location", "region", "pattern", "rule",    "rules",   "hash",    "set",
    "limit",  "policy",  "reset",   "rate",    "budget",  "seconds", "ms",      "ns",      "at",      "created",
    "updated", "secs",   "bytes",   "ok",      "prompt",  "changed", "strength", "check",  "valid",   "error",
};
/* a word before "key" that makes it a database or table key, or a public one */
static const char *const not_secret_key[] = {"primary", "foreign", "sort", "partition", "hash",   "range",
                                             "cache",   "lookup",  "group", "row",      "unique", "composite",
                                             "shard",   "natural", "dict", "map",      "public", "pub",
                                             "sequence", "idempotency", "dedup", "join", "index", "bucket"};

static int in_list(const char *w, const char *const *list, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(w, list[k]))
            return 1;
    return 0;
}

/* the words of a name, lowercased: split at non-alphanumerics and at a
 * lower-to-upper change (dbPassword) */
static int words_of(const unsigned char *id, size_t len, char w[][24], int max)
{
    int nw = 0;
    size_t i = 0;
    while (i < len && nw < max) {
        while (i < len && !is_alnum(id[i]))
            i++;
        size_t k = 0;
        while (i < len && is_alnum(id[i])) {
            if (k > 0 && isupper(id[i]) && islower(id[i - 1]))
                break;
            if (k < 23)
                w[nw][k++] = (char)tolower(id[i]);
            i++;
        }
        if (k)
            w[nw++][k] = 0;
    }
    return nw;
}

/* the class of a name: the secret's word must be among its last two words,
 * and the last word must not be one of about[] */
static int key_class(const unsigned char *id, size_t len)
{
    if (len == 0 || len > 80)
        return K_NONE;
    char low[81];
    for (size_t i = 0; i < len; i++)
        low[i] = (char)tolower(id[i]);
    low[len] = 0;
    if (!strstr(low, "pass") && !strstr(low, "pwd") && !strstr(low, "secret") && !strstr(low, "token") &&
        !strstr(low, "key") && !strstr(low, "auth") && !strstr(low, "cred"))
        return K_NONE;
    char w[12][24];
    int nw = words_of(id, len, w, 12);
    if (nw == 0 || in_list(w[nw - 1], about, sizeof about / sizeof *about))
        return K_NONE;
    int cls = K_NONE;
    for (int k = nw >= 2 ? nw - 2 : 0; k < nw; k++) {
        const char *x = w[k];
        int c = K_NONE;
        if (strstr(x, "password") || strstr(x, "passwd") || strstr(x, "passphrase") || !strcmp(x, "pwd") ||
            !strcmp(x, "pass"))
            c = K_PASSWORD;
        else if (strstr(x, "secret"))
            c = K_SECRET;
        else if (strstr(x, "token") || strstr(x, "apikey") || strstr(x, "accesskey") || strstr(x, "privatekey") ||
                 strstr(x, "credential") || !strcmp(x, "creds") || !strcmp(x, "auth") || !strcmp(x, "authkey") ||
                 !strcmp(x, "authorization"))
            c = K_GENERIC;
        else if (!strcmp(x, "key") || !strcmp(x, "keys")) {
            if (k > 0 && in_list(w[k - 1], not_secret_key, sizeof not_secret_key / sizeof *not_secret_key))
                continue;
            c = K_GENERIC;
        }
        if (c != K_NONE && (cls == K_NONE || c < cls))
            cls = c;
    }
    return cls;
}

/* ---- the value ---- */

/* masked or a placeholder: not a secret (verify/README.md lists each) */
static int placeholder(const unsigned char *v, size_t n)
{
    if (n == 0)
        return 1;
    int alnum = 0, same = 1, letters_only = 1;
    for (size_t i = 0; i < n; i++) {
        alnum |= is_alnum(v[i]);
        same &= v[i] == v[0];
        if (!(isalpha(v[i]) || v[i] == '_' || v[i] == '-' || v[i] == '.' || v[i] == ' '))
            letters_only = 0;
    }
    if (!alnum || same)
        return 1; /* ***, ..., xxxxxxxx */
    if (memmem(v, n, "***", 3))
        return 1; /* masked, whole or in part */
    if (ci_has(v, n, "%2a%2a%2a"))
        return 1; /* masked, percent-encoded */
    if (v[0] == '$' || v[0] == '%')
        return 1; /* $VAR ${VAR} $(cmd) %VAR% %s %(name)s */
    if (v[0] == '<' && v[n - 1] == '>')
        return 1; /* <password> */
    if (v[0] == '[' && v[n - 1] == ']')
        return 1; /* [REDACTED] */
    if (n >= 4 && v[0] == '{' && v[1] == '{')
        return 1; /* {{ .Values.x }} */
    static const char *const words[] = {"null", "none", "nil", "true", "false", "undefined", "redacted", "masked",
                                        "hidden", "removed", "empty", "unset", "todo", "fixme", "n/a"};
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (n == strlen(words[k]) && !strncasecmp((const char *)v, words[k], n))
            return 1;
    /* a word that names what should be there: YOUR_API_KEY, your-password-here */
    static const char *const names[] = {"password", "passwd", "secret", "token", "key", "redacted", "placeholder",
                                        "example", "your"};
    if (letters_only)
        for (size_t k = 0; k < sizeof names / sizeof *names; k++)
            if (ci_has(v, n, names[k]))
                return 1;
    return 0;
}

typedef struct {
    size_t s, e;
    int quoted;
} val;

/* the value starting at p (after the separator): 1 when there is one.
 * colon: the separator was ':' (then an unquoted value must be the rest of
 * its line, as in YAML; prose such as "password: see below" is left alone) */
static int value_at(const unsigned char *b, size_t n, size_t p, int colon, val *v)
{
    size_t k = 0;
    while (p < n && k < 5 && (b[p] == ' ' || b[p] == '\t'))
        p++, k++;
    if (p >= n)
        return 0;
    unsigned char q = b[p];
    if (q == '"' || q == '\'' || q == '`') {
        size_t e = p + 1;
        while (e < n && e < p + 301 && b[e] != q && b[e] != '\n')
            e++;
        if (e >= n || b[e] != q)
            return 0;
        v->s = p + 1;
        v->e = e;
        v->quoted = 1;
        return 1;
    }
    size_t e = p;
    while (e < n && e < p + 300 && !in_set(b[e], " \t\r\n\"'`;,&)}]<>"))
        e++;
    if (e == p)
        return 0;
    if (colon) {
        size_t t = e;
        while (t < n && (b[t] == ' ' || b[t] == '\t' || b[t] == '\r'))
            t++;
        if (t < n && b[t] != '\n' && b[t] != '#')
            return 0;
    }
    v->s = p;
    v->e = e;
    v->quoted = 0;
    return 1;
}

/* a value of words and numbers split by / . - _ (a path, a version, a run
 * name) rather than drawn at random: at least 3 parts, half of them plain */
static int structured(const unsigned char *t, size_t len)
{
    size_t parts = 0, plain = 0, p0 = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && !in_set(t[i], "/.-_"))
            continue;
        size_t pl = i - p0;
        if (pl > 0) {
            parts++;
            int lower = 1, digits = 1, cap = t[p0] >= 'A' && t[p0] <= 'Z';
            for (size_t k = p0; k < i; k++) {
                lower &= t[k] >= 'a' && t[k] <= 'z';
                digits &= is_digit(t[k]);
                if (k > p0)
                    cap &= t[k] >= 'a' && t[k] <= 'z';
            }
            plain += (size_t)(lower || digits || cap);
        }
        p0 = i + 1;
    }
    return parts >= 3 && 2 * plain >= parts;
}

/* the value v of a name of class cls: add its finding, if it is one */
static void judge(sr_list *l, const unsigned char *b, size_t n, int cls, const val *v)
{
    const unsigned char *t = b + v->s;
    size_t len = v->e - v->s;
    if (placeholder(t, len) || sr_is_example(b, n, v->s, v->e))
        return;
    int hex = len >= 32, spaces = 0, plain = 1, digit = 0;
    for (size_t i = 0; i < len; i++) {
        hex &= is_hexd(t[i]);
        spaces |= t[i] == ' ' || t[i] == '\t';
        plain &= is_alnum(t[i]) || in_set(t[i], "_.=+/~-");
        digit |= is_digit(t[i]) || t[i] == '+' || t[i] == '/' || t[i] == '=' || t[i] == '~';
    }
    if (cls == K_PASSWORD) {
        if (len >= 3 && (v->quoted || !spaces))
            sr_add(l, "password-assignment", v->s, len);
        return;
    }
    if (spaces)
        return;
    if (hex && sr_entropy(t, len) >= 3.0) {
        sr_add(l, "hex-secret", v->s, len);
        return;
    }
    if (cls == K_SECRET) {
        if (len >= 6)
            sr_add(l, "secret-assignment", v->s, len);
        return;
    }
    if (len >= 10 && plain && digit && !structured(t, len) && sr_entropy(t, len) >= 3.5)
        sr_add(l, "generic-api-key", v->s, len);
}

/* the names of an AWS credentials or config file (and of the environment)
 * whose value is the secret itself, whatever it looks like */
static int aws_credential(const unsigned char *id, size_t len)
{
    static const char *const names[] = {"aws_secret_access_key", "aws_session_token", "aws_security_token"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (len == strlen(names[k]) && !strncasecmp((const char *)id, names[k], len))
            return 1;
    return 0;
}

/* the separator '=' or ':' at i (seplen bytes: "=", ":", ":=", "=>") */
static void assign_at(sr_list *l, const unsigned char *b, size_t n, size_t i, size_t seplen)
{
    size_t k = i;
    while (k > 0 && i - k < 4 && (b[k - 1] == ' ' || b[k - 1] == '\t'))
        k--;
    if (k > 0 && (b[k - 1] == '"' || b[k - 1] == '\''))
        k--;
    size_t e = k;
    while (k > 0 && e - k < 80 && id_byte(b[k - 1]))
        k--;
    if (k == e || (k > 0 && id_byte(b[k - 1])))
        return;
    if (aws_credential(b + k, e - k)) {   /* any value but a placeholder is the secret */
        val v;
        if (value_at(b, n, i + seplen, 0, &v) && v.e - v.s >= 4 && !placeholder(b + v.s, v.e - v.s) &&
            !sr_is_example(b, n, v.s, v.e))
            sr_add(l, "aws-credentials", v.s, v.e - v.s);
        return;
    }
    int cls = key_class(b + k, e - k);
    if (cls == K_NONE)
        return;
    val v;
    if (value_at(b, n, i + seplen, b[i] == ':' && seplen == 1, &v))
        judge(l, b, n, cls, &v);
}

/* --password x, "--token", "x" (a command line, or one written as a JSON
 * list) at the "--" at i */
static void flag_at(sr_list *l, const unsigned char *b, size_t n, size_t i)
{
    if (i > 0 && !in_set(b[i - 1], " \t\"'[,("))
        return;
    size_t s = i + 2, e = s;
    while (e < n && e - s < 60 && (url_byte(b[e])))
        e++;
    if (e == s || e >= n || b[e] == '=')
        return;
    int cls = key_class(b + s, e - s);
    if (cls == K_NONE)
        return;
    size_t p = e;
    if (b[p] == '"' || b[p] == '\'') { /* "--token", "x" */
        unsigned char q = b[p++];
        while (p < n && (b[p] == ' ' || b[p] == ','))
            p++;
        if (p >= n || b[p] != q)
            return;
    } else if (b[p] != ' ') {
        return;
    }
    val v;
    if (!value_at(b, n, p, 0, &v) || b[v.s] == '-')
        return;
    judge(l, b, n, cls, &v);
}

/* scheme://user:password@host at the ':' of "://" at i */
static void url_password(sr_list *l, const unsigned char *b, size_t n, size_t i)
{
    if (i == 0 || !isalpha(b[i - 1]))
        return;
    size_t s = i + 3, at = 0, e = s;
    while (e < n && e - s < 256 && b[e] && !in_set(b[e], "/?#\"'`<>\\ \t\r\n")) {
        if (b[e] == '@')
            at = e;
        e++;
    }
    if (!at || at + 1 >= n || !(is_alnum(b[at + 1]) || b[at + 1] == '['))
        return;
    const unsigned char *c = memchr(b + s, ':', at - s);
    if (!c)
        return;
    size_t ps = (size_t)(c - b) + 1;
    if (ps >= at || placeholder(b + ps, at - ps))
        return;
    sr_add(l, "url-password", ps, at - ps);
}

/* a byte of a connection string's user name */
static int user_byte(unsigned char c)
{
    return is_alnum(c) || c == '_' || c == '.' || c == '-' || c == '%' || c == '+';
}

/* user:password@host with no scheme (a libpq or JDBC-less DSN, a Redis or
 * MongoDB host list, a proxy setting) at the ':' at i: the user starts a
 * word with a letter or '_' (not after "//": url_password has those, nor
 * after '/', ':' or '@'), the password runs to the '@' with no space, '/'
 * or quote, and a host follows.  Left alone: an image digest
 * (postgres:16@sha256:...), a URI scheme without "//" (mailto:, sip:,
 * xmpp:, tel:), a placeholder or masked password. */
static void bare_url_password(sr_list *l, const unsigned char *b, size_t n, size_t i)
{
    size_t u = i;
    while (u > 0 && i - u < 64 && user_byte(b[u - 1]))
        u--;
    if (u == i || !(isalpha(b[u]) || b[u] == '_') || (u > 0 && (user_byte(b[u - 1]) || in_set(b[u - 1], "/:@\\"))))
        return;
    static const char *const schemes[] = {"mailto", "sip", "sips", "xmpp", "tel", "im", "pres", "news", "urn"};
    for (size_t k = 0; k < sizeof schemes / sizeof *schemes; k++)
        if (i - u == strlen(schemes[k]) && !strncasecmp((const char *)b + u, schemes[k], i - u))
            return;
    size_t at = i + 1;
    while (at < n && at - i <= 128 && b[at] > ' ' && b[at] < 0x7f && !in_set(b[at], "@/\"'`<>()[]{},;"))
        at++;
    if (at >= n || b[at] != '@' || at == i + 1 || at + 1 >= n || !(is_alnum(b[at + 1]) || b[at + 1] == '['))
        return;
    size_t h = at + 1, he = h;
    while (he < n && (is_alnum(b[he]) || b[he] == '-' || b[he] == '.'))
        he++;
    static const char *const digests[] = {"sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3"};
    for (size_t k = 0; k < sizeof digests / sizeof *digests; k++)
        if (he - h == strlen(digests[k]) && !strncasecmp((const char *)b + h, digests[k], he - h))
            return;
    if (placeholder(b + i + 1, at - i - 1))
        return;
    sr_add(l, "url-password", i + 1, at - i - 1);
}

/* a .pgpass line host:port:database:user:password at the ':' at i (the
 * first of the record's four): the record starts a line or follows a space
 * or quote, the port is digits or '*', the database and user names are
 * names starting with a letter or _ (or *), '\:' escapes a colon, and the
 * password, its fifth field, runs to the line's end (or a quote) with no
 * unescaped ':'.  So times (12:30:45), IPv6 addresses, MAC addresses,
 * host:port pairs and compiler messages (a.c:12:5: error) are not one. */
static void pgpass(sr_list *l, const unsigned char *b, size_t n, size_t i)
{
    size_t s = i;
    while (s > 0 && i - s < 256 && (id_byte(b[s - 1]) || b[s - 1] == '*' || b[s - 1] == '/'))
        s--;
    if (s == i || (s > 0 && !in_set(b[s - 1], " \t\n\"'`")))
        return;
    if (b[s] != '/' && memchr(b + s, '/', i - s))
        return;   /* a relative path (src/x.c:12:5:...): a host is a name, or a socket's folder */
    size_t p = i + 1;
    for (int nf = 1; nf < 4; nf++) {   /* the port, database and user fields */
        size_t q = p;
        while (q < n && q - p < 128) {
            if (b[q] == '\\' && q + 1 < n && b[q + 1] == ':')
                q += 2;   /* an escaped colon */
            else if (id_byte(b[q]) || b[q] == '*' || b[q] == '$')
                q++;
            else
                break;
        }
        if (q == p || q >= n || b[q] != ':')
            return;
        if (nf == 1 && !(q - p == 1 && b[p] == '*')) {   /* the port */
            if (q - p > 5)
                return;
            for (size_t k = p; k < q; k++)
                if (!is_digit(b[k]))
                    return;
        }
        if (nf > 1 && !(b[p] == '*' && q - p == 1) && !(isalpha(b[p]) || b[p] == '_'))
            return;   /* a database or user name starts as an SQL name does (not 00Z-10 of a time) */
        p = q + 1;
    }
    size_t e = p;
    while (e < n && e - p < 256 && !in_set(b[e], "\r\n\"'`\t ")) {
        if (b[e] == ':' && b[e - 1] != '\\')
            return;   /* a sixth field: not a .pgpass line */
        e++;
    }
    if (e == p || placeholder(b + p, e - p) || sr_is_example(b, n, p, e))
        return;
    sr_add(l, "pgpass-password", p, e - p);
}

/* a word of a .netrc at p: [*s, *e) up to white space or a quote (a quoted value to its quote) */
static int netrc_word(const unsigned char *b, size_t n, size_t p, size_t *s, size_t *e)
{
    while (p < n && (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r'))
        p++;
    if (p >= n)
        return 0;
    size_t q = p;
    if (b[p] == '"') {
        q = ++p;
        while (q < n && q - p < 256 && b[q] != '"' && b[q] != '\n')
            q++;
        if (q >= n || b[q] != '"')
            return 0;
        *s = p;
        *e = q;
        return 1;
    }
    while (q < n && q - p < 256 && !in_set(b[q], " \t\r\n\"'"))
        q++;
    *s = p;
    *e = q;
    return q > p;
}

static int word_is(const unsigned char *b, size_t s, size_t e, const char *w)
{
    return e - s == strlen(w) && !memcmp(b + s, w, e - s);
}

/* a .netrc entry "machine <host> login <user> password <password>" (or
 * "default ..."; its keywords in any order, on one line or several) at
 * the "machine" or "default" at q: the value after "password" (and after
 * "account", which .netrc also keeps secret).  The entry's words must be
 * .netrc's keywords each followed by a value; prose stops at the first
 * other word. */
static void netrc(sr_list *l, const unsigned char *b, size_t n, size_t q)
{
    size_t s, e;
    if (q > 0 && !in_set(b[q - 1], " \t\n\r\"'"))
        return;
    if (!netrc_word(b, n, q, &s, &e))
        return;
    int dflt = word_is(b, s, e, "default");
    size_t p = e;
    if (!dflt) {   /* machine <host> */
        if (!word_is(b, s, e, "machine") || !netrc_word(b, n, p, &s, &e))
            return;
        p = e;
    }
    for (int k = 0; k < 6 && netrc_word(b, n, p, &s, &e); k++) {
        int pw = word_is(b, s, e, "password") || word_is(b, s, e, "account");
        if (!pw && !word_is(b, s, e, "login") && !word_is(b, s, e, "port"))
            return;
        size_t vs, ve;
        if (!netrc_word(b, n, e, &vs, &ve))
            return;
        if (pw && ve - vs >= 1 && !placeholder(b + vs, ve - vs) && !sr_is_example(b, n, vs, ve))
            sr_add(l, "netrc-password", vs, ve - vs);
        p = ve + (ve < n && b[ve] == '"');
    }
}

/* 123456789:AA... (a Telegram bot's token) at the ':' at i */
static void telegram(sr_list *l, const unsigned char *b, size_t n, size_t i)
{
    size_t d = i;
    while (d > 0 && is_digit(b[d - 1]) && i - d <= 16)
        d--;
    if (i - d < 5 || i - d > 16)
        return;
    if (d > 0 && is_alnum(b[d - 1]) && !(d >= 3 && !memcmp(b + d - 3, "bot", 3)))
        return;
    if (i + 36 > n || b[i + 1] != 'A')
        return;
    size_t m = 0;
    while (i + 1 + m < n && m <= 35 && url_byte(b[i + 1 + m]))
        m++;
    if (m != 35 || sr_entropy(b + i + 1, m) < 3.0)
        return;
    sr_add(l, "telegram-bot-api-token", d, i + 1 + m - d);
}

/* "Bearer <token>" at the "earer " at q */
static void bearer(sr_list *l, const unsigned char *b, size_t n, size_t q)
{
    if (q == 0 || (b[q - 1] != 'B' && b[q - 1] != 'b') || (q >= 2 && is_alnum(b[q - 2])))
        return;
    size_t s = q + 6;
    while (s < n && b[s] == ' ')
        s++;
    size_t e = s;
    while (e < n && (is_alnum(b[e]) || in_set(b[e], "._~+/-")))
        e++;
    while (e < n && b[e] == '=')
        e++;
    size_t len = e - s;
    if (len < 16 || placeholder(b + s, len) || sr_is_example(b, n, s, e))
        return;
    int digit = 0;
    for (size_t k = s; k < e; k++)
        digit |= is_digit(b[k]);
    if (digit && sr_entropy(b + s, len) >= 3.0)
        sr_add(l, "bearer-token", s, len);
}

static int b64v(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (is_digit(c))
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* "Authorization: Basic <base64 of user:password>" at the "asic " at q */
static void basic(sr_list *l, const unsigned char *b, size_t n, size_t q)
{
    if (q == 0 || (b[q - 1] != 'B' && b[q - 1] != 'b') || (q >= 2 && is_alnum(b[q - 2])))
        return;
    size_t from = q > 60 ? q - 60 : 0;
    for (size_t k = q; k > from; k--)
        if (b[k - 1] == '\n') {
            from = k;
            break;
        }
    if (!ci_has(b + from, q - from, "authorization"))
        return;
    size_t s = q + 5;
    while (s < n && b[s] == ' ')
        s++;
    size_t e = s;
    while (e < n && b64v(b[e]) >= 0)
        e++;
    size_t len = e - s;
    while (e < n && b[e] == '=')
        e++;
    if (len < 8 || placeholder(b + s, len))
        return;
    /* decoded, it holds user:password with a password */
    unsigned acc = 0;
    int bits = 0, colon = 0, after = 0;
    for (size_t k = s; k < s + len; k++) {
        acc = (acc << 6) | (unsigned)b64v(b[k]);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            unsigned char c = (unsigned char)(acc >> bits);
            if (colon)
                after++;
            if (c == ':' && !colon)
                colon = 1;
        }
    }
    if (colon && after > 0)
        sr_add(l, "basic-auth", s, e - s);
}

/* an Azure AD client secret: xxx9Q~ + 31 to 34 chars, at the "Q~" at q */
static void azure(sr_list *l, const unsigned char *b, size_t n, size_t q)
{
#define AZ(c) (is_alnum(c) || (c) == '_' || (c) == '~' || (c) == '.')
    if (q < 4 || !is_digit(b[q - 1]) || !AZ(b[q - 2]) || !AZ(b[q - 3]) || !AZ(b[q - 4]))
        return;
    if (q > 4 && AZ(b[q - 5]))
        return;
    size_t m = 0;
    while (q + 2 + m < n && m <= 34 && (AZ(b[q + 2 + m]) || b[q + 2 + m] == '-'))
        m++;
    if (m < 31 || m > 34 || sr_entropy(b + q + 2, m) < 3.0)
        return;
    sr_add(l, "azure-ad-client-secret", q - 4, m + 6);
#undef AZ
}

/* access_token$production$<16>$<32 hex> (PayPal Braintree) at q */
static void braintree(sr_list *l, const unsigned char *b, size_t n, size_t q)
{
    size_t p = q + 13;
    if (p + 8 <= n && !memcmp(b + p, "sandbox$", 8))
        p += 8;
    else if (p + 11 <= n && !memcmp(b + p, "production$", 11))
        p += 11;
    else
        return;
    size_t k = 0;
    while (p + k < n && k < 16 && (is_digit(b[p + k]) || (b[p + k] >= 'a' && b[p + k] <= 'z')))
        k++;
    if (k != 16 || p + 16 >= n || b[p + 16] != '$')
        return;
    size_t h = p + 17, m = 0;
    while (h + m < n && m < 33 && is_hexd(b[h + m]))
        m++;
    if (m != 32)
        return;
    sr_add(l, "paypal-braintree-access-token", q, h + m - q);
}

typedef void (*at_fn)(sr_list *l, const unsigned char *b, size_t n, size_t q);

/* every place of needle in b, found by memchr on its byte k: the byte is
 * chosen rare in the lab's raw files (digits and tabs), which are most of
 * what is scanned, so that the pass costs about a memchr */
static void each(sr_list *l, const unsigned char *b, size_t n, const char *needle, size_t k, at_fn fn)
{
    size_t nl = strlen(needle);
    const unsigned char *p = b + k, *end = b + n;
    while (p < end && (p = memchr(p, needle[k], (size_t)(end - p))) != NULL) {
        size_t q = (size_t)(p - b) - k;
        if (q + nl <= n && !memcmp(b + q, needle, nl))
            fn(l, b, n, q);
        p++;
    }
}

void sa_buffer(sr_list *l, const unsigned char *b, size_t n)
{
    const unsigned char *p, *end = b + n;
    for (p = b; p < end && (p = memchr(p, '=', (size_t)(end - p))) != NULL; p++) {
        size_t i = (size_t)(p - b);
        if (i > 0 && in_set(b[i - 1], "=!<>:"))
            continue; /* ==, !=, <=, >=, and := (seen at ':') */
        if (i + 1 < n && b[i + 1] == '=')
            continue;
        assign_at(l, b, n, i, i + 1 < n && b[i + 1] == '>' ? 2 : 1);
    }
    for (p = b; p < end && (p = memchr(p, ':', (size_t)(end - p))) != NULL; p++) {
        size_t i = (size_t)(p - b);
        if (i + 2 < n && b[i + 1] == '/' && b[i + 2] == '/') {
            url_password(l, b, n, i);
            continue;
        }
        if ((i > 0 && b[i - 1] == ':') || (i + 1 < n && b[i + 1] == ':'))
            continue; /* std::x, IPv6 */
        telegram(l, b, n, i);
        bare_url_password(l, b, n, i);
        pgpass(l, b, n, i);
        assign_at(l, b, n, i, i + 1 < n && b[i + 1] == '=' ? 2 : 1);
    }
    /* "Bearer x", "Basic x": at each space */
    for (p = b; p < end && (p = memchr(p, ' ', (size_t)(end - p))) != NULL; p++) {
        size_t i = (size_t)(p - b);
        if (i >= 5 && (!memcmp(b + i - 5, "earer", 5) || !memcmp(b + i - 5, "EARER", 5)))
            bearer(l, b, n, i - 5);
        if (i >= 4 && (!memcmp(b + i - 4, "asic", 4) || !memcmp(b + i - 4, "ASIC", 4)))
            basic(l, b, n, i - 4);
    }
    each(l, b, n, "--", 0, flag_at);
    each(l, b, n, "machine", 0, netrc);
    each(l, b, n, "default", 0, netrc);
    each(l, b, n, "Q~", 1, azure);
    each(l, b, n, "access_token$", 12, braintree);
}
