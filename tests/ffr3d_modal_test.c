/* Modal reduction of spatial floating-frame links (kd_ffr3d_reduce, src/links/floating_body3d_modal.c;
 * theory.md sec. 17, F11), each against a reference independent of the reduction:
 *   - convergence to the unreduced link: a flexible pendulum (a 6-element beam on a tilted revolute
 *     joint, a tip mass on a ball joint at its last node, gravity) reduced on N = 1, 2, 4, 8, 16
 *     and all 30 fixed-interface modes with the tip node's constraint modes: the deflections of the
 *     tip and of the midspan node (an interior node, from the basis) approach the unreduced run's
 *     with errors strictly falling, and the complete basis reproduces it to round-off;
 *   - the same spinning faster with the geometric stiffness (F9): with the static vectors of the
 *     distributed loads (F12) the errors fall below 1e-4, without them they stay above 1e-2;
 *   - `static_correction` (F12) on the same: basis (all six static vectors), soft (the mainly axial
 *     responses to the linearly growing loads left out), none: errors ordered, soft < 2e-3, none
 *     > 1e-2, the reduced link's top frequency rising from none to soft to basis;
 *   - a free tumbling reduced link (no joints, no gravity, the geometric stiffness on): T + U, the
 *     linear and the angular momentum stay constant (conservation laws, not the reduced M x'' = Q);
 *     dropping the projected quadratic-velocity force breaks the energy balance (checked by the
 *     same routine on a perturbed copy of the force). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/ffr3d.h"
#include "kedyn/mbs.h"
#include "kedyn/smech.h"

static const double AL_E = 7e9, AL_RHO = 2700, AREA = 4e-4, IBEND = 1.3333e-8, JT = 2.25e-8;
static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

static kd_ffr3d_beam beam3(double L, int ne, double E, int geometric) {
    kd_ffr3d_beam b = {L, ne, KD_THEORY_EULER_BERNOULLI, E, E / 2.6, AL_RHO, AREA, IBEND, IBEND, JT, geometric};
    return b;
}

static kd_mbs_opts opts(double t_end, double dt, int every) {
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.formulation = KD_MBS_AUGMENTED, o.t_end = t_end, o.dt = dt, o.output_every = every;
    o.stabilization = KD_MBS_STAB_PROJECTION;
    return o;
}

/* ---- the flexible pendulum: node displacements at the output instants ---- */
#define PEND_NE 6
#define PEND_MAX 200
#define G_SPIN 15.0
typedef struct pend_rec {
    const kd_ffr3d_system* s;
    int n;
    double u[PEND_MAX][2][6];   /* tip node, midspan node */
    double wmax;                /* the reduced link's highest frequency clamped at its frame, rad/s */
} pend_rec;

static int pend_out(void* ctx, const kd_mbs_sample* smp) {
    pend_rec* r = ctx;
    if (r->n == PEND_MAX) return 1;
    kd_ffr3d_node_displacement(r->s, 0, PEND_NE, smp->q, r->u[r->n][0]);
    kd_ffr3d_node_displacement(r->s, 0, PEND_NE / 2, smp->q, r->u[r->n][1]);
    r->n++;
    return 0;
}

/* modes 0: unreduced; geometric: F9 on (and a spin of G_SPIN rad/s, else 4); sv: with the static
 * vectors of F12 */
static void pendulum_g(int modes, double E, double t_end, int geometric, int sv, pend_rec* r) {
    const double L = 0.6, g[3] = {0, 0, -9.81}, ax[3] = {0, 0.3, 1}, zero[3] = {0, 0, 0};
    kd_ffr3d_system* s = kd_ffr3d_new(g);
    kd_error err;
    kd_ffr3d_beam b = beam3(L, PEND_NE, E, geometric);
    assert_int_equal(kd_ffr3d_add_beam(s, "beam", &b, &err), 0);
    const int tipnode = PEND_NE;
    if (modes) assert_int_equal(kd_ffr3d_reduce_basis(s, 0, modes, &tipnode, 1, sv, &err), KD_OK);
    const double Jm[9] = {1e-5, 0, 0, 0, 1e-5, 0, 0, 0, 1e-5};
    assert_int_equal(kd_ffr3d_add_rigid(s, "mass", 0.3, Jm, &err), 1);
    assert_true(kd_ffr3d_add_joint(s, KD_FFR3D_REVOLUTE, (kd_ffr3d_point){.body = -1},
                                   (kd_ffr3d_point){.body = 0, .node = 0}, ax, &err) >= 0);
    assert_true(kd_ffr3d_add_joint(s, KD_FFR3D_SPHERICAL, (kd_ffr3d_point){.body = 0, .node = PEND_NE},
                                   (kd_ffr3d_point){.body = 1}, NULL, &err) >= 0);
    const int n = kd_ffr3d_size(s);
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    /* spinning at W rad/s about the joint axis */
    const double nrm = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]), W = geometric ? G_SPIN : 4.0;
    const double w0[3] = {W * ax[0] / nrm, W * ax[1] / nrm, W * ax[2] / nrm}, tip[3] = {L, 0, 0};
    const double vt[3] = {w0[1] * tip[2] - w0[2] * tip[1], w0[2] * tip[0] - w0[0] * tip[2], w0[0] * tip[1] - w0[1] * tip[0]};
    kd_ffr3d_set_pose(s, 0, zero, I3, zero, w0, q, qd);
    kd_ffr3d_set_pose(s, 1, tip, I3, vt, w0, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, &err), KD_OK);
    memset(r, 0, sizeof(*r));
    r->s = s;
    r->wmax = modes ? kd_ffr3d_body_omega_max(s, 0) : 0.0;
    kd_mbs_opts o = opts(t_end, 1e-5, 250);
    assert_int_equal(kd_mbs_forward(kd_ffr3d_cms(s), &o, q, qd, pend_out, r, NULL, &err), KD_OK);
    free(q), free(qd);
    kd_ffr3d_free(&s);
}

static void pendulum(int modes, double E, double t_end, pend_rec* r) { pendulum_g(modes, E, t_end, 0, 1, r); }

/* the largest difference of the tip and midspan v, w (and the largest of a's) */
static double pend_diff(const pend_rec* a, const pend_rec* b, double* amax) {
    double d = 0;
    *amax = 0;
    assert_int_equal(a->n, b->n);
    for (int k = 0; k < a->n; k++)
        for (int p = 0; p < 2; p++)
            for (int c = 1; c < 3; c++) {
                d = fmax(d, fabs(a->u[k][p][c] - b->u[k][p][c]));
                *amax = fmax(*amax, fabs(a->u[k][p][c]));
            }
    return d;
}

static void test_converges_to_unreduced(void** state) {
    (void)state;
    static pend_rec full, red;
    const double t_end = 0.25;
    pendulum(0, AL_E, t_end, &full);
    const int N[] = {1, 2, 4, 8, 16, 30};
    double e[6], amax = 0;
    for (int i = 0; i < 6; i++) {
        pendulum(N[i], AL_E, t_end, &red);
        e[i] = pend_diff(&full, &red, &amax);
        printf("pendulum, %2d modes + the tip's 6 constraint modes: tip/midspan v, w differ from the unreduced "
               "(up to %.4e m) by %.3e m (%.2e)\n",
               N[i], amax, e[i], e[i] / amax);
    }
    assert_true(amax > 1e-3);   /* both bending planes carry millimetres */
    /* falling from 2 modes on (one mode is one of a degenerate pair, the square section's two
     * bending planes, which LAPACK chooses) */
    for (int i = 2; i < 6; i++) assert_true(e[i] < e[i - 1]);
    assert_true(e[0] < 0.05 * amax);   /* one mode: a few per cent */
    assert_true(e[2] < 1e-3 * amax);   /* four modes */
    assert_true(e[5] < 1e-9 * amax);   /* the complete basis: round-off */
}

/* With the geometric stiffness (F9) and a spin of 15 rad/s (the beam's own centrifugal load
 * stretches it along x): without the static vectors of F12 the reduced link has no interior axial
 * field of that distributed load and stops at a floor whatever N; with them it converges. */
/* the unreduced spinning pendulum with the geometric stiffness (run once, shared by two tests) */
static const pend_rec* geo_full(double t_end) {
    static pend_rec full;
    static int done;
    if (!done) pendulum_g(0, AL_E, t_end, 1, 1, &full), done = 1;
    return &full;
}

static void test_geometric_converges(void** state) {
    (void)state;
    static pend_rec red;
    const double t_end = 0.25;
    const pend_rec* full = geo_full(t_end);
    const int N[] = {2, 4, 16};   /* 2, 4: whole pairs of the square section's degenerate bending modes */
    double e[3], e0, amax = 0;
    for (int i = 0; i < 3; i++) {
        pendulum_g(N[i], AL_E, t_end, 1, 1, &red);
        e[i] = pend_diff(full, &red, &amax) / amax;
        printf("pendulum with the geometric stiffness, %2d modes + the tip's constraint modes + the static vectors: "
               "tip/midspan v, w differ from the unreduced (up to %.4e m) by %.3e of it\n",
               N[i], amax, e[i]);
    }
    pendulum_g(16, AL_E, t_end, 1, 0, &red);
    e0 = pend_diff(full, &red, &amax) / amax;
    printf("the same, 16 modes without the static vectors: %.3e\n", e0);
    assert_true(amax > 1e-3);
    assert_true(e[1] < e[0] && e[2] < e[1]);
    assert_true(e[0] < 1e-2);
    assert_true(e[2] < 1e-4);   /* the bound the basis without the static vectors fails: */
    assert_true(e0 > 1e-2);     /* its floor, the interior axial field of the centrifugal load missing */
}

/* `static_correction` of a two-way link (F12) on the spinning pendulum with the geometric
 * stiffness, 4 modes, against the unreduced link: none (F11 alone), soft (the static vectors but
 * the mainly axial responses to the linearly growing loads), basis (all six). The accuracy falls
 * in that order, the reduced link's top frequency (the explicit step's bound) rises: soft keeps
 * the uniform axial load's vector, without which (the measured 3.6e-2 of none) the centrifugal
 * stretch has no interior axial field. */
static void test_static_correction_choice(void** state) {
    (void)state;
    static pend_rec red;
    const double t_end = 0.25;
    const pend_rec* full = geo_full(t_end);
    double e[3], w[3], amax = 0;
    static const char* const name[3] = {"none", "basis", "soft"};
    for (int sv = 0; sv < 3; sv++) {   /* kd_ffr3d_reduce_basis: 0 none, 1 all, 2 soft */
        pendulum_g(4, AL_E, t_end, 1, sv, &red);
        e[sv] = pend_diff(full, &red, &amax) / amax;
        w[sv] = red.wmax;
        printf("pendulum with the geometric stiffness, 4 modes, static_correction %-5s: v, w differ from the unreduced by "
               "%.3e of %.4e m; omega_max %.4e rad/s\n",
               name[sv], e[sv], amax, w[sv]);
    }
    assert_true(e[1] < e[2] && e[2] < e[0]);   /* basis, soft, none */
    assert_true(e[2] < 2e-3);                  /* measured 9.9e-4 */
    assert_true(e[0] > 1e-2);                  /* measured 3.6e-2 */
    assert_true(w[0] < w[2] && w[2] < 0.9 * w[1]);   /* measured 6.5e3, 2.2e4, 2.7e4 rad/s */
}

/* ---- a free tumbling reduced link: conservation ---- */
typedef struct cons_rec {
    const kd_ffr3d_system* s;
    double E0, p0[3], L0[3], dE, dp, dL, Umax;
} cons_rec;

static int cons_out(void* ctx, const kd_mbs_sample* smp) {
    cons_rec* r = ctx;
    double T, U, p[3], L[3];
    kd_ffr3d_energy(r->s, smp->q, smp->qd, &T, NULL, &U);
    kd_ffr3d_momentum(r->s, smp->q, smp->qd, p, L);
    r->dE = fmax(r->dE, fabs(T + U - r->E0));
    r->Umax = fmax(r->Umax, U);
    for (int i = 0; i < 3; i++) r->dp = fmax(r->dp, fabs(p[i] - r->p0[i])), r->dL = fmax(r->dL, fabs(L[i] - r->L0[i]));
    return 0;
}

/* The perturbation: a kd_cms whose force drops the quadratic-velocity part of the link's elastic
 * rows (those rows evaluated at zero velocities). */
static const kd_cms* g_orig;
static double* g_zero;

static int drop_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    const kd_ffr3d_system* s = ctx;
    const int st = g_orig->force(ctx, t, q, qd, Q);
    const int off = kd_ffr3d_body_offset(s, 0), sz = kd_ffr3d_body_size(s, 0);
    double Q0[64];
    memset(g_zero, 0, sizeof(double) * (size_t)sz);
    kd_ffr3d_body_force(s, 0, q + off, g_zero, Q0);
    for (int k = KD_FFR3D_POSE; k < sz; k++) Q[off + k] = Q0[k];
    return st;
}

static void tumble(int drop, cons_rec* r) {
    const double L = 0.8, t_end = 0.15;
    const int ne = 6, modes = 5;
    kd_ffr3d_system* s = kd_ffr3d_new(NULL);
    kd_error err;
    kd_ffr3d_beam b = beam3(L, ne, AL_E, 1);
    kd_ffr3d_add_beam(s, "beam", &b, &err);
    assert_int_equal(kd_ffr3d_reduce(s, 0, modes, NULL, 0, &err), KD_OK);
    const int n = kd_ffr3d_size(s);
    /* the 5 modes and the 6 static vectors of F12 (uniform and linear loads along x, y, z) */
    assert_int_equal(n, KD_FFR3D_POSE + modes + 6);
    double* q = calloc(n, sizeof(double));
    double* qd = calloc(n, sizeof(double));
    const double r0[3] = {0.1, -0.2, 0.3}, v0[3] = {0.5, 0.2, -0.1}, w0[3] = {1.5, -4.0, 6.0}, axr[3] = {1, 2, 3};
    double R[9];
    kd_rot_axis_angle(axr, 0.7, R);
    kd_ffr3d_set_pose(s, 0, r0, R, v0, w0, q, qd);
    assert_int_equal(kd_ffr3d_finish(s, q, &err), KD_OK);
    /* the modal coordinates (M-normalised, sqrt(kg) m): a bent start with modal velocities */
    for (int a = 0; a < modes; a++) q[KD_FFR3D_POSE + a] = 2e-3 / (a + 1), qd[KD_FFR3D_POSE + a] = 0.05 * (a % 2 ? -1 : 1);
    double T0, U0;
    kd_ffr3d_energy(s, q, qd, &T0, NULL, &U0);
    memset(r, 0, sizeof(*r));
    r->s = s, r->E0 = T0 + U0;
    kd_ffr3d_momentum(s, q, qd, r->p0, r->L0);
    kd_mbs_opts o = opts(t_end, 5e-6, 100);   /* RK4 error of the static vectors' axial frequencies below 1e-8 */
    const kd_cms* c = kd_ffr3d_cms(s);
    kd_cms pc = *c;
    g_orig = c, g_zero = calloc(n, sizeof(double));
    if (drop) pc.force = drop_force;
    assert_int_equal(kd_mbs_forward(&pc, &o, q, qd, cons_out, r, NULL, &err), KD_OK);
    free(g_zero), free(q), free(qd);
    kd_ffr3d_free(&s);
}

static void test_free_tumbling_conserves(void** state) {
    (void)state;
    cons_rec r, rd;
    tumble(0, &r);
    const double nL = sqrt(r.L0[0] * r.L0[0] + r.L0[1] * r.L0[1] + r.L0[2] * r.L0[2]);
    const double np = sqrt(r.p0[0] * r.p0[0] + r.p0[1] * r.p0[1] + r.p0[2] * r.p0[2]);
    printf("free reduced link (5 modes): T + U = %.6e J (U up to %.3e J); |dE| %.2e, |dp| %.2e (|p| %.3e), |dL| %.2e "
           "(|L| %.3e)\n",
           r.E0, r.Umax, r.dE, r.dp, np, r.dL, nL);
    assert_true(r.Umax > 1e-3 * r.E0);
    assert_true(r.dE < 1e-7 * r.E0);   /* RK4's own error at h = 1e-5 s */
    assert_true(r.dp < 1e-7 * np);
    assert_true(r.dL < 1e-7 * nL);
    /* the perturbation: without the projected quadratic-velocity force of the elastic rows */
    tumble(1, &rd);
    printf("free reduced link without the quadratic-velocity force of the modes: |dE| %.2e (%.1e of T + U)\n", rd.dE,
           rd.dE / rd.E0);
    assert_true(rd.dE > 1e3 * r.dE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_converges_to_unreduced),
        cmocka_unit_test(test_geometric_converges),
        cmocka_unit_test(test_static_correction_choice),
        cmocka_unit_test(test_free_tumbling_conserves),
    };
    if (getenv("KD_TEST_FILTER")) cmocka_set_test_filter(getenv("KD_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
