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
    long switches;                /* changes of the rows left out (kd_cms_rows_switches) */
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
        kd_cms_rows* kept = NULL;  /* an over-constrained mechanism: its independent rows */
        kd_error err;
        assert_int_equal(kd_smech_formalism_system((kd_mech_formalism)f, m, 0.0, m->q0, &cms, &kept, &err), KD_OK);
        memset(&rec[f], 0, sizeof(rec[f]));
        rec[f].m = m;
        kd_status st = kd_mbs_forward(&cms, &o, m->q0, m->qd0, run_out, &rec[f], NULL, &err);
        if (st) printf("%s: %s\n", kd_mech_formalism_name((kd_mech_formalism)f), err.msg);
        assert_int_equal(st, KD_OK);
        rec[f].switches = kd_cms_rows_switches(kept);
        kd_cms_rows_free(&kept);
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

/* ---- Bricard's over-constrained linkage ----------------------------------------------------- */

/* Bricard's orthogonal 6R linkage on the skew hexagon of a cube (as examples/bricard.yaml: edge
 * 0.2 m, five 1 kg rods, frames at the rods' middles); with `driven`, joint R1 (ground - L1, about
 * z) driven at 1 rad/s from its assembled angle: its position at time t is the linkage at R1 angle
 * t, the one-DOF path. */
static const double BRICARD_A = 0.2;

static kd_smech* bricard(int driven) {
    const double a = BRICARD_A;
    const double V[6][3] = {{0, 0, 0}, {a, 0, 0}, {a, a, 0}, {a, a, a}, {0, a, a}, {0, 0, a}};
    const double ax[6][3] = {{0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 0}};
    kd_smech* m = kd_smech_new();
    for (int l = 1; l <= 5; l++) {
        const double* A = V[l];
        const double* B = V[(l + 1) % 6];
        double mid[3], d[3], J[9];
        for (int i = 0; i < 3; i++) mid[i] = 0.5 * (A[i] + B[i]), d[i] = fabs(B[i] - A[i]) / a;
        const double It = a * a / 12, Ia = 1e-4;
        diag_inertia(d[0] > 0.5 ? Ia : It, d[1] > 0.5 ? Ia : It, d[2] > 0.5 ? Ia : It, J);
        char name[16];
        snprintf(name, sizeof(name), "L%d", l);
        kd_smech_add_body(m, name, 1.0, J, Z3, mid, I3);
    }
    for (int v = 0; v < 6; v++) {
        const int b0 = v == 1 ? -1 : (v == 0 ? 4 : v - 2), b1 = v == 0 ? -1 : v - 1;
        double P0[3], P1[3];
        for (int i = 0; i < 3; i++) {
            P0[i] = V[v][i] - (b0 < 0 ? 0 : m->q0[7 * b0 + i]);
            P1[i] = V[v][i] - (b1 < 0 ? 0 : m->q0[7 * b1 + i]);
        }
        char name[16];
        snprintf(name, sizeof(name), "R%d", v);
        kd_smech_add_joint(m, name, KD_SJOINT_REVOLUTE, b0, b1, P0, P1, ax[v], NULL, 0);
    }
    if (driven) {
        const kd_law law = {.type = KD_LAW_SPEED, .value = 1.0};
        assert_true(kd_smech_add_driver(m, 1, &law, 0.0) >= 0);
    }
    m->g[2] = -9.81;
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    return m;
}

/* The path q(theta) of the driven linkage (Newton from the guess q, in/out). */
static void bricard_at(const kd_smech* md, double theta, double* q) {
    kd_error err;
    assert_int_equal(kd_smech_solve_position(md, theta, q, NULL, &err), KD_OK);
}

/* The path's tangent d1 = dq/dtheta and curvature d2 = d2q/dtheta2 at q (on the path at theta):
 * the velocity and acceleration of the linkage driven at R1' = 1 (kinematics: Phi_q d1 = -Phi_t,
 * Phi_q d2 = gamma). */
static void bricard_derivs(const kd_smech* md, const double* q, double theta, double* d1, double* d2) {
    kd_error err;
    assert_int_equal(kd_smech_solve_velocity(md, theta, q, d1, 0, &err), KD_OK);
    assert_int_equal(kd_smech_solve_acceleration(md, theta, q, d1, d2, &err), KD_OK);
}

/* The generalised mass mu(theta) = sum m |dr_G/dtheta|^2 + w_th . (R J R^T) w_th of the one-DOF
 * path (w_th = 2 E(p) dp/dtheta, the angular velocity per unit theta'), and the potential
 * V(theta) = sum m g z_G, at the path's point near the guess qc. */
static void bricard_energy(const kd_smech* md, const double* qc, double theta, double* mu, double* V) {
    const int n = md->n;
    double q[64], d1[64], d2[64];
    memcpy(q, qc, sizeof(double) * n);
    bricard_at(md, theta, q);
    bricard_derivs(md, q, theta, d1, d2);
    *mu = 0, *V = 0;
    for (int b = 0; b < md->nbody; b++) {
        const double* rd = d1 + 7 * b;
        *mu += md->mass[b] * (rd[0] * rd[0] + rd[1] * rd[1] + rd[2] * rd[2]);
        *V += md->mass[b] * 9.81 * q[7 * b + 2];
        double R[9], w[3], Jg[9], RJ[9];
        kd_rot_from_quat(q + 7 * b + 3, R);
        kd_smech_omega(md, b, q, d1, w);
        const double* J = md->J + 9 * b;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) RJ[3 * i + j] = R[3 * i] * J[j] + R[3 * i + 1] * J[3 + j] + R[3 * i + 2] * J[6 + j];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Jg[3 * i + j] = RJ[3 * i] * R[3 * j] + RJ[3 * i + 1] * R[3 * j + 1] + RJ[3 * i + 2] * R[3 * j + 2];
        for (int i = 0; i < 3; i++) *mu += w[i] * (Jg[3 * i] * w[0] + Jg[3 * i + 1] * w[1] + Jg[3 * i + 2] * w[2]);
    }
}

/* Moving state of the linkage: theta0 along the path, theta' = thd (m->q0, m->qd0), with the
 * path's tangent and curvature there. */
static void bricard_state(kd_smech* m, const kd_smech* md, double th0, double thd, double* t1, double* t2) {
    double q0[64];
    memcpy(q0, m->q0, sizeof(double) * m->n);
    bricard_at(md, th0, q0);
    bricard_derivs(md, q0, th0, t1, t2);
    for (int i = 0; i < m->n; i++) m->q0[i] = q0[i], m->qd0[i] = thd * t1[i];
}

/* Every route's q'' at a moving state of Bricard's linkage agrees with the others to round-off,
 * and the centres of mass' accelerations with the one-DOF equation of motion
 * mu theta'' + 1/2 mu'(theta) theta'^2 + V'(theta) = 0 built from the kinetic and potential
 * energies along the path (r'' = r_thth theta'^2 + r_th theta''; mu', V' by Richardson-extrapolated
 * central differences, step 0.01 and 0.005). */
static void test_bricard_single_state(void** state) {
    (void)state;
    kd_smech* m = bricard(0);
    kd_smech* md = bricard(1);
    const int n = m->n;
    kd_error err;
    kd_smech_mobility mob;
    assert_int_equal(kd_smech_mobility_at(m, 0, m->q0, &mob, &err), KD_OK);
    assert_int_equal(mob.dof, 1);
    assert_int_equal(mob.nredundant, 1);
    /* a state away from the symmetric start: theta0 = 0.4 rad along the path, theta' = 1.5 rad/s */
    const double th0 = 0.4, thd = 1.5, H = 1e-3;
    double t1[64], t2[64];
    bricard_state(m, md, th0, thd, t1, t2);
    double r0[64];
    memcpy(r0, m->qd0, sizeof(double) * n);
    assert_int_equal(kd_smech_solve_velocity(m, 0, m->q0, m->qd0, 1, &err), KD_OK);   /* on Phi_q q' = 0 */
    double vd = 0;
    for (int i = 0; i < n; i++) vd = fmax(vd, fabs(m->qd0[i] - r0[i]));
    assert_true(vd < 1e-12);
    /* the reference theta'' */
    double mu, V, mup[4], Vp[4];
    bricard_energy(md, m->q0, th0, &mu, &V);
    const double st[4] = {H, -H, 0.5 * H, -0.5 * H};
    for (int k = 0; k < 4; k++) bricard_energy(md, m->q0, th0 + st[k], &mup[k], &Vp[k]);
    const double dmu = (4 * (mup[2] - mup[3]) / H - (mup[0] - mup[1]) / (2 * H)) / 3;
    const double dV = (4 * (Vp[2] - Vp[3]) / H - (Vp[0] - Vp[1]) / (2 * H)) / 3;
    const double thdd = -(0.5 * dmu * thd * thd + dV) / mu;
    printf("Bricard one-DOF reference at theta %.2f: mu %.6g kg m^2, mu' %.6g, V' %.6g N m, theta'' %.9g rad/s^2\n",
           th0, mu, dmu, dV, thdd);
    /* every route */
    double worst = 0, scale = 0;
    for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++) {
        kd_smech_route* r = NULL;
        double qdd[64];
        assert_int_equal(kd_smech_route_new((kd_mech_formalism)f, m, 0.0, m->q0, &r, &err), KD_OK);
        kd_status s = kd_smech_route_eval(r, 0.0, m->q0, m->qd0, qdd, &err);
        if (s) printf("%s\n", err.msg);
        assert_int_equal(s, KD_OK);
        kd_smech_route_free(&r);
        double d = 0;
        for (int b = 0; b < m->nbody; b++)
            for (int c = 0; c < 3; c++) {
                const double ref = t2[7 * b + c] * thd * thd + t1[7 * b + c] * thdd;
                d = fmax(d, fabs(qdd[7 * b + c] - ref)), scale = fmax(scale, fabs(ref));
            }
        printf("Bricard: r_G'' of %-12s - one-DOF reference: %.3g m/s^2\n", kd_mech_formalism_name((kd_mech_formalism)f), d);
        worst = fmax(worst, d);
    }
    printf("Bricard: largest |r_G''| %.4g m/s^2\n", scale);
    assert_true(worst < 1e-8 * scale);
    assert_true(single_state(m, "Bricard") < 1e-10);
    kd_smech_free(&m);
    kd_smech_free(&md);
}

/* Integrated from that state over 0.5 s, every route conserves T + V and the routes sharing a
 * formulation agree to round-off. On the way the coefficient of the row left out at the start
 * passes through zero in the linkage's one dependency: the view changes the rows left out
 * (kedyn/cms_rows.h; with the rows fixed, the maggi family's T + V jumped by 2.6e-4 J there). */
static void test_bricard_runs(void** state) {
    (void)state;
    kd_smech* m = bricard(0);
    kd_smech* md = bricard(1);
    const int n = m->n;
    double t1[64], t2[64];
    bricard_state(m, md, 0.4, 1.5, t1, t2);
    run_rec* rec = calloc(KD_MECH_FORMALISM_COUNT, sizeof(run_rec));
    run_routes(m, 0.5, 2e-4, rec);
    const double d_maggi_kane = traj_diff(&rec[KD_MECH_MAGGI], &rec[KD_MECH_KANE], n);
    const double d_maggi_ga = traj_diff(&rec[KD_MECH_MAGGI], &rec[KD_MECH_GIBBS_APPELL], n);
    const double d_ne_lag = traj_diff(&rec[KD_MECH_NEWTON_EULER], &rec[KD_MECH_LAGRANGE], n);
    const double d_ne_maggi = traj_diff(&rec[KD_MECH_NEWTON_EULER], &rec[KD_MECH_MAGGI], n);
    printf("Bricard 0.5 s: |q_kane - q_maggi| %.3g, |q_gibbs-appell - q_maggi| %.3g, |q_lagrange - q_newton-euler| "
           "%.3g, |q_maggi - q_newton-euler| %.3g\n",
           d_maggi_kane, d_maggi_ga, d_ne_lag, d_ne_maggi);
    assert_true(d_maggi_kane < 1e-11 && d_maggi_ga < 1e-11 && d_ne_lag < 1e-11);
    assert_true(d_ne_maggi < 1e-8);
    double moved = 0;
    for (int i = 0; i < n; i++) moved = fmax(moved, fabs(rec[0].q_end[i] - m->q0[i]));
    for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++) {
        printf("Bricard %-12s |dE| = %.3g J (E0 %.5f J), moved %.3g, rows left out changed %ld times\n",
               kd_mech_formalism_name((kd_mech_formalism)f), rec[f].dE, rec[f].E0, moved, rec[f].switches);
        assert_true(rec[f].dE < 1e-9 * fabs(rec[f].E0));
        assert_true(rec[f].switches >= 1);   /* the motion passes where the first choice fails */
    }
    assert_true(moved > 0.1);
    free(rec);
    kd_smech_free(&m);
    kd_smech_free(&md);
}

/* kedyn compare's library side on examples/bricard.yaml over 0.5 s: every route runs with the
 * redundant row left out, the Maggi family agrees with newton-euler to the rk4 error, lagrange
 * (ida) to its tolerance. */
static void test_bricard_compare(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_error err;
    assert_int_equal(kd_load_yaml_file(KD_TEST_MODELS_DIR "/../../examples/bricard.yaml", &d, &err), KD_OK);
    const kd_mech_formalism forms[5] = {KD_MECH_NEWTON_EULER, KD_MECH_MAGGI, KD_MECH_KANE, KD_MECH_GIBBS_APPELL,
                                        KD_MECH_LAGRANGE};
    kd_mech_compare c;
    kd_status st = kd_mech_compare_run(d, 0, forms, 5, 0.5, NULL, NULL, &c, &err);
    if (st) printf("%s\n", err.msg);
    assert_int_equal(st, KD_OK);
    assert_int_equal(c.dof, 1);
    for (int k = 0; k < c.nrows; k++) {
        const kd_mech_compare_row* r = &c.rows[k];
        printf("Bricard compare %-12s %-10s diff %.3g drift %.3g %s\n", kd_mech_formalism_name(r->formalism),
               r->formulation, r->max_rel_diff, r->max_drift, r->message);
        assert_int_equal(r->status, KD_OK);
        assert_true(r->max_rel_diff < (r->formalism == KD_MECH_LAGRANGE ? 1e-6 : 1e-8));
        assert_true(r->max_drift < 1e-7);
    }
    kd_mech_compare_free(&c);
    kd_desc_free(&d);
}

/* Lagrange's own route (ida, the DAE of its cms) on Bricard's linkage for a whole second from
 * theta0 = 0.4 rad, theta' = 1.5 rad/s: the rows left out change three times on the way, and IDA
 * restarts from a consistent state at each change (theory.md sec. 11.2, S16). Every output lies on
 * the one-DOF path q(theta) (theta the rotation of L1 about R1's z axis), and the energy of the
 * independent one-DOF equation, E(theta, theta') = mu(theta) theta'^2 / 2 + V(theta) with mu and V
 * from the path's kinematics alone, stays constant; the trajectory agrees with newton-euler's
 * augmented rk4 run. */
typedef struct ida_rec {
    const kd_smech *m, *md;
    int rows;
    double E0, dE, dpath, th_min, th_max, t_end;
    double traj[64 * 201];
} ida_rec;

static int ida_out(void* ctx, const kd_mbs_sample* s) {
    ida_rec* r = ctx;
    const kd_smech* m = r->m;
    const double* p = s->q + 3;  /* L1: a rotation about z from the identity */
    const double th = 2.0 * atan2(p[3], p[0]);
    double w[3], mu, V, q[64];
    kd_smech_omega(m, 0, s->q, s->qd, w);
    bricard_energy(r->md, s->q, th, &mu, &V);
    memcpy(q, s->q, sizeof(double) * (size_t)m->n);
    bricard_at(r->md, th, q);
    for (int i = 0; i < m->n; i++) r->dpath = fmax(r->dpath, fabs(q[i] - s->q[i]));
    const double E = 0.5 * mu * w[2] * w[2] + V;
    if (r->rows == 0) r->E0 = E, r->th_min = r->th_max = th;
    r->dE = fmax(r->dE, fabs(E - r->E0));
    r->th_min = fmin(r->th_min, th), r->th_max = fmax(r->th_max, th);
    if (r->rows < 201) memcpy(r->traj + (size_t)r->rows * m->n, s->q, sizeof(double) * (size_t)m->n);
    r->t_end = s->t, r->rows++;
    return 0;
}

static void test_bricard_lagrange_ida(void** state) {
    (void)state;
    kd_smech* m = bricard(0);
    kd_smech* md = bricard(1);
    const int n = m->n;
    double t1[64], t2[64];
    bricard_state(m, md, 0.4, 1.5, t1, t2);
    ida_rec* rec = calloc(2, sizeof(ida_rec));
    long switches = 0, restarts = 0;
    for (int k = 0; k < 2; k++) {
        const kd_mech_formalism f = k ? KD_MECH_NEWTON_EULER : KD_MECH_LAGRANGE;
        kd_mbs_opts o;
        kd_mbs_opts_default(&o);
        o.t_end = 1.0, o.dt = 5e-4, o.output_every = 10, o.stabilization = KD_MBS_STAB_PROJECTION;
        kd_smech_formalism_opts(f, m, &o);
        assert_int_equal(o.formulation, k ? KD_MBS_AUGMENTED : KD_MBS_IDA);
        kd_cms cms;
        kd_cms_rows* kept = NULL;
        kd_error err;
        kd_mbs_stats stats;
        memset(&stats, 0, sizeof(stats));
        assert_int_equal(kd_smech_formalism_system(f, m, 0.0, m->q0, &cms, &kept, &err), KD_OK);
        rec[k].m = m, rec[k].md = md;
        kd_status st = kd_mbs_forward(&cms, &o, m->q0, m->qd0, ida_out, &rec[k], &stats, &err);
        if (st) printf("%s: %s\n", kd_mech_formalism_name(f), err.msg);
        assert_int_equal(st, KD_OK);
        if (!k) switches = kd_cms_rows_switches(kept), restarts = stats.repartitions;
        kd_cms_rows_free(&kept);
        printf("Bricard 1 s, %-12s: t %.4f, %d outputs, theta in [%.3f, %.3f] rad, |E - E0| of the one-DOF "
               "equation %.3g J (E0 %.6f J), off the path %.3g\n",
               kd_mech_formalism_name(f), rec[k].t_end, rec[k].rows, rec[k].th_min, rec[k].th_max, rec[k].dE,
               rec[k].E0, rec[k].dpath);
    }
    double d = 0;
    for (int i = 0; i < 201 * n; i++) d = fmax(d, fabs(rec[0].traj[i] - rec[1].traj[i]));
    printf("Bricard 1 s: rows left out changed %ld times, IDA restarts %ld, |q_lagrange - q_newton-euler| %.3g\n",
           switches, restarts, d);
    assert_true(fabs(rec[0].t_end - 1.0) < 1e-12);
    assert_int_equal(rec[0].rows, 201);
    assert_true(switches >= 2 && restarts == switches);
    assert_true(rec[0].th_max - rec[0].th_min > 0.5);   /* a large swing */
    assert_true(rec[0].dE < 1e-6 * fabs(rec[0].E0));  /* IDA's global error at rtol 1e-8 */
    assert_true(rec[0].dpath < 1e-8);
    assert_true(rec[1].dE < 1e-9 * fabs(rec[1].E0));  /* the reference itself is sharp */
    assert_true(d < 5e-6);
    free(rec);
    kd_smech_free(&m);
    kd_smech_free(&md);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_state),
        cmocka_unit_test(test_rssr_runs),
        cmocka_unit_test(test_top_precession),
        cmocka_unit_test(test_compare_model),
        cmocka_unit_test(test_bricard_single_state),
        cmocka_unit_test(test_bricard_runs),
        cmocka_unit_test(test_bricard_compare),
        cmocka_unit_test(test_bricard_lagrange_ida),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
