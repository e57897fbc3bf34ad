/* The scanner's rules, one table of true and false positives per rule
 * (the fake secrets are built at test time from pieces and a fixed random
 * generator: tscan.h), the vendor table's every prefix, the precedence of
 * rules at one place, documented example keys only as whole tokens, and
 * text in the lab's own shapes giving no finding. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "scanrules.h"
#include "tscan.h"
#include "vutil.h"

typedef struct {
    const char *rule;
    char *text;
    char *secret;   /* must never be printed whole (NULL: no check) */
    const char *why;
} tp_case;

typedef struct {
    const char *rule;   /* must not be found (NULL: nothing at all may be found) */
    char *text;
    const char *why;
} fp_case;

static const char *const table_rules[] = {
    "github-pat", "github-oauth", "github-app-token", "github-fine-grained-pat", "gitlab-pat", "slack-bot-token",
    "slack-user-token", "slack-webhook-url", "discord-webhook-url", "microsoft-teams-webhook",
    "telegram-bot-api-token", "stripe-access-token", "square-access-token", "paypal-braintree-access-token",
    "gcp-api-key", "aws-access-key-id", "azure-ad-client-secret", "digitalocean-pat", "heroku-api-key-v2",
    "npm-access-token", "pypi-upload-token", "jwt", "password-assignment", "secret-assignment", "hex-secret",
    "generic-api-key", "url-password", "bearer-token", "basic-auth", "private-key", "high-entropy-token",
    "pgpass-password", "netrc-password", "aws-credentials",
};

static size_t ntp, nfp;
static char *pool[512];
static size_t npool;

/* a random string that is freed with the cases (pool_free) */
static char *R(const char *alphabet, size_t len)
{
    char *s = tsc_rand(alphabet, len);
    if (npool < sizeof pool / sizeof *pool)
        pool[npool++] = s;
    return s;
}

static char *keep(char *s)
{
    if (npool < sizeof pool / sizeof *pool)
        pool[npool++] = s;
    return s;
}

static void pool_free(void)
{
    while (npool)
        free(pool[--npool]);
}
static tp_case tps[120];
static fp_case fps[180];

#define TP(r, s, w, ...) (tps[ntp++] = (tp_case){r, CAT(__VA_ARGS__), s, w})
#define FP(r, w, ...) (fps[nfp++] = (fp_case){r, CAT(__VA_ARGS__), w})

static char *b64(const char *s)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s);
    char *o = vu_xmalloc(4 * (n / 3 + 1) + 1), *p = o;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)s[i] << 16 | (i + 1 < n ? (unsigned char)s[i + 1] << 8 : 0) |
                     (i + 2 < n ? (unsigned char)s[i + 2] : 0);
        *p++ = a[v >> 18 & 63];
        *p++ = a[v >> 12 & 63];
        *p++ = i + 1 < n ? a[v >> 6 & 63] : '=';
        *p++ = i + 2 < n ? a[v & 63] : '=';
    }
    *p = 0;
    return o;
}

static void build_cases(void)
{
    ntp = nfp = 0;
    char *al36 = R(TSC_AL, 36), *al24 = R(TSC_AL, 24), *al40 = R(TSC_AL, 40);
    char *hex32 = R(TSC_HEX, 32), *hex64 = R(TSC_HEX, 64), *wd20 = R(TSC_WD, 20);
    char *uuid = keep(CAT("%s-%s-%s-%s-%s", R(TSC_HEX, 8), R(TSC_HEX, 4), R(TSC_HEX, 4),
                     R(TSC_HEX, 4), R(TSC_HEX, 12)));
    /* code hosts */
    TP("github-pat", al36, "a personal access token in an environment line", "GITHUB_TOKEN=%s%s%s\n", "gh", "p_", al36);
    TP("github-oauth", al36, "an OAuth token in JSON", "{\"oauth\": \"%s%s%s\"}", "gh", "o_", al36);
    TP("github-app-token", al36, "an installation token", "token %s%s%s end", "gh", "s_", al36);
    TP("github-fine-grained-pat", NULL, "a fine-grained token", "pat=%s%s%s\n", "github_", "pat_",
       R("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_", 82));
    TP("gitlab-pat", wd20, "a GitLab token", "export GL=%s%s%s\n", "glp", "at-", wd20);
    FP("github-pat", "a placeholder of one repeated letter", "GITHUB_TOKEN=%s%s\n", "ghp_", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    FP("github-pat", "too short for a token", "the %s%s prefix", "ghp_", "abc123");
    FP("github-oauth", "the prefix inside a word", "pgho_%s", al36);
    FP("github-app-token", "35 characters, one short", "ghs_%.35s\n", al36);
    FP("github-fine-grained-pat", "a name, not a token", "github_pat_%s", "scopes_and_expiry");
    FP("gitlab-pat", "a placeholder", "glpat-%s", "xxxxxxxxxxxxxxxxxxxx");
    /* chat */
    TP("slack-bot-token", NULL, "a bot token", "SLACK=%s-%s-%s-%s\n", "xoxb", "123456789012", "1234567890123", al24);
    TP("slack-user-token", NULL, "a user token", "\"%s-%s-%s\"", "xoxp", "1234567890", al24);
    TP("slack-webhook-url", al24, "an incoming webhook", "https://hooks.%s/services/T%s/B%s/%s\n", "slack.com",
       R(TSC_UP, 8), R(TSC_UP, 10), al24);
    TP("discord-webhook-url", NULL, "a Discord webhook", "https://%s/api/webhooks/%s/%s\n", "discord.com",
       "112233445566778899", R(TSC_WD, 68));
    TP("microsoft-teams-webhook", NULL, "a Teams webhook", "https://acme.%s/webhookb2/%s@%s/IncomingWebhook/%s/%s\n",
       "webhook.office.com", uuid, uuid, hex32, uuid);
    TP("telegram-bot-api-token", NULL, "a bot token", "TELEGRAM_BOT=%s:%s%s\n", "123456789", "AA", R(TSC_WD, 33));
    FP("slack-bot-token", "a short placeholder", "xoxb-your-token");
    FP("slack-user-token", "the prefix alone in prose", "tokens start with xoxp- and are long");
    FP("slack-webhook-url", "the documentation's short example", "https://hooks.slack.com/services/YOUR/HOOK");
    FP("discord-webhook-url", "a channel page, no webhook", "https://discord.com/channels/1234/5678");
    FP("microsoft-teams-webhook", "the host alone", "see webhook.office.com for setup");
    FP("telegram-bot-api-token", "a time of day", "at 12:34:56 and 1052957221867:1052957221868");
    FP("telegram-bot-api-token", "digits and a short word", "123456789:Abc");
    /* payment */
    TP("stripe-access-token", al24, "a live secret key", "STRIPE=%s%s%s\n", "sk_", "live_", al24);
    TP("stripe-access-token", al24, "a restricted key", "'%s%s%s'", "rk_", "live_", al24);
    TP("square-access-token", NULL, "a Square token", "sq=%s%s\n", "EAAA", R(TSC_WD, 60));
    TP("paypal-braintree-access-token", hex32, "a Braintree token", "bt %s$%s$%s$%s\n", "access_token", "production",
       R(TSC_LOW, 16), hex32);
    FP("stripe-access-token", "a placeholder key", "sk_test_%s", "xxxxxxxxxxxxxxxxxxxxxxxx");
    FP("stripe-access-token", "too short", "sk_live_%s", "abc123");
    FP("square-access-token", "an identifier of words, no digit", "EAAA_some_long_identifier_name_without_digits_at_all");
    FP("paypal-braintree-access-token", "the prefix and a word", "access_token$production$short");
    /* cloud providers */
    TP("gcp-api-key", NULL, "a Google API key", "key=%s%s\n", "AI", keep(CAT("za%s", R(TSC_WD, 35))));
    TP("aws-access-key-id", NULL, "an ABIA key id", "id %s%s\n", "AB", keep(CAT("IA%s", R(TSC_UP, 16))));
    TP("azure-ad-client-secret", NULL, "an Azure AD client secret", "AZ=%s8Q~%s\n", R(TSC_AL, 3),
       R("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_~.-", 34));
    TP("digitalocean-pat", hex64, "a DigitalOcean token", "DO=%s%s%s\n", "dop_", "v1_", hex64);
    TP("heroku-api-key-v2", NULL, "a Heroku key", "H=%s%s\n", "HRKU-", keep(CAT("AA%s", R(TSC_WD, 58))));
    TP("generic-api-key", NULL, "a Heroku key of the old form: a UUID named a key", "HEROKU_API_KEY=%s\n", uuid);
    FP("gcp-api-key", "34 characters, one short", "AIza%s\n", R(TSC_WD, 34));
    FP("aws-access-key-id", "15 characters", "AKIA%s\n", R(TSC_UP, 15));
    FP("azure-ad-client-secret", "a path with a tilde", "cd ~/.Q~x and back");
    FP("digitalocean-pat", "63 hex", "dop_v1_%.63s\n", hex64);
    FP("heroku-api-key-v2", "a placeholder", "HRKU-AA%s", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    /* package registries */
    TP("npm-access-token", al36, "an npm token in .npmrc", "//registry.npmjs.org/:_authToken=%s%s\n", "npm_", al36);
    TP("pypi-upload-token", NULL, "a PyPI token given as a password (the token's rule wins)",
       "password = %s%s%s\n", "pypi-", "AgEIcHlwaS5vcmc", R(TSC_WD, 70));
    FP("npm-access-token", "a package name", "npm_config_cache_directory_for_the_build_1");
    FP("pypi-upload-token", "the prefix alone", "pypi-AgEIcHlwaS5vcmc is how tokens start");
    /* JSON Web Tokens */
    char *jwt_h = keep(b64("{\"alg\":\"HS256\",\"typ\":\"JWT\"}"));
    jwt_h[strcspn(jwt_h, "=")] = 0;
    char *jwt_p = keep(CAT("eyJ%s", R(TSC_AL, 40))), *sig = R(TSC_WD, 43);
    TP("jwt", sig, "a signed JWT", "session=%s.%s.%s;", jwt_h, jwt_p, sig);
    TP("jwt", NULL, "a JWT as a bearer token (the JWT rule wins)", "Authorization: Bearer %s.%s.%s\n", jwt_h, jwt_p, sig);
    FP("jwt", "a JWT header alone", "header %s only", jwt_h);
    FP("jwt", "short parts", "eyJhbGci.eyJzdWIi.abc");
    /* password and secret assignments */
    TP("password-assignment", "hunter2x", "password=", "password=%s\n", "hunter2x");
    TP("password-assignment", "Sup3rS3cret", "a YAML line", "db:\n  passwd: %s\n", "Sup3rS3cret");
    TP("password-assignment", "Tr0ub4dor&3", "a JSON member", "{\"db_password\": \"%s\"}", "Tr0ub4dor&3");
    TP("password-assignment", "hunter22x", "a command-line flag", "run --password %s --verbose", "hunter22x");
    TP("password-assignment", "hunter22x", "a flag in a JSON argv", "\"argv\": [\"run\", \"--password\", \"%s\"]", "hunter22x");
    TP("password-assignment", "pw123", "a connection string", "host=db password=%s dbname=lab", "pw123");
    TP("password-assignment", "S3cretPw", "a JSON-escaped value", "{\"cmd\": \"PGPASSWORD=\\\"%s\\\" psql\"}", "S3cretPw");
    TP("secret-assignment", "k3yM4t3r1al99", "a client secret", "client_secret = \"%s\"\n", "k3yM4t3r1al99");
    TP("secret-assignment", "zeta-Omega-7", "a secret in YAML", "secret: \"%s\"\n", "zeta-Omega-7");
    TP("hex-secret", hex32, "32 hex named an API key", "api_key = \"%s\"\n", hex32);
    TP("hex-secret", hex64, "64 lowercase hex (hash-shaped) named a secret key", "SECRET_KEY=%s\n", hex64);
    TP("generic-api-key", NULL, "a token named a token", "API_TOKEN=%s7\n", R(TSC_AL, 28));
    TP("generic-api-key", NULL, "an access token in JSON", "{\"access_token\": \"%s7x\"}", R(TSC_AL, 30));
    TP("generic-api-key", NULL, "a key=value pair with base64 after a word", "token: %s\n", "q8ZrT2vXm9LkW4pN7bR1sYc6Hd3Fj5Gt0Ku8Ea2Vn");
    FP("password-assignment", "masked by the lab", "password=***\n");
    FP("password-assignment", "partly masked", "\"password\": \"hu****2x\"");
    FP("password-assignment", "null", "{\"password\": null}");
    FP("password-assignment", "prose after a colon", "password: see the README for how it is set\n");
    FP("password-assignment", "a name about the password, not the password", "password_file=/run/secrets/pw\n");
    FP("password-assignment", "an environment reference", "password=${PGPASSWORD}\n");
    FP("password-assignment", "a template placeholder", "PASSWORD=<your password>\n");
    FP("password-assignment", "a rate, not a password", "pass_rate=0.95\n");
    FP("password-assignment", "a placeholder word", "password: \"YOUR_PASSWORD\"\n");
    FP("secret-assignment", "a secret's name", "secret_name = \"db-creds\"\n");
    FP("secret-assignment", "masked", "\"secret\": \"***\"");
    FP("secret-assignment", "a placeholder", "secret: \"YOUR_SECRET\"\n");
    FP("secret-assignment", "too short", "secret=abc\n");
    FP("hex-secret", "a sha256 named sha256", "\"sha256\": \"%s\"", hex64);
    FP("hex-secret", "zeros", "api_key = \"00000000000000000000000000000000\"");
    FP("generic-api-key", "a URL named a token", "\"token_url\": \"https://auth.example.org/oauth2/token\"");
    FP("generic-api-key", "a placeholder of words", "api_key = \"not-a-real-key\"");
    FP("generic-api-key", "a database key", "primary_key = 1234567890123\n");
    FP("generic-api-key", "a count", "\"max_tokens\": 4096");
    FP("generic-api-key", "a run's name", "key = \"H4-dldown-r3\"");
    FP("generic-api-key", "a sort key holding a time", "sort_key = \"2026-12-01T11:14:28Z\"");
    FP("generic-api-key", "a path", "\"key\": \"results/raw/H3-fb25-r1/tester.tsv.gz\"");
    /* URLs, headers */
    TP("url-password", "S3cretPw", "a database URL", "PGURL=postgres://lab:%s@db.internal:5432/lab\n", "S3cretPw");
    TP("url-password", "pa55word", "a JSON-escaped URL", "{\"url\": \"https:\\/\\/user:%s\\u0040example.org\\/\"}", "pa55word");
    TP("bearer-token", NULL, "a bearer header", "curl -H 'Authorization: Bearer %s9'", al40);
    TP("basic-auth", NULL, "a basic header", "Authorization: Basic %s\n", keep(b64("lab:S3cretPw")));
    FP("url-password", "masked by the lab", "postgres://lab:***@127.0.0.1/lab");
    FP("url-password", "masked, percent-encoded", "postgres://lab:%%2A%%2A%%2A@db/lab");
    FP("url-password", "a user, no password", "https://user@example.org/x");
    FP("url-password", "a port, no user", "http://example.org:8080/path");
    FP("url-password", "an ssh remote", "git@github.com:org/repo.git");
    FP("bearer-token", "an environment reference", "Authorization: Bearer ${TOKEN}");
    FP("bearer-token", "prose", "bearer tokens are short-lived");
    FP("basic-auth", "prose", "Basic auth is used for the Authorization header");
    FP("basic-auth", "masked", "Authorization: Basic ***");
    FP("basic-auth", "base64 without a colon inside", "Authorization: Basic %s", keep(b64("justonelongword")));
    /* connection strings without a scheme, credential files */
    char *pw = R(TSC_AL, 12), *lowpw = keep(CAT("%.8s%.8s", pw, pw));
    TP("url-password", pw, "user:password@host, no scheme", "redis %s:%s@%s\n", "lab", pw, "cachehost");
    TP("url-password", pw, "a DSN with port and database", "DSN=%s:%s@%s:5432/labdb\n", "lab", pw, "db.internal");
    TP("url-password", pw, "a JSON member", "{\"dsn\": \"lab:%s@10.0.0.7:5432/lab\"}", pw);
    TP("pgpass-password", pw, "a .pgpass line", "%s:%s:%s:%s:%s\n", "db.internal", "5432", "labdb", "lab", pw);
    TP("pgpass-password", NULL, "a .pgpass line of wildcards, an escaped colon", "*:*:*:%s:%s\\:%s\n", "lab", "ab", pw);
    TP("pgpass-password", pw, "a .pgpass line for a socket folder", "%s:%s:%s:%s:%s\n", "/var/run/postgresql", "*",
       "lab", "lab", pw);
    TP("netrc-password", pw, "a .netrc line", "machine %s login %s password %s\n", "api.example.org", "lab", pw);
    TP("netrc-password", pw, "a .netrc entry over lines, quoted", "machine h\n  login u\n  password \"%s\"\n", pw);
    TP("netrc-password", pw, "the default entry", "default login anonymous password %s\n", pw);
    TP("aws-credentials", lowpw, "an AWS credentials line of low entropy", "[default]\n%s = %s\n",
       "aws_secret_access_key", lowpw);
    TP("aws-credentials", lowpw, "a session token", "%s=%s\n", "aws_session_token", lowpw);
    FP("url-password", "an image digest", "FROM postgres:16@sha256:%s\n", hex64);
    FP("url-password", "a mail address after mailto:", "mailto:ops@example.org");
    FP("url-password", "masked by the lab, no scheme", "lab:***@127.0.0.1:5432/lab");
    FP("url-password", "a user and host, no password", "ssh lab@db.internal:5432");
    FP("pgpass-password", "a clock time", "at 12:30:45 and 2026-12-03T12:30:45Z\n");
    FP("pgpass-password", "two times joined (a stage's span)", "collect  10:11:00Z-10:11:04Z  wall 4\n");
    FP("pgpass-password", "five numbers", "1:2:3:4:5\n");
    FP("pgpass-password", "a compiler message with a path", "src/x.c:12:34:in:func\n");
    FP("pgpass-password", "a compiler message", "a.c:12:5: error: x\n");
    FP("pgpass-password", "loopback host:port pairs", "::1 [::1]:5432 127.0.0.1:5432 localhost:8080 host:port\n");
    FP("pgpass-password", "a MAC address", "link 00:1a:2b:3c:4d:5e\n");
    FP("pgpass-password", "masked", "db:5432:lab:lab:***\n");
    FP("pgpass-password", "six fields", "db:5432:lab:lab:pw:extra\n");
    FP(NULL, "a TSV row of numbers", "1470\t1470\t761573\t762533\t236371\t200\tL\t0.0163921881\t62\t0\n");
    FP(NULL, "an ordinary loopback host:port", "listening on 127.0.0.1:5432 and [::1]:8080, localhost:5432\n");
    FP("netrc-password", "prose about machines", "the machine learning models login daily\n");
    FP("netrc-password", "a placeholder", "machine h login u password $NETRC_PASSWORD\n");
    FP("netrc-password", "no value", "machine h login u password\n");
    FP("aws-credentials", "an environment reference", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}\n");
    FP("aws-credentials", "the name of the variable", "aws_secret_access_key_file = /run/secrets/aws\n");
    /* kept from before */
    TP("private-key", NULL, "a private key block", "%s%s%s\n", "-----BEGIN ", "EC PRIVATE", " KEY-----");
    TP("high-entropy-token", NULL, "random base64 after no name", "value %s\n", "q8ZrT2vXm9LkW4pN7bR1sYc6Hd3Fj5Gt0Ku8Ea2Vn");
    FP("private-key", "a public key", "-----BEGIN PUBLIC KEY-----");
    FP("high-entropy-token", "a sha256", "%s\n", hex64);
}

Test(scanrules, true_positives)
{
    build_cases();
    for (size_t i = 0; i < ntp; i++) {
        tsc_found_t g = tsc_found(tps[i].text);
        cr_expect(tsc_has(&g, tps[i].rule), "true positive %zu (%s): %s not found in \"%s\" (%d findings%s%s)", i,
                  tps[i].why, tps[i].rule, tps[i].text, g.n, g.n ? ", first " : "", g.n ? g.rules[0] : "");
        for (int k = 0; k < g.n && k < 32 && tps[i].secret; k++)
            cr_expect(!strstr(g.masked[k], tps[i].secret), "%s: the secret printed whole: %s", tps[i].why, g.masked[k]);
        free(tps[i].text);
    }
    for (size_t i = 0; i < nfp; i++)
        free(fps[i].text);
    pool_free();
}

Test(scanrules, false_positives)
{
    build_cases();
    for (size_t i = 0; i < nfp; i++) {
        tsc_found_t g = tsc_found(fps[i].text);
        if (!fps[i].rule)   /* nothing at all */
            cr_expect_eq(g.n, 0, "false positive %zu (%s): %s found in \"%s\" (%s)", i, fps[i].why, g.n ? g.rules[0] : "",
                         fps[i].text, g.n ? g.masked[0] : "");
        else
            cr_expect(!tsc_has(&g, fps[i].rule), "false positive %zu (%s): %s found in \"%s\" (%s)", i, fps[i].why,
                      fps[i].rule, fps[i].text, g.n ? g.masked[0] : "");
        free(fps[i].text);
    }
    for (size_t i = 0; i < ntp; i++)
        free(tps[i].text);
    pool_free();
}

/* every rule of the table above has at least one true and one false positive */
Test(scanrules, every_rule_has_both)
{
    build_cases();
    for (size_t r = 0; r < sizeof table_rules / sizeof *table_rules; r++) {
        int t = 0, f = 0;
        for (size_t i = 0; i < ntp; i++)
            t += !strcmp(tps[i].rule, table_rules[r]);
        for (size_t i = 0; i < nfp; i++)
            f += fps[i].rule && !strcmp(fps[i].rule, table_rules[r]);
        cr_expect(t >= 1 && f >= 1, "rule %s: %d true and %d false positives in the table", table_rules[r], t, f);
    }
    for (size_t i = 0; i < ntp; i++)
        free(tps[i].text);
    for (size_t i = 0; i < nfp; i++)
        free(fps[i].text);
    pool_free();
}

/* each prefix of the vendor table: a random body of the shortest length is
 * found; one character shorter, one repeated letter, or the prefix glued to
 * a word before it, are not */
Test(scanrules, vendor_table)
{
    const char *pfx, *rule;
    unsigned min, max;
    char alpha[96];
    size_t k = 0;
    for (; sr_vendor(k, &pfx, &rule, &min, &max, alpha); k++) {
        char *body = tsc_rand(alpha, min);
        if (!strcmp(rule, "huggingface-access-token") || !strcmp(rule, "huggingface-organization-api-token") ||
            !strcmp(rule, "1password-secret-key")) {
            /* alphabets without digits, or with '-' the body may start or end with */
            free(body);
            body = tsc_rand(strcmp(rule, "1password-secret-key") ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                                  : "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
                            min);
        }
        char *tp = CAT("x = %s%s\n", pfx, body), *short1 = CAT("x = %s%.*s\n", pfx, (int)min - 1, body);
        char *xs = tsc_rand("x", min);
        char *same = CAT("x = %s%s\n", pfx, xs), *glued = CAT("x = q%s%s\n", pfx, body);
        tsc_found_t g = tsc_found(tp);
        cr_expect(tsc_has(&g, rule), "vendor %zu %s: %s not found in \"%s\" (%d findings%s%s)", k, pfx, rule, tp, g.n,
                  g.n ? ", first " : "", g.n ? g.rules[0] : "");
        for (int j = 0; j < g.n && j < 32; j++)
            cr_expect(!strstr(g.masked[j], body), "%s printed whole", rule);
        g = tsc_found(short1);
        cr_expect(!tsc_has(&g, rule), "vendor %s: %s found one character short: \"%s\"", pfx, rule, short1);
        g = tsc_found(same);
        cr_expect(!tsc_has(&g, rule), "vendor %s: %s found for a repeated letter: \"%s\"", pfx, rule, same);
        g = tsc_found(glued);
        cr_expect(!tsc_has(&g, rule), "vendor %s: %s found inside a longer word: \"%s\"", pfx, rule, glued);
        free(tp), free(short1), free(same), free(glued), free(body), free(xs);
    }
    cr_expect_geq(k, 100, "the vendor table has %zu prefixes", k);
}

/* a documented example key only as a whole token */
Test(scanrules, example_keys_whole_tokens_only)
{
    const char *ok[] = {"aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n", "\"AccessKeyId\": \"AKIAIOSFODNN7EXAMPLE\"",
                        "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
                        "id AKIAI44QH8DHBEXAMPLE and je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        tsc_found_t g = tsc_found(ok[i]);
        cr_expect_eq(g.n, 0, "the example \"%s\" gave %s (%s)", ok[i], g.n ? g.rules[0] : "", g.n ? g.masked[0] : "");
    }
    /* the example followed by more: no longer the example (the old scanner let these pass) */
    char *longer[] = {
        CAT("token %s%s\n", "AKIAIOSFODNN7EXAMPLE", "q8ZrT2vXm9LkW4pN7bR1sYc6"),
        CAT("aws_secret_access_key=%s%s\n", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "abc123XYZ9"),
        CAT("secret: %s%s\n", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "Q"),
        CAT("x %s%s y\n", "9", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        CAT("id %s%s\n", "x", "AKIAIOSFODNN7EXAMPLE"),
    };
    for (size_t i = 0; i < sizeof longer / sizeof *longer; i++) {
        tsc_found_t g = tsc_found(longer[i]);
        cr_expect_geq(g.n, 1, "the example inside a longer token passed: \"%s\"", longer[i]);
        free(longer[i]);
    }
}

/* one finding per place, by the most specific rule */
Test(scanrules, one_finding_per_place)
{
    char *t = CAT("GITHUB_TOKEN=%s%s\n", "ghp_", "Q3wZ7hN2kD5pX4rT9mL1vB8cY6fJ0sA2eG7u");
    tsc_found_t g = tsc_found(t);
    cr_expect_eq(g.n, 1, "%d findings, first %s", g.n, g.rules[0]);
    cr_expect_str_eq(g.rules[0], "github-pat");
    cr_expect_eq(g.offs[0], 13);
    cr_expect_eq(g.lens[0], 40);
    free(t);
    /* a value's offset and length point into the raw, JSON-escaped text */
    t = CAT("{\"u\": \"postgres:\\/\\/lab:%s\\u0040db\\/x\"}", "S3cr\\u0065tPw");
    g = tsc_found(t);
    cr_assert_eq(g.n, 1, "%d findings in %s", g.n, t);
    cr_expect_str_eq(g.rules[0], "url-password");
    cr_expect_eq(g.offs[0], strstr(t, "S3cr") - t);
    cr_expect_eq(g.lens[0], strlen("S3cr\\u0065tPw"));
    cr_expect_str_eq(g.masked[0], "S3****Pw");
    free(t);
}

static char *hex(const char *s)
{
    char *o = vu_xmalloc(2 * strlen(s) + 1);
    for (size_t i = 0; s[i]; i++)
        snprintf(o + 2 * i, 3, "%02x", (unsigned char)s[i]);
    return o;
}

/* base64 and hex runs are decoded and scanned again: the finding spans the
 * run, its masked excerpt is of the decoded secret, and via says where it
 * was decoded; two encodings deep at most; runs that decode to binary (a
 * hash, a number, a path) or to clean text give nothing */
Test(scanrules, decoded_base64_and_hex)
{
    char *pwline = CAT("%s=%s", "password", "hunter2");   /* 16 bytes: 24 base64, 32 hex characters */
    char *akia = CAT("%s%s", "AK", "IAQX7ZL2MNB4KJ8PWE");
    char *b1 = b64(pwline), *h1 = hex(pwline), *b2 = b64(akia), *h2 = hex(akia), *bb = b64(b1), *bbb = b64(bb);
    struct {
        char *text;
        const char *rule, *via;
        size_t off, len;
    } c[] = {
        {CAT("cfg: %s\n", b1), "password-assignment", "in base64 at byte 9", 5, strlen(b1)},
        {CAT("blob %s\n", h1), "password-assignment", "in hex at byte 9", 5, strlen(h1)},
        {CAT("{\"v\": \"%s\"}", b2), "aws-access-key-id", "in base64 at byte 0", 7, strlen(b2)},
        {CAT("id=0x%s\n", h2), "aws-access-key-id", "in hex at byte 0", 5, strlen(h2)},
        {CAT("x %s\n", bb), "password-assignment", "in base64 at byte 0 > in base64 at byte 9", 2, strlen(bb)},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        tsc_found_t g = tsc_found(c[i].text);
        cr_expect_eq(g.n, 1, "\"%s\": %d findings, first %s", c[i].text, g.n, g.n ? g.rules[0] : "");
        cr_expect_str_eq(g.rules[0], c[i].rule, "\"%s\"", c[i].text);
        cr_expect_eq(g.offs[0], c[i].off, "\"%s\": offset %zu", c[i].text, g.offs[0]);
        cr_expect_eq(g.lens[0], c[i].len, "\"%s\": length %zu", c[i].text, g.lens[0]);
        cr_expect_str_eq(g.via[0], c[i].via, "\"%s\"", c[i].text);
        free(c[i].text);
    }
    /* the masked excerpt is of the decoded secret */
    char *t = CAT("cfg: %s\n", b1);
    tsc_found_t g = tsc_found(t);
    cr_expect_str_eq(g.masked[0], "h*****2");
    free(t);
    /* three encodings deep: past the bound, not decoded (the run is too short for the entropy rule) */
    t = CAT("x %s\n", bbb);
    g = tsc_found(t);
    cr_expect(!tsc_has(&g, "password-assignment"), "decoded three deep: %s", t);
    free(t);
    /* what must give nothing: runs decoding to binary, numbers, paths, clean text */
    char *clean = b64("nothing secret in this line at all");
    const char *none[] = {
        "31829a6d867390fd6ada9a8b39fc3213b4feec9635248ae53bbd095e026ce3f8 29a1fbaaa81f6add8ceef91c4812195e5c086322\n",
        "t0 1052957221867105295 1234567890123456 41424344454647484950\n",
        "results/raw/H3-fb25-r1/tester.tsv.gz ThisIsALongCamelCaseName abcdefghijklmnopqrstuvwx\n",
        clean,
    };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        g = tsc_found(none[i]);
        cr_expect_eq(g.n, 0, "\"%s\" gave %s (%s)", none[i], g.n ? g.rules[0] : "", g.n ? g.masked[0] : "");
    }
    free(clean), free(pwline), free(akia), free(b1), free(h1), free(b2), free(h2), free(bb), free(bbb);
}

/* text in the shapes the lab writes (RESULTS.md, RAWFORMAT.md examples):
 * sha256s, git commits, nanosecond times, masked connection URLs */
Test(scanrules, lab_text_gives_nothing)
{
    const char *lab =
        "{\"registered_utc\": \"2026-12-01T11:14:28Z\",\n"
        " \"files\": [{\"path\": \"data/guesses.tsv\", \"sha256\": "
        "\"31829a6d867390fd6ada9a8b39fc3213b4feec9635248ae53bbd095e026ce3f8\", \"size\": 10489}],\n"
        " \"prediction\": {\"path\": \"results/prediction.json\", \"sha256\": "
        "\"9f1c0b7e2d4a6b8c0e2f4a6b8c0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d\", \"size\": 33395,\n"
        "                \"registered_utc\": \"2026-12-01T11:14:34Z\"}}\n"
        "{\"run\": \"H3-fb25-r1\", \"arm\": \"H3-fb25\", \"round\": 1, \"k\": 3, \"profile\": \"quick\", \"seconds\": 4,\n"
        " \"argv\": [\"build/bin/run\", \"--arm\", \"H3-fb25\", \"--round\", \"1\", \"--pgurl\",\n"
        "          \"postgres://lab:***@127.0.0.1/lab\", \"--seconds\", \"4\"],\n"
        " \"PGURL\": \"postgres://lab:***@127.0.0.1:5432/lab?password=***\", \"HOST\": \"127.0.0.1\",\n"
        " \"start_utc\": \"2026-12-01T11:15:02Z\", \"end_utc\": \"2026-12-01T11:15:09Z\", \"wall_s\": 7.118,\n"
        " \"exit_code\": 0, \"gate\": 1, \"gate_passed\": true, \"attempt\": 1, \"earlier_attempts\": [],\n"
        " \"host\": {\"kernel\": \"6.18.44-fc-v657\", \"cpus_online\": 2, \"mem_total_kb\": 24684092},\n"
        " \"git_commit\": \"29a1fbaaa81f6add8ceef91c4812195e5c086322\", \"t0_ns\": 1052957221867,\n"
        " \"syslog\": [\"Dec  1 11:15:03 host kernel: [redacted]\"], \"run_output\": [\"run H3-fb25-r1: 800 requests\"],\n"
        " \"idle\": {\"passed\": true, \"idle_share\": 0.97, \"steal_share\": 0.0, \"users\": 1},\n"
        " \"quiet\": {\"quiet\": true, \"steal_share\": 0.005, \"late_max_ms\": 0.0163921881}}\n"
        "{\"claim\": \"flood\", \"arm\": \"H4-r2\", \"event\": \"flooded\", \"sim_k\": 290, \"sim_n\": 1000,\n"
        " \"sim_share\": 0.29, \"sim_wilson95\": [0.262722, 0.318885], \"cp95\": [0.0050508, 0.716418]}\n"
        "results/raw/H3-fb25-r1/tester.tsv.gz\t34063\t31829a6d867390fd6ada9a8b39fc3213b4feec9635248ae53bbd095e026ce3f8\n"
        "# lab-raw 3 tester\nj\trow\tsched_t\tsend_t\tanswer_t\tstatus\tkind\tscore\tconn\twaited\n"
        "1470\t1470\t761573\t762533\t236371\t200\tL\t0.0163921881\t62\t0\n"
        "1\t1\t1052959417848\t1052960736802\t200\tL\t1\t1052959417848\t1052960687049\tA\t-\t-\t-\t-\t-\t-\n"
        "customer\tcutoff\tlabel\tscore\tlast_known\n15763\t2011-11-01\t1\t0.241731972\t0.281206131\n"
        "make -C verify && verify/build/verify --root build/quick --guesses data/guesses.tsv --max-print 20\n"
        "-std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Ilab -Ipipeline -I/usr/include/postgresql\n";
    tsc_found_t g = tsc_found(lab);
    cr_expect_eq(g.n, 0, "%d findings in the lab's text, first %s at %zu (%s)", g.n, g.rules[0], g.offs[0],
                 g.masked[0]);
}
