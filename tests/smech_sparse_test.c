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

#include "kedyn/load_yaml.h"
#include "kedyn/sked.h"
#include "kedyn/smech.h"

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wiper),
        cmocka_unit_test(test_wiper_rigid_cycle),
        cmocka_unit_test(test_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
