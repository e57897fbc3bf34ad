/* lab/tester/answer.c: the tester's reading of the service's answers, by hand. */
#include <criterion/criterion.h>
#include <string.h>

#include "answer.h"

static int head(const char *text, ans_head *h, char *why, size_t whylen)
{
    return ans_head_parse(text, strlen(text), 1 << 20, h, why, whylen);
}

Test(answer, heads_complete_partial_and_malformed)
{
    ans_head h;
    char why[256];
    const char *ok = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 42\r\n\r\n{...";
    cr_assert_eq(head(ok, &h, why, sizeof why), 1, "%s", why);
    cr_assert_eq(h.status, 200);
    cr_assert_eq(h.body_len, 42);
    cr_assert_eq(h.head_len, strlen(ok) - 4);
    cr_assert_eq(h.close, 0);
    cr_assert_eq(head("HTTP/1.1 504 Gateway Timeout\r\ncontent-length:  7 \r\nConnection: Close\r\n\r\n", &h, why,
                      sizeof why),
                 1, "%s", why);
    cr_assert(h.status == 504 && h.body_len == 7 && h.close == 1);
    /* not complete yet: no empty line */
    cr_assert_eq(head("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n", &h, why, sizeof why), 0);
    /* malformed */
    cr_assert_eq(head("HTTP/1.1 20x OK\r\nContent-Length: 4\r\n\r\n", &h, why, sizeof why), -1);
    cr_assert(strstr(why, "bad status line: HTTP/1.1 20x OK"), "%s", why);
    cr_assert_eq(head("HTTP/1.1 2000 OK\r\nContent-Length: 4\r\n\r\n", &h, why, sizeof why), -1);
    cr_assert_eq(head("HTTP/1.1 099 OK\r\nContent-Length: 4\r\n\r\n", &h, why, sizeof why), -1);
    cr_assert_eq(head("HTTP/1.1 200 OK\r\n\r\n", &h, why, sizeof why), -1);
    cr_assert(strstr(why, "no Content-Length"), "%s", why);
    cr_assert_eq(head("HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n", &h, why, sizeof why), -1);
    cr_assert(strstr(why, "bad Content-Length"), "%s", why);
    cr_assert_eq(head("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", &h, why, sizeof why), -1);
    cr_assert(strstr(why, "overflow"), "%s", why);
    const char *long_body = "HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n";
    cr_assert_eq(ans_head_parse(long_body, strlen(long_body), 100, &h, why, sizeof why), -1);
    cr_assert(strstr(why, "out of range 0..100"), "%s", why);
    /* a head that never ends */
    static char big[ANS_MAX_HEAD + 10];
    memset(big, 'x', sizeof big - 1);
    cr_assert_eq(ans_head_parse(big, sizeof big - 1, 100, &h, why, sizeof why), -1);
    cr_assert(strstr(why, "64 KiB"), "%s", why);
}

Test(answer, bodies_kinds_scores_and_ids)
{
    char kind = 0, why[512];
    float score = -1;
    cr_assert_eq(ans_body_parse("{\"id\":7,\"score\":0.281206131,\"kind\":\"live\"}", 200, 7, &kind, &score, why,
                                sizeof why),
                 0, "%s", why);
    cr_assert(kind == 'L' && score == 0.281206131f);
    cr_assert_eq(ans_body_parse("{\"id\": 8, \"score\": 1e-05, \"kind\": \"last_known\"}", 200, 8, &kind, &score,
                                why, sizeof why),
                 0, "%s", why);
    cr_assert(kind == 'K' && score == 1e-05f);
    cr_assert_eq(ans_body_parse("{\"id\":9,\"score\":0.5,\"kind\":\"default\"}", 200, 9, &kind, &score, why,
                                sizeof why),
                 0);
    cr_assert_eq(kind, 'D');
    /* an error status: kind E, no score needed, the id checked when given */
    score = -1;
    cr_assert_eq(ans_body_parse("{\"id\":10,\"error\":\"timeout\"}", 504, 10, &kind, &score, why, sizeof why), 0);
    cr_assert(kind == 'E' && score == -1);
    cr_assert_eq(ans_body_parse("{\"error\":\"bad row\"}", 400, 11, &kind, &score, why, sizeof why), 0);
    cr_assert_eq(kind, 'E');
    /* refused */
    cr_assert_eq(ans_body_parse("{\"id\":12,\"score\":0.5,\"kind\":\"live\"}", 200, 13, &kind, &score, why,
                                sizeof why),
                 -1);
    cr_assert(strstr(why, "carries id 12"), "%s", why);
    cr_assert_eq(ans_body_parse("{\"score\":0.5,\"kind\":\"live\"}", 200, 13, &kind, &score, why, sizeof why), -1);
    cr_assert(strstr(why, "no numeric \"id\""), "%s", why);
    cr_assert_eq(ans_body_parse("{\"id\":99999999999999999999}", 504, 13, &kind, &score, why, sizeof why), -1);
    cr_assert_eq(ans_body_parse("{\"id\":13,\"score\":\"x\",\"kind\":\"live\"}", 200, 13, &kind, &score, why,
                                sizeof why),
                 -1);
    cr_assert(strstr(why, "no numeric \"score\""), "%s", why);
    cr_assert_eq(ans_body_parse("{\"id\":13,\"score\":1e39,\"kind\":\"live\"}", 200, 13, &kind, &score, why,
                                sizeof why),
                 -1);
}

/* Found by tests/fuzz/fuzz_answer: a NUL byte in a head made the header
 * walk (strstr) run off its line to a null pointer: the tester crashed
 * instead of naming a malformed answer. */
Test(answer, a_nul_in_the_head_is_malformed_not_a_crash)
{
    ans_head h;
    char why[256];
    const char text[] = "HTTP/1.1 200 OK\r\nConten\0t-Length: 37\r\n\r\n{}";
    cr_assert_eq(ans_head_parse(text, sizeof text - 1, 1 << 20, &h, why, sizeof why), -1);
    cr_assert(strstr(why, "NUL byte"), "%s", why);
}
