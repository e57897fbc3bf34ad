/* test_fuzzfound: the bugs the fuzz harnesses (fuzz/) and their review
 * found in the verifier's parsers, each pinned by hand-made input (the
 * input that showed it is also in fuzz/corpus/<harness>/, replayed by
 * `make test`). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predicate.h"
#include "scan.h"
#include "vjson.h"
#include "vutil.h"

/* A predicate of more than 512 words was cut at the 512th and the rest
 * ignored: 101 clauses (4 of them with "* B.n") end exactly at word 512,
 * so "and anything at all" after them was accepted. */
Test(fuzzfound, predicate_longer_than_512_words_is_refused_not_cut)
{
    vu_buf b = {0};
    for (int i = 0; i < 101; i++) {
        if (i)
            vu_buf_puts(&b, " and ");
        vu_buf_puts(&b, i < 4 ? "every A.n > 1 * B.n" : "every A.n > 1");
    }
    pr_pred p;
    char err[256] = "";
    cr_assert_eq(pr_parse(b.p, &p, err, sizeof err), 0, "%s", err);   /* 512 words: read whole */
    cr_expect_eq(p.n, 101);
    pr_free(&p);
    vu_buf_puts(&b, " and not a clause");
    cr_expect_neq(pr_parse(b.p, &p, err, sizeof err), 0);
    cr_expect_str_eq(err, "more than 512 words");
    vu_buf_free(&b);
}

/* "-0E1" (or "-0") read as the integer 0 once written back as "-0" by
 * vj_write (the double -0.0): the second writing said "0".  Now "-0" is
 * the double -0.0 and every writing says "-0". */
Test(fuzzfound, json_minus_zero_keeps_its_sign_through_a_rewrite)
{
    vj_node *n, *m;
    char err[256];
    cr_assert_eq(vj_parse("-0E1", 4, "z.json", &n, err, sizeof err), 0, "%s", err);
    vu_buf a = {0}, b = {0};
    vj_write(n, &a);
    cr_assert_eq(vj_parse(a.p, a.len, "a.json", &m, err, sizeof err), 0, "%s", err);
    vj_write(m, &b);
    cr_expect_eq(m->is_int, 0);
    cr_expect(m->num == 0 && signbit(m->num));
    cr_expect_eq(a.len, b.len);
    cr_expect_str_eq(b.p, a.p);
    vj_free(n);
    vj_free(m);
    vu_buf_free(&a);
    vu_buf_free(&b);
    cr_assert_eq(vj_parse("0", 1, "p.json", &n, err, sizeof err), 0, "%s", err);
    cr_expect_eq(n->is_int, 1);   /* a plain 0 is still an integer */
    vj_free(n);
}

static void count_ipv4(void *ctx, const scan_finding *f)
{
    if (!strcmp(f->rule, "ipv4-address"))
        (*(int *)ctx)++;
}

/* A dotted run whose first group had ten digits or more overflowed the
 * octet's int (undefined behaviour, seen by UBSan in fuzz_scan) before the
 * group was refused for its length.  Still no finding; a real address
 * after it still is one. */
Test(fuzzfound, scanner_long_octet_is_no_address_and_no_overflow)
{
    const char *t = "v 11111111111111111111111111.2.3.4 then 10.20.30.40 end\n";
    int n = 0;
    scan_buffer((const unsigned char *)t, strlen(t), count_ipv4, &n);
    cr_expect_eq(n, 1);
}
