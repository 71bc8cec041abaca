/* Trajectories across formalisms (src/formalisms/, system.c, dynamics.c):
 *   - the seed 001 rotating bar: Lagrange, Kane and Gibbs-Appell with the
 *     same integrator reproduce the invariants route to round-off; Hamilton's
 *     canonical equations by the implicit midpoint rule reproduce the modal
 *     series of the continuous rotating bar (the reference of dynamics_test),
 *     and by CVODE in (q, p) agree with CVODE in (q, q') to the tolerance;
 *   - the implicit midpoint rule conserves the Jacobi integral
 *     J = 1/2 v^T M v + 1/2 q^T K q - f^T q of the bar spinning at constant
 *     speed (a quadratic invariant: exact for the symplectic rule), where
 *     generalized-alpha with rho_inf < 1 dissipates it;
 *   - the spin-up beam (5 elements): every formalism's trajectory agrees with the
 *     invariants route, the second-order ones to round-off with the same
 *     integrator, Hamilton's (CVODE in (q, p)) with CVODE in (q, q') to the
 *     integrator tolerance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/hamilton.h"
#include "test_util.h"
#include "rotating_bar.h"

static kd_model* spin_up_beam(int nelem) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_GENERIC, s.A = 1e-4, s.Iy = s.Iz = 5e-8, s.J = 1e-7;
    kd_desc* d = one_beam(2.8e11, 12000, 0.3, s, 10.0, nelem, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    d->bodies[0].geometric_stiffness = 1;
    fix(d, 1, KD_FIX_ALL);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1;
    md->motion.angle = kd_law_constant(0);
    md->motion.angle.type = KD_LAW_SPIN_UP, md->motion.angle.spin_omega = 6, md->motion.angle.spin_T = 15;
    kd_error err;
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return m;
}

#define NREC 20001
typedef struct rec {
    int n, neq;
    double t[NREC];
    double* q;                    /* (NREC x neq) */
} rec;

static int record(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)v, (void)a, (void)e;
    rec* r = ctx;
    if (r->n < NREC) {
        r->t[r->n] = t;
        memcpy(r->q + (size_t)r->n * r->neq, q, sizeof(double) * (size_t)r->neq);
        r->n++;
    }
    return 0;
}

/* The description's name of an integrator of kedyn/integrate.h. */
static kd_dynamics_integrator desc_integrator(kd_integrator method) {
    for (int i = KD_INTEGRATOR_UNSET + 1; i < KD_INTEGRATORS; i++)
        if (kd_dynamics_method((kd_dynamics_integrator)i) == method) return (kd_dynamics_integrator)i;
    return KD_INTEGRATOR_UNSET;
}

static kd_analysis_desc dyn(double t_end, double dt, kd_integrator integrator, kd_formalism f) {
    kd_analysis_desc a;
    kd_analysis_desc_init(&a, KD_ANALYSIS_DYNAMICS);
    a.dynamics.t_end = t_end, a.dynamics.dt = dt, a.dynamics.integrator = desc_integrator(integrator);
    a.dynamics.formalism = kd_dynamics_formalism_parse(kd_formalism_name(f));
    a.dynamics.rho_inf = 1.0, a.dynamics.output_every = 1, a.dynamics.rtol = 1e-10, a.dynamics.atol = 1e-14;
    a.dynamics.newmark_beta = 0.25, a.dynamics.newmark_gamma = 0.5, a.dynamics.hht_alpha = -0.05;
    return a;
}

static void run(const kd_model* m, kd_analysis_desc a, rec* r) {
    static rec* last;
    (void)last;
    r->n = 0, r->neq = m->neq;
    kd_error err;
    if (kd_dynamics_run(m, &a, record, r, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
}

/* max |q - q_ref| over all records and DOFs / max |q_ref| */
static double traj_diff(const rec* a, const rec* ref) {
    assert_int_equal(a->n, ref->n);
    double d = 0, s = 0;
    for (size_t i = 0; i < (size_t)ref->n * ref->neq; i++) {
        d = fmax(d, fabs(a->q[i] - ref->q[i]));
        s = fmax(s, fabs(ref->q[i]));
    }
    return d / s;
}

static rec* new_rec(int neq) {
    rec* r = calloc(1, sizeof(rec));
    r->q = calloc((size_t)NREC * (size_t)neq, sizeof(double));
    return r;
}
static void free_rec(rec* r) {
    free(r->q);
    free(r);
}

static void test_bar_second_order_routes(void** state) {
    (void)state;
    kd_model* m = rotating_bar(10, BF);
    rec *ref = new_rec(m->neq), *r = new_rec(m->neq);
    run(m, dyn(0.01, 1e-5, KD_INT_GENERALIZED_ALPHA, KD_FORMALISM_INVARIANTS), ref);
    for (int f = KD_FORMALISM_LAGRANGE; f <= KD_FORMALISM_GIBBS_APPELL; f++) {
        run(m, dyn(0.01, 1e-5, KD_INT_GENERALIZED_ALPHA, (kd_formalism)f), r);
        const double d = traj_diff(r, ref);
        print_message("seed 001 bar, %s vs invariants: %.2e\n", kd_formalism_name((kd_formalism)f), d);
        assert_true(d < 1e-10);
    }
    free_rec(ref), free_rec(r);
    kd_model_free(&m);
}

static void test_bar_hamilton_vs_modal_series(void** state) {
    (void)state;
    kd_model* m = rotating_bar(80, BF);
    rec* r = new_rec(m->neq);
    kd_analysis_desc a = dyn(0.02, 2e-6, KD_INT_IMPLICIT_MIDPOINT, KD_FORMALISM_HAMILTON);
    a.dynamics.initial_static = 1;
    run(m, a, r);
    const double u0 = static_stretch_exact();
    double emax = 0, umax = 0;
    for (int i = 0; i < r->n; i += 10) {
        const double ref = tip_series(r->t[i]);
        emax = fmax(emax, fabs(r->q[(size_t)i * r->neq + r->neq - 1] - u0 - ref));
        umax = fmax(umax, fabs(ref));
    }
    print_message("seed 001 bar, 80 elements, Hamilton implicit midpoint: tip response max error %.2e of %.3e m\n",
                  emax / umax, umax);
    assert_true(emax < 5e-3 * umax);
    free_rec(r);
    kd_model_free(&m);
}

/* Hamilton's equations by CVODE in (q, p) against CVODE in (q, q') on the
 * 10-element bar: agreement to the integration tolerance. */
static void test_bar_hamilton_cvode(void** state) {
    (void)state;
    kd_model* m = rotating_bar(10, BF);
    rec *ref = new_rec(m->neq), *r = new_rec(m->neq);
    kd_analysis_desc a = dyn(0.01, 1e-4, KD_INT_CVODE_BDF, KD_FORMALISM_INVARIANTS);
    a.dynamics.initial_static = 1, a.dynamics.rtol = 1e-8, a.dynamics.atol = 1e-13;
    run(m, a, ref);
    a.dynamics.integrator = KD_INTEGRATOR_HAMILTON_CVODE, a.dynamics.formalism = KD_DYN_FORMALISM_HAMILTON;
    run(m, a, r);
    const double d = traj_diff(r, ref);
    print_message("seed 001 bar, Hamilton CVODE vs CVODE (rtol 1e-8): %.2e\n", d);
    assert_true(d < 1e-5);
    free_rec(ref), free_rec(r);
    kd_model_free(&m);
}

/* The Jacobi integral of the bar at constant speed, unforced, from rest in
 * the rotating frame (it oscillates about the centrifugal stretch). */
typedef struct jacobi {
    kd_system s;
    kd_gband C, K;
    double *f, *w;
    double j0, drift, scale;      /* J(0), max |J - J(0)|, max 1/2 q^T K q */
    int started;
} jacobi;

static int jacobi_out(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)a, (void)e;
    jacobi* J = ctx;
    const int n = J->s.n;
    int changed;
    kd_system_matrices(&J->s, t, &J->C, &J->K, &changed);
    kd_system_force(&J->s, t, J->f);
    double val = 0, strain = 0;
    kd_gband_matvec(&J->s.M, v, J->w);
    for (int i = 0; i < n; i++) val += 0.5 * v[i] * J->w[i];
    kd_gband_matvec(&J->K, q, J->w);
    for (int i = 0; i < n; i++) strain += 0.5 * q[i] * J->w[i], val -= J->f[i] * q[i];
    val += strain;
    if (!J->started) J->j0 = val, J->started = 1;
    J->drift = fmax(J->drift, fabs(val - J->j0));
    J->scale = fmax(J->scale, strain);
    return 0;
}

static double jacobi_drift(kd_model* m, int method) {
    jacobi J;
    memset(&J, 0, sizeof(J));
    kd_error err;
    assert_int_equal(kd_system_init(&J.s, m, &err), KD_OK);
    kd_gband_init(&J.C, J.s.n, J.s.kd, J.s.kd);
    kd_gband_init(&J.K, J.s.n, J.s.kd, J.s.kd);
    J.f = calloc((size_t)J.s.n, sizeof(double));
    J.w = calloc((size_t)J.s.n, sizeof(double));
    kd_analysis_desc a = dyn(0.005, 2e-6, method, method == KD_INT_IMPLICIT_MIDPOINT ? KD_FORMALISM_HAMILTON : KD_FORMALISM_INVARIANTS);
    a.dynamics.rho_inf = 0.5, a.dynamics.output_every = 10;
    if (kd_dynamics_run(m, &a, jacobi_out, &J, NULL, NULL, 0, &err)) fail_msg("%s", err.msg);
    kd_gband_free(&J.C), kd_gband_free(&J.K);
    free(J.f), free(J.w);
    kd_system_free(&J.s);
    return J.drift / J.scale;
}

static void test_midpoint_conserves_jacobi_integral(void** state) {
    (void)state;
    kd_model* m = rotating_bar(20, 0.0);
    const double mid = jacobi_drift(m, KD_INT_IMPLICIT_MIDPOINT);
    const double galpha = jacobi_drift(m, KD_INT_GENERALIZED_ALPHA);
    print_message("Jacobi integral drift over 2500 steps (of the largest strain energy): implicit midpoint %.2e, generalized-alpha (rho_inf 0.5) %.2e\n",
                  mid, galpha);
    assert_true(mid < 1e-9);
    assert_true(galpha > 1e3 * mid);
    kd_model_free(&m);
}

static void test_spin_up_routes(void** state) {
    (void)state;
    kd_model* m = spin_up_beam(5);
    rec *ref = new_rec(m->neq), *r = new_rec(m->neq);
    /* second-order routes, Newmark, 0.2 s (the frame changes at every step) */
    run(m, dyn(0.2, 1e-3, KD_INT_NEWMARK, KD_FORMALISM_INVARIANTS), ref);
    for (int f = KD_FORMALISM_LAGRANGE; f <= KD_FORMALISM_GIBBS_APPELL; f++) {
        run(m, dyn(0.2, 1e-3, KD_INT_NEWMARK, (kd_formalism)f), r);
        const double d = traj_diff(r, ref);
        print_message("spin-up, %s vs invariants (Newmark): %.2e\n", kd_formalism_name((kd_formalism)f), d);
        assert_true(d < 1e-9);
    }
    /* Hamilton in (q, p) against CVODE in (q, q'), both rtol 1e-8 over 0.2 s
     * (every 0.01 s), and the
     * implicit midpoint rule against Newmark (both second order in dt) */
    kd_analysis_desc a = dyn(0.2, 1e-2, KD_INT_CVODE_BDF, KD_FORMALISM_INVARIANTS);
    a.dynamics.rtol = 1e-8, a.dynamics.atol = 1e-12, a.dynamics.output_every = 1;
    run(m, a, ref);
    a.dynamics.integrator = KD_INTEGRATOR_HAMILTON_CVODE, a.dynamics.formalism = KD_DYN_FORMALISM_HAMILTON;
    run(m, a, r);
    double d = traj_diff(r, ref);
    print_message("spin-up, Hamilton CVODE vs CVODE (rtol 1e-8): %.2e\n", d);
    assert_true(d < 1e-5);
    run(m, dyn(1.0, 1e-3, KD_INT_NEWMARK, KD_FORMALISM_INVARIANTS), ref);
    run(m, dyn(1.0, 1e-3, KD_INT_IMPLICIT_MIDPOINT, KD_FORMALISM_HAMILTON), r);
    d = traj_diff(r, ref);
    print_message("spin-up, Hamilton implicit midpoint vs Newmark (dt 1e-3): %.2e\n", d);
    assert_true(d < 1e-4);
    free_rec(ref), free_rec(r);
    kd_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bar_second_order_routes),
        cmocka_unit_test(test_bar_hamilton_vs_modal_series),
        cmocka_unit_test(test_bar_hamilton_cvode),
        cmocka_unit_test(test_midpoint_conserves_jacobi_integral),
        cmocka_unit_test(test_spin_up_routes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
