/* vtime: see vtime.h. */
#include "vtime.h"

#include <ctype.h>
#include <string.h>

static int digits(const char *s, int n, long long *out)
{
    long long v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* days since 1970-01-01 of a proleptic Gregorian date */
static long long days_from_civil(long long y, long long m, long long d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int vt_parse_utc(const char *t, long long *sec, long *nsec)
{
    long long y, mo, d, h, mi, s;
    if (!t || strlen(t) < 20 || digits(t, 4, &y) || t[4] != '-' || digits(t + 5, 2, &mo) || t[7] != '-' ||
        digits(t + 8, 2, &d) || t[10] != 'T' || digits(t + 11, 2, &h) || t[13] != ':' || digits(t + 14, 2, &mi) ||
        t[16] != ':' || digits(t + 17, 2, &s))
        return -1;
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || s > 59)
        return -1;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo == 2 && d == 29 && !leap)
        return -1;
    const char *p = t + 19;
    long ns = 0;
    if (*p == '.') {
        p++;
        int nd = 0;
        long scale = 100000000;
        while (isdigit((unsigned char)*p)) {
            if (nd < 9)
                ns += (*p - '0') * scale;
            scale /= 10;
            nd++;
            p++;
        }
        if (nd == 0)
            return -1;
    }
    if (strcmp(p, "Z") && strcmp(p, "+00:00"))
        return -1;
    *sec = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
    *nsec = ns;
    return 0;
}
