/* The sparse LU path of spatial kinematics and inverse dynamics (kedyn/smech_lu.h, theory.md sec.
 * 11.3) against the dense SVD path (a different method: minimum-norm least squares on the dense
 * Phi_q and on the augmented matrix [M Phi_q^T; Phi_q 0]):
 *   - the spatial wiper of examples/wiper_spatial.yaml (42 coordinates, a closed loop driven by
 *     its motor record): kinematics q, q', q'' at every instant, the joint reactions and the
 *     driving torque by multipliers and by projection, the mobility, and the condition numbers
 *     (the 1-norm estimate of the LU against the SVD's 2-norm ratio, within the factor n of the
 *     norms' equivalence);
 *   - the one-way links' rigid cycle of that wiper (kd_sked_rigid_solve: chord Newton on the sparse
 *     LU) against the dense kinematics and multipliers, instant by instant;
 *   - a driven spatial chain of 6 revolutes: the same comparisons, and the root's driving torque at
 *     the first instant (at rest, straight and hanging: zero) and later against the static moment
 *     of gravity plus the bodies' inertia by Newton-Euler about the root axis. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lapacke.h>

#include "ball_chain.h"
#include "kedyn/load_yaml.h"
#include "kedyn/sked.h"
#include "kedyn/smech.h"
#include "kedyn/smech_qr.h"

typedef struct hist {
    int n, cap, rows;
    double *t, *q, *qd, *qdd;
} hist;

static int rec(void* ctx, double t, const double* q, const double* qd, const double* qdd, const kd_smech_info* info) {
    (void)info;
    hist* h = ctx;
    if (h->rows >= h->cap) return 1;
    const size_t o = (size_t)h->rows * h->n;
    h->t[h->rows] = t;
    memcpy(h->q + o, q, sizeof(double) * h->n), memcpy(h->qd + o, qd, sizeof(double) * h->n);
    memcpy(h->qdd + o, qdd, sizeof(double) * h->n);
    h->rows++;
    return 0;
}

static hist hist_new(int n, int cap) {
    hist h = {n, cap, 0, calloc(cap, sizeof(double)), calloc((size_t)cap * n, sizeof(double)),
              calloc((size_t)cap * n, sizeof(double)), calloc((size_t)cap * n, sizeof(double))};
    return h;
}
static void hist_free(hist* h) { free(h->t), free(h->q), free(h->qd), free(h->qdd); }

static double maxabs(const double* a, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}
static double maxdiff(const double* a, const double* b, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

/* Kinematics, multipliers, projection and mobility of m on both paths over [0, t_end]. */
static void compare_paths(kd_smech* m, double t_end, int steps, const char* what) {
    const int n = m->n;
    kd_error err;
    hist h[2] = {hist_new(n, steps + 1), hist_new(n, steps + 1)};
    double cmax[2];
    kd_smech_mobility mob[2];
    for (int p = 0; p < 2; p++) {
        m->linalg = p ? KD_SMECH_LINALG_SPARSE : KD_SMECH_LINALG_DENSE;
        kd_status st = kd_smech_kinematics(m, t_end, steps, 1e12, rec, &h[p], &cmax[p], &err);
        if (st) fail_msg("%s (%s): %s", what, p ? "sparse" : "dense", err.msg);
        assert_int_equal(h[p].rows, steps + 1);
        assert_int_equal(kd_smech_mobility_at(m, 0.0, h[p].q, &mob[p], &err), KD_OK);
    }
    assert_int_equal(mob[0].rank, mob[1].rank);
    assert_int_equal(mob[0].rank_driven, mob[1].rank_driven);
    assert_int_equal(mob[0].dof, mob[1].dof);
    assert_int_equal(mob[1].dof_undriven, 0);
    assert_int_equal(mob[0].nredundant, 0);
    const size_t N = (size_t)(steps + 1) * n;
    const double dq = maxdiff(h[0].q, h[1].q, N), dqd = maxdiff(h[0].qd, h[1].qd, N);
    const double dqdd = maxdiff(h[0].qdd, h[1].qdd, N);
    const double sq = maxabs(h[0].q, N), sqd = maxabs(h[0].qd, N), sqdd = maxabs(h[0].qdd, N);
    printf("%s: sparse - dense: q %.3g (of %.3g), q' %.3g (of %.3g), q'' %.3g (of %.3g); largest condition "
           "number: dense (2-norm) %.4g, sparse (1-norm estimate) %.4g\n",
           what, dq, sq, dqd, sqd, dqdd, sqdd, cmax[0], cmax[1]);
    assert_true(dq < 1e-12 * sq && dqd < 1e-10 * sqd && dqdd < 1e-9 * sqdd);
    assert_true(cmax[1] > cmax[0] / n && cmax[1] < cmax[0] * n);
    /* reactions at every fourth instant, both routes on both paths */
    kd_smech_reactions re[4];
    for (int k = 0; k < 4; k++) assert_int_equal(kd_smech_reactions_alloc(m, &re[k]), KD_OK);
    double dF = 0, sF = 0, dD = 0, sD = 0;
    double* qdd = calloc((size_t)n, sizeof(double));
    for (int i = 0; i <= steps; i += 4) {
        const double t = h[0].t[i], *q = h[0].q + (size_t)i * n, *qd = h[0].qd + (size_t)i * n;
        for (int p = 0; p < 2; p++) {
            m->linalg = p ? KD_SMECH_LINALG_SPARSE : KD_SMECH_LINALG_DENSE;
            assert_int_equal(kd_smech_inverse_multipliers(m, t, q, qd, qdd, &re[2 * p], &err), KD_OK);
            assert_int_equal(kd_smech_inverse_projection(m, t, q, qd, h[0].qdd + (size_t)i * n, &re[2 * p + 1], &err),
                             KD_OK);
        }
        for (int k = 1; k < 4; k++) {
            dF = fmax(dF, maxdiff(re[0].F, re[k].F, 6 * (size_t)m->njoint));
            dD = fmax(dD, maxdiff(re[0].drive, re[k].drive, (size_t)m->ndriver));
        }
        sF = fmax(sF, maxabs(re[0].F, 6 * (size_t)m->njoint)), sD = fmax(sD, maxabs(re[0].drive, (size_t)m->ndriver));
    }
    printf("%s: reactions by multipliers and projection, sparse and dense: |dF| %.3g (of %.3g), |d drive| %.3g "
           "(of %.3g)\n",
           what, dF, sF, dD, sD);
    assert_true(sF > 0 && dF < 1e-8 * sF && dD < 1e-8 * sD);
    for (int k = 0; k < 4; k++) kd_smech_reactions_free(&re[k]);
    free(qdd);
    hist_free(&h[0]), hist_free(&h[1]);
    m->linalg = KD_SMECH_LINALG_AUTO;
}

static kd_smech* load(const char* file, kd_desc** d) {
    kd_error err;
    kd_smech* m = NULL;
    if (kd_load_yaml_file(file, d, &err) || kd_smech_compile(*d, &m, &err)) fail_msg("%s", err.msg);
    return m;
}

static void test_wiper(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_smech* m = load(KD_TEST_MODELS_DIR "/../../examples/wiper_spatial.yaml", &d);
    assert_int_equal(m->n, 42);
    assert_int_equal(m->nc, m->n);
    compare_paths(m, 1.2, 60, "wiper");
    kd_smech_free(&m);
    kd_desc_free(&d);
}

/* The rigid cycle of the one-way links (chord Newton and the sparse LU) against the dense path. */
static void test_wiper_rigid_cycle(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_smech* m = load(KD_TEST_MODELS_DIR "/../../examples/wiper_spatial_elastic.yaml", &d);
    const int n = m->n, steps = 240;
    kd_error err;
    kd_sked_rigid r;
    assert_int_equal(kd_sked_rigid_solve(m, 1.2, steps, 1e8, &r, &err), KD_OK);
    assert_int_equal(r.nsamples, steps + 1);
    m->linalg = KD_SMECH_LINALG_DENSE;
    hist h = hist_new(n, steps + 1);
    double cmax;
    assert_int_equal(kd_smech_kinematics(m, 1.2, steps, 1e8, rec, &h, &cmax, &err), KD_OK);
    const size_t N = (size_t)(steps + 1) * n;
    const double dq = maxdiff(h.q, r.q, N), dqd = maxdiff(h.qd, r.qd, N), dqdd = maxdiff(h.qdd, r.qdd, N);
    kd_smech_reactions re;
    assert_int_equal(kd_smech_reactions_alloc(m, &re), KD_OK);
    double dF = 0, sF = 0;
    for (int i = 0; i <= steps; i += 8) {
        assert_int_equal(kd_smech_inverse_multipliers(m, h.t[i], h.q + (size_t)i * n, h.qd + (size_t)i * n, NULL,
                                                      &re, &err),
                         KD_OK);
        dF = fmax(dF, maxdiff(re.F, r.F + (size_t)i * 6 * m->njoint, 6 * (size_t)m->njoint));
        sF = fmax(sF, maxabs(re.F, 6 * (size_t)m->njoint));
    }
    printf("wiper rigid cycle (241 instants), chord Newton + sparse LU - dense SVD path: q %.3g, q' %.3g (of %.3g), "
           "q'' %.3g (of %.3g), F %.3g (of %.3g N)\n",
           dq, dqd, maxabs(h.qd, N), dqdd, maxabs(h.qdd, N), dF, sF);
    /* the dense Newton stops at its tolerance (1e-11 of the length scale), the chord one at round-off */
    assert_true(dq < 1e-10 && dqd < 1e-9 * maxabs(h.qd, N) && dqdd < 1e-9 * maxabs(h.qdd, N));
    assert_true(dF < 1e-8 * sF);
    kd_smech_reactions_free(&re);
    hist_free(&h);
    kd_sked_rigid_free(&r);
    kd_smech_free(&m);
    kd_desc_free(&d);
}

/* A chain of NB rods (0.1 m, 0.1 kg) hanging from the ground on revolutes about y, driven at w. */
#define NB 6
static kd_smech* chain(double w) {
    const double L = 0.1, mass = 0.1;
    const double I6[6] = {mass * L * L / 12, mass * L * L / 12, 1e-6, 0, 0, 0};
    double J[9];
    kd_inertia_tensor(I6, J);
    kd_smech* m = kd_smech_new();
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, com[3] = {0, 0, -L / 2}, ax[3] = {0, 1, 0};
    for (int b = 0; b < NB; b++) {
        const double top[3] = {0, 0, -L * b}, P0[3] = {0, 0, b == 0 ? 0 : -L}, P1[3] = {0, 0, 0};
        kd_smech_add_body(m, "rod", mass, J, com, top, I3);
        const int j = kd_smech_add_joint(m, "R", KD_SJOINT_REVOLUTE, b - 1, b, P0, P1, ax, NULL, 0);
        const kd_law law = {.type = KD_LAW_SPEED, .value = b == 0 ? w : 0.0};
        kd_smech_add_driver(m, j, &law, 0.0);
    }
    m->g[2] = -9.81;
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    return m;
}

/* The root alone turning at w, the others locked: a rigid rod of length NB L about y. Its driving
 * torque (about y, on the first rod) by Newton-Euler: gravity's moment m_t g (NB L / 2) sin(w t) and
 * no inertia term at constant w (the centripetal force passes through the axis), with the sign of
 * the driving torque along the joint axis. */
static void test_chain(void** state) {
    (void)state;
    const double w = 0.8;
    kd_smech* m = chain(w);
    compare_paths(m, 1.0, 20, "chain of 6 driven revolutes");
    kd_error err;
    kd_smech_reactions re;
    assert_int_equal(kd_smech_reactions_alloc(m, &re), KD_OK);
    hist h = hist_new(m->n, 11);
    m->linalg = KD_SMECH_LINALG_SPARSE;
    double cmax;
    assert_int_equal(kd_smech_kinematics(m, 1.0, 10, 1e12, rec, &h, &cmax, &err), KD_OK);
    double worst = 0;
    const double Mt = 0.1 * NB, Lt = 0.1 * NB, ref_scale = Mt * 9.81 * Lt / 2;
    for (int i = 0; i <= 10; i++) {
        assert_int_equal(kd_smech_inverse_multipliers(m, h.t[i], h.q + (size_t)i * m->n, h.qd + (size_t)i * m->n,
                                                      NULL, &re, &err),
                         KD_OK);
        const double ref = ref_scale * sin(w * h.t[i]);
        worst = fmax(worst, fabs(fabs(re.drive[0]) - fabs(ref)));
    }
    printf("chain: root drive against the rigid rod's m g l/2 sin(w t): |error| %.3g N m (scale %.3g)\n", worst,
           ref_scale);
    assert_true(worst < 1e-9 * ref_scale);
    kd_smech_reactions_free(&re);
    hist_free(&h);
    kd_smech_free(&m);
}

/* ---- non-square Phi_q: the sparse QR of Phi_q^T against the dense SVD route (sec. 11.4) ---- */

/* The 2-norm condition number of the rows of Phi_q at q other than the redundant ones (LAPACK's
 * singular values: the matrix whose condition the QR path estimates). */
static double cond_live(const kd_smech* m, const double* q, const kd_smech_mobility* mob) {
    const int n = m->n, nc = m->nc;
    double* jac = malloc(sizeof(double) * (size_t)m->jac_nnz);
    double* A = calloc((size_t)nc * n, sizeof(double));
    double* B = calloc((size_t)nc * n, sizeof(double));
    double* sv = malloc(sizeof(double) * (size_t)(nc + n));
    kd_smech_jacobian(m, 0.0, q, jac);
    kd_smech_jac_dense(m, jac, nc, A, nc);
    int rows = 0;
    for (int r = 0; r < nc; r++) {
        int red = 0;
        for (int k = 0; k < mob->nredundant; k++) red |= mob->redundant_row[k] == r;
        if (red) continue;
        for (int c = 0; c < n; c++) B[(size_t)c * nc + rows] = A[(size_t)c * nc + r];
        rows++;
    }
    assert_int_equal(LAPACKE_dgesdd(LAPACK_COL_MAJOR, 'N', rows, n, B, nc, sv, NULL, 1, NULL, 1), 0);
    const double c = sv[0] / sv[(rows < n ? rows : n) - 1];
    free(jac), free(A), free(B), free(sv);
    return c;
}

/* Mobility on the dense route and on the sparse QR: the same ranks, degrees of freedom and
 * redundant rows (names compared as text). */
static void compare_mobility(kd_smech* m, const double* q, kd_smech_mobility mob[2], const char* what) {
    kd_error err;
    char names[2][512];
    for (int p = 0; p < 2; p++) {
        m->linalg = p ? KD_SMECH_LINALG_SPARSE : KD_SMECH_LINALG_DENSE;
        assert_int_equal(kd_smech_mobility_at(m, 0.0, q, &mob[p], &err), KD_OK);
        kd_smech_redundant_names(m, &mob[p], names[p], sizeof(names[p]));
    }
    printf("%s: gruebler %d; dense: rank %d, driven %d, dof %d, redundant %d [%s], cond %.4g; sparse QR: rank %d, "
           "driven %d, dof %d, redundant %d [%s], cond %.4g\n",
           what, mob[0].gruebler, mob[0].rank, mob[0].rank_driven, mob[0].dof, mob[0].nredundant, names[0], mob[0].cond,
           mob[1].rank, mob[1].rank_driven, mob[1].dof, mob[1].nredundant, names[1], mob[1].cond);
    assert_int_equal(mob[0].rank, mob[1].rank);
    assert_int_equal(mob[0].rank_driven, mob[1].rank_driven);
    assert_int_equal(mob[0].dof, mob[1].dof);
    assert_int_equal(mob[0].dof_undriven, mob[1].dof_undriven);
    assert_int_equal(mob[0].nredundant, mob[1].nredundant);
    assert_string_equal(names[0], names[1]);
    /* the estimate by power and inverse iteration bounds the condition number of the independent
     * rows from below (sigma_max from below, sigma_min from above) */
    const double cl = cond_live(m, q, &mob[1]);
    printf("%s: condition number of the independent rows %.6g, the QR's estimate %.6g\n", what, cl, mob[1].cond);
    assert_true(mob[1].cond <= cl * (1 + 1e-9) && mob[1].cond > 0.8 * cl);
    m->linalg = KD_SMECH_LINALG_AUTO;
}

/* The velocity projection of a guess qd on both routes: the same minimum-norm correction, and
 * Phi_q q' + Phi_t = 0 after it. Returns the largest difference relative to |q'|. */
static double compare_projection(kd_smech* m, const double* q, const double* guess, const char* what) {
    const int n = m->n;
    kd_error err;
    double* v = malloc(sizeof(double) * 2 * (size_t)n);
    double* res = malloc(sizeof(double) * (size_t)m->nc);
    double* jac = malloc(sizeof(double) * (size_t)m->jac_nnz);
    for (int p = 0; p < 2; p++) {
        m->linalg = p ? KD_SMECH_LINALG_SPARSE : KD_SMECH_LINALG_DENSE;
        memcpy(v + (size_t)p * n, guess, sizeof(double) * (size_t)n);
        assert_int_equal(kd_smech_solve_velocity(m, 0.0, q, v + (size_t)p * n, 1, &err), KD_OK);
    }
    kd_smech_jacobian(m, 0.0, q, jac);
    kd_smech_phi_t(m, 0.0, q, res);
    double r = 0;
    for (int i = 0; i < m->nc; i++) {
        double a = res[i];
        for (int k = m->jac_rowptr[i]; k < m->jac_rowptr[i + 1]; k++) a += jac[k] * v[n + m->jac_col[k]];
        r = fmax(r, fabs(a));
    }
    const double d = maxdiff(v, v + n, (size_t)n), sv = maxabs(v, (size_t)n), dg = maxdiff(v, guess, (size_t)n);
    printf("%s: projected velocity, sparse - dense %.3g (of %.3g; the correction %.3g), |Phi_q q' + Phi_t| %.3g\n",
           what, d, sv, dg, r);
    assert_true(dg > 1e-3 * sv);  /* the guess was off the constraints */
    assert_true(r < 1e-12 * fmax(sv, 1.0));
    free(v), free(res), free(jac);
    m->linalg = KD_SMECH_LINALG_AUTO;
    return d / sv;
}

static void guess_velocity(const kd_smech* m, double* v) {
    for (int i = 0; i < m->n; i++) v[i] = 0.3 * sin(1.7 * i + 0.4) + 0.1 * cos(0.3 * i);
}

static void test_undriven_chain(void** state) {
    (void)state;
    const int N = 8;
    kd_smech* m = ball_chain(N);
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    assert_true(m->nc < m->n);
    kd_smech_mobility mob[2];
    compare_mobility(m, m->q0, mob, "ball chain");
    assert_int_equal(mob[1].dof, 3 * N);  /* closed form: three rotations per ball joint */
    assert_int_equal(mob[1].nredundant, 0);
    double* v = malloc(sizeof(double) * (size_t)m->n);
    guess_velocity(m, v);
    assert_true(compare_projection(m, m->q0, v, "ball chain") < 1e-12);
    /* assembly from a disturbed guess: Gauss-Newton with minimum-norm steps on both routes */
    double* q = malloc(sizeof(double) * 2 * (size_t)m->n);
    kd_smech_info info[2];
    for (int p = 0; p < 2; p++) {
        m->linalg = p ? KD_SMECH_LINALG_SPARSE : KD_SMECH_LINALG_DENSE;
        for (int i = 0; i < m->n; i++) q[(size_t)p * m->n + i] = m->q0[i] + 0.01 * sin(2.3 * i);
        assert_int_equal(kd_smech_solve_position(m, 0.0, q + (size_t)p * m->n, &info[p], &err), KD_OK);
    }
    const double dq = maxdiff(q, q + m->n, (size_t)m->n);
    printf("ball chain: assembled from a disturbed guess in %d (dense) and %d (sparse) iterations, sparse - dense "
           "%.3g, rank %d and %d\n",
           info[0].iterations, info[1].iterations, dq, info[0].rank, info[1].rank);
    assert_int_equal(info[0].iterations, info[1].iterations);
    assert_int_equal(info[0].rank, info[1].rank);
    assert_true(dq < 1e-12);
    free(q), free(v);
    kd_smech_free(&m);
}

static void test_bricard_qr(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_smech* m = load(KD_TEST_MODELS_DIR "/../../examples/bricard.yaml", &d);
    kd_smech_mobility mob[2];
    compare_mobility(m, m->q0, mob, "Bricard");
    assert_int_equal(mob[1].gruebler, 0);
    assert_int_equal(mob[1].dof, 1);
    assert_int_equal(mob[1].nredundant, 1);
    double* v = malloc(sizeof(double) * (size_t)m->n);
    memcpy(v, m->qd0, sizeof(double) * (size_t)m->n);
    for (int i = 0; i < m->n; i++) v[i] += 0.05 * sin(1.3 * i);
    assert_true(compare_projection(m, m->q0, v, "Bricard") < 1e-10);
    free(v);
    kd_smech_free(&m);
    kd_desc_free(&d);
}

/* A planar four-bar built with four spatial revolutes (parallel axes): Gruebler 6 x 3 - 4 x 5 = -2,
 * mobility 1, three redundant rows; driven at the crank, Phi_q is 25 x 21 of rank 21. */
static kd_smech* four_bar(void) {
    const double a = 0.1, b = 0.3, c = 0.25, dd = 0.3, th = 1.0;
    const double A[3] = {0, 0, 0}, D[3] = {dd, 0, 0}, B[3] = {a * cos(th), a * sin(th), 0};
    /* C: |C - B| = b, |C - D| = c, above the line BD */
    const double e[2] = {D[0] - B[0], D[1] - B[1]}, l = hypot(e[0], e[1]);
    const double x = (b * b - c * c + l * l) / (2 * l), y = sqrt(b * b - x * x);
    const double C[3] = {B[0] + (x * e[0] - y * e[1]) / l, B[1] + (x * e[1] + y * e[0]) / l, 0};
    const double* P[3][2] = {{A, B}, {B, C}, {D, C}};
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, z[3] = {0, 0, 1};
    kd_smech* m = kd_smech_new();
    for (int k = 0; k < 3; k++) {
        double com[3], Lk = 0, J[9];
        for (int i = 0; i < 3; i++) com[i] = 0.5 * (P[k][1][i] - P[k][0][i]), Lk += 4 * com[i] * com[i];
        const double I6[6] = {0.5 * Lk / 12 + 1e-5, 0.5 * Lk / 12 + 1e-5, 0.5 * Lk / 12 + 2e-5, 0, 0, 0};
        kd_inertia_tensor(I6, J);
        kd_smech_add_body(m, k == 0 ? "crank" : k == 1 ? "coupler" : "rocker", 0.5, J, com, P[k][0], I3);
    }
    const double O[3] = {0, 0, 0};
    double BC[3], DC[3], AB[3];
    for (int i = 0; i < 3; i++) AB[i] = B[i] - A[i], BC[i] = C[i] - B[i], DC[i] = C[i] - D[i];
    const int j0 = kd_smech_add_joint(m, "A", KD_SJOINT_REVOLUTE, -1, 0, A, O, z, NULL, 0);
    kd_smech_add_joint(m, "B", KD_SJOINT_REVOLUTE, 0, 1, AB, O, z, NULL, 0);
    kd_smech_add_joint(m, "C", KD_SJOINT_REVOLUTE, 1, 2, BC, DC, z, NULL, 0);
    kd_smech_add_joint(m, "D", KD_SJOINT_REVOLUTE, -1, 2, D, O, z, NULL, 0);
    const kd_law law = {.type = KD_LAW_SPEED, .value = 2.0};
    kd_smech_add_driver(m, j0, &law, 0.0);
    m->g[1] = -9.81;
    kd_error err;
    assert_int_equal(kd_smech_finish(m, &err), KD_OK);
    return m;
}

/* -Phi_q^T lambda (the generalised constraint force: unique although lambda is not). */
static void constraint_force(const kd_smech* m, double t, const double* q, const double* lambda, double* g) {
    double* jac = malloc(sizeof(double) * (size_t)m->jac_nnz);
    kd_smech_jacobian(m, t, q, jac);
    memset(g, 0, sizeof(double) * (size_t)m->n);
    for (int i = 0; i < m->nc; i++)
        for (int k = m->jac_rowptr[i]; k < m->jac_rowptr[i + 1]; k++) g[m->jac_col[k]] -= jac[k] * lambda[i];
    free(jac);
}

static void test_four_bar_redundant(void** state) {
    (void)state;
    kd_smech* m = four_bar();
    const int n = m->n, steps = 40;
    assert_true(m->nc > n);
    kd_smech_mobility mob[2];
    compare_mobility(m, m->q0, mob, "four-bar of revolutes");
    assert_int_equal(mob[1].gruebler, -2);
    assert_int_equal(mob[1].dof, 1);
    assert_int_equal(mob[1].dof_undriven, 0);
    assert_int_equal(mob[1].nredundant, 3);
    /* kinematics over a crank turn on both routes */
    kd_error err;
    hist h[2] = {hist_new(n, steps + 1), hist_new(n, steps + 1)};
    double cmax[2];
    for (int p = 0; p < 2; p++) {
        m->linalg = p ? KD_SMECH_LINALG_SPARSE : KD_SMECH_LINALG_DENSE;
        if (kd_smech_kinematics(m, 3.14159265358979, steps, 1e10, rec, &h[p], &cmax[p], &err)) fail_msg("%s", err.msg);
        assert_int_equal(h[p].rows, steps + 1);
    }
    const size_t N = (size_t)(steps + 1) * n;
    const double dq = maxdiff(h[0].q, h[1].q, N), dqd = maxdiff(h[0].qd, h[1].qd, N);
    const double dqdd = maxdiff(h[0].qdd, h[1].qdd, N);
    printf("four-bar: sparse QR - dense over a crank turn: q %.3g, q' %.3g (of %.3g), q'' %.3g (of %.3g); largest "
           "condition: dense %.4g, QR estimate %.4g\n",
           dq, dqd, maxabs(h[0].qd, N), dqdd, maxabs(h[0].qdd, N), cmax[0], cmax[1]);
    assert_true(dq < 1e-12 && dqd < 1e-10 * maxabs(h[0].qd, N) && dqdd < 1e-9 * maxabs(h[0].qdd, N));
    /* the rocker's angle against the closed form of the four-bar (the loop's two circles) */
    double derr = 0;
    for (int i = 0; i <= steps; i++) {
        const double* q = h[1].q + (size_t)i * n;
        const double th = 1.0 + 2.0 * h[1].t[i], a = 0.1, b = 0.3, c = 0.25, dd = 0.3;
        const double Bx = a * cos(th), By = a * sin(th), ex = dd - Bx, ey = -By, l = hypot(ex, ey);
        const double x = (b * b - c * c + l * l) / (2 * l), y = sqrt(b * b - x * x);
        const double Cx = Bx + (x * ex - y * ey) / l, Cy = By + (x * ey + y * ex) / l;
        /* the rocker's centre of mass is the middle of DC */
        derr = fmax(derr, fmax(fabs(q[14] - 0.5 * (dd + Cx)), fabs(q[15] - 0.5 * Cy)));
    }
    printf("four-bar: rocker centre against the closed form: max error %.3g m\n", derr);
    assert_true(derr < 1e-9);
    /* inverse dynamics: the same drive torque and generalised constraint force on both routes */
    kd_smech_reactions re[4];
    for (int k = 0; k < 4; k++) assert_int_equal(kd_smech_reactions_alloc(m, &re[k]), KD_OK);
    double* g = malloc(sizeof(double) * 4 * (size_t)n);
    double dD = 0, sD = 0, dG = 0, sG = 0;
    for (int i = 0; i <= steps; i += 5) {
        const double t = h[0].t[i], *q = h[0].q + (size_t)i * n, *qd = h[0].qd + (size_t)i * n;
        for (int p = 0; p < 2; p++) {
            m->linalg = p ? KD_SMECH_LINALG_SPARSE : KD_SMECH_LINALG_DENSE;
            assert_int_equal(kd_smech_inverse_multipliers(m, t, q, qd, NULL, &re[2 * p], &err), KD_OK);
            assert_int_equal(kd_smech_inverse_projection(m, t, q, qd, h[0].qdd + (size_t)i * n, &re[2 * p + 1], &err),
                             KD_OK);
        }
        for (int k = 0; k < 4; k++) constraint_force(m, t, q, re[k].lambda, g + (size_t)k * n);
        for (int k = 1; k < 4; k++) {
            dD = fmax(dD, fabs(re[k].drive[0] - re[0].drive[0]));
            dG = fmax(dG, maxdiff(g, g + (size_t)k * n, (size_t)n));
        }
        sD = fmax(sD, fabs(re[0].drive[0])), sG = fmax(sG, maxabs(g, (size_t)n));
    }
    printf("four-bar: drive torque, multipliers and projection, dense and sparse: |d drive| %.3g (of %.3g N m), "
           "|d Phi_q^T lambda| %.3g (of %.3g)\n",
           dD, sD, dG, sG);
    assert_true(sD > 0 && dD < 1e-8 * sD && dG < 1e-8 * sG);
    for (int k = 0; k < 4; k++) kd_smech_reactions_free(&re[k]);
    free(g);
    hist_free(&h[0]), hist_free(&h[1]);
    kd_smech_free(&m);
}

/* The rank tolerance is what names the redundant row: with 1e-20 (below round-off) Bricard's
 * dependent row is kept and the QR's rank disagrees with the dense route (the comparison above
 * would fail); with the default it agrees. */
static void test_qr_tolerance_perturbed(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_smech* m = load(KD_TEST_MODELS_DIR "/../../examples/bricard.yaml", &d);
    kd_error err;
    double* jac = malloc(sizeof(double) * (size_t)m->jac_nnz);
    kd_smech_jacobian(m, 0.0, m->q0, jac);
    int rank[2], nd[2];
    const double tol[2] = {KD_SMECH_QR_TOL, 1e-20};
    for (int k = 0; k < 2; k++) {
        kd_smech_qr* qr = NULL;
        assert_int_equal(kd_smech_qr_new(m, tol[k], &qr, &err), KD_OK);
        assert_int_equal(kd_smech_qr_factor(qr, jac), 0);
        kd_smech_qr_rank(qr, NULL, &rank[k], NULL, 0, &nd[k]);
        kd_smech_qr_free(&qr);
    }
    printf("Bricard, rank tolerance %.0e: rank %d, redundant %d; %.0e: rank %d, redundant %d\n", tol[0], rank[0], nd[0],
           tol[1], rank[1], nd[1]);
    assert_int_equal(nd[0], 1);
    assert_int_not_equal(rank[1], rank[0]);
    free(jac);
    kd_smech_free(&m);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wiper),
        cmocka_unit_test(test_wiper_rigid_cycle),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_undriven_chain),
        cmocka_unit_test(test_bricard_qr),
        cmocka_unit_test(test_four_bar_redundant),
        cmocka_unit_test(test_qr_tolerance_perturbed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
