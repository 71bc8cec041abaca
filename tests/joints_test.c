/* The joint equations of src/mechanism/joints.c, which the rigid mechanism (mech_test checks its
 * rows) and the floating-frame system share: for every joint type between every kind of body
 * point (ground, rigid, node of an elastic body with free and with held node DOFs), the analytic
 * Jacobian against central differences of Phi (and zero outside the slots the CSR pattern
 * keeps), and gamma against the second time derivative of Phi along a motion with q'' = 0. Then
 * the floating-frame route end to end through its kd_cms: Phi_q, Phi_t and gamma of a system of
 * rigid bodies and beams against differences of its Phi. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "joints.h"
#include "kedyn/ffr.h"
#include "kedyn/law.h"

/* ---- the joint module ---------------------------------------------------- */

/* q: rigid body 0 (0..2); elastic body 1: reference 3..5, elastic 6..11 (3 nodes, node 0 held
 * by its frame, node 2 without rz); rigid body 2 (12..14). */
enum { NQ = 15 };
static const int NODE_COORD[9] = {-1, -1, -1, 0, 1, 2, 3, 4, -1};
static kd_mbody BODIES[3];

static void init_bodies(void) {
    BODIES[0] = (kd_mbody){.kind = KD_MBODY_RIGID, .pose = KD_POSE_PLANAR, .off = 0, .nref = 3};
    BODIES[1] = (kd_mbody){.kind = KD_MBODY_ELASTIC, .pose = KD_POSE_PLANAR, .off = 3, .nref = 3, .elastic_off = 6,
                           .nelastic = 5, .nnode = 3, .node_coord = NODE_COORD};
    BODIES[2] = (kd_mbody){.kind = KD_MBODY_RIGID, .pose = KD_POSE_PLANAR, .off = 12, .nref = 3};
}

static const kd_mpoint POINTS[] = {
    {-1, -1, {0.2, -0.1}},        /* ground */
    {0, -1, {0.15, 0.05}},        /* rigid body 0 */
    {1, 1, {0.4, 0.0}},           /* elastic node, u v rz free */
    {1, 2, {0.8, 0.0}},           /* elastic node, rz held */
    {1, 0, {0.0, 0.0}},           /* elastic node held by the frame */
    {2, -1, {-0.1, 0.12}},        /* rigid body 2 */
};
enum { NPOINTS = sizeof(POINTS) / sizeof(POINTS[0]) };

static double urand(void) { return (double)rand() / RAND_MAX - 0.5; }

/* Phi of joint j between points a, b at (q, t) with the time-dependent part c1 = 0.5 acc t^2. */
static void phi_at(const joint_def* j, const kd_mpoint* a, const kd_mpoint* b, const double* q, double t, double acc,
                   double* phi) {
    kd_mpoint_state A, B;
    kd_mpoint_eval(BODIES, a, q, NULL, &A);
    kd_mpoint_eval(BODIES, b, q, NULL, &B);
    joint_eval(j, &A, &B, 0.3, 0.5 * acc * t * t, acc, phi, NULL, NULL);
}

/* One joint between points a and b: returns the worst Jacobian and gamma errors. */
static void check_joint(const joint_def* j, const kd_mpoint* a, const kd_mpoint* b, double* err_jac, double* err_gam,
                        double* err_mask) {
    const int nr = joint_rows(j->type);
    double q[NQ], v[NQ], qp[NQ], qm[NQ];
    for (int i = 0; i < NQ; i++) q[i] = 0.3 * urand(), v[i] = 2.0 * urand();
    q[2] += 0.7, q[5] -= 0.4, q[14] += 1.3;
    q[3] -= 0.5, q[12] += 0.6;   /* spread the bodies */
    kd_mpoint_state A, B;
    kd_mpoint_eval(BODIES, a, q, v, &A);
    kd_mpoint_eval(BODIES, b, q, v, &B);
    const double acc = 0.8, t = 0.0;
    double phi0[3], jl[JOINT_SLOTS * 3], gam[3], fp[3], fm[3];
    joint_eval(j, &A, &B, 0.3, 0.5 * acc * t * t, acc, phi0, jl, gam);
    const kd_mpoint p[2] = {*a, *b};
    const double h = 1e-6;
    for (int side = 0; side < 2; side++) {
        int col[KD_POINT_SLOTS];
        kd_mpoint_columns(BODIES, &p[side], col);
        for (int k = 0; k < KD_POINT_SLOTS; k++) {
            if (col[k] < 0) continue;
            memcpy(qp, q, sizeof(q)), memcpy(qm, q, sizeof(q));
            qp[col[k]] += h, qm[col[k]] -= h;
            phi_at(j, a, b, qp, t, acc, fp);
            phi_at(j, a, b, qm, t, acc, fm);
            for (int r = 0; r < nr; r++) {
                const double fd = (fp[r] - fm[r]) / (2 * h);
                /* both points may sit on one body: their slots share the column */
                double an = 0.0;
                int col2[KD_POINT_SLOTS];
                for (int s2 = 0; s2 < 2; s2++) {
                    kd_mpoint_columns(BODIES, &p[s2], col2);
                    for (int k2 = 0; k2 < KD_POINT_SLOTS; k2++)
                        if (col2[k2] == col[k]) an += jl[JOINT_SLOTS * r + KD_POINT_SLOTS * s2 + k2];
                }
                *err_jac = fmax(*err_jac, fabs(fd - an));
                if (!(joint_row_slots(j->type, r, side) & (1u << k))) *err_mask = fmax(*err_mask, fabs(fd));
            }
        }
    }
    /* gamma = -d2 Phi/dt2 along (q + v s, s) */
    const double hs = 1e-4;
    for (int i = 0; i < NQ; i++) qp[i] = q[i] + v[i] * hs, qm[i] = q[i] - v[i] * hs;
    phi_at(j, a, b, qp, t + hs, acc, fp);
    phi_at(j, a, b, qm, t - hs, acc, fm);
    for (int r = 0; r < nr; r++) *err_gam = fmax(*err_gam, fabs((fp[r] - 2 * phi0[r] + fm[r]) / (hs * hs) + gam[r]));
}

static void test_joint_equations(void** state) {
    (void)state;
    init_bodies();
    srand(11);
    static const char* const names[JOINT_TYPES] = {"revolute", "prismatic", "fixed",  "distance",
                                                   "rolling",  "point-on-line", "angle", "slide"};
    for (int t = 0; t < JOINT_TYPES; t++) {
        double ej = 0, eg = 0, em = 0;
        int pairs = 0;
        for (int a = 0; a < NPOINTS; a++)
            for (int b = 0; b < NPOINTS; b++) {
                if (POINTS[a].body == POINTS[b].body) continue;  /* joints join two bodies */
                const joint_def j = {(joint_type)t, {0.6, 0.8}, 0.5, -0.07, 0.2};
                for (int rep = 0; rep < 3; rep++, pairs++) check_joint(&j, &POINTS[a], &POINTS[b], &ej, &eg, &em);
            }
        printf("%-13s %3d pairs: Jacobian %.1e, outside pattern %.1e, gamma %.1e\n", names[t], pairs, ej, em, eg);
        assert_true(ej < 1e-8);
        assert_true(em < 1e-8);
        assert_true(eg < 1e-5);
    }
}

/* A rigid point and a node that coincide give the same state through both descriptions: a
 * rigid body's point and an elastic node with zero elastic coordinates. */
static void test_rigid_and_undeformed_node_agree(void** state) {
    (void)state;
    init_bodies();
    double q[NQ] = {0}, v[NQ] = {0};
    q[3] = 0.3, q[4] = -0.2, q[5] = 0.9, v[3] = 1.5, v[4] = -0.5, v[5] = 2.0;
    kd_mbody rigid = {.kind = KD_MBODY_RIGID, .pose = KD_POSE_PLANAR, .off = 3, .nref = 3};
    const kd_mpoint node = {1, 1, {0.4, 0.0}}, pt = {0, -1, {0.4, 0.0}};
    kd_mpoint_state N, R;
    kd_mpoint_eval(BODIES, &node, q, v, &N);
    kd_mpoint_eval(&rigid, &pt, q, v, &R);
    for (int c = 0; c < 2; c++) {
        assert_true(N.r[c] == R.r[c] && N.a[c] == R.a[c] && N.pa[c] == R.pa[c]);
        assert_true(N.g[c] == R.g[c]);
    }
    assert_true(N.angle == R.angle && N.wa == R.wa);
}

/* ---- the floating-frame route through its kd_cms ----------------------------- */

static void test_ffr_route_fd(void** state) {
    (void)state;
    kd_error err;
    kd_error_clear(&err);
    kd_ffr_system* s = kd_ffr_new(0.0, -9.81);
    const kd_ffr_beam chord = {.length = 0.3, .elements = 3, .theory = KD_THEORY_EULER_BERNOULLI, .E = 2e11,
                               .rho = 7800, .A = 1e-4, .Iz = 1e-9, .frame = KD_FFR_CHORD};
    kd_ffr_beam root = chord;
    root.frame = KD_FFR_ROOT, root.length = 0.4, root.elements = 2;
    const int crank = kd_ffr_add_beam(s, "crank", &root, &err);
    const int rod = kd_ffr_add_beam(s, "rod", &chord, &err);
    const int slider = kd_ffr_add_rigid(s, "slider", 1.0, 0.01, &err);
    assert_true(crank >= 0 && rod >= 0 && slider >= 0);
    const kd_ffr_point G = {.body = -1, .p = {0, 0}}, C0 = {.body = crank, .node = 0}, C2 = {.body = crank, .node = 2};
    const kd_ffr_point R0 = {.body = rod, .node = 0}, R3 = {.body = rod, .node = 3}, S = {.body = slider, .p = {0.01, 0}};
    kd_law law = kd_law_constant(0.0);
    law.type = KD_LAW_SINE, law.amplitude = 0.4, law.omega = 3.0, law.phase = 0.2;
    assert_int_equal(kd_ffr_add_revolute(s, G, C0, &err), KD_OK);
    assert_int_equal(kd_ffr_add_revolute(s, C2, R0, &err), KD_OK);
    assert_int_equal(kd_ffr_add_revolute(s, R3, S, &err), KD_OK);
    const double c[2] = {0.0, 0.02}, d[2] = {1.0, 0.1};
    assert_int_equal(kd_ffr_add_line(s, S, c, d, &err), KD_OK);
    assert_int_equal(kd_ffr_add_angle(s, C2, R0, 0.3, NULL, &err), KD_OK);   /* a weld's angle, at nodes */
    assert_int_equal(kd_ffr_add_angle(s, R3, S, -0.2, NULL, &err), KD_OK);
    assert_int_equal(kd_ffr_add_driver(s, crank, 0.1, &law, &err), KD_OK);   /* time-dependent */
    assert_int_equal(kd_ffr_finish(s, &err), KD_OK);
    const kd_cms* cms = kd_ffr_cms(s);
    const int n = cms->n, nc = cms->nc;
    double* q = calloc((size_t)n, sizeof(double));
    double* v = calloc((size_t)n, sizeof(double));
    double* qp = calloc((size_t)n, sizeof(double));
    double* qm = calloc((size_t)n, sizeof(double));
    double* jac = calloc((size_t)cms->jac_nnz, sizeof(double));
    double* D = calloc((size_t)nc * n, sizeof(double));
    double *fp = calloc((size_t)nc, sizeof(double)), *fm = calloc((size_t)nc, sizeof(double));
    double *f0 = calloc((size_t)nc, sizeof(double)), *gam = calloc((size_t)nc, sizeof(double));
    srand(5);
    for (int i = 0; i < n; i++) q[i] = 0.5 * urand(), v[i] = 2.0 * urand();
    for (int b = 0; b < 3; b++) {
        for (int i = kd_ffr_body_offset(s, b) + 3; i < kd_ffr_body_offset(s, b) + 3 + kd_ffr_body_elastic(s, b); i++)
            q[i] *= 0.05, v[i] *= 0.1;   /* small elastic coordinates */
    }
    const double t = 0.4;
    cms->jacobian(cms->ctx, t, q, jac);
    for (int r = 0; r < nc; r++)
        for (int e = cms->jac_rowptr[r]; e < cms->jac_rowptr[r + 1]; e++) D[r + (size_t)nc * cms->jac_col[e]] = jac[e];
    const double h = 1e-6;
    double worst = 0;
    for (int col = 0; col < n; col++) {   /* every column: an entry missing from the pattern shows */
        memcpy(qp, q, sizeof(double) * n), memcpy(qm, q, sizeof(double) * n);
        qp[col] += h, qm[col] -= h;
        cms->phi(cms->ctx, t, qp, fp);
        cms->phi(cms->ctx, t, qm, fm);
        for (int r = 0; r < nc; r++) worst = fmax(worst, fabs((fp[r] - fm[r]) / (2 * h) - D[r + (size_t)nc * col]));
    }
    printf("floating-frame Phi_q vs central differences: %.1e\n", worst);
    assert_true(worst < 1e-8);
    /* Phi_t */
    cms->phi_t(cms->ctx, t, q, gam);
    cms->phi(cms->ctx, t + h, q, fp);
    cms->phi(cms->ctx, t - h, q, fm);
    worst = 0;
    for (int r = 0; r < nc; r++) worst = fmax(worst, fabs((fp[r] - fm[r]) / (2 * h) - gam[r]));
    assert_true(worst < 1e-8);
    /* gamma = Phi_q q'' - d2 Phi/ds2 along (q + v s, t + s): here q'' = 0 */
    const double hs = 1e-4;
    for (int i = 0; i < n; i++) qp[i] = q[i] + v[i] * hs, qm[i] = q[i] - v[i] * hs;
    cms->phi(cms->ctx, t + hs, qp, fp);
    cms->phi(cms->ctx, t - hs, qm, fm);
    cms->phi(cms->ctx, t, q, f0);
    cms->gamma(cms->ctx, t, q, v, gam);
    worst = 0;
    for (int r = 0; r < nc; r++) worst = fmax(worst, fabs((fp[r] - 2 * f0[r] + fm[r]) / (hs * hs) + gam[r]));
    printf("floating-frame gamma vs second differences: %.1e\n", worst);
    assert_true(worst < 1e-5);
    free(q), free(v), free(qp), free(qm), free(jac), free(D), free(fp), free(fm), free(f0), free(gam);
    kd_ffr_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_joint_equations),
        cmocka_unit_test(test_rigid_and_undeformed_node_agree),
        cmocka_unit_test(test_ffr_route_fd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
