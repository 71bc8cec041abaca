/* The internal helpers of src/core/util.c: the re-entrant splitter splits as
 * strtok does (empty fields skipped); JSON numbers print with the caller's
 * format and write non-finite values as the caller asks; the 3-vector helpers
 * satisfy a x b = [a] b and a . (a x b) = 0. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/util.h"

static void test_next_token(void** state) {
    (void)state;
    char buf[] = ",lagrange,,kane,";
    char* rest = buf;
    assert_string_equal(util_next_token(&rest, ","), "lagrange");
    char inner[] = "a b";  /* a second split while the first is under way */
    char* rest2 = inner;
    assert_string_equal(util_next_token(&rest2, " "), "a");
    assert_string_equal(util_next_token(&rest, ","), "kane");
    assert_string_equal(util_next_token(&rest2, " "), "b");
    assert_null(util_next_token(&rest, ","));
    assert_null(util_next_token(&rest, ","));
    char empty[] = ",,";
    rest = empty;
    assert_null(util_next_token(&rest, ","));
}

static void test_json_numbers(void** state) {
    (void)state;
    char text[256] = "";
    FILE* fp = fmemopen(text, sizeof(text), "w");
    assert_non_null(fp);
    const double v[3] = {1.5, NAN, -2e-7};
    util_json_number(fp, "%.12g", 0.1, "null");
    fputc(' ', fp);
    util_json_number(fp, "%.6e", INFINITY, "null");
    fputc(' ', fp);
    util_json_numbers(fp, "%.6g", ",", v, 3, "0");
    fputc(' ', fp);
    util_json_numbers(fp, "%.8g", ", ", v, 1, NULL);
    fclose(fp);
    assert_string_equal(text, "0.1 null [1.5,0,-2e-07] [1.5]");
}

static void test_vectors(void** state) {
    (void)state;
    const double a[3] = {0.3, -1.2, 2.5}, b[3] = {-0.7, 0.4, 1.1};
    double c[3], S[9];
    util_cross3(c, a, b);
    util_skew3(S, a);
    for (int i = 0; i < 3; i++) assert_true(fabs(c[i] - (S[3 * i] * b[0] + S[3 * i + 1] * b[1] + S[3 * i + 2] * b[2])) < 1e-15);
    assert_true(fabs(util_dot3(a, c)) < 1e-15);
    assert_true(fabs(util_dot3(a, b) - (-0.21 - 0.48 + 2.75)) < 1e-15);
}

static void test_clock(void** state) {
    (void)state;
    const double t0 = util_now_s(), t1 = util_now_s();
    assert_true(t1 >= t0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next_token),
        cmocka_unit_test(test_json_numbers),
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
