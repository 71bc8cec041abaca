/* Rayleigh damping C = alpha M + beta K (src/fe/system.c; theory.md sec. 3) against the closed
 * form of a modally damped structure: mode i is damped at zeta_i = alpha / (2 w_i) + beta w_i / 2,
 * so a free vibration started in its shape decays as exp(-zeta_i w_i t) and oscillates at
 * w_d = w_i sqrt(1 - zeta_i^2). A clamped cantilever (steel, d = 10 mm, L = 1 m, 20 cubic
 * Euler-Bernoulli elements: w_i within 1e-7 of the continuous beam's (beta_i L)^2 sqrt(EI / rho A) / L^2):
 *   - through the dynamics analysis (kd_dynamics_run, the integrators' fused element-by-element
 *     step): zeta w from the logarithmic decrement of the tip's peaks, w_d from its zero crossings;
 *   - through the state-space modes (kd_modes_state_space, the assembled C): the eigenvalue
 *     s = -zeta w + i w_d of the damped quadratic eigenproblem. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/modes.h"
#include "kedyn/system.h"
#include "test_util.h"

static const double DIA = 0.01, LEN = 1.0, E = 210e9, RHO = 7800;
static const double BL[2] = {1.8751040687119611, 4.6940911329741745};  /* roots of cos x cosh x = -1 */

static double omega_exact(int mode) {
    const double A = PI * DIA * DIA / 4, I = PI * pow(DIA, 4) / 64;
    return pow(BL[mode - 1], 2) * sqrt(E * I / (RHO * A)) / (LEN * LEN);
}

static kd_model* cantilever(double alpha, double beta) {
    kd_desc* d = one_beam(E, RHO, 0.3, circle(DIA), LEN, 20, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    fix(d, 1, KD_FIX_ALL);
    kd_damping_desc* dd = kd_desc_add_damping(d);
    dd->body = 0, dd->alpha = alpha, dd->beta = beta;
    kd_error err;
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return m;
}

#define NREC 8001

typedef struct tip_hist {
    int eq, n;
    double t[NREC], q[NREC];
} tip_hist;

static int tip_out(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)v, (void)a, (void)e;
    tip_hist* r = ctx;
    if (r->n < NREC) r->t[r->n] = t, r->q[r->n++] = q[r->eq];
    return 0;
}

/* zeta w and w_d measured on the tip history of a free vibration started in `mode`'s shape:
 * the peaks (parabola through the three samples about each local maximum) decay by exactly
 * exp(-zeta w T_d) per period, so ln(peak) against the peak time is a line of slope -zeta w (least
 * squares over all peaks); zero crossings are pi / w_d apart. */
static void measure(kd_model* m, int mode, int periods, int per_period, const char* integrator, double* decay,
                    double* wd) {
    const double T = 2 * PI / omega_exact(mode), dt = T / per_period;
    kd_analysis_desc a;
    kd_analysis_desc_init(&a, KD_ANALYSIS_DYNAMICS);
    a.dynamics.t_end = periods * T, a.dynamics.dt = dt, a.dynamics.output_every = 1;
    if (strcmp(integrator, "newmark") == 0) {
        a.dynamics.integrator = KD_INTEGRATOR_NEWMARK, a.dynamics.newmark_beta = 0.25, a.dynamics.newmark_gamma = 0.5;
    } else {
        a.dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA, a.dynamics.rho_inf = 1.0;
    }
    a.dynamics.initial_mode = mode, a.dynamics.initial_amplitude = 1e-3;
    static tip_hist r;
    memset(&r, 0, sizeof(r));
    r.eq = m->neq - 2;  /* tip v (DOFs u v rz per node) */
    kd_error err;
    if (kd_dynamics_run(m, &a, tip_out, &r, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    assert_true(r.n > periods * per_period);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int np = 0;
    for (int i = 1; i + 1 < r.n; i++) {
        const double y0 = r.q[i - 1], y1 = r.q[i], y2 = r.q[i + 1];
        if (!(y1 > y0 && y1 >= y2 && y1 > 0)) continue;
        const double den = y0 - 2 * y1 + y2, off = 0.5 * (y0 - y2) / den;  /* vertex, in steps from i */
        const double tp = r.t[i] + off * dt, yp = y1 - 0.25 * (y0 - y2) * off;
        sx += tp, sy += log(yp), sxx += tp * tp, sxy += tp * log(yp), np++;
    }
    assert_true(np >= periods - 1);
    *decay = -(np * sxy - sx * sy) / (np * sxx - sx * sx);
    double first = -1, last = -1;
    int ncross = 0;
    for (int i = 1; i < r.n; i++)
        if ((r.q[i - 1] > 0) != (r.q[i] > 0)) {
            const double tc = r.t[i - 1] + (r.t[i] - r.t[i - 1]) * r.q[i - 1] / (r.q[i - 1] - r.q[i]);
            if (first < 0) first = tc;
            last = tc, ncross++;
        }
    *wd = PI * (ncross - 1) / (last - first);
}

typedef struct damping_case {
    const char* name;
    double zeta_alpha, zeta_beta;  /* the two parts of zeta_1: alpha / (2 w_1), beta w_1 / 2 */
    int mode;
} damping_case;

/* Each case: alpha alone, beta alone, both (mode 1, and mode 2 where beta dominates: zeta_2 =
 * 0.0016 + 0.063). Trapezoidal rule (Newmark 1/4, 1/2) at dt = T / 400: its period elongation and
 * its error in the decay are O((w dt)^2 / 12) = 2e-5; the peak parabola's O((w dt)^4). */
static void test_decay_and_damped_frequency(void** state) {
    (void)state;
    const damping_case cases[] = {
        {"alpha only", 0.02, 0.0, 1}, {"beta only", 0.0, 0.02, 1}, {"alpha and beta", 0.01, 0.01, 1},
        {"alpha and beta", 0.01, 0.01, 2},
    };
    const double w1 = omega_exact(1);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const damping_case* k = &cases[c];
        const double alpha = 2 * w1 * k->zeta_alpha, beta = 2 * k->zeta_beta / w1;
        const double w = omega_exact(k->mode), zeta = alpha / (2 * w) + beta * w / 2, wd_ref = w * sqrt(1 - zeta * zeta);
        kd_model* m = cantilever(alpha, beta);
        for (int g = 0; g < 2; g++) {
            double decay, wd;
            measure(m, k->mode, 10, 400, g ? "generalized-alpha" : "newmark", &decay, &wd);
            const double e_decay = rel_err(decay, zeta * w), e_wd = rel_err(wd, wd_ref);
            print_message("%-15s mode %d (%s): zeta %.6f, decay rate %.6f 1/s (closed form %.6f), error %.2e; "
                          "w_d %.6f rad/s (closed form %.6f, undamped %.6f), error %.2e\n",
                          k->name, k->mode, g ? "generalized-alpha" : "newmark", zeta, decay, zeta * w, e_decay, wd,
                          wd_ref, w, e_wd);
            assert_true(e_decay < 2e-4);
            assert_true(e_wd < 1e-4);
        }
        kd_model_free(&m);
    }
}

/* The damped eigenvalues of the assembled system: s_i = -zeta_i w_i + i w_i sqrt(1 - zeta_i^2) for
 * the first two bending modes, against the closed form with the continuous beam's w_i (20
 * elements: w_2 is 2e-6 high) and with the discrete model's (the symmetric solver's w_i). The high modes
 * (zeta > 1 above w = 2 / beta, the axial ones among them) are overdamped: real pairs, listed
 * with w_d = 0 first, skipped here. */
static void test_state_space_eigenvalues(void** state) {
    (void)state;
    const double w1 = omega_exact(1), alpha = 2 * w1 * 0.01, beta = 2 * 0.01 / w1;
    kd_model* m = cantilever(alpha, beta);
    kd_system s;
    kd_error err;
    if (kd_system_init(&s, m, &err)) fail_msg("%s", err.msg);
    /* the undamped w_i of the same model by the symmetric solver: the closed form of zeta_i on the
     * discrete model, to round-off */
    kd_modes und = {0};
    if (kd_modes_solve(m, 2, KD_EIGEN_DENSE, &und, &err)) fail_msg("%s", err.msg);
    kd_modes out = {0};
    if (kd_modes_state_space(&s, 0.0, m->neq, &out, &err)) fail_msg("%s", err.msg);
    assert_non_null(out.growth);
    int overdamped = 0;
    while (overdamped < out.count && out.omega[overdamped] == 0.0) overdamped++;
    assert_true(overdamped + 2 <= out.count);
    for (int i = 0; i < 2; i++) {
        const double w = omega_exact(i + 1), zeta = alpha / (2 * w) + beta * w / 2, wd = w * sqrt(1 - zeta * zeta);
        const int k = overdamped + i;
        const double wh = und.omega[i], zh = alpha / (2 * wh) + beta * wh / 2, wdh = wh * sqrt(1 - zh * zh);
        /* dggev's eigenvalues are accurate relative to |s| = w, the real part included */
        const double eg = fabs(out.growth[k] + zh * wh) / wh, ew = rel_err(out.omega[k], wdh);
        print_message("state space, mode %d on the discrete model: growth error %.2e w, w_d error %.2e\n", i + 1, eg, ew);
        assert_true(eg < 1e-8);
        assert_true(ew < 1e-8);
        print_message("state space, mode %d: growth %.8f 1/s (closed form %.8f), error %.2e; w_d %.6f rad/s (closed "
                      "form %.6f), error %.2e (%d overdamped pairs before)\n",
                      i + 1, out.growth[k], -zeta * w, rel_err(out.growth[k], -zeta * w), out.omega[k], wd,
                      rel_err(out.omega[k], wd), overdamped);
        assert_true(rel_err(out.growth[k], -zeta * w) < 1e-5);  /* 20 elements: w_2 2e-6 high */
        assert_true(rel_err(out.omega[k], wd) < 1e-5);
    }
    kd_modes_free(&und);
    kd_modes_free(&out);
    kd_system_free(&s);
    kd_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decay_and_damped_frequency),
        cmocka_unit_test(test_state_space_eigenvalues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
