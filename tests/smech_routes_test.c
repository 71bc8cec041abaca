/* The formalism routes on spatial mechanisms (include/kedyn/smech_formalism.h):
 *   - on a free RSSR loop with the coupler as a body (a spatial closed loop, mobility 2) and on the heavy symmetric top,
 *     the accelerations of newton-euler, maggi, kane, gibbs-appell and lagrange at a moving state
 *     agree to round-off (1e-10 of their size);
 *   - integrated over a short run with one integrator, the routes that share a formulation agree
 *     to round-off (kane, gibbs-appell with maggi; lagrange with newton-euler as augmented), the
 *     others to the integrator's error; every route conserves T + V (independent reference:
 *     energy conservation);
 *   - the top set in steady precession: every route keeps the tilt and precesses at the rate W of
 *     the closed form A W^2 cos(theta) - C w3 W + m g l = 0, and conserves the vertical angular
 *     momentum and the spin C w3 (independent references: the closed form and conservation).
 * Dropping the gyroscopic moment w x J w of the Kane route (or w_b x J w_b of Gibbs-Appell) makes
 * the agreement and the precession checks fail (docs/validation.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/load_yaml.h"
#include "kedyn/mech_compare.h"
#include "kedyn/smech_formalism.h"
#include "test_util.h"

static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
static const double Z3[3] = {0, 0, 0};

static void diag_inertia(double a, double b, double c, double J[9]) {
    const double I6[6] = {a, b, c, 0, 0, 0};
    assert_int_equal(kd_inertia_tensor(I6, J), 0);
}

/* A free RSSR loop whose coupler is a body (ball joints at both ends, so that it also spins about
 * its own line: mobility 2) under oblique gravity, crank started at 6 rad/s and the coupler
 * spinning at 20 rad/s. Products of inertia everywhere: the coupler turns about no fixed axis, so
 * its gyroscopic moment w x J w works on the partial angular velocities (about a fixed joint axis
 * it would not: (k x J k) . k = 0). */
static kd_smech* rssr(void) {
    kd_smech* m = kd_smech_new();
    double J[9], Jc[9], R[9];
    const double I6[6] = {3e-4, 1e-3, 1.2e-3, -1e-4, 5e-5, -8e-5};
    const double I6c[6] = {2e-4, 1.5e-3, 1.6e-3, 1e-4, -5e-5, 8e-5};
    assert_int_equal(kd_inertia_tensor(I6, J), 0);
    assert_int_equal(kd_inertia_tensor(I6c, Jc), 0);
    const double yax[3] = {0, 1, 0}, zax[3] = {0, 0, 1};
    kd_rot_axis_angle(yax, 0.3, R);
    const double ccom[3] = {0.05, 0, 0}, rcom[3] = {0.1, 0, 0}, D[3] = {0.3, 0, 0.1};
    const double B[3] = {0.1, 0, 0}, C[3] = {0.2, 0, 0};
    const double Cg[3] = {D[0] + 0.2 * cos(0.3), 0, D[2] - 0.2 * sin(0.3)};
    const double mid[3] = {0.5 * (B[0] + Cg[0]), 0.5 * (B[1] + Cg[1]), 0.5 * (B[2] + Cg[2])};
    const double Bc[3] = {B[0] - mid[0], B[1] - mid[1], B[2] - mid[2]};
    const double Cc[3] = {Cg[0] - mid[0], Cg[1] - mid[1], Cg[2] - mid[2]};
    kd_smech_add_body(m, "crank", 0.2, J, ccom, Z3, I3);
    kd_smech_add_body(m, "rocker", 0.4, J, rcom, D, R);
    kd_smech_add_body(m, "coupler", 0.3, Jc, Z3, mid, I3);
    kd_smech_add_joint(m, "A", KD_SJOINT_REVOLUTE, -1, 0, Z3, Z3, zax, NULL, 0);
    kd_smech_add_joint(m, "D", KD_SJOINT_REVOLUTE, -1, 1, D, Z3, yax, NULL, 0);
    kd_smech_add_joint(m, "B", KD_SJOINT_SPHERICAL, 0, 2, B, Bc, NULL, NULL, 0);
    kd_smech_add_joint(m, "C", KD_SJOINT_SPHERICAL, 1, 2, C, Cc, NULL, NULL, 0);
    m->g[0] = 3.0, m->g[2] = -9.81;
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    const double w0[3] = {0, 0, 6.0};
    kd_smech_set_velocity(m, 0, Z3, w0);
    const double l = sqrt(Cc[0] * Cc[0] + Cc[1] * Cc[1] + Cc[2] * Cc[2]);
    const double ws[3] = {20.0 * Cc[0] / l, 20.0 * Cc[1] / l, 20.0 * Cc[2] / l};
    kd_smech_set_velocity(m, 2, Z3, ws);
    assert_int_equal(kd_smech_solve_position(m, 0, m->q0, NULL, &err), KD_OK);
    assert_int_equal(kd_smech_solve_velocity(m, 0, m->q0, m->qd0, 1, &err), KD_OK);
    kd_smech_mobility mob;
    assert_int_equal(kd_smech_mobility_at(m, 0, m->q0, &mob, &err), KD_OK);
    assert_int_equal(mob.dof, 2);
    assert_int_equal(mob.nredundant, 0);
    return m;
}

/* the Lagrange top in steady precession: pivot at the origin, centre of mass at l on the body z
 * axis tilted by theta0 about y, w = W z + (w3 - W cos theta0) k with W the slow root */
typedef struct top_par {
    double Ac, C, mass, l, theta0, w3, W;
} top_par;

static kd_smech* top(top_par* t) {
    const double A = t->Ac + t->mass * t->l * t->l, c = cos(t->theta0), mgl = t->mass * 9.81 * t->l;
    t->W = (t->C * t->w3 - sqrt(t->C * t->w3 * t->C * t->w3 - 4 * A * c * mgl)) / (2 * A * c);
    kd_smech* m = kd_smech_new();
    double J[9], R[9];
    diag_inertia(t->Ac, t->Ac, t->C, J);
    const double y[3] = {0, 1, 0}, com[3] = {0, 0, t->l};
    kd_rot_axis_angle(y, t->theta0, R);
    kd_smech_add_body(m, "top", t->mass, J, com, Z3, R);
    kd_smech_add_joint(m, "O", KD_SJOINT_SPHERICAL, -1, 0, Z3, Z3, NULL, NULL, 0);
    m->g[2] = -9.81;
    const double k[3] = {sin(t->theta0), 0, c}, psid = t->w3 - t->W * c;
    const double w[3] = {psid * k[0], psid * k[1], t->W + psid * k[2]};
    const double rc[3] = {t->l * k[0], 0, t->l * k[2]};
    const double v[3] = {w[1] * rc[2] - w[2] * rc[1], w[2] * rc[0] - w[0] * rc[2], w[0] * rc[1] - w[1] * rc[0]};
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    kd_smech_set_velocity(m, 0, v, w);
    assert_int_equal(kd_smech_solve_velocity(m, 0, m->q0, m->qd0, 1, &err), KD_OK);
    return m;
}

/* q'' of every route at (0, q0, q0'); returns the largest difference from newton-euler relative
 * to the largest |q''| */
static double single_state(const kd_smech* m, const char* name) {
    const int n = m->n;
    double qdd[KD_MECH_FORMALISM_COUNT][64];
    double scale = 0, worst = 0;
    for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++) {
        kd_smech_route* r = NULL;
        kd_error err;
        kd_status st = kd_smech_route_new((kd_mech_formalism)f, m, 0.0, m->q0, &r, &err);
        if (!st) st = kd_smech_route_eval(r, 0.0, m->q0, m->qd0, qdd[f], &err);
        if (st) printf("%s\n", err.msg);
        assert_int_equal(st, KD_OK);
        long ev;
        double fl;
        kd_smech_route_work(r, &ev, &fl);
        assert_true(ev == 1 && fl > 0);
        kd_smech_route_free(&r);
    }
    for (int i = 0; i < n; i++) scale = fmax(scale, fabs(qdd[0][i]));
    for (int f = 1; f < KD_MECH_FORMALISM_COUNT; f++) {
        double d = 0;
        for (int i = 0; i < n; i++) d = fmax(d, fabs(qdd[f][i] - qdd[0][i]));
        printf("%s: q'' of %-12s - newton-euler: %.3g (of %.4g)\n", name, kd_mech_formalism_name((kd_mech_formalism)f),
               d, scale);
        worst = fmax(worst, d / scale);
    }
    return worst;
}

static void test_single_state(void** state) {
    (void)state;
    kd_smech* m = rssr();
    assert_true(single_state(m, "RSSR") < 1e-10);
    kd_smech_free(&m);
    top_par tp = {.Ac = 0.002, .C = 0.004, .mass = 1.0, .l = 0.1, .theta0 = 0.5, .w3 = 150.0};
    m = top(&tp);
    assert_true(single_state(m, "top") < 1e-10);
    kd_smech_free(&m);
}

/* ---- runs ------------------------------------------------------------------------------------ */

typedef struct run_rec {
    const kd_smech* m;
    double E0, dE, Lz0, dLz, L30, dL3, dtilt, tilt0;
    double q_end[64], t_end, axis_end[3];
    int rows;
    double traj[4096];            /* q at the output instants (first 4096 values) */
} run_rec;

static int run_out(void* ctx, const kd_mbs_sample* s) {
    run_rec* r = ctx;
    const kd_smech* m = r->m;
    const double E = kd_smech_kinetic(m, s->q, s->qd) + kd_smech_potential(m, s->q);
    double R[9];
    kd_rot_from_quat(s->q + 3, R);
    /* angular momenta of body 0 about the origin (the top's pivot): vertical and spin */
    double w[3], wb[3], Lb[3], L[3];
    kd_smech_omega(m, 0, s->q, s->qd, w);
    for (int i = 0; i < 3; i++) wb[i] = R[i] * w[0] + R[3 + i] * w[1] + R[6 + i] * w[2];
    for (int i = 0; i < 3; i++) Lb[i] = m->J[3 * i] * wb[0] + m->J[3 * i + 1] * wb[1] + m->J[3 * i + 2] * wb[2];
    for (int i = 0; i < 3; i++) L[i] = R[3 * i] * Lb[0] + R[3 * i + 1] * Lb[1] + R[3 * i + 2] * Lb[2];
    const double Lz = L[2] + m->mass[0] * (s->q[0] * s->qd[1] - s->q[1] * s->qd[0]);
    if (r->rows == 0) r->E0 = E, r->Lz0 = Lz, r->L30 = Lb[2], r->tilt0 = R[8];
    r->dE = fmax(r->dE, fabs(E - r->E0)), r->dLz = fmax(r->dLz, fabs(Lz - r->Lz0));
    r->dL3 = fmax(r->dL3, fabs(Lb[2] - r->L30)), r->dtilt = fmax(r->dtilt, fabs(R[8] - r->tilt0));
    for (int i = 0; i < m->n && (size_t)(r->rows * m->n + i) < 4096; i++) r->traj[r->rows * m->n + i] = s->q[i];
    memcpy(r->q_end, s->q, sizeof(double) * (size_t)m->n);
    for (int i = 0; i < 3; i++) r->axis_end[i] = R[3 * i + 2];
    r->t_end = s->t, r->rows++;
    return 0;
}

/* every route with rk4 (formulations: newton-euler and lagrange augmented, the others maggi) */
static void run_routes(const kd_smech* m, double t_end, double dt, run_rec* rec) {
    for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++) {
        kd_mbs_opts o;
        kd_mbs_opts_default(&o);
        o.t_end = t_end, o.dt = dt, o.output_every = 10, o.stabilization = KD_MBS_STAB_PROJECTION;
        o.formulation = f == KD_MECH_NEWTON_EULER || f == KD_MECH_LAGRANGE ? KD_MBS_AUGMENTED : KD_MBS_MAGGI;
        kd_smech_formalism_opts(KD_MECH_MAGGI, m, &o);
        if (f != KD_MECH_LAGRANGE) kd_smech_formalism_opts((kd_mech_formalism)f, m, &o);
        if (f == KD_MECH_LAGRANGE) o.formulation = KD_MBS_AUGMENTED;   /* its cms, Newton-Euler's solver */
        kd_cms cms;
        kd_smech_formalism_cms((kd_mech_formalism)f, m, &cms);
        memset(&rec[f], 0, sizeof(rec[f]));
        rec[f].m = m;
        kd_error err;
        kd_status st = kd_mbs_forward(&cms, &o, m->q0, m->qd0, run_out, &rec[f], NULL, &err);
        if (st) printf("%s: %s\n", kd_mech_formalism_name((kd_mech_formalism)f), err.msg);
        assert_int_equal(st, KD_OK);
    }
}

static double traj_diff(const run_rec* a, const run_rec* b, int n) {
    double d = 0;
    const int rows = a->rows < b->rows ? a->rows : b->rows;
    for (int i = 0; i < rows * n && i < 4096; i++) d = fmax(d, fabs(a->traj[i] - b->traj[i]));
    return d;
}

static void test_rssr_runs(void** state) {
    (void)state;
    kd_smech* m = rssr();
    run_rec* rec = calloc(KD_MECH_FORMALISM_COUNT, sizeof(run_rec));
    run_routes(m, 0.5, 2e-4, rec);
    const int n = m->n;
    const double d_maggi_kane = traj_diff(&rec[KD_MECH_MAGGI], &rec[KD_MECH_KANE], n);
    const double d_maggi_ga = traj_diff(&rec[KD_MECH_MAGGI], &rec[KD_MECH_GIBBS_APPELL], n);
    const double d_ne_lag = traj_diff(&rec[KD_MECH_NEWTON_EULER], &rec[KD_MECH_LAGRANGE], n);
    const double d_ne_maggi = traj_diff(&rec[KD_MECH_NEWTON_EULER], &rec[KD_MECH_MAGGI], n);
    printf("RSSR 0.5 s: |q_kane - q_maggi| %.3g, |q_gibbs-appell - q_maggi| %.3g, |q_lagrange - q_newton-euler| "
           "%.3g, |q_maggi - q_newton-euler| %.3g m\n",
           d_maggi_kane, d_maggi_ga, d_ne_lag, d_ne_maggi);
    assert_true(d_maggi_kane < 1e-11 && d_maggi_ga < 1e-11 && d_ne_lag < 1e-11);
    assert_true(d_ne_maggi < 1e-8);
    for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++) {
        printf("RSSR %-12s |dE| = %.3g J (E0 %.5f J)\n", kd_mech_formalism_name((kd_mech_formalism)f), rec[f].dE,
               rec[f].E0);
        assert_true(rec[f].dE < 1e-9 * (1 + fabs(rec[f].E0)));
    }
    free(rec);
    kd_smech_free(&m);
}

static void test_top_precession(void** state) {
    (void)state;
    top_par tp = {.Ac = 0.002, .C = 0.004, .mass = 1.0, .l = 0.1, .theta0 = 0.5, .w3 = 150.0};
    kd_smech* m = top(&tp);
    run_rec* rec = calloc(KD_MECH_FORMALISM_COUNT, sizeof(run_rec));
    const double T = 0.2;
    run_routes(m, T, 5e-5, rec);
    for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++) {
        const run_rec* r = &rec[f];
        /* precession angle of the symmetry axis against W t (closed form) */
        const double phi = atan2(r->axis_end[1], r->axis_end[0]);
        const double err_phi = fabs(phi - tp.W * r->t_end);
        printf("top %-12s W = %.6f rad/s: phi(T) %.9f vs W T %.9f; |d cos theta| %.3g, |dE| %.3g, |dLz| %.3g, "
               "|dL3| %.3g\n",
               kd_mech_formalism_name((kd_mech_formalism)f), tp.W, phi, tp.W * r->t_end, r->dtilt, r->dE, r->dLz,
               r->dL3);
        assert_true(err_phi < 1e-7 * fabs(tp.W * r->t_end));
        /* the Maggi family integrates the independent coordinates without projection: its drift
         * is the integrator's (rk4, dt 5e-5), a few 1e-9 relative */
        assert_true(r->dtilt < 1e-8);
        assert_true(r->dE < 1e-7 * fabs(r->E0) && r->dLz < 1e-8 * fabs(r->Lz0) && r->dL3 < 1e-8 * fabs(r->L30));
        /* the same formulation: round-off; maggi against augmented: the integrators' error */
        const int same = f == KD_MECH_LAGRANGE || f == KD_MECH_NEWTON_EULER ? KD_MECH_NEWTON_EULER : KD_MECH_MAGGI;
        const double dsame = traj_diff(r, &rec[same], m->n), dne = traj_diff(r, &rec[0], m->n);
        printf("top %-12s |q - q_%s| %.3g, |q - q_newton-euler| %.3g\n", kd_mech_formalism_name((kd_mech_formalism)f),
               kd_mech_formalism_name((kd_mech_formalism)same), dsame, dne);
        assert_true(dsame < 1e-11 && dne < 1e-7);
    }
    free(rec);
    kd_smech_free(&m);
}

/* kedyn compare's library side on examples/spatial_rssr_free.yaml: every route ran, the Maggi
 * family agrees with newton-euler to the rk4 error over 0.2 s (< 1e-10 of the largest
 * coordinate; measured 3.5e-13), lagrange (ida, rtol 1e-8) to 1e-6 (measured 1.2e-8), and the
 * drift stays small. */
static void test_compare_model(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    assert_int_equal(kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/spatial_rssr_free.yaml", &d, &err), KD_OK);
    const kd_mech_formalism forms[5] = {KD_MECH_NEWTON_EULER, KD_MECH_MAGGI, KD_MECH_KANE, KD_MECH_GIBBS_APPELL,
                                        KD_MECH_LAGRANGE};
    kd_mech_compare c;
    kd_status st = kd_mech_compare_run(d, 0, forms, 5, 0.2, NULL, NULL, &c, &err);
    if (st) printf("%s\n", err.msg);
    assert_int_equal(st, KD_OK);
    assert_int_equal(c.spatial, 1);
    assert_int_equal(c.dof, 2);
    assert_int_equal(c.nrows, 5);
    for (int k = 0; k < c.nrows; k++) {
        const kd_mech_compare_row* r = &c.rows[k];
        printf("compare %-12s %-10s diff %.3g drift %.3g eval %.3g s flops/eval %.4g\n",
               kd_mech_formalism_name(r->formalism), r->formulation, r->max_rel_diff, r->max_drift, r->build_s,
               r->flops_eval);
        assert_int_equal(r->status, KD_OK);
        assert_true(r->max_rel_diff < (r->formalism == KD_MECH_LAGRANGE ? 1e-6 : 1e-10));
        assert_true(r->max_drift < 1e-7 && r->flops_eval > 0 && r->build_s > 0);
    }
    kd_mech_compare_free(&c);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_state),
        cmocka_unit_test(test_rssr_runs),
        cmocka_unit_test(test_top_precession),
        cmocka_unit_test(test_compare_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
