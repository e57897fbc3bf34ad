/* Secrets in the records (pipeline/RESULTS.md): prov_mask, the lab's one
 * definition of a masked password, on hand-written cases; a whole JSON
 * record; a stage record written by prov_end; log lines through redact.
 * (A real stage, collect with a password in --pgurl, is in test_collect.c;
 * measure's run records in test_measure.c.) */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prov.h"
#include "redact.h"
#include "util.h"

Test(mask, passwords_masked_and_nothing_else)
{
    struct {
        const char *in, *out;
        int n;
    } cases[] = {
        {"postgres://user:s3cretpw@127.0.0.1:5432/db", "postgres://user:***@127.0.0.1:5432/db", 1},
        {"--pgurl=postgresql://lab:pw@localhost/lab?sslmode=disable",
         "--pgurl=postgresql://lab:***@localhost/lab?sslmode=disable", 1},
        /* the user part ends at the last '@' of the authority */
        {"postgres://u:p@ss@h/db", "postgres://u:***@h/db", 1},
        /* a query's password too, and two URLs on one line */
        {"a://x:1@h/?password=two&b=1 b://y:2@k", "a://x:***@h/?password=***&b=1 b://y:***@k", 3},
        /* libpq's key=value form: plain, spaced, quoted with an escaped quote */
        {"host=/tmp/s dbname=lab user=x password=hunter2", "host=/tmp/s dbname=lab user=x password=***", 1},
        {"password = hunter2 port=5", "password = *** port=5", 1},
        {"password= x", "password= ***", 1},
        {"password='a b\\' c' port=5", "password=*** port=5", 1},
        {"PGPASSWORD=abc make collect", "PGPASSWORD=*** make collect", 1},
        /* kept: no password in them */
        {"https://example.org:8443/path", "https://example.org:8443/path", 0},
        {"ssh://lab@127.0.0.1/x", "ssh://lab@127.0.0.1/x", 0},
        {"postgres://user:@h/db", "postgres://user:@h/db", 0},
        {"the password is long", "the password is long", 0},
        {"password= &b=1 password=", "password= &b=1 password=", 0},
        {"user@host:22 and 12:34:56", "user@host:22 and 12:34:56", 0},
        /* masked already: the same text, nothing counted */
        {"postgres://lab:***@127.0.0.1/lab password=***", "postgres://lab:***@127.0.0.1/lab password=***", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[PROV_MASK_CAP(128)];
        int n = prov_mask(cases[i].in, out, sizeof out);
        cr_assert_str_eq(out, cases[i].out, "case %zu: %s", i, cases[i].in);
        cr_assert_eq(n, cases[i].n, "case %zu: %s", i, cases[i].in);
    }
    /* the worst growth: a password of one letter becomes three stars */
    char small[PROV_MASK_CAP(11)];
    cr_assert_eq(prov_mask("password=a", small, sizeof small), 1);
    cr_assert_str_eq(small, "password=***");
    /* a buffer too short: cut, still terminated */
    char tiny[8];
    prov_mask("postgres://u:p@h", tiny, sizeof tiny);
    cr_assert_str_eq(tiny, "postgre");
}

Test(mask, every_string_of_a_record_deep_inside)
{
    json_t *r = json_pack("{s:[s,s],s:{s:s,s:[{s:s}]},s:i}", "argv", "collect", "postgres://a:b1@h/d", "facts",
                          "pgurl", "host=h password=xyz", "nested", "x", "q://u:v@w", "n", 7);
    cr_assert_eq(prov_mask_json(r), 3);
    char *text = json_dumps(r, JSON_SORT_KEYS);
    cr_assert_str_eq(text, "{\"argv\": [\"collect\", \"postgres://a:***@h/d\"], \"facts\": {\"nested\": [{\"x\": "
                           "\"q://u:***@w\"}], \"pgurl\": \"host=h password=***\"}, \"n\": 7}");
    free(text);
    cr_assert_eq(prov_mask_json(r), 0, "masked twice: nothing more");
    json_decref(r);
}

Test(mask, the_current_folder_is_written_as_a_dot)
{
    char cwd[4096], a[4200], b[4200], c[4200];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    snprintf(a, sizeof a, "host=%s/build/pg/sock dbname=postgres", cwd);
    snprintf(b, sizeof b, "%s", cwd);
    snprintf(c, sizeof c, "%sx/other", cwd); /* another folder whose name begins the same: kept */
    json_t *r = json_pack("{s:[s,s,s]}", "argv", a, b, c);
    cr_assert_eq(prov_mask_json(r), 0, "no password: the count is of passwords");
    json_t *v = json_object_get(r, "argv");
    cr_assert_str_eq(json_string_value(json_array_get(v, 0)), "host=./build/pg/sock dbname=postgres");
    cr_assert_str_eq(json_string_value(json_array_get(v, 1)), ".");
    cr_assert_str_eq(json_string_value(json_array_get(v, 2)), c);
    json_decref(r);
}

Test(mask, a_stage_record_holds_no_password)
{
    char dir[] = "/tmp/maskXXXXXX", path[64], err[UT_ERRLEN];
    cr_assert_not_null(mkdtemp(dir));
    char *argv[] = {"collect", "--pgurl", "postgres://user:s3cretpw@127.0.0.1:5432/db", "--x",
                    "host=h password=s3cretpw2"};
    prov *p = prov_begin("masktest", 5, argv);
    json_t *facts = json_pack("{s:s}", "PGURL", "postgres://user:s3cretpw@127.0.0.1:5432/db");
    prov_facts(p, facts);
    cr_assert_eq(prov_end(p, 0, dir, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/stage-masktest.json", dir);
    char *text = NULL;
    size_t n;
    cr_assert_eq(ut_read_file(path, &text, &n, err, sizeof err), 0, "%s", err);
    cr_assert_null(strstr(text, "s3cretpw"), "%s", text);
    json_t *r = json_loads(text, 0, NULL);
    json_t *a = json_object_get(r, "argv");
    cr_assert_str_eq(json_string_value(json_array_get(a, 2)), "postgres://user:***@127.0.0.1:5432/db");
    cr_assert_str_eq(json_string_value(json_array_get(a, 4)), "host=h password=***");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "facts"), "PGURL")),
                     "postgres://user:***@127.0.0.1:5432/db");
    json_decref(r);
    free(text);
    unlink(path);
    rmdir(dir);
}

Test(mask, log_lines_masked_before_redaction)
{
    char out[512];
    /* the loopback address stays; a dotted public name is a host; the password is masked either way */
    redact_line("FATAL: postgres://lab:s3cretpw@127.0.0.1:5432/lab refused", out, sizeof out);
    cr_assert_str_eq(out, "FATAL: postgres://lab:***@127.0.0.1:5432/lab refused");
    redact_line("dsn postgres://lab:s3cretpw@localhost/lab", out, sizeof out);
    cr_assert_str_eq(out, "dsn postgres://lab:***@localhost/lab");
    redact_line("conn host=127.0.0.1 password=s3cretpw user=lab", out, sizeof out);
    cr_assert_str_eq(out, "conn host=127.0.0.1 password=*** user=lab");
}

/* Found by tests/fuzz/fuzz_redact: an IPv4-mapped IPv6 address kept three
 * octets of its IPv4 address, and a name glued to a replaced address was
 * judged by the character replaced (so kept). */
Test(mask, redactor_fuzz_regressions)
{
    char out[512];
    redact_line("sshd: connection from ::ffff:10.1.2.3 port 22", out, sizeof out);
    cr_assert_str_eq(out, "sshd: connection from [ip6] port 22");
    redact_line("peer ::2ec2-host.amazonaws.com/ x", out, sizeof out);
    cr_assert_str_eq(out, "peer [ip6][host]/ x");
    redact_line("at 2600:1f18::12;ops@example.com", out, sizeof out);
    cr_assert_str_eq(out, "at [ip6];[email]");
    /* kept as before: loopback, times, a plain IPv4 address with its port */
    redact_line("::1 at 12:34:56.789 from 10.0.0.7:22", out, sizeof out);
    cr_assert_str_eq(out, "::1 at 12:34:56.789 from [ip]:22");
}
