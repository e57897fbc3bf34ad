/* make demo at a shortened length: the machine line, four rows with numbers
 * that make sense, and the stand-in's AP cost line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(demo, four_rows_and_the_ap_cost, .timeout = 120)
{
    FILE *p = popen("build/bin/demo --seconds 1.5 2>&1", "r");
    cr_assert_not_null(p);
    char line[512], all[8192] = "";
    int rows = 0;
    double p50, p99, mx, share, lpr;
    while (fgets(line, sizeof line, p)) {
        strncat(all, line, sizeof all - strlen(all) - 1);
        const char *labels[] = {"wait (no limit)", "25 ms limit, stand-in", "two retries", "ask twice after 10 ms"};
        for (int k = 0; k < 4; k++) {
            size_t l = strlen(labels[k]);
            if (strlen(line) > 2 + l && !strncmp(line + 2, labels[k], l) &&
                sscanf(line + 2 + l, "%lf %lf %lf %lf%% %lf", &p50, &p99, &mx, &share, &lpr) == 5) {
                rows++;
                /* max is printed to 0.1 ms, p99 to 0.01 ms: 25.11 <= "25.1" may be 25.149 */
                cr_assert(p50 > 0 && p50 <= p99 && p99 <= mx + 0.05, "%s", line);
                cr_assert(share >= 0 && share <= 100 && lpr >= 1.0 && lpr <= 3.0, "%s", line);
                if (k == 0)
                    cr_assert_eq(share, 0.0, "no limit: no stand-in");
            }
        }
    }
    int rc = pclose(p);
    cr_assert_eq(rc, 0, "%s", all);
    cr_assert(strstr(all, "measured on THIS machine") && strstr(all, "cores"), "%s", all);
    cr_assert_eq(rows, 4, "%d rows in:\n%s", rows, all);
    cr_assert(strstr(all, "stand-in's cost in ranking"), "%s", all);
}
