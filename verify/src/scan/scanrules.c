/* scanrules: the finding list and the rules that recognise a token by its own shape; see scanrules.h. */
#include "scanrules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vutil.h"

/* ---- the finding list ---- */

void scan_mask(const unsigned char *s, size_t len, char *out, size_t outlen)
{
    size_t keep = len / 4;
    if (keep > 4)
        keep = 4;
    if (keep < 1 && len > 2)
        keep = 1;
    size_t o = 0;
    for (size_t i = 0; i < len && o + 2 < outlen; i++) {
        unsigned char c = s[i];
        if (i >= keep && i + keep < len)
            c = '*';
        else if (c < 0x20 || c >= 0x7f)
            c = '?';
        out[o++] = (char)c;
        if (o >= 60 && i + keep + 1 < len) {   /* long: shorten the stars */
            size_t rest = len - keep;
            o += (size_t)snprintf(out + o, outlen - o, "...(%zu chars)...", len);
            i = rest - 1;
        }
    }
    out[o < outlen ? o : outlen - 1] = 0;
}

static scan_finding *sr_new(sr_list *l)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = vu_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    return &l->v[l->n++];
}

void sr_add(sr_list *l, const char *rule, size_t off, size_t len)
{
    scan_finding *f = sr_new(l);
    f->rule = rule;
    f->offset = off;
    f->len = len;
    scan_mask(l->buf + off, len, f->masked, sizeof f->masked);
    f->via[0] = 0;
}

void sr_push(sr_list *l, const scan_finding *f)
{
    *sr_new(l) = *f;
}

double sr_entropy(const unsigned char *s, size_t n)
{
    unsigned cnt[256];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < n; i++)
        cnt[s[i]]++;
    double h = 0;
    for (int c = 0; c < 256; c++)
        if (cnt[c]) {
            double p = (double)cnt[c] / (double)n;
            h -= p * log2(p);
        }
    return h;
}

int sr_rank(const char *rule)
{
    static const char *const assignments[] = {"password-assignment", "secret-assignment", "generic-api-key",
                                              "hex-secret", "bearer-token", "basic-auth", "machine-path",
                                              "pgpass-password", "netrc-password", "aws-credentials"};
    if (!strcmp(rule, "high-entropy-token"))
        return 3;
    for (size_t k = 0; k < sizeof assignments / sizeof *assignments; k++)
        if (!strcmp(rule, assignments[k]))
            return 2;
    return 1;
}

/* ---- documented example keys: allowed only as a whole token ---- */

static const char *const examples[] = {
    "AKIAIOSFODNN7EXAMPLE",                     /* AWS documentation */
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", /* AWS documentation */
    "AKIAI44QH8DHBEXAMPLE",                     /* AWS documentation */
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", /* AWS documentation */
};

static int tok_byte(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
           c == '_' || c == '-';
}

int sr_is_example(const unsigned char *b, size_t n, size_t s, size_t e)
{
    for (size_t k = 0; k < sizeof examples / sizeof examples[0]; k++) {
        size_t l = strlen(examples[k]);
        if (e - s > l)
            continue;
        /* an occurrence holding [s, e) starts in [e - l, s] */
        size_t from = e >= l ? e - l : 0;
        for (size_t p = from; p <= s && p + l <= n; p++) {
            if (memcmp(b + p, examples[k], l))
                continue;
            if (p > 0 && tok_byte(b[p - 1]))
                continue;
            if (p + l < n && tok_byte(b[p + l]))
                continue;
            return 1;
        }
    }
    return 0;
}

/* ---- vendor tokens: a prefix and a body ---- */

enum {
    S_ALNUM = 1 << 0,   /* A-Z a-z 0-9 */
    S_WORD = 1 << 1,    /* + _ */
    S_WDASH = 1 << 2,   /* + _ - */
    S_HEX = 1 << 3,     /* 0-9 a-f */
    S_HEXA = 1 << 4,    /* 0-9 a-f A-F */
    S_ALPHA = 1 << 5,   /* A-Z a-z */
    S_UPNUM = 1 << 6,   /* A-Z 0-9 */
    S_B64 = 1 << 7,     /* A-Z a-z 0-9 + / */
    S_WDOT = 1 << 8,    /* A-Z a-z 0-9 _ . = - */
    S_ANDASH = 1 << 9,  /* A-Z a-z 0-9 - */
    S_LALNUM = 1 << 10, /* a-z 0-9 */
    S_UPDASH = 1 << 11, /* A-Z 0-9 - */
    S_HEXDASH = 1 << 12, /* 0-9 a-f - */
    S_ANDOT = 1 << 13,  /* A-Z a-z 0-9 . */
};

static unsigned short sset[256];

typedef struct {
    const char *pfx;
    unsigned short set;
    unsigned short min, max;
    unsigned char end;   /* 1: the body must end there (no letter or digit after it) */
    const char *rule;
} vendor;

/* The prefixed tokens of gitleaks' default rules (config/gitleaks.toml),
 * by family.  Rule names are gitleaks' ids.  A table reads better whole. */
static const vendor vendors[] = {
    /* code hosts */
    {"ghp_", S_ALNUM, 36, 36, 0, "github-pat"},
    {"gho_", S_ALNUM, 36, 36, 0, "github-oauth"},
    {"ghu_", S_ALNUM, 36, 36, 0, "github-app-token"},
    {"ghs_", S_ALNUM, 36, 36, 0, "github-app-token"},
    {"ghr_", S_ALNUM, 36, 36, 0, "github-refresh-token"},
    {"github_pat_", S_WORD, 82, 82, 0, "github-fine-grained-pat"},
    {"glpat-", S_WDASH, 20, 300, 0, "gitlab-pat"},
    {"glptt-", S_HEX, 40, 40, 0, "gitlab-ptt"},
    {"gldt-", S_WDASH, 20, 20, 0, "gitlab-deploy-token"},
    {"glft-", S_WDASH, 20, 20, 0, "gitlab-feed-token"},
    {"glrt-", S_WDASH, 20, 300, 0, "gitlab-runner-authentication-token"},
    {"glsoat-", S_WDASH, 20, 20, 0, "gitlab-scim-token"},
    {"glffct-", S_WDASH, 20, 20, 0, "gitlab-feature-flag-client-token"},
    {"glimt-", S_WDASH, 25, 25, 0, "gitlab-incoming-mail-token"},
    {"glagent-", S_WDASH, 50, 50, 0, "gitlab-kubernetes-agent-token"},
    {"gloas-", S_WDASH, 64, 64, 0, "gitlab-oauth-app-secret"},
    {"glcbt-", S_WDASH, 22, 26, 0, "gitlab-cicd-job-token"},
    {"GR1348941", S_WDASH, 20, 20, 0, "gitlab-rrt"},
    {"AKCp", S_ALNUM, 69, 69, 1, "artifactory-api-key"},
    {"cmVmd", S_ALNUM, 59, 59, 1, "artifactory-reference-token"},
    /* chat */
    {"xoxb-", S_ANDASH, 20, 250, 0, "slack-bot-token"},
    {"xoxp-", S_ANDASH, 20, 250, 0, "slack-user-token"},
    {"xoxa-", S_ANDASH, 20, 250, 0, "slack-legacy-workspace-token"},
    {"xoxr-", S_ANDASH, 20, 250, 0, "slack-legacy-workspace-token"},
    {"xoxo-", S_ANDASH, 20, 250, 0, "slack-legacy-token"},
    {"xoxs-", S_ANDASH, 20, 250, 0, "slack-legacy-token"},
    {"xoxe-", S_ANDASH, 20, 250, 0, "slack-config-refresh-token"},
    {"xoxe.xox", S_ANDASH, 20, 250, 0, "slack-config-access-token"},
    {"xapp-", S_ANDASH, 20, 250, 0, "slack-app-token"},
    /* payment */
    {"sk_live_", S_ALNUM, 10, 99, 1, "stripe-access-token"},
    {"sk_test_", S_ALNUM, 10, 99, 1, "stripe-access-token"},
    {"sk_prod_", S_ALNUM, 10, 99, 1, "stripe-access-token"},
    {"rk_live_", S_ALNUM, 10, 99, 1, "stripe-access-token"},
    {"rk_test_", S_ALNUM, 10, 99, 1, "stripe-access-token"},
    {"rk_prod_", S_ALNUM, 10, 99, 1, "stripe-access-token"},
    {"EAAA", S_WDASH, 40, 80, 1, "square-access-token"},
    {"sq0atp-", S_WDASH, 22, 60, 1, "square-access-token"},
    {"sq0csp-", S_WDASH, 40, 50, 1, "square-oauth-secret"},
    {"FLWSECK_TEST-", S_ANDASH, 12, 40, 0, "flutterwave-secret-key"},
    {"FLWSECK-", S_ANDASH, 12, 40, 0, "flutterwave-secret-key"},
    {"shpat_", S_HEXA, 32, 32, 0, "shopify-access-token"},
    {"shpca_", S_HEXA, 32, 32, 0, "shopify-custom-access-token"},
    {"shppa_", S_HEXA, 32, 32, 0, "shopify-private-app-access-token"},
    {"shpss_", S_HEXA, 32, 32, 0, "shopify-shared-secret"},
    {"shippo_live_", S_HEXA, 40, 40, 1, "shippo-api-token"},
    {"shippo_test_", S_HEXA, 40, 40, 1, "shippo-api-token"},
    {"EZAK", S_ALNUM, 54, 54, 1, "easypost-api-token"},
    {"EZTK", S_ALNUM, 54, 54, 1, "easypost-test-api-token"},
    {"duffel_live_", S_WDOT, 43, 43, 0, "duffel-api-token"},
    {"duffel_test_", S_WDOT, 43, 43, 0, "duffel-api-token"},
    /* cloud providers */
    {"ABIA", S_UPNUM, 16, 16, 1, "aws-access-key-id"},
    {"ACCA", S_UPNUM, 16, 16, 1, "aws-access-key-id"},
    {"AIza", S_WDASH, 35, 35, 1, "gcp-api-key"},
    {"GOCSPX-", S_WDASH, 28, 28, 1, "gcp-oauth-client-secret"},
    {"ya29.", S_WDASH, 30, 2000, 0, "gcp-oauth-access-token"},
    {"doo_v1_", S_HEX, 64, 64, 1, "digitalocean-access-token"},
    {"dop_v1_", S_HEX, 64, 64, 1, "digitalocean-pat"},
    {"dor_v1_", S_HEX, 64, 64, 1, "digitalocean-refresh-token"},
    {"HRKU-AA", S_WDASH, 58, 58, 1, "heroku-api-key-v2"},
    {"LTAI", S_ALNUM, 20, 20, 1, "alibaba-access-key-id"},
    {"dapi", S_HEX, 32, 32, 1, "databricks-api-token"},
    {"hvs.", S_WDASH, 90, 120, 1, "vault-service-token"},
    {"hvb.", S_WDASH, 138, 300, 1, "vault-batch-token"},
    {"dp.pt.", S_ALNUM, 43, 43, 0, "doppler-api-token"},
    {"dt0c01.", S_ANDOT, 89, 89, 0, "dynatrace-api-token"},
    {"glc_", S_B64, 32, 400, 1, "grafana-cloud-api-token"},
    {"glsa_", S_WORD, 41, 41, 1, "grafana-service-account-token"},
    {"eyJrIjoi", S_ALNUM, 70, 400, 1, "grafana-api-key"},
    {"fo1_", S_WDASH, 43, 43, 1, "flyio-access-token"},
    {"fm1a_", S_B64, 100, 4000, 1, "flyio-access-token"},
    {"fm1r_", S_B64, 100, 4000, 1, "flyio-access-token"},
    {"fm2_", S_B64, 100, 4000, 1, "flyio-access-token"},
    {"pscale_tkn_", S_WDOT, 32, 64, 1, "planetscale-api-token"},
    {"pscale_pw_", S_WDOT, 32, 64, 1, "planetscale-password"},
    {"pscale_oauth_", S_WDOT, 32, 64, 1, "planetscale-oauth-token"},
    {"tk-us-", S_WDASH, 48, 48, 1, "scalingo-api-token"},
    {"pul-", S_HEX, 40, 40, 1, "pulumi-api-token"},
    {"ATATT3", S_WDOT, 150, 300, 1, "atlassian-api-token"},
    /* package registries */
    {"npm_", S_ALNUM, 36, 36, 1, "npm-access-token"},
    {"pypi-AgEIcHlwaS5vcmc", S_WDASH, 50, 1000, 0, "pypi-upload-token"},
    {"rubygems_", S_HEX, 48, 48, 1, "rubygems-api-token"},
    {"CLOJARS_", S_ALNUM, 60, 60, 0, "clojars-api-token"},
    {"dckr_pat_", S_WDASH, 20, 40, 1, "docker-hub-pat"},
    /* AI services */
    {"sk-ant-", S_WDASH, 90, 110, 1, "anthropic-api-key"},
    {"sk-proj-", S_WDASH, 40, 200, 1, "openai-api-key"},
    {"sk-svcacct-", S_WDASH, 40, 200, 1, "openai-api-key"},
    {"sk-admin-", S_WDASH, 40, 200, 1, "openai-api-key"},
    {"sk-", S_ALNUM, 48, 48, 1, "openai-api-key"},
    {"hf_", S_ALPHA, 34, 34, 1, "huggingface-access-token"},
    {"api_org_", S_ALPHA, 34, 34, 1, "huggingface-organization-api-token"},
    {"pplx-", S_ALNUM, 48, 48, 1, "perplexity-api-key"},
    /* other services */
    {"SG.", S_WDOT, 66, 66, 1, "sendgrid-api-token"},
    {"SK", S_HEXA, 32, 32, 1, "twilio-api-key"},
    {"sntryu_", S_HEX, 64, 64, 1, "sentry-user-token"},
    {"lin_api_", S_ALNUM, 40, 40, 0, "linear-api-key"},
    {"PMAK-", S_HEXDASH, 59, 59, 1, "postman-api-token"},
    {"AGE-SECRET-KEY-1", S_UPNUM, 58, 58, 0, "age-secret-key"},
    {"ops_eyJ", S_B64, 250, 8000, 0, "1password-service-account-token"},
    {"A3-", S_UPDASH, 36, 37, 1, "1password-secret-key"},
    {"ntn_", S_ALNUM, 46, 46, 1, "notion-api-token"},
    {"pnu_", S_ALNUM, 36, 36, 1, "prefect-api-token"},
    {"rdme_", S_LALNUM, 70, 70, 1, "readme-api-token"},
    {"ico-", S_ALNUM, 32, 32, 1, "infracost-api-token"},
    {"sm_aat_", S_ALNUM, 16, 16, 1, "settlemint-application-access-token"},
    {"sm_pat_", S_ALNUM, 16, 16, 1, "settlemint-personal-access-token"},
    {"sm_sat_", S_ALNUM, 16, 16, 1, "settlemint-service-access-token"},
    {"fio-u-", S_WDOT, 64, 64, 0, "frameio-api-token"},
    {"xkeysib-", S_ANDASH, 81, 81, 1, "sendinblue-api-token"},
    {"sgp_", S_WORD, 40, 61, 1, "sourcegraph-access-token"},
    {"p8e-", S_ALNUM, 32, 32, 1, "adobe-client-secret"},
    {"API-", S_UPNUM, 26, 26, 1, "octopus-deploy-api-key"},
    {"EAAM", S_ALNUM, 100, 1000, 1, "facebook-page-access-token"},
    {"EAAC", S_ALNUM, 100, 1000, 1, "facebook-page-access-token"},
    {"NRAK-", S_UPNUM, 27, 27, 1, "new-relic-user-api-key"},
    {"s-s4t2ud-", S_HEX, 64, 64, 1, "intra42-client-secret"},
    {"s-s4t2af-", S_HEX, 64, 64, 1, "intra42-client-secret"},
};
#define NVENDORS (sizeof vendors / sizeof vendors[0])

/* per first byte: the vendors whose prefix starts with it (indexes + 1, 0 ends) */
static unsigned char by_first[256][32];
/* 1 when every byte of the prefix is base64 ([A-Za-z0-9+/]): such a prefix
 * must not follow a base64 byte (inside a long base64 text it is chance) */
static unsigned char b64_prefix[NVENDORS];
static int ready;

static int is_alnum(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
static int is_b64(unsigned char c)
{
    return is_alnum(c) || c == '+' || c == '/';
}

static void init(void)
{
    if (ready)
        return;
    for (int c = 0; c < 256; c++) {
        int up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z', d = c >= '0' && c <= '9';
        int an = up || lo || d, hx = d || (c >= 'a' && c <= 'f');
        unsigned short v = 0;
        if (an)
            v |= S_ALNUM;
        if (an || c == '_')
            v |= S_WORD;
        if (an || c == '_' || c == '-')
            v |= S_WDASH;
        if (hx)
            v |= S_HEX;
        if (hx || (c >= 'A' && c <= 'F'))
            v |= S_HEXA;
        if (up || lo)
            v |= S_ALPHA;
        if (up || d)
            v |= S_UPNUM;
        if (an || c == '+' || c == '/')
            v |= S_B64;
        if (an || c == '_' || c == '.' || c == '=' || c == '-')
            v |= S_WDOT;
        if (an || c == '-')
            v |= S_ANDASH;
        if (lo || d)
            v |= S_LALNUM;
        if (up || d || c == '-')
            v |= S_UPDASH;
        if (hx || c == '-')
            v |= S_HEXDASH;
        if (an || c == '.')
            v |= S_ANDOT;
        sset[c] = v;
    }
    for (size_t k = 0; k < NVENDORS; k++) {
        unsigned char f = (unsigned char)vendors[k].pfx[0];
        size_t j = 0;
        while (by_first[f][j])
            j++;
        if (j + 1 >= sizeof by_first[f]) {   /* the table outgrew its index: a programming error */
            fprintf(stderr, "scanrules: more than %zu prefixes start with '%c'\n", sizeof by_first[f] - 1, f);
            abort();
        }
        by_first[f][j] = (unsigned char)(k + 1);
        int all = 1;
        for (const char *p = vendors[k].pfx; *p; p++)
            all &= is_b64((unsigned char)*p);
        b64_prefix[k] = (unsigned char)all;
    }
    ready = 1;
}

/* a body that looks drawn at random, not a placeholder or a word: entropy
 * >= 3.0 bits/char (2.5 under 20 chars); not words of one case without a
 * digit (your-token-here, YOUR_TOKEN; unless the alphabet has one case
 * only); from 30 chars on in an alphabet of letters and digits, a letter
 * and a digit */
static int random_body(const unsigned char *t, size_t len, unsigned short set)
{
    double h = sr_entropy(t, len);
    if (h < (len >= 20 ? 3.0 : 2.5))
        return 0;
    int d = 0, a = 0, up = 0, lo = 0;
    for (size_t i = 0; i < len; i++) {
        d |= t[i] >= '0' && t[i] <= '9';
        up |= t[i] >= 'A' && t[i] <= 'Z';
        lo |= t[i] >= 'a' && t[i] <= 'z';
    }
    a = up || lo;
    if (!d && up != lo && !(set & (S_UPNUM | S_UPDASH)))
        return 0;
    if (len < 30 || set == S_ALPHA || (set & (S_HEX | S_HEXA | S_HEXDASH)))
        return 1;
    return d && a;
}

/* vendor k at p (its prefix already compared): the length added, or 0 */
static size_t vendor_at(sr_list *l, const unsigned char *b, size_t n, size_t p, size_t k)
{
    const vendor *v = &vendors[k];
    size_t pl = strlen(v->pfx), q = p + pl, m = 0;
    while (q + m < n && m <= v->max && (sset[b[q + m]] & v->set))
        m++;
    if (m < v->min)
        return 0;
    if (v->end && (m > v->max || (q + m < n && is_alnum(b[q + m]))))
        return 0;
    if (m > v->max)
        m = v->max;
    if (!random_body(b + q, m, v->set))
        return 0;
    if (sr_is_example(b, n, p, q + m))
        return 0;
    sr_add(l, v->rule, p, pl + m);
    return pl + m;
}

/* base64url part of a JSON Web Token at p: its length if at least min */
static size_t jwt_part(const unsigned char *b, size_t n, size_t p, size_t min)
{
    size_t m = 0;
    while (p + m < n && (is_alnum(b[p + m]) || b[p + m] == '_' || b[p + m] == '-'))
        m++;
    return m >= min ? m : 0;
}

/* "eyJ...": header '.' payload, both base64url JSON, and the signature */
static size_t jwt_at(const unsigned char *b, size_t n, size_t p)
{
    if (p + 3 > n || memcmp(b + p, "eyJ", 3))
        return 0;
    size_t h = jwt_part(b, n, p, 17);
    if (!h || p + h + 3 >= n || b[p + h] != '.' || memcmp(b + p + h + 1, "eyJ", 3))
        return 0;
    size_t q = p + h + 1, pl = jwt_part(b, n, q, 17);
    if (!pl)
        return 0;
    size_t e = q + pl;
    if (e + 1 < n && b[e] == '.') {
        size_t sl = jwt_part(b, n, e + 1, 10);
        if (sl)
            e += 1 + sl;
    }
    return e - p;
}

static void webhooks(sr_list *l, const unsigned char *b, size_t n, size_t s, size_t e)
{
    static const struct {
        const char *lit;
        const char *rule;
        size_t min;
    } hooks[] = {
        {"hooks.slack.com/services/", "slack-webhook-url", 20},
        {"hooks.slack.com/workflows/", "slack-webhook-url", 20},
        {"hooks.slack.com/triggers/", "slack-webhook-url", 20},
        {"discord.com/api/webhooks/", "discord-webhook-url", 30},
        {"discordapp.com/api/webhooks/", "discord-webhook-url", 30},
        {"webhook.office.com/webhookb2/", "microsoft-teams-webhook", 20},
    };
    for (size_t k = 0; k < sizeof hooks / sizeof *hooks; k++) {
        size_t ll = strlen(hooks[k].lit);
        const unsigned char *p = memmem(b + s, e - s, hooks[k].lit, ll);
        if (!p)
            continue;
        size_t q = (size_t)(p - b) + ll, m = 0;
        while (q + m < n && (is_b64(b[q + m]) || b[q + m] == '-' || b[q + m] == '_' || b[q + m] == '@'))
            m++;
        if (m >= hooks[k].min)
            sr_add(l, hooks[k].rule, q, m);
    }
}

void sr_token(sr_list *l, const unsigned char *b, size_t n, size_t s, size_t e)
{
    init();
    for (size_t p = s; p < e; p++) {
        const unsigned char *list = by_first[b[p]];
        if (!list[0] && b[p] != 'e')
            continue;
        int after_alnum = p > 0 && is_alnum(b[p - 1]);
        int after_b64 = p > 0 && is_b64(b[p - 1]);
        if (after_alnum)
            continue;
        size_t used = 0;
        for (size_t j = 0; list[j] && !used; j++) {
            size_t k = list[j] - 1u;
            size_t pl = strlen(vendors[k].pfx);
            if (b64_prefix[k] && after_b64)
                continue;
            if (p + pl > n || memcmp(b + p, vendors[k].pfx, pl))
                continue;
            used = vendor_at(l, b, n, p, k);
        }
        if (!used && b[p] == 'e' && !after_b64) {
            used = jwt_at(b, n, p);
            if (used)
                sr_add(l, "jwt", p, used);
        }
        if (used)
            p += used - 1; /* nothing inside a token found is looked at again */
    }
    if (e - s >= 40 && memchr(b + s, '/', e - s) && memchr(b + s, '.', e - s))
        webhooks(l, b, n, s, e);
}

int sr_vendor(size_t k, const char **pfx, const char **rule, unsigned *min, unsigned *max, char alphabet[96])
{
    init();
    if (k >= NVENDORS)
        return 0;
    *pfx = vendors[k].pfx;
    *rule = vendors[k].rule;
    *min = vendors[k].min;
    *max = vendors[k].max;
    size_t a = 0;
    for (int c = 33; c < 127 && a < 95; c++)
        if (sset[c] & vendors[k].set)
            alphabet[a++] = (char)c;
    alphabet[a] = 0;
    return 1;
}
