/* The six features and the label of a tiny hand-made shop, by hand. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feat.h"
#include "shop.h"
#include "util.h"

static const char *shop_csv =
    "Invoice,StockCode,Description,Quantity,InvoiceDate,Price,Customer ID,Country\n"
    "500001,A1,\"MUG, RED\",2,2011-01-10 09:00:00,5.00,100,United Kingdom\n"
    "500001,A2,PLATE,1,2011-01-10 09:00:00,3.50,100,United Kingdom\n"
    "500005,A3,LAMP,1,2010-03-01 10:00:00,100.00,200,France\n"
    "500007,A1,\"MUG, RED\",1,2011-02-01 08:00:00,1.00,400,United Kingdom\n"
    "500008,A1,\"MUG, RED\",1,2011-03-03 08:00:00,4.00,400,United Kingdom\n"
    "500002,A4,CUP,4,2011-05-20 11:00:00,2.50,100,United Kingdom\n"
    "C500003,A4,CUP,-1,2011-05-25 12:00:00,2.50,100,United Kingdom\n"
    "500009,A4,CUP,9,2011-05-26 12:00:00,2.50,,United Kingdom\n"
    "500010,A4,CUP,1,2011-06-01 00:00:00,2.50,400,United Kingdom\n"
    "500011,A4,CUP,1,2011-06-02 00:00:00,2.50,300,United Kingdom\n"
    "500004,A4,CUP,1,2011-06-15 13:00:00,2.50,100,United Kingdom\n"
    "500006,A3,LAMP,1,2011-07-01 10:00:00,100.00,200,France\n";

static const feat_row *find(const feat_row *r, size_t n, int customer)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].customer == customer)
            return &r[i];
    return NULL;
}

Test(features, hand_made_shop)
{
    char dir[] = "/tmp/featXXXXXX", path[64], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/shop.csv", dir);
    FILE *f = fopen(path, "w");
    fputs(shop_csv, f);
    fclose(f);
    shop_data d = {0};
    cr_assert_eq(shop_load(path, &d, err, sizeof err), 0, "%s", err);
    int32_t c = ut_days_from_civil(2011, 6, 1);
    feat_row *r = NULL;
    size_t n = 0;
    cr_assert_eq(feat_build(&d, &c, 1, &r, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 3, "customers 100, 200, 400 had an order before the cutoff; 300 had not");
    cr_assert_null(find(r, n, 300));

    const feat_row *a = find(r, n, 100);
    cr_assert_not_null(a);
    cr_assert_eq(a->cutoff, c);
    cr_assert_float_eq(a->x[0], 12.0f, 0, "recency: 2011-05-20 -> 2011-06-01");
    cr_assert_float_eq(a->x[1], 1.0f, 0, "orders_90: only 500002");
    cr_assert_float_eq(a->x[2], 7.5f, 0, "spend_90: 10 - 2.5 returned");
    cr_assert_float_eq(a->x[3], 2.0f, 0);
    cr_assert_float_eq(a->x[4], 21.0f, 0, "13.5 + 10 - 2.5");
    cr_assert_float_eq(a->x[5], 142.0f, 0, "tenure: 2011-01-10 -> 2011-06-01");
    cr_assert_eq(a->label, 1, "500004 on 2011-06-15");

    const feat_row *b = find(r, n, 200);
    cr_assert_not_null(b);
    cr_assert_float_eq(b->x[0], 457.0f, 0);
    cr_assert_float_eq(b->x[1], 0.0f, 0);
    cr_assert_float_eq(b->x[3], 0.0f, 0, "2010-03-01 is before 2010-06-01");
    cr_assert_float_eq(b->x[4], 0.0f, 0);
    cr_assert_float_eq(b->x[5], 457.0f, 0);
    cr_assert_eq(b->label, 0, "an order on 2011-07-01 is outside [c, c+30)");

    const feat_row *e = find(r, n, 400);
    cr_assert_not_null(e);
    cr_assert_float_eq(e->x[0], 90.0f, 0, "the order on the cutoff day is not a feature");
    cr_assert_float_eq(e->x[1], 1.0f, 0, "2011-03-03 is exactly c-90: inside");
    cr_assert_float_eq(e->x[2], 4.0f, 0);
    cr_assert_float_eq(e->x[3], 2.0f, 0);
    cr_assert_float_eq(e->x[4], 5.0f, 0);
    cr_assert_float_eq(e->x[5], 120.0f, 0);
    cr_assert_eq(e->label, 1, "the order on the cutoff day is the label");

    free(r);
    shop_free(&d);
    unlink(path);
    rmdir(dir);
}

Test(features, two_cutoffs_ordered_by_cutoff_then_customer)
{
    char dir[] = "/tmp/featXXXXXX", path[64], err[UT_ERRLEN] = "";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/shop.csv", dir);
    FILE *f = fopen(path, "w");
    fputs(shop_csv, f);
    fclose(f);
    shop_data d = {0};
    cr_assert_eq(shop_load(path, &d, err, sizeof err), 0, "%s", err);
    int32_t c[2] = {ut_days_from_civil(2011, 2, 1), ut_days_from_civil(2011, 7, 1)};
    feat_row *r = NULL;
    size_t n = 0;
    cr_assert_eq(feat_build(&d, c, 2, &r, &n, err, sizeof err), 0, "%s", err);
    /* 2011-02-01: customers 100 and 200; 2011-07-01: 100, 200, 300, 400 */
    cr_assert_eq(n, 6);
    int want[6] = {100, 200, 100, 200, 300, 400};
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(r[i].customer, want[i]);
        cr_assert_eq(r[i].cutoff, c[i < 2 ? 0 : 1]);
    }
    cr_assert_eq(r[1].label, 0);
    cr_assert_eq(r[3].label, 1, "200 ordered on 2011-07-01, inside [2011-07-01, +30)");
    free(r);
    shop_free(&d);
    unlink(path);
    rmdir(dir);
}
