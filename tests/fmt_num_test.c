/* The result CSVs' number formatting (src/output/fmt_num.c) against the C library's snprintf,
 * the reference it must reproduce byte for byte: random bit patterns over every exponent, the
 * decimal-looking numbers of time columns (k dt), exact ties and their neighbours, powers of
 * ten and their neighbours, zeros of both signs, subnormals, infinities and NaN, at every
 * precision 0..16 of %.*e and %.*g; and the row buffer against fprintf of the same row. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <float.h>
#include <math.h>

#include "output/fmt_num.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_u64(void) {  /* xorshift64 */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static long checked, differ;

static void check_one(double x, int prec) {
    char want[64], got[IO_FMT_MAX];
    for (int g = 0; g < 2; g++) {
        snprintf(want, sizeof want, g ? "%.*g" : "%.*e", prec, x);
        const int n = g ? io_fmt_g(got, x, prec) : io_fmt_e(got, x, prec);
        checked++;
        if (strcmp(want, got) != 0 || n != (int)strlen(want)) {
            if (differ++ < 10)
                print_error("x = %a, %%.%d%c: printf \"%s\", io_fmt \"%s\" (length %d)\n", x, prec, g ? 'g' : 'e',
                            want, got, n);
        }
    }
}

static void check_all_prec(double x) {
    for (int prec = 0; prec <= 16; prec++) check_one(x, prec);
}

static void test_random_bits(void** state) {
    (void)state;
    for (int i = 0; i < 200000; i++) {
        uint64_t u = next_u64();
        double x;
        memcpy(&x, &u, sizeof x);
        check_one(x, 10);
        check_one(x, (int)(next_u64() % 17));
    }
    assert_int_equal(differ, 0);
}

/* values of the orders of magnitude results have, with every digit count */
static void test_random_magnitudes(void** state) {
    (void)state;
    for (int i = 0; i < 200000; i++) {
        const double mant = (double)(next_u64() >> 11) / 9007199254740992.0;  /* [0, 1) */
        const int e = (int)(next_u64() % 90) - 45;
        const double x = (next_u64() & 1 ? -1 : 1) * mant * pow(10.0, e);
        check_one(x, 10);
        check_one(x, 4);
        check_one(x, (int)(next_u64() % 17));
    }
    assert_int_equal(differ, 0);
}

/* time columns: t = t0 + k dt as the integrators form them */
static void test_time_columns(void** state) {
    (void)state;
    const double dts[] = {1e-5, 2.5e-4, 1e-3, 0.01, 1.0 / 3.0, 0.1, 7e-6};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (long k = 0; k <= 20000; k++) {
            const double t = 0.0 + (double)k * dts[d];
            check_one(t, 10);
            check_one(t, 4);
        }
    assert_int_equal(differ, 0);
}

/* exact ties (snprintf rounds them half to even) and their neighbours; numbers just below and
 * above the powers of ten, where the digit count changes */
static void test_ties_and_powers(void** state) {
    (void)state;
    for (long k = -300; k <= 300; k++) {
        for (int s = -20; s <= 20; s++) {
            const double tie = ldexp((double)(2 * k + 1), s);  /* odd / 2^-s: exact ties at some precision */
            check_all_prec(tie);
            check_all_prec(nextafter(tie, INFINITY));
            check_all_prec(nextafter(tie, -INFINITY));
        }
    }
    for (int e = -330; e <= 308; e++) {
        const double p = pow(10.0, e);
        check_all_prec(p);
        check_all_prec(nextafter(p, 0));
        check_all_prec(nextafter(p, INFINITY));
        check_all_prec(9.5 * p);
        check_all_prec(9.9999999999499 * p);
        check_all_prec(9.99999999995 * p);
        check_all_prec(1.00000000005 * p);
    }
    const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, DBL_MIN, -DBL_MIN, DBL_MAX, -DBL_MAX,
                              DBL_TRUE_MIN, 4.9e-324, 2.2250738585072009e-308, 1.0, -1.0, 0.5, 1.5, 2.5,
                              1e-5, 0.1, 0.2, 0.3, 1e23, 8.5, 9.5, 99.5, 0.05, 0.15, 0.25, 0.35};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) check_all_prec(special[i]);
    assert_int_equal(differ, 0);
    print_message("fmt_num_test: %ld conversions equal to snprintf's\n", checked);
}

/* near-ties of the CSVs' precisions, which the 128-bit exact rounding decides (fmt_num.c,
 * exact_round): the doubles nearest to (m + 1/2) 10^-k for random m of 11 and 5 digits and k over
 * the orders of results, and their neighbours 1..3 units away on both sides; then 400 000
 * random doubles of every sign, exponent (subnormals included) at 10 and 4 digits */
static void test_near_ties(void** state) {
    (void)state;
    const long before = differ;
    for (int i = 0; i < 100000; i++) {
        const int D = i & 1 ? 11 : 5, k = (int)(next_u64() % 40) - 8;
        const double lo = D == 11 ? 1e10 : 1e4;
        const double m = lo + (double)(next_u64() % (uint64_t)(9 * lo));
        double x = (m + 0.5) / pow(10.0, k);
        if (next_u64() & 1) x = -x;
        double y = x, z = x;
        check_one(x, D - 1);
        for (int j = 0; j < 3; j++) {
            y = nextafter(y, INFINITY), z = nextafter(z, -INFINITY);
            check_one(y, D - 1);
            check_one(z, D - 1);
        }
    }
    for (int i = 0; i < 50000; i++) {  /* %.10g of the time column: near-ties at 10 digits */
        const int k = (int)(next_u64() % 30) - 8;
        const double m = 1e9 + (double)(next_u64() % (uint64_t)9e9);
        double y = (m + 0.5) / pow(10.0, k), z = y;
        check_one(y, 10);
        for (int j = 0; j < 3; j++) {
            y = nextafter(y, INFINITY), z = nextafter(z, -INFINITY);
            check_one(y, 10);
            check_one(z, 10);
        }
    }
    for (int i = 0; i < 400000; i++) {
        const uint64_t u = next_u64();
        double x;
        memcpy(&x, &u, sizeof x);
        check_one(x, i & 1 ? 10 : 4);
    }
    assert_int_equal(differ, before);
}

/* a long row through the buffer (several flushes) against fprintf of the same numbers, also the
 * columns written by io_row_e_cols */
static void test_row(void** state) {
    (void)state;
    FILE* a = tmpfile();
    FILE* b = tmpfile();
    assert_non_null(a);
    assert_non_null(b);
    static io_row row;  /* the rows of a file in blocks: 50 rows of ~2.5 kB fill two and a part */
    fprintf(a, "t,header\n");  /* in fp's buffer: the blocks' writes must come after it */
    fprintf(b, "t,header\n");
    io_row_start(&row, a);
    for (int r = 0; r < 50; r++) {
        const double t = r * 1e-5;
        io_row_g(&row, 0, t, 10);
        fprintf(b, "%.10g", t);
        for (int c = 0; c < 100 + r; c++) {
            const double x = sin(1.0 + r * 0.37 + c) * pow(10.0, c % 30 - 15);
            io_row_e(&row, ',', x, c % 7 == 0 ? 4 : 10);
            fprintf(b, c % 7 == 0 ? ",%.4e" : ",%.10e", x);
        }
        /* the columns of a state by io_row_e_cols: gathered through equation numbers (-1: a fixed
         * DOF, written 0), then a plain list, at 10, 4 and 6 digits */
        double q[40];
        int eq[40];
        for (int c = 0; c < 40; c++) {
            q[c] = cos(0.3 + r * 0.11 + c) * pow(10.0, (c + r) % 24 - 12);
            eq[c] = c % 9 == 4 ? -1 : (c * 7) % 40;
        }
        const int prec[3] = {10, 4, 6};
        for (int k = 0; k < 3; k++) {
            io_row_e_cols(&row, q, eq, 40, prec[k]);
            io_row_e_cols(&row, q, NULL, 40, prec[k]);
            for (int c = 0; c < 40; c++) fprintf(b, ",%.*e", prec[k], eq[c] < 0 ? 0.0 : q[eq[c]]);
            for (int c = 0; c < 40; c++) fprintf(b, ",%.*e", prec[k], q[c]);
        }
        io_row_end(&row);
        fputc('\n', b);
        /* a whole history row in one call (t, gathered columns, and the energies on odd rows) */
        const double e[4] = {q[1] * 3.0, -q[2], q[3] * 1e-7, q[4] * 1e3};
        io_row_history(&row, t + 0.3, q, eq, 40, r & 1 ? e : NULL);
        fprintf(b, "%.10g", t + 0.3);
        for (int c = 0; c < 40; c++) fprintf(b, ",%.10e", eq[c] < 0 ? 0.0 : q[eq[c]]);
        if (r & 1) fprintf(b, ",%.10e,%.10e,%.10e,%.4e", e[0], e[1], e[2], e[3]);
        fputc('\n', b);
    }
    io_row_flush(&row);
    assert_int_equal(row.failed, 0);
    const long na = ftell(a), nb = ftell(b);
    assert_true(na > 1024);
    assert_int_equal(na, nb);
    rewind(a), rewind(b);
    char* sa = malloc((size_t)na);
    char* sb = malloc((size_t)nb);
    assert_non_null(sa);
    assert_non_null(sb);
    assert_int_equal(fread(sa, 1, (size_t)na, a), (size_t)na);
    assert_int_equal(fread(sb, 1, (size_t)nb, b), (size_t)nb);
    assert_memory_equal(sa, sb, (size_t)na);
    free(sa), free(sb);
    fclose(a), fclose(b);
}

/* a block that cannot be written: failed holds the write's errno (here a full device) */
static void test_row_failure(void** state) {
    (void)state;
    FILE* full = fopen("/dev/full", "w");
    if (!full) skip();
    static io_row row;
    io_row_start(&row, full);
    const double x[4] = {1.0, -2.5e-7, 3.25e8, 4.5e-3};  /* the columns, also the energies */
    for (int r = 0; r < 3000; r++) io_row_history(&row, r * 1e-5, x, NULL, 3, x);  /* > one block */
    io_row_flush(&row);
    assert_int_equal(row.failed, ENOSPC);
    fclose(full);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_bits),
        cmocka_unit_test(test_random_magnitudes),
        cmocka_unit_test(test_time_columns),
        cmocka_unit_test(test_ties_and_powers),
        cmocka_unit_test(test_near_ties),
        cmocka_unit_test(test_row),
        cmocka_unit_test(test_row_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
