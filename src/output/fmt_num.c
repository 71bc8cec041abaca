/* Numbers as printf's %.*e and %.*g write them (fmt_num.h). The D significant digits of |x| are
 * m = round(|x| 10^k), k = D - 1 - floor(log10 |x|), with 10^k exact (|k| <= 22) or the product
 * of two exact powers (|k| <= 44): |x| 10^k is then within 3 units of 2^-53 of its value, so m is
 * printf's correctly rounded digit string unless the scaled value lies within that error of a
 * tie (.5), where snprintf decides; so do infinities, NaN, |k| > 44 and D > 15. */
#include "output/fmt_num.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* The conversions are inlined into each caller with its precision a constant (the CSVs' 10 and 4
 * digits): the powers of ten, bounds and digit loops then fold. */
#if defined(__GNUC__)
#define FMT_INLINE static inline __attribute__((always_inline))
#else
#define FMT_INLINE static inline
#endif

static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const uint64_t u10[16] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull};

/* |x| 10^k, within 3 units of 2^-53 relative; -1 when |k| > 44 */
FMT_INLINE int scaled(double ax, int k, double* s) {
    if (k >= 0 && k <= 22)
        *s = ax * p10[k];
    else if (k > 22 && k <= 44)
        *s = ax * p10[22] * p10[k - 22];
    else if (k < 0 && k >= -22)
        *s = ax / p10[-k];
    else if (k < -22 && k >= -44)
        *s = ax / p10[22] / p10[-k - 22];
    else
        return -1;
    return 0;
}

/* round(ax 10^k) exactly, an exact half to even as printf rounds it in the default rounding mode,
 * for the near-ties the scaled product cannot decide: ax = f 2^E (f < 2^53), so
 * ax 10^k = f 5^k 2^(E + k) with f 5^k < 2^116 an integer of 128 bits for 0 <= k <= 27 (the
 * orders 10^-17..10^10 at 11 digits). -1 (snprintf decides) outside that range, for subnormals
 * and without 128-bit integers. */
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 fmt_u128;
#endif
static int exact_round(double ax, int k, uint64_t lo, uint64_t hi, uint64_t* m) {
#if defined(__SIZEOF_INT128__)
    uint64_t bits;
    memcpy(&bits, &ax, sizeof bits);
    const int ex = (int)(bits >> 52 & 0x7ff);
    if (k < 0 || k > 27 || ex == 0) return -1;
    fmt_u128 N = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    for (int i = 0; i < k; i++) N *= 5u;
    const int p = 1075 - ex - k;  /* ax 10^k = N 2^-p */
    if (p < 1 || p > 120) return -1;
    const fmt_u128 q = N >> p, rem = N - (q << p), half = (fmt_u128)1 << (p - 1);
    uint64_t r = (uint64_t)q;
    if (rem > half || (rem == half && (r & 1u))) r++;
    if (r < lo || r > hi) return -1;
    *m = r;
    return 0;
#else
    (void)ax, (void)k, (void)lo, (void)hi, (void)m;
    return -1;
#endif
}

/* ax > 0 finite: its D significant digits m (10^(D-1) <= m < 10^D) and decimal exponent e,
 * ax ~ m 10^(e - D + 1); -1 where snprintf must decide */
FMT_INLINE int decimal(double ax, int D, uint64_t* m_out, int* e_out) {
    if (D < 1 || D > 15) return -1;
    uint64_t bits;
    memcpy(&bits, &ax, sizeof bits);
    int b = (int)((bits >> 52) & 0x7ff) - 1022;  /* 2^(b-1) <= ax < 2^b (normal numbers) */
    if (b == -1022) frexp(ax, &b);                /* subnormal */
    /* e = floor((b - 1) log10 2) or one less or more (corrected below); 78913 / 2^18 ~ log10 2 */
    const int t = (b - 1) * 78913;
    int e = t >= 0 ? t >> 18 : -((-t + 262143) >> 18);
    double s = 0;
    for (int tries = 0;; tries++) {
        if (tries > 3 || scaled(ax, D - 1 - e, &s)) return -1;
        if (s >= (double)u10[D])
            e++;
        else if (s < (double)u10[D - 1])
            e--;
        else
            break;
    }
    /* floor, exact: 0 < s < 2^53 (signed conversions: one instruction each on x86-64) */
    const int64_t il = (int64_t)s;
    const double fl = (double)il, fr = s - fl;
    uint64_t m = (uint64_t)il + (fr > 0.5);
    if (fabs(fr - 0.5) < (double)u10[D] * 1e-14 &&  /* 30x the error bound: a tie? */
        exact_round(ax, D - 1 - e, u10[D - 1], u10[D], &m))
        return -1;
    if (m == u10[D]) m = u10[D - 1], e++;
    *m_out = m, *e_out = e;
    return 0;
}

/* snprintf's own conversion (at most IO_FMT_MAX - 1 characters kept) */
static int fallback(char* buf, double x, int prec, int g) {
    const int n = snprintf(buf, IO_FMT_MAX, g ? "%.*g" : "%.*e", prec, x);
    return n < 0 ? 0 : n < IO_FMT_MAX ? n : IO_FMT_MAX - 1;
}

static const char two_digits[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

FMT_INLINE int put_exp(char* p, int e) {
    int n = 0;
    p[n++] = 'e';
    p[n++] = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    if (e >= 100) {
        p[n++] = (char)('0' + e / 100);
        e %= 100;
    }
    memcpy(p + n, two_digits + 2 * e, 2);
    return n + 2;
}

/* "e-22" ... "e+22": the exponents of fmt_e_csv (e = D - 1 - k, 0 <= k <= 22, and one more after
 * a carry: -18 <= e <= 11 at D = 5 and 11), each put_exp's four characters, one copy */
static const char exp4[45][4] = {
    "e-22", "e-21", "e-20", "e-19", "e-18", "e-17", "e-16", "e-15", "e-14", "e-13", "e-12", "e-11",
    "e-10", "e-09", "e-08", "e-07", "e-06", "e-05", "e-04", "e-03", "e-02", "e-01", "e+00", "e+01",
    "e+02", "e+03", "e+04", "e+05", "e+06", "e+07", "e+08", "e+09", "e+10", "e+11", "e+12", "e+13",
    "e+14", "e+15", "e+16", "e+17", "e+18", "e+19", "e+20", "e+21", "e+22"};

/* the 8 digits of v < 10^8: two halves of 4, each two pairs from the table (no loop) */
FMT_INLINE void digits8(uint32_t v, char* p) {
    const uint32_t a = v / 10000u, b = v % 10000u;
    memcpy(p, two_digits + 2 * (a / 100u), 2);
    memcpy(p + 2, two_digits + 2 * (a % 100u), 2);
    memcpy(p + 4, two_digits + 2 * (b / 100u), 2);
    memcpy(p + 6, two_digits + 2 * (b % 100u), 2);
}

/* the 8 digits of v < 10^8 in one 64-bit word, in memory order: v split into two halves of 4
 * digits, each into two of 2, each into two digits, every split one multiplication by a
 * reciprocal in all lanes at once (x / 100 = (x 10486) >> 20 for x < 10^4, x / 10 = (x 103) >> 10
 * for x < 100; the lanes never carry into each other) */
FMT_INLINE void digits8_word(uint32_t v, char* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t hi = v / 10000u, lo = v - hi * 10000u;
    uint64_t x = hi | lo << 32;                                  /* 32-bit lanes: 4 digits */
    uint64_t y = (x * 10486u) >> 20 & 0x0000007F0000007Full;
    x = y | (x - 100u * y) << 16;                                /* 16-bit lanes: 2 digits */
    y = (x * 103u) >> 10 & 0x000F000F000F000Full;
    x = y | (x - 10u * y) << 8;                                  /* bytes: 1 digit */
    x += 0x3030303030303030ull;
    memcpy(p, &x, sizeof x);
#else
    digits8(v, p);
#endif
}

/* the 8 digits of v < 10^8 as digits8_word forms them, before the '0's are added: a byte 0 is a
 * digit 0 (the count of trailing zeros of the digit string from the highest bytes) */
FMT_INLINE uint64_t digits8_raw(uint32_t v) {
    const uint64_t hi = v / 10000u, lo = v - hi * 10000u;
    uint64_t x = hi | lo << 32;
    uint64_t y = (x * 10486u) >> 20 & 0x0000007F0000007Full;
    x = y | (x - 100u * y) << 16;
    y = (x * 103u) >> 10 & 0x000F000F000F000Full;
    return y | (x - 10u * y) << 8;
}

/* "d.dd" of 100 <= v < 1000, the first four characters of a number at 11 digits: one copy of
 * four rather than a division by 100 and three stores */
#define TOP3_10(h, t)                                                                                  \
    {h, '.', t, '0'}, {h, '.', t, '1'}, {h, '.', t, '2'}, {h, '.', t, '3'}, {h, '.', t, '4'},           \
        {h, '.', t, '5'}, {h, '.', t, '6'}, {h, '.', t, '7'}, {h, '.', t, '8'}, {h, '.', t, '9'}
#define TOP3_100(h)                                                                                    \
    TOP3_10(h, '0'), TOP3_10(h, '1'), TOP3_10(h, '2'), TOP3_10(h, '3'), TOP3_10(h, '4'), TOP3_10(h, '5'), \
        TOP3_10(h, '6'), TOP3_10(h, '7'), TOP3_10(h, '8'), TOP3_10(h, '9')
static const char top3[1000][4] = {TOP3_100('0'), TOP3_100('1'), TOP3_100('2'), TOP3_100('3'), TOP3_100('4'),
                                   TOP3_100('5'), TOP3_100('6'), TOP3_100('7'), TOP3_100('8'), TOP3_100('9')};

/* "d.dddddddddd" of m (D = 11: 8 digits at once) or "d.dddd" (D = 5); returns the length */
FMT_INLINE int csv_digits(char* p, uint64_t m, const int D) {
    if (D == 11) {
        const uint32_t top = (uint32_t)(m / 100000000u), low = (uint32_t)(m - (uint64_t)top * 100000000u);
        memcpy(p, top3[top], 4);  /* 10^10 <= m < 10^11: 100 <= top < 1000 */
        digits8_word(low, p + 4);
        return 12;
    }
    const uint32_t top = (uint32_t)m / 10000u, low = (uint32_t)m - top * 10000u;
    p[0] = (char)('0' + top);
    p[1] = '.';
    memcpy(p + 2, two_digits + 2 * (low / 100u), 2);
    memcpy(p + 4, two_digits + 2 * (low % 100u), 2);
    return 6;
}

/* the D digits of m: the last 8 at once, then the rest two at a time in 32-bit arithmetic */
FMT_INLINE void digits(uint64_t m, int D, char* dig) {
    if (D > 8) {
        digits8((uint32_t)(m % 100000000u), dig + D - 8);
        m /= 100000000u;
        D -= 8;
    }
    uint32_t lo = (uint32_t)m;
    int i = D - 1;
    for (; i >= 1; i -= 2) {
        const uint32_t r = lo % 100u;
        lo /= 100u;
        memcpy(dig + i - 1, two_digits + 2 * r, 2);
    }
    if (i == 0) dig[0] = (char)('0' + lo);
}

FMT_INLINE int fmt_e(char* buf, double x, int prec) {
    const int D = prec + 1;
    uint64_t m = 0;
    int e = 0, n = 0;
    if (!isfinite(x) || prec < 0 || D > 15) return fallback(buf, x, prec, 0);
    if (x == 0) {
        m = 0, e = 0;
    } else if (decimal(fabs(x), D, &m, &e)) {
        return fallback(buf, x, prec, 0);
    }
    if (signbit(x)) buf[n++] = '-';
    if (D == 11 || D == 5) {  /* the CSVs' precisions */
        n += csv_digits(buf + n, m, D);
        n += put_exp(buf + n, e);
        buf[n] = '\0';
        return n;
    }
    digits(m, D, buf + n + 1);  /* one place to the right, then the first digit moved before the point */
    buf[n] = buf[n + 1];
    if (D > 1) {
        buf[n + 1] = '.';
        n += D + 1;
    } else {
        n += 1;
    }
    n += put_exp(buf + n, e);
    buf[n] = '\0';
    return n;
}

/* fmt_e for the CSVs' precisions (D = 11 or 5 digits) and the magnitudes of results
 * (10^-12 <= |x| < 10^10 at 11 digits): the exponent from the double's bits, one product with an
 * exact power of ten, at most one correction of the exponent; other numbers by fmt_e. */
FMT_INLINE int fmt_e_csv(char* buf, double x, const int D) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const int ex = (int)(bits >> 52 & 0x7ff);
    if (ex == 0 || ex == 0x7ff) return fmt_e(buf, x, D - 1);  /* zeros, subnormals, inf, NaN */
    const double ax = fabs(x);
    /* floor((ex - 1023) log10 2), or one less (78913 / 2^18 ~ log10 2; an offset keeps the
     * shifted value positive): e is this or up to two more */
    const int e0 = (((ex - 1023) * 78913 + (1100 << 18)) >> 18) - 1100;
    int k = D - 1 - e0;
    if (k < 0 || k > 22) return fmt_e(buf, x, D - 1);
    double s = ax * p10[k];
    if (s >= (double)u10[D]) {
        if (k == 0) return fmt_e(buf, x, D - 1);
        s = ax * p10[--k];
    } else if (s < (double)u10[D - 1]) {
        if (k == 22) return fmt_e(buf, x, D - 1);
        s = ax * p10[++k];
    }
    if (s >= (double)u10[D] || s < (double)u10[D - 1]) return fmt_e(buf, x, D - 1);
    const int64_t il = (int64_t)s;  /* as in decimal() */
    const double fr = s - (double)il;
    uint64_t m = (uint64_t)il + (fr > 0.5);
    if (fabs(fr - 0.5) < (double)u10[D] * 1e-14 && exact_round(ax, k, u10[D - 1], u10[D], &m))
        return fmt_e(buf, x, D - 1);
    int e = D - 1 - k;
    if (m == u10[D]) m = u10[D - 1], e++;
    buf[0] = '-';
    int n = (int)(bits >> 63);
    n += csv_digits(buf + n, m, D);
    memcpy(buf + n, exp4[e + 22], 4);
    n += 4;
    buf[n] = '\0';
    return n;
}

/* %g (C11 7.21.6.1): P significant digits, exponent X; style f with P - 1 - X decimals when
 * P > X >= -4, else style e with P - 1; trailing zeros of the fraction and a bare point removed */
FMT_INLINE int fmt_g(char* buf, double x, int prec) {
    const int P = prec == 0 ? 1 : prec;
    uint64_t m = 0;
    int X = 0, n = 0;
    if (!isfinite(x) || prec < 0 || P > 15) return fallback(buf, x, prec, 1);
    if (signbit(x)) buf[n++] = '-';
    if (x == 0) {
        buf[n++] = '0';
        buf[n] = '\0';
        return n;
    }
    if (decimal(fabs(x), P, &m, &X)) return fallback(buf, x, prec, 1);
    char dig[16];
    digits(m, P, dig);
    int last = P - 1;  /* the last significant digit kept */
    while (last > 0 && dig[last] == '0') last--;
    if (P > X && X >= -4) {
        if (X >= 0) {
            memcpy(buf + n, dig, (size_t)(X + 1));
            n += X + 1;
            if (last > X) {
                buf[n++] = '.';
                memcpy(buf + n, dig + X + 1, (size_t)(last - X));
                n += last - X;
            }
        } else {
            buf[n++] = '0', buf[n++] = '.';
            for (int i = 0; i < -X - 1; i++) buf[n++] = '0';
            memcpy(buf + n, dig, (size_t)(last + 1));
            n += last + 1;
        }
    } else {
        buf[n++] = dig[0];
        if (last > 0) {
            buf[n++] = '.';
            memcpy(buf + n, dig + 1, (size_t)last);
            n += last;
        }
        n += put_exp(buf + n, X);
    }
    buf[n] = '\0';
    return n;
}

/* %.10g (the CSVs' time column) as fmt_g forms it, for 10^-13 <= |x| < 10^10: the 10 digits
 * by fmt_e_csv's scaled product (its near-ties exactly), the trailing zeros counted from the
 * digits' word, the digits placed by fixed-size copies (at most 28 bytes of buf written, within
 * IO_FMT_MAX); other numbers by fmt_g */
FMT_INLINE int fmt_g10(char* buf, double x) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
    enum { D = 10 };
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const int ex = (int)(bits >> 52 & 0x7ff);
    if (ex == 0 || ex == 0x7ff) return fmt_g(buf, x, D);  /* zeros, subnormals, inf, NaN */
    const double ax = fabs(x);
    const int e0 = (((ex - 1023) * 78913 + (1100 << 18)) >> 18) - 1100;  /* as in fmt_e_csv */
    int k = D - 1 - e0;
    if (k < 0 || k > 22) return fmt_g(buf, x, D);
    double s = ax * p10[k];
    if (s >= (double)u10[D]) {
        if (k == 0) return fmt_g(buf, x, D);
        s = ax * p10[--k];
    } else if (s < (double)u10[D - 1]) {
        if (k == 22) return fmt_g(buf, x, D);
        s = ax * p10[++k];
    }
    if (s >= (double)u10[D] || s < (double)u10[D - 1]) return fmt_g(buf, x, D);
    const int64_t il = (int64_t)s;
    const double fr = s - (double)il;
    uint64_t m = (uint64_t)il + (fr > 0.5);
    if (fabs(fr - 0.5) < (double)u10[D] * 1e-14 && exact_round(ax, k, u10[D - 1], u10[D], &m))
        return fmt_g(buf, x, D);
    int X = D - 1 - k;  /* the exponent of style e */
    if (m == u10[D]) m = u10[D - 1], X++;
    /* dig: the 10 digits, then padding for the fixed-size copies below */
    const uint32_t top = (uint32_t)(m / 100000000u), low = (uint32_t)(m - (uint64_t)top * 100000000u);
    const uint64_t w = digits8_raw(low), w0 = w + 0x3030303030303030ull;
    char dig[32];
    memcpy(dig, two_digits + 2 * top, 2);
    memcpy(dig + 2, &w0, 8);
    memset(dig + 10, '0', 22);
    /* the last significant digit: the highest non-zero byte of w, else of top */
    const int last = w ? 9 - __builtin_clzll(w) / 8 : top % 10u ? 1 : 0;
    int n = (int)(bits >> 63);
    buf[0] = '-';
    if (X >= 0 && X < D) {  /* style f, X + 1 digits before the point */
        memcpy(buf + n, dig, 16);
        n += X + 1;
        if (last > X) {
            buf[n] = '.';
            memcpy(buf + n + 1, dig + X + 1, 16);
            n += 1 + last - X;
        }
    } else if (X < 0 && X >= -4) {  /* style f, "0." and -X - 1 zeros */
        memcpy(buf + n, "0.000000", 8);
        n += 1 - X;
        memcpy(buf + n, dig, 16);
        n += last + 1;
    } else {  /* style e */
        buf[n] = dig[0];
        buf[n + 1] = '.';
        memcpy(buf + n + 2, dig + 1, 16);
        n += last > 0 ? last + 2 : 1;
        n += put_exp(buf + n, X);
    }
    buf[n] = '\0';
    return n;
#else
    return fmt_g(buf, x, 10);
#endif
}

int io_fmt_e(char* buf, double x, int prec) {
    switch (prec) {
    case 10: return fmt_e_csv(buf, x, 11);
    case 4: return fmt_e_csv(buf, x, 5);
    default: return fmt_e(buf, x, prec);
    }
}

int io_fmt_g(char* buf, double x, int prec) { return prec == 10 ? fmt_g10(buf, x) : fmt_g(buf, x, prec); }

void io_row_start(io_row* r, FILE* fp) {
    r->fp = fp;
    r->len = 0;
    r->failed = 0;
}

/* The block straight to the descriptor, after what fp's buffer holds: fwrite would send a block
 * larger than its 4 kB buffer as two write calls (the whole buffers, then the rest copied into
 * its buffer), twice the calls and ~0.15 ms more of the kernel's time for the bar run's 1.3 MB
 * (docs/performance.md, "Fifth round"). */
void io_row_flush(io_row* r) {
    if (!r->len) return;
    const char* p = r->buf;
    size_t n = (size_t)r->len;
    r->len = 0;
    const int fd = fileno(r->fp);
    if (fflush(r->fp) != 0 || fd < 0) {
        r->failed = errno ? errno : EIO;
        return;
    }
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            r->failed = w < 0 && errno ? errno : EIO;
            return;
        }
        p += w, n -= (size_t)w;
    }
}

static void row_room(io_row* r) {
    if (r->len + IO_FMT_MAX + 2 > (int)sizeof(r->buf)) io_row_flush(r);
}

void io_row_e(io_row* r, char sep, double x, int prec) {
    row_room(r);
    if (sep) r->buf[r->len++] = sep;
    char* p = r->buf + r->len;
    r->len += prec == 10 ? fmt_e_csv(p, x, 11) : prec == 4 ? fmt_e_csv(p, x, 5) : fmt_e(p, x, prec);
}

/* the columns of a row in one loop: the conversion inlined once (its registers saved once per
 * row, not per number), the precision's branch out of the loop */
FMT_INLINE void row_cols(io_row* r, const double* x, const int* idx, int n, const int D) {
    for (int c = 0; c < n; c++) {
        row_room(r);
        const double v = !idx ? x[c] : idx[c] < 0 ? 0.0 : x[idx[c]];
        r->buf[r->len++] = ',';
        r->len += fmt_e_csv(r->buf + r->len, v, D);
    }
}

void io_row_e_cols(io_row* r, const double* x, const int* idx, int n, int prec) {
    if (prec == 10)
        row_cols(r, x, idx, n, 11);
    else if (prec == 4)
        row_cols(r, x, idx, n, 5);
    else
        for (int c = 0; c < n; c++) io_row_e(r, ',', !idx ? x[c] : idx[c] < 0 ? 0.0 : x[idx[c]], prec);
}

void io_row_g(io_row* r, char sep, double x, int prec) {
    row_room(r);
    if (sep) r->buf[r->len++] = sep;
    char* p = r->buf + r->len;
    r->len += prec == 10 ? fmt_g10(p, x) : fmt_g(p, x, prec);
}

void io_row_end(io_row* r) {
    row_room(r);
    r->buf[r->len++] = '\n';
}

void io_row_history(io_row* r, double t, const double* x, const int* idx, int n, const double* e) {
    const long most = ((long)n + 6) * (IO_FMT_MAX + 1) + 1;  /* the longest row */
    if (most > IO_ROW_BLOCK) {  /* a row longer than a block: number by number */
        io_row_g(r, 0, t, 10);
        io_row_e_cols(r, x, idx, n, 10);
        if (e) {
            io_row_e_cols(r, e, NULL, 3, 10);
            io_row_e(r, ',', e[3], 4);
        }
        io_row_end(r);
        return;
    }
    if (r->len + most > IO_ROW_BLOCK) io_row_flush(r);  /* room for the row checked once */
    char* p = r->buf + r->len;
    p += fmt_g10(p, t);
    for (int c = 0; c < n; c++) {
        const double v = !idx ? x[c] : idx[c] < 0 ? 0.0 : x[idx[c]];
        *p++ = ',';
        p += fmt_e_csv(p, v, 11);
    }
    if (e) {
        for (int c = 0; c < 3; c++) {
            *p++ = ',';
            p += fmt_e_csv(p, e[c], 11);
        }
        *p++ = ',';
        p += fmt_e_csv(p, e[3], 5);
    }
    *p++ = '\n';
    r->len = (int)(p - r->buf);
}
