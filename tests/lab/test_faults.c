/* lab/core/faults.c, the scenario table, with hand-computed cases: the spec's
 * grammar (every refusal), its canonical text, the windows in ns for the
 * profiles' lengths (30 s, 4 s, 0.6 s), each window's edges to the ns, a
 * slow store's slowness per store, and the dice.  The dice's reference values (which requests are flaky, which
 * rows are missing) were computed outside the lab, in Python, from the
 * formulas faults.h and util.h state (splitmix64's finaliser chained over
 * key, a, b, c; the top 53 bits as a fraction):
 *
 *   M = 2**64 - 1
 *   def mix(x): x = (x + 0x9e3779b97f4a7c15) & M
 *               x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M
 *               x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M
 *               return x ^ (x >> 31)
 *   def h4(k, a, b, c): return mix(mix(mix(mix(k) ^ a) ^ b) ^ c)
 *   u = (h4(key, a, b, c) >> 11) * 2.0**-53
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "faults.h"

#define SEC 1000000000LL

static fault_spec fp(const char *text)
{
    fault_spec f;
    char why[256];
    cr_assert_eq(fault_parse(text, &f, why, sizeof why), 0, "'%s': %s", text, why);
    return f;
}

static void refused(const char *text, const char *want)
{
    fault_spec f = {FAULT_HANG, 0.125, 0.75}, keep = f;
    char why[256] = "";
    cr_assert_eq(fault_parse(text, &f, why, sizeof why), -1, "'%s' must be refused", text);
    cr_assert_not_null(strstr(why, want), "'%s': %s (want '%s')", text, why, want);
    cr_assert_not_null(strstr(why, text), "the message names the text: %s", why);
    cr_assert(f.kind == keep.kind && f.from == keep.from && f.to == keep.to, "'%s' changed the spec", text);
}

TestSuite(faults);

Test(faults, parse_names_and_default_windows)
{
    fault_spec f = fp("none");
    cr_assert(f.kind == FAULT_NONE && f.from == -1 && f.to == -1);
    f = fp("down");
    cr_assert(f.kind == FAULT_DOWN && f.from == 1.0 / 3 && f.to == 2.0 / 3);
    f = fp("hang");
    cr_assert(f.kind == FAULT_HANG && f.from == 1.0 / 3 && f.to == 2.0 / 3);
    f = fp("reset");
    cr_assert(f.kind == FAULT_RESET && f.from == 1.0 / 3 && f.to == 2.0 / 3);
    f = fp("never");
    cr_assert(f.kind == FAULT_NEVER && f.from == 1.0 / 3 && f.to == FAULTS_END);
    f = fp("flaky");
    cr_assert(f.kind == FAULT_FLAKY && f.from == -1 && f.to == -1);
    f = fp("missing");
    cr_assert(f.kind == FAULT_MISSING && f.from == -1 && f.to == -1);
    f = fp("down@0.2-0.5");
    cr_assert(f.kind == FAULT_DOWN && f.from == 0.2 && f.to == 0.5);
    f = fp("never@0.5-end");
    cr_assert(f.kind == FAULT_NEVER && f.from == 0.5 && f.to == FAULTS_END);
    f = fp("hang@0-1");
    cr_assert(f.kind == FAULT_HANG && f.from == 0 && f.to == 1);
    f = fp("reset@0.25-end");
    cr_assert(f.kind == FAULT_RESET && f.from == 0.25 && f.to == FAULTS_END);
    cr_assert_str_eq(fault_name(FAULT_MISSING), "missing");
    cr_assert_eq(fault_has_window(FAULT_DOWN) + fault_has_window(FAULT_HANG) + fault_has_window(FAULT_RESET) +
                     fault_has_window(FAULT_NEVER),
                 4);
    cr_assert_eq(fault_has_window(FAULT_NONE) + fault_has_window(FAULT_FLAKY) + fault_has_window(FAULT_MISSING), 0);
}

Test(faults, parse_refuses_with_the_reason_and_leaves_the_spec)
{
    refused("Down", "not a scenario");
    refused("dow", "not a scenario");
    refused("downx", "not a scenario");
    refused("down ", "not a scenario");
    refused("flaky@0.1-0.2", "no window");
    refused("none@0-1", "no window");
    refused("down@", "@from-to");
    refused("down@0.5", "@from-to");
    refused("down@-0.1-0.5", "@from-to");
    refused("down@1e-1-0.5", "@from-to");
    refused("down@.-0.5", "@from-to");
    refused("down@0.2-", "not a fraction");
    refused("down@0.2-1.5", "not a fraction");
    refused("down@0.2-0.5x", "not a fraction");
    refused("down@0.2-0.5-0.7", "not a fraction");
    refused("down@0.2-END", "not a fraction");
    refused("down@0.5-0.2", "empty");
    refused("down@0.5-0.5", "empty");
    refused("never@1-end", "outside the run");
    char why[256];
    fault_spec f;
    cr_assert_eq(fault_parse("", &f, why, sizeof why), -1);
    cr_assert_not_null(strstr(why, "not a scenario"), "%s", why);
}

static void formats(const char *text, const char *want)
{
    fault_spec f = fp(text), g;
    char buf[96];
    fault_format(&f, buf, sizeof buf);
    cr_assert_str_eq(buf, want, "'%s'", text);
    g = fp(buf); /* and back, exactly */
    cr_assert(g.kind == f.kind && g.from == f.from && g.to == f.to, "'%s' -> '%s' does not read back", text, buf);
}

Test(faults, format_is_canonical_and_reads_back)
{
    formats("down", "down");
    formats("never", "never");
    formats("missing", "missing");
    formats("down@0.2-0.5", "down@0.2-0.5");
    formats("down@0.20-0.50", "down@0.2-0.5");
    formats("never@0.5-end", "never@0.5-end");
    formats("hang@0-1", "hang@0-1");
    formats("reset@0.1234567-0.9", "reset@0.1234567-0.9"); /* %g would say 0.123457 */
    formats("down@0.00001-0.5", "down@0.00001-0.5");       /* %g would say 1e-05 */
    /* the default window spelt out is the default */
    fault_spec f = fp("down@0.3333333333333333-0.6666666666666666");
    char buf[96];
    fault_format(&f, buf, sizeof buf);
    cr_assert_str_eq(buf, "down");
}

Test(faults, windows_in_ns_for_each_profile)
{
    fault_spec d = fp("down"), n = fp("never"), w = fp("down@0.2-0.5"), fl = fp("flaky");
    fault_window x = fault_window_of(&d, 30);
    cr_assert_eq(x.from_ns, 10 * SEC);
    cr_assert_eq(x.to_ns, 20 * SEC);
    x = fault_window_of(&d, 4); /* 4/3 s and 8/3 s, rounded to the ns */
    cr_assert_eq(x.from_ns, 1333333333);
    cr_assert_eq(x.to_ns, 2666666667);
    x = fault_window_of(&d, 0.6);
    cr_assert_eq(x.from_ns, 200000000);
    cr_assert_eq(x.to_ns, 400000000);
    x = fault_window_of(&n, 30);
    cr_assert_eq(x.from_ns, 10 * SEC);
    cr_assert_eq(x.to_ns, INT64_MAX);
    x = fault_window_of(&w, 30);
    cr_assert_eq(x.from_ns, 6 * SEC);
    cr_assert_eq(x.to_ns, 15 * SEC);
    x = fault_window_of(&fl, 30);
    cr_assert(x.from_ns == -1 && x.to_ns == -1);
}

Test(faults, window_edges_to_the_ns)
{
    fault_spec d = fp("down"), h = fp("hang"), r = fp("reset"), n = fp("never"), no = fp("none");
    fault_window w = fault_window_of(&d, 30), wn = fault_window_of(&n, 30);
    const int64_t t[] = {INT64_MIN, -1, 0, 10 * SEC - 1, 10 * SEC, 15 * SEC, 20 * SEC - 1, 20 * SEC, 29 * SEC,
                         1000 * SEC};
    const int in[] = {0, 0, 0, 0, 1, 1, 1, 0, 0, 0};       /* [10 s, 20 s) */
    const int in_never[] = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1}; /* [10 s, end) */
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        cr_assert_eq(fault_lookup(&d, &w, 1, 7, 0, 3, t[i]), in[i] ? FAULT_UNAVAILABLE : FAULT_PASS, "down at %lld",
                     (long long)t[i]);
        cr_assert_eq(fault_lookup(&h, &w, 1, 7, 0, 3, t[i]), in[i] ? FAULT_HOLD : FAULT_PASS, "hang at %lld",
                     (long long)t[i]);
        cr_assert_eq(fault_lookup(&r, &w, 1, 7, 0, 3, t[i]), FAULT_PASS, "a reset is the store's business");
        cr_assert_eq(fault_reset_closed(&r, &w, t[i]), in[i], "reset closed at %lld", (long long)t[i]);
        cr_assert_eq(fault_reset_closed(&d, &w, t[i]), 0);
        cr_assert_eq(fault_lookup(&n, &wn, 1, 7, 0, 3, t[i]), in_never[i] ? FAULT_UNAVAILABLE : FAULT_PASS,
                     "never at %lld", (long long)t[i]);
        cr_assert_eq(fault_lookup(&no, &w, 1, 7, 0, 3, t[i]), FAULT_PASS);
    }
}

/* slow and slowboth: parsed with the default window or their own, served
 * (FAULT_PASS) but 20 ms slower in the window, to the ns at its edges, at
 * the first store; slowboth at the second store too, slow never there.  The
 * other scenarios slow nothing and are the first store's only. */
Test(faults, slowness_at_the_window_edges_and_per_store)
{
    fault_spec s = fp("slow"), b = fp("slowboth"), own = fp("slow@0.5-0.75"), d = fp("down");
    cr_assert(s.kind == FAULT_SLOW && s.from == 1.0 / 3 && s.to == 2.0 / 3);
    cr_assert(b.kind == FAULT_SLOWBOTH && b.from == 1.0 / 3 && b.to == 2.0 / 3);
    cr_assert(own.kind == FAULT_SLOW && own.from == 0.5 && own.to == 0.75);
    cr_assert_str_eq(fault_name(FAULT_SLOWBOTH), "slowboth");
    cr_assert(fault_has_window(FAULT_SLOW) && fault_has_window(FAULT_SLOWBOTH));
    refused("slowboth@0.5-0.2", "is empty");
    refused("slower", "not a scenario");
    char buf[64];
    fault_format(&b, buf, sizeof buf);
    cr_assert_str_eq(buf, "slowboth");
    fault_format(&own, buf, sizeof buf);
    cr_assert_str_eq(buf, "slow@0.5-0.75");
    cr_assert_eq(FAULTS_SLOW_NS, 20000000LL);
    fault_window w = fault_window_of(&s, 30), wo = fault_window_of(&own, 30), wd = fault_window_of(&d, 30);
    cr_assert(w.from_ns == 10 * SEC && w.to_ns == 20 * SEC);
    cr_assert(wo.from_ns == 15 * SEC && wo.to_ns == 22500000000LL);
    const int64_t t[] = {INT64_MIN, -1, 0, 10 * SEC - 1, 10 * SEC, 15 * SEC, 20 * SEC - 1, 20 * SEC, 29 * SEC};
    const int in[] = {0, 0, 0, 0, 1, 1, 1, 0, 0}; /* [10 s, 20 s) */
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int64_t want = in[i] ? 20000000LL : 0;
        cr_assert_eq(fault_slow_ns(&s, &w, t[i]), want, "slow at %lld", (long long)t[i]);
        cr_assert_eq(fault_slow_ns(&b, &w, t[i]), want, "slowboth at %lld", (long long)t[i]);
        cr_assert_eq(fault_lookup(&s, &w, 1, 7, 0, 3, t[i]), FAULT_PASS, "slow serves every lookup");
        cr_assert_eq(fault_lookup(&b, &w, 1, 7, 1, 3, t[i]), FAULT_PASS, "slowboth serves every lookup");
        cr_assert_eq(fault_slow_ns(&d, &wd, t[i]), 0, "down slows nothing");
        cr_assert_eq(fault_reset_closed(&s, &w, t[i]), 0);
    }
    cr_assert_eq(fault_slow_ns(&own, &wo, 15 * SEC - 1), 0);
    cr_assert_eq(fault_slow_ns(&own, &wo, 15 * SEC), 20000000LL);
    cr_assert_eq(fault_slow_ns(&own, &wo, 22500000000LL - 1), 20000000LL);
    cr_assert_eq(fault_slow_ns(&own, &wo, 22500000000LL), 0);
    /* which store has the fault */
    const fault_kind k[] = {FAULT_NONE, FAULT_DOWN, FAULT_HANG, FAULT_RESET, FAULT_NEVER,
                            FAULT_FLAKY, FAULT_MISSING, FAULT_SLOW, FAULT_SLOWBOTH};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        cr_assert_eq(fault_at_store(k[i], 0), 1, "%s: the first store", fault_name(k[i]));
        cr_assert_eq(fault_at_store(k[i], 1), k[i] == FAULT_SLOWBOTH, "%s: the second store", fault_name(k[i]));
    }
}

/* The reference lists of the file's opening comment. */
Test(faults, flaky_dice_equal_the_reference)
{
    static const uint32_t r1a0[] = {3, 7, 29, 31, 46, 61, 63, 79, 101, 125, 148, 158, 159, 178, 183};
    static const uint32_t r1a1[] = {7, 25, 34, 60, 79, 174, 179, 185};
    static const uint32_t r2a0[] = {15, 20, 26, 36, 58, 149, 166, 177};
    const struct {
        uint32_t round, attempt;
        const uint32_t *req;
        size_t n;
    } c[] = {{1, 0, r1a0, 15}, {1, 1, r1a1, 8}, {2, 0, r2a0, 8}};
    fault_spec f = fp("flaky");
    fault_window w = fault_window_of(&f, 30);
    for (size_t k = 0; k < 3; k++) {
        size_t hit = 0;
        for (uint32_t req = 0; req < 200; req++) {
            int want = hit < c[k].n && c[k].req[hit] == req;
            hit += want;
            /* neither the row nor the time matters; t0 unknown neither */
            const int64_t ts[] = {INT64_MIN, 0, 12 * SEC};
            for (int j = 0; j < 3; j++)
                cr_assert_eq(fault_lookup(&f, &w, c[k].round, req, c[k].attempt, req % 17 + (uint32_t)j, ts[j]),
                             want ? FAULT_UNAVAILABLE : FAULT_PASS, "round %u req %u attempt %u", c[k].round, req,
                             c[k].attempt);
        }
        cr_assert_eq(hit, c[k].n);
    }
    /* the share over 200,000 requests (reference: 0.049635) */
    int n = 0;
    for (uint32_t req = 0; req < 200000; req++)
        n += fault_lookup(&f, &w, 1, req, 0, 0, 0) == FAULT_UNAVAILABLE;
    cr_assert_eq(n, 9927);
}

Test(faults, missing_rows_equal_the_reference_in_every_round)
{
    static const uint32_t rows[] = {0, 67, 175, 243, 268, 302, 314, 348, 363, 367};
    fault_spec f = fp("missing");
    fault_window w = fault_window_of(&f, 30);
    size_t hit = 0;
    for (uint32_t row = 0; row < 400; row++) {
        int want = hit < 10 && rows[hit] == row;
        hit += want;
        cr_assert_eq(fault_row_missing(row), want, "row %u", row);
        for (uint32_t round = 1; round <= 3; round++)
            cr_assert_eq(fault_lookup(&f, &w, round, 1000 + row, round % 3, row, round == 1 ? INT64_MIN : 5 * SEC),
                         want ? FAULT_NOT_FOUND : FAULT_PASS, "row %u round %u", row, round);
    }
    cr_assert_eq(hit, 10);
    int n = 0; /* reference: 0.01983 of 200,000 rows */
    for (uint32_t row = 0; row < 200000; row++)
        n += fault_row_missing(row);
    cr_assert_eq(n, 3966);
    /* other scenarios never answer not found */
    fault_spec d = fp("down");
    fault_window wd = fault_window_of(&d, 30);
    cr_assert_eq(fault_lookup(&d, &wd, 1, 1, 0, 0, 0), FAULT_PASS, "row 0 is missing only in `missing`");
}
