/* shopgen: the seeded shop generator.  Writes a file of the shop's invoice
 * lines in the layout shop.h defines, from the model and parameters of
 * data/README.md ("The generated shop"); shopgen.h has the contract.  The
 * one loader of such a file (generated or real) is shop.c. */
#include "shopgen.h"

#include "shop.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The generative model's parameters (documented in data/README.md).   */
/* ------------------------------------------------------------------ */

#define G_NBASE        2700    /* customers already active on 2009-12-01 */
#define G_NNEW         3700    /* customers whose first order falls inside the window */
#define G_FIRST_ID     12346   /* customer ids are a shuffle of 12346 .. 12346+NBASE+NNEW-1 */
#define G_RATE_SHAPE   1.0     /* purchase rate: gamma(shape, mean), orders per 30 days */
#define G_RATE_MEAN    0.43
#define G_CHURN_A      1.2     /* monthly chance of leaving for good: beta(a, b) */
#define G_CHURN_B      40.0
#define G_BASKET_MEAN  20.0    /* customer's mean lines per invoice: lognormal, this mean */
#define G_BASKET_SIGMA 0.6
#define G_SPEND_SIGMA  0.7     /* customer's quantity multiplier: lognormal, mean 1 */
#define G_RETURN_P     0.02    /* chance that an ordinary invoice is partly returned */
#define G_RETURN_DELAY 6.0     /* return comes 1 + floor(exp(mean DELAY)) days later */
#define G_RETURN_LINES 1.5     /* returned lines: 1 + floor(exp(mean LINES)), at most all */
#define G_GUEST_SHARE  0.20    /* guest lines' expected share of all lines */
#define G_GUEST_BASKET 25.0    /* guest invoice: mean lines */
#define G_NPRODUCTS    3000
#define G_ZIPF_S       0.9     /* product popularity: weight of rank r is 1 / r^S */
#define G_PRICE_MEDIAN 2.5     /* catalogue price: lognormal, this median, this sigma */
#define G_PRICE_SIGMA  0.7
#define G_UK_SHARE     0.90    /* customers (and guest invoices) from the United Kingdom */
#define G_HOUR_MEAN    12.75   /* time of day: normal, redrawn outside [7:00, 20:00) */
#define G_HOUR_SD      2.2
#define G_NADJUST      3       /* 'A' invoices ("Adjust bad debt") on one day */
#define G_MAXLINES     400     /* cap on lines per invoice */

/* The season: relative order rate of each month, January first (the
 * calendar then scales it so that the mean over the window's days is 1). */
static const double SEASON[12] = {
    0.70, 0.75, 0.90, 0.85, 0.95, 0.95, 0.95, 0.95, 1.20, 1.35, 1.60, 1.10,
};

/* Sub-streams of the seed, so that one part of the model does not shift
 * the draws of another. */
enum { S_CATALOGUE = 1, S_CUSTOMERS, S_GUESTS, S_ADJUST };

typedef struct {
    char seg[192];  /* "StockCode,Description" as written (quoted if needed) */
    int seglen;
    int32_t cents;  /* price */
} g_product;

typedef struct {
    int32_t t;      /* minutes since the window's first day, 00:00 */
    uint32_t tie;   /* random tie-break among equal times */
    uint32_t idx;   /* creation order: last tie-break, makes the sort total */
    int32_t cust;   /* customer id, or 0 for a guest */
    uint32_t line0; /* first line in the line pool */
    uint32_t nl;
    int16_t country;
    char kind;      /* 'N', 'C', 'A' */
} g_inv;

typedef struct {
    int32_t prod;   /* product index, or -1 for an adjustment */
    int32_t qty;
    int32_t cents;  /* price (adjustments carry their own) */
} g_line;

typedef struct {
    g_product *prod;
    double *zipf_cdf;
    int32_t ndays;          /* days in the window, first to last inclusive */
    int32_t day0;           /* days since 1970 of the first day */
    double *w;              /* season * open, normalised to mean 1 over the window */
    double wmax;
    char (*date)[16];       /* "YYYY-MM-DD " per day */
    g_inv *inv;
    size_t ninv, capinv;
    g_line *line;
    size_t nline, capline;
} g_state;

static const char *const COUNTRIES[] = {
    "United Kingdom", "EIRE", "Germany", "France", "Netherlands", "Spain", "Belgium",
    "Switzerland", "Portugal", "Australia", "Channel Islands", "Italy", "Norway",
    "Sweden", "Denmark", "Finland", "Cyprus", "Austria", "Japan", "USA", "Poland",
    "Greece", "Unspecified",
};
/* weights of the countries other than the United Kingdom */
static const double COUNTRY_W[] = {
    0, 30, 28, 25, 10, 10, 8, 7, 6, 5, 5, 4, 4, 3, 3, 3, 2, 2, 2, 2, 2, 1, 1,
};
#define NCOUNTRIES ((int)(sizeof COUNTRIES / sizeof COUNTRIES[0]))

static const char *const ADJ[] = {
    "WHITE", "RED", "PINK", "BLUE", "GREEN", "IVORY", "VINTAGE", "RETRO", "JUMBO",
    "SMALL", "LARGE", "GLASS", "WOODEN", "ENAMEL", "PAPER", "HEART", "STAR", "FLORAL",
    "SPOTTY", "REGENCY", "PARTY", "CHRISTMAS", "HANGING", "ANTIQUE", "FRENCH",
    "SILVER", "GOLD", "BIRD", "ROSE", "STRIPED",
};
static const char *const NOUN[] = {
    "T-LIGHT HOLDER", "LANTERN", "MUG", "TEA CUP AND SAUCER", "CAKE TIN", "BAG",
    "NOTEBOOK", "CUSHION COVER", "DOORMAT", "BUNTING", "WALL CLOCK", "STORAGE JAR",
    "BOWL", "PHOTO FRAME", "METAL SIGN", "PURSE", "LUNCH BOX", "CANDLE", "TRAY",
    "WATER BOTTLE", "NAPKINS", "GIFT WRAP", "BAUBLE", "COAT RACK", "DRAWER KNOB",
    "CAKE STAND", "PLATE", "CHALKBOARD", "WREATH", "APRON",
};
static const char *const PATTERN[] = {
    "PANTRY DESIGN", "ASSORTED COLOURS", "RED RETROSPOT", "SPACEBOY", "DOLLY GIRL",
    "WOODLAND", "SET OF 2", "PACK OF 12",
};
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int rnd_int(ut_rng *r, int n) { return (int)(ut_rng_unit(r) * n); }

static double rnd_beta(ut_rng *r, double a, double b)
{
    double x = ut_rng_gamma(r, a), y = ut_rng_gamma(r, b);
    return x / (x + y);
}

static int pick_weighted(ut_rng *r, const double *w, int n)
{
    double tot = 0;
    for (int i = 0; i < n; i++)
        tot += w[i];
    double u = ut_rng_unit(r) * tot;
    for (int i = 0; i < n; i++) {
        if (u < w[i])
            return i;
        u -= w[i];
    }
    return n - 1;
}

static int pick_country(ut_rng *r)
{
    if (ut_rng_unit(r) < G_UK_SHARE)
        return 0;
    return pick_weighted(r, COUNTRY_W, NCOUNTRIES);
}

static int build_catalogue(g_state *g, uint64_t seed)
{
    ut_rng r;
    ut_rng_seed(&r, ut_mix64(seed ^ S_CATALOGUE));
    g->prod = calloc(G_NPRODUCTS, sizeof *g->prod);
    g->zipf_cdf = malloc(G_NPRODUCTS * sizeof *g->zipf_cdf);
    if (!g->prod || !g->zipf_cdf)
        return -1;
    int code = 10000;
    double cum = 0;
    for (int i = 0; i < G_NPRODUCTS; i++) {
        g_product *p = &g->prod[i];
        code += 1 + rnd_int(&r, 25);
        char sc[16];
        if (ut_rng_unit(&r) < 0.12)
            snprintf(sc, sizeof sc, "%d%c", code, 'A' + rnd_int(&r, 6));
        else
            snprintf(sc, sizeof sc, "%d", code);
        char d[80];
        const char *a1 = ADJ[rnd_int(&r, NELEM(ADJ))];
        const char *a2 = ADJ[rnd_int(&r, NELEM(ADJ))];
        const char *nn = NOUN[rnd_int(&r, NELEM(NOUN))];
        double u = ut_rng_unit(&r);
        if (u < 0.06) /* a comma: the field must be quoted */
            snprintf(d, sizeof d, "%s %s, %s", a1, nn, PATTERN[rnd_int(&r, NELEM(PATTERN))]);
        else if (u < 0.075) /* an inch mark: quoted, the quote doubled */
            snprintf(d, sizeof d, "%d\" %s %s", 4 + 2 * rnd_int(&r, 6), a1, nn);
        else if (u < 0.2)
            snprintf(d, sizeof d, "SET OF %d %s %s", 2 + rnd_int(&r, 5), a1, nn);
        else if (u < 0.6)
            snprintf(d, sizeof d, "%s %s %s", a1, a2, nn);
        else
            snprintf(d, sizeof d, "%s %s", a1, nn);
        int n = snprintf(p->seg, sizeof p->seg, "%s,", sc);
        if (strchr(d, ',') || strchr(d, '"')) {
            p->seg[n++] = '"';
            for (const char *c = d; *c; c++) {
                if (*c == '"')
                    p->seg[n++] = '"';
                p->seg[n++] = *c;
            }
            p->seg[n++] = '"';
        } else {
            n += snprintf(p->seg + n, sizeof p->seg - (size_t)n, "%s", d);
        }
        p->seg[n] = 0;
        p->seglen = n;
        double price = G_PRICE_MEDIAN * exp(G_PRICE_SIGMA * ut_rng_normal(&r));
        p->cents = (int32_t)lround(price * 100);
        if (p->cents < 10)
            p->cents = 10;
        cum += 1.0 / pow(i + 1, G_ZIPF_S);
        g->zipf_cdf[i] = cum;
    }
    for (int i = 0; i < G_NPRODUCTS; i++)
        g->zipf_cdf[i] /= cum;
    return 0;
}

static int build_calendar(g_state *g)
{
    g->day0 = ut_days_from_civil(2009, 12, 1);
    g->ndays = ut_days_from_civil(2011, 12, 9) - g->day0 + 1;
    g->w = malloc((size_t)g->ndays * sizeof *g->w);
    g->date = malloc((size_t)g->ndays * sizeof *g->date);
    if (!g->w || !g->date)
        return -1;
    double tot = 0;
    for (int32_t i = 0; i < g->ndays; i++) {
        int32_t z = g->day0 + i;
        int y, m, d;
        ut_civil_from_days(z, &y, &m, &d);
        int dow = (int)((z + 4) % 7); /* 0 = Sunday; 1970-01-01 was a Thursday */
        int open = dow != 6 && !(m == 12 && d >= 24) && !(m == 1 && d <= 3);
        g->w[i] = open ? SEASON[m - 1] : 0;
        tot += g->w[i];
        snprintf(g->date[i], sizeof g->date[i], "%04d-%02d-%02d ", y, m, d);
    }
    g->wmax = 0;
    for (int32_t i = 0; i < g->ndays; i++) {
        g->w[i] *= g->ndays / tot;
        if (g->w[i] > g->wmax)
            g->wmax = g->w[i];
    }
    return 0;
}

static int draw_minute(ut_rng *r)
{
    for (;;) {
        double h = G_HOUR_MEAN + G_HOUR_SD * ut_rng_normal(r);
        if (h >= 7.0 && h < 20.0)
            return (int)(h * 60.0);
    }
}

/* A day drawn with density proportional to w (season, open days). */
static int32_t draw_day(g_state *g, ut_rng *r)
{
    for (;;) {
        int32_t d = (int32_t)(ut_rng_unit(r) * g->ndays);
        if (ut_rng_unit(r) * g->wmax < g->w[d])
            return d;
    }
}

static int32_t draw_qty(ut_rng *r, double spend)
{
    static const int PACK[] = {1, 2, 3, 4, 6, 8, 10, 12, 24, 48};
    static const double PACK_W[] = {20, 12, 8, 10, 15, 4, 4, 17, 7, 3};
    int q = (int)lround(PACK[pick_weighted(r, PACK_W, NELEM(PACK))] * spend);
    return q < 1 ? 1 : q > 10000 ? 10000 : q;
}

static int32_t draw_product(g_state *g, ut_rng *r)
{
    double u = ut_rng_unit(r);
    int lo = 0, hi = G_NPRODUCTS - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (g->zipf_cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static uint32_t draw_lines(ut_rng *r, double mean)
{
    /* 1 + round((mean - 1) * gamma(2) / 2): mean about `mean`, sd about mean / 1.4 */
    double x = 1.0 + (mean - 1.0) * ut_rng_gamma(r, 2.0) / 2.0;
    long n = lround(x);
    return n < 1 ? 1 : n > G_MAXLINES ? G_MAXLINES : (uint32_t)n;
}

static g_inv *new_inv(g_state *g, ut_rng *r, int32_t t, int32_t cust, int country, char kind)
{
    if (g->ninv == g->capinv) {
        size_t nc = g->capinv ? 2 * g->capinv : 65536;
        g_inv *ni = realloc(g->inv, nc * sizeof *ni);
        if (!ni)
            return NULL;
        g->inv = ni;
        g->capinv = nc;
    }
    g_inv *v = &g->inv[g->ninv];
    v->t = t;
    v->tie = (uint32_t)ut_rng_u64(r);
    v->idx = (uint32_t)g->ninv;
    v->cust = cust;
    v->line0 = (uint32_t)g->nline;
    v->nl = 0;
    v->country = (int16_t)country;
    v->kind = kind;
    g->ninv++;
    return v;
}

static g_line *new_line(g_state *g)
{
    if (g->nline == g->capline) {
        size_t nc = g->capline ? 2 * g->capline : 1 << 20;
        g_line *nl = realloc(g->line, nc * sizeof *nl);
        if (!nl)
            return NULL;
        g->line = nl;
        g->capline = nc;
    }
    return &g->line[g->nline++];
}

/* An ordinary invoice of `nl` lines on day d; returns its index or -1. */
static long make_invoice(g_state *g, ut_rng *r, int32_t d, int32_t cust, int country,
                         uint32_t nl, double spend)
{
    g_inv *v = new_inv(g, r, d * 1440 + draw_minute(r), cust, country, 'N');
    if (!v)
        return -1;
    long vi = (long)(v - g->inv);
    for (uint32_t k = 0; k < nl; k++) {
        g_line *l = new_line(g);
        if (!l)
            return -1;
        l->prod = draw_product(g, r);
        l->qty = draw_qty(r, spend);
        l->cents = g->prod[l->prod].cents;
    }
    g->inv[vi].nl = nl;
    return vi;
}

/* With chance G_RETURN_P, a partial return of invoice vi some days later. */
static int maybe_return(g_state *g, ut_rng *r, long vi)
{
    if (ut_rng_unit(r) >= G_RETURN_P)
        return 0;
    int32_t d = g->inv[vi].t / 1440 + 1 + (int32_t)(ut_rng_exp(r) * G_RETURN_DELAY);
    while (d < g->ndays && g->w[d] == 0)
        d++;
    uint32_t nl = g->inv[vi].nl;
    uint32_t k = 1 + (uint32_t)(ut_rng_exp(r) * G_RETURN_LINES);
    if (k > nl)
        k = nl;
    if (d >= g->ndays)
        return 0;
    g_inv *c = new_inv(g, r, d * 1440 + draw_minute(r), g->inv[vi].cust, g->inv[vi].country, 'C');
    if (!c)
        return -1;
    long ci = (long)(c - g->inv);
    uint32_t idx[G_MAXLINES];
    for (uint32_t j = 0; j < nl; j++)
        idx[j] = j;
    for (uint32_t j = 0; j < k; j++) { /* k distinct lines of the original */
        uint32_t s = j + (uint32_t)(ut_rng_unit(r) * (nl - j));
        uint32_t tmp = idx[j];
        idx[j] = idx[s];
        idx[s] = tmp;
        g_line *l = new_line(g);
        if (!l)
            return -1;
        g_line o = g->line[g->inv[vi].line0 + idx[j]];
        l->prod = o.prod;
        l->cents = o.cents;
        l->qty = -(1 + (int32_t)(ut_rng_unit(r) * o.qty));
    }
    g->inv[ci].nl = k;
    return 0;
}

static int make_customers(g_state *g, uint64_t seed)
{
    ut_rng r;
    ut_rng_seed(&r, ut_mix64(seed ^ S_CUSTOMERS));
    const int ncust = G_NBASE + G_NNEW;
    int32_t *ids = malloc((size_t)ncust * sizeof *ids);
    if (!ids)
        return -1;
    for (int i = 0; i < ncust; i++)
        ids[i] = G_FIRST_ID + i;
    for (int i = ncust - 1; i > 0; i--) {
        int j = rnd_int(&r, i + 1);
        int32_t t = ids[i];
        ids[i] = ids[j];
        ids[j] = t;
    }
    int rc = -1;
    for (int i = 0; i < ncust; i++) {
        double rate = ut_rng_gamma(&r, G_RATE_SHAPE) * G_RATE_MEAN / G_RATE_SHAPE / 30.0;
        double churn = rnd_beta(&r, G_CHURN_A, G_CHURN_B);
        double basket = G_BASKET_MEAN * exp(G_BASKET_SIGMA * ut_rng_normal(&r)
                                            - G_BASKET_SIGMA * G_BASKET_SIGMA / 2);
        double spend = exp(G_SPEND_SIGMA * ut_rng_normal(&r) - G_SPEND_SIGMA * G_SPEND_SIGMA / 2);
        int country = pick_country(&r);
        double t = 0;
        if (i >= G_NBASE) { /* a newcomer: the first order opens the account */
            int32_t a = draw_day(g, &r);
            long vi = make_invoice(g, &r, a, ids[i], country, draw_lines(&r, basket), spend);
            if (vi < 0 || maybe_return(g, &r, vi) != 0)
                goto out;
            t = a + ut_rng_unit(&r);
        }
        double leave = t + ut_rng_exp(&r) * 30.0 / -log1p(-churn);
        double stop = leave < g->ndays ? leave : g->ndays;
        if (rate <= 0)
            continue;
        for (;;) { /* Poisson orders at rate * w(day), by thinning */
            t += ut_rng_exp(&r) / (rate * g->wmax);
            if (t >= stop)
                break;
            int32_t d = (int32_t)t;
            if (ut_rng_unit(&r) * g->wmax >= g->w[d])
                continue;
            long vi = make_invoice(g, &r, d, ids[i], country, draw_lines(&r, basket), spend);
            if (vi < 0 || maybe_return(g, &r, vi) != 0)
                goto out;
        }
    }
    rc = 0;
out:
    free(ids);
    return rc;
}

static int make_guests(g_state *g, uint64_t seed)
{
    ut_rng r;
    ut_rng_seed(&r, ut_mix64(seed ^ S_GUESTS));
    double cust_lines = (double)g->nline;
    long n = lround(G_GUEST_SHARE / (1 - G_GUEST_SHARE) * cust_lines / G_GUEST_BASKET);
    for (long i = 0; i < n; i++) {
        double spend = exp(G_SPEND_SIGMA * ut_rng_normal(&r) - G_SPEND_SIGMA * G_SPEND_SIGMA / 2);
        int32_t d = draw_day(g, &r);
        int country = pick_country(&r);
        if (make_invoice(g, &r, d, 0, country, draw_lines(&r, G_GUEST_BASKET), spend) < 0)
            return -1;
    }
    /* a few bad-debt adjustments, on one day, without customer, like the real file */
    ut_rng_seed(&r, ut_mix64(seed ^ S_ADJUST));
    int32_t d = draw_day(g, &r);
    int32_t t = d * 1440 + draw_minute(&r);
    for (int i = 0; i < G_NADJUST; i++) {
        g_inv *v = new_inv(g, &r, t, 0, 0, 'A');
        g_line *l = v ? new_line(g) : NULL;
        if (!l)
            return -1;
        l->prod = -1;
        l->qty = 1;
        l->cents = (int32_t)lround(100 * 1000 * exp(ut_rng_normal(&r)));
        if (i > 0)
            l->cents = -l->cents;
        g->inv[g->ninv - 1].nl = 1;
    }
    return 0;
}

static int cmp_inv(const void *a, const void *b)
{
    const g_inv *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->tie != y->tie)
        return x->tie < y->tie ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static char *put_int(char *o, long v)
{
    char tmp[24];
    int n = 0;
    unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
    if (v < 0)
        *o++ = '-';
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        *o++ = tmp[--n];
    return o;
}

static char *put_cents(char *o, long c)
{
    if (c < 0) {
        *o++ = '-';
        c = -c;
    }
    o = put_int(o, c / 100);
    *o++ = '.';
    *o++ = (char)('0' + c / 10 % 10);
    *o++ = (char)('0' + c % 10);
    return o;
}

static char *put_str(char *o, const char *s, size_t n)
{
    memcpy(o, s, n);
    return o + n;
}

static int write_file(g_state *g, const char *path, char *err, size_t errlen)
{
    ut_afile a;
    if (ut_aopen(&a, path, err, errlen) != 0)
        return -1;
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    if (!buf) {
        ut_aclose(&a, 0, NULL, 0);
        ut_seterr(err, errlen, "%s: out of memory", path);
        return -1;
    }
    size_t clen[NCOUNTRIES];
    for (int i = 0; i < NCOUNTRIES; i++)
        clen[i] = strlen(COUNTRIES[i]);
    char *o = buf;
    o = put_str(o, SHOP_HEADER "\n", sizeof SHOP_HEADER);
    int bad = 0, e = 0; /* e: the failed write's errno */
    for (size_t i = 0; i < g->ninv && !bad; i++) {
        const g_inv *v = &g->inv[i];
        char head[16], tail[48];
        char *h = head;
        if (v->kind != 'N')
            *h++ = v->kind;
        h = put_int(h, SHOP_FIRST_INVOICE + (long)i);
        *h++ = ',';
        char *t = put_str(tail, g->date[v->t / 1440], 11);
        int mi = v->t % 1440;
        *t++ = (char)('0' + mi / 600);
        *t++ = (char)('0' + mi / 60 % 10);
        *t++ = ':';
        *t++ = (char)('0' + mi % 60 / 10);
        *t++ = (char)('0' + mi % 10);
        t = put_str(t, ":00,", 4);
        for (uint32_t k = 0; k < v->nl; k++) {
            if ((size_t)(o - buf) > cap - 512) {
                if (fwrite(buf, 1, (size_t)(o - buf), a.f) != (size_t)(o - buf)) {
                    bad = 1, e = errno;
                    break;
                }
                o = buf;
            }
            const g_line *l = &g->line[v->line0 + k];
            o = put_str(o, head, (size_t)(h - head));
            if (l->prod >= 0)
                o = put_str(o, g->prod[l->prod].seg, (size_t)g->prod[l->prod].seglen);
            else
                o = put_str(o, "B,Adjust bad debt", 17);
            *o++ = ',';
            o = put_int(o, l->qty);
            *o++ = ',';
            o = put_str(o, tail, (size_t)(t - tail));
            o = put_cents(o, l->cents);
            *o++ = ',';
            if (v->cust) {
                o = put_int(o, v->cust);
                o = put_str(o, ".0", 2);
            }
            *o++ = ',';
            o = put_str(o, COUNTRIES[v->country], clen[v->country]);
            *o++ = '\n';
        }
    }
    if (!bad && fwrite(buf, 1, (size_t)(o - buf), a.f) != (size_t)(o - buf))
        bad = 1, e = errno;
    free(buf);
    if (bad) {
        ut_aclose(&a, 0, NULL, 0);
        ut_seterr(err, errlen, "%s: write failed: %s", path, e ? strerror(e) : "out of memory");
        return -1;
    }
    return ut_aclose(&a, 1, err, errlen);
}

int shop_generate(uint64_t seed, const char *path, char *err, size_t errlen)
{
    g_state g;
    memset(&g, 0, sizeof g);
    int rc = -1;
    if (build_calendar(&g) != 0 || build_catalogue(&g, seed) != 0 ||
        make_customers(&g, seed) != 0 || make_guests(&g, seed) != 0) {
        ut_seterr(err, errlen, "%s: out of memory while generating the shop", path);
        goto out;
    }
    qsort(g.inv, g.ninv, sizeof *g.inv, cmp_inv);
    rc = write_file(&g, path, err, errlen);
out:
    free(g.prod);
    free(g.zipf_cdf);
    free(g.w);
    free(g.date);
    free(g.inv);
    free(g.line);
    return rc;
}
