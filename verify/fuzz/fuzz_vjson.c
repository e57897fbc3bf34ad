/* fuzz_vjson: the verifier's JSON reader (vjson.c).  An input it accepts
 * is written back (vj_write), and that text must parse again and write
 * back to the same bytes; a deep copy must write the same too. */
#include "fuzzhelp.h"
#include "vjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vj_node *n = NULL;
    char err[512];
    if (vj_parse((const char *)data, size, "fuzz.json", &n, err, sizeof err)) {
        vj_free(n);
        return 0;
    }
    vu_buf a = {0}, b = {0}, c = {0};
    vj_write(n, &a);
    vj_node *m = NULL;
    if (vj_parse(a.p, a.len, "again.json", &m, err, sizeof err)) {
        fprintf(stderr, "written JSON does not read back: %s\n%.*s\n", err, (int)a.len, a.p);
        abort();
    }
    vj_write(m, &b);
    if (a.len != b.len || memcmp(a.p, b.p, a.len)) {
        fprintf(stderr, "JSON written twice differs:\n%.*s\n---\n%.*s\n", (int)a.len, a.p, (int)b.len, b.p);
        abort();
    }
    vj_node *cp = vj_copy(n);
    vj_write(cp, &c);
    if (a.len != c.len || memcmp(a.p, c.p, a.len))
        abort();
    char sc[128];
    vj_scalar_text(n, sc, sizeof sc);
    vj_free(cp);
    vj_free(m);
    vj_free(n);
    vu_buf_free(&a);
    vu_buf_free(&b);
    vu_buf_free(&c);
    return 0;
}
