/* kd_law_value (src/core/law.c), the value of a law alone, which the loads of every time step
 * take (kd_system_force): bit for bit the f of kd_law_eval (a sine through sin rather than the
 * sincos of the value with its derivatives) for every kind of law, and the sine against its closed
 * form A sin(omega t + phi) + c written out here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/law.h"

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* n instants over [t0, t1], the value against kd_law_eval's f; returns how many differ */
static long differ(const kd_law* law, double t0, double t1, long n) {
    long bad = 0;
    for (long i = 0; i <= n; i++) {
        const double t = t0 + (t1 - t0) * (double)i / (double)n;
        double f, df, d2f;
        kd_law_eval(law, t, &f, &df, &d2f);
        if (!same_bits(kd_law_value(law, t), f)) bad++;
    }
    return bad;
}

static void test_sine(void** state) {
    (void)state;
    /* the seed 001 bar's load (10 sin 200 t) at its step instants and at arguments up to 1e6 rad,
     * where the reduction of the argument takes glibc's slower paths */
    const double amp[] = {10.0, -3.5, 1e-7}, omega[] = {200.0, 1.0, 12345.678, 1e6}, phase[] = {0.0, 0.3, -2.0};
    const double offset[] = {0.0, 4.25};
    long checked = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t w = 0; w < 4; w++)
            for (size_t p = 0; p < 3; p++)
                for (size_t c = 0; c < 2; c++) {
                    kd_law law = kd_law_constant(0.0);
                    law.type = KD_LAW_SINE;
                    law.amplitude = amp[a], law.omega = omega[w], law.phase = phase[p], law.offset = offset[c];
                    assert_int_equal(differ(&law, 0.0, 1.0, 20000), 0);
                    checked += 20001;
                    for (int i = 0; i <= 1000; i++) {  /* the closed form, written out */
                        const double t = 0.1 * i / 1000.0;
                        const double want = amp[a] * sin(omega[w] * t + phase[p]) + offset[c];
                        assert_true(fabs(kd_law_value(&law, t) - want) <= 1e-15 * (fabs(amp[a]) + fabs(offset[c])));
                    }
                }
    print_message("law_value_test: %ld sine values equal to kd_law_eval's\n", checked);
}

static void test_other_laws(void** state) {
    (void)state;
    kd_law c = kd_law_constant(-7.5);
    assert_int_equal(differ(&c, -1.0, 5.0, 1000), 0);
    kd_law s = kd_law_constant(0.0);
    s.type = KD_LAW_SPEED, s.value = 15.0;
    assert_int_equal(differ(&s, -1.0, 5.0, 1000), 0);
    kd_law u = kd_law_constant(0.0);
    u.type = KD_LAW_SPIN_UP, u.spin_omega = 30.0, u.spin_T = 0.7;
    assert_int_equal(differ(&u, -0.5, 2.0, 5000), 0);
    kd_error err;
    const double t[5] = {0.0, 0.2, 0.5, 0.9, 1.4}, f[5] = {0.0, 1.0, -0.5, 2.0, 0.25};
    const double df[5] = {0.0, 1.0, 0.0, -1.0, 0.0}, d2f[5] = {0.0, 0.5, -2.0, 1.0, 0.0};
    for (int linear = 0; linear < 2; linear++) {
        kd_law tab;
        assert_int_equal(kd_law_table(&tab, 5, t, f, linear, &err), KD_OK);
        assert_int_equal(differ(&tab, -0.3, 1.8, 5000), 0);
        kd_law_free(&tab);
    }
    kd_law h;
    assert_int_equal(kd_law_hermite(&h, 5, t, f, df, d2f, &err), KD_OK);
    assert_int_equal(differ(&h, -0.3, 1.8, 5000), 0);
    kd_law_free(&h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sine),
        cmocka_unit_test(test_other_laws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
