/* The ordering of the sparse Cholesky factor on the graph of the nodes (src/numerics/csc_order.c)
 * and the large-model modal path that uses it (eigen_cholmod.c: K - sigma M formed entry by entry,
 * the node-graph AMD ordering, the block Lanczos). References, independent of the sparse path:
 * - the permutation: every equation once, and the equations of each node of the model (its free
 *   DOFs, from the model's DOF table, not from the matrix) consecutive and ascending;
 * - the lowest 15 frequencies of a simply supported MITC4 plate and of a free DKT plate from
 *   LAPACK's dense symmetric-definite solver on the band-assembled K and M (a different assembly,
 *   storage and eigensolver): equal to 1e-9 relative (measured: 7.0e-13 and 6.2e-13 at worst; the
 *   free plate's three rigid-body modes below 1e-6 of the 15th eigenvalue);
 * - K x = b solved through kd_csc_solve_spd (the membrane pre-stress solve) against LAPACK's
 *   dense Cholesky solve: 1e-10 relative (measured 2.8e-13). */
#include <lapacke.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/kedyn.h"
#include "model_text.h"
#include "numerics/csc_order.h"
#include "numerics/eigen_internal.h"

/* The dense symmetric matrix (column-major, both triangles) of the upper-stored a. */
static double* dense(const kd_csc* a) {
    const int n = a->n;
    double* d = calloc((size_t)n * n, sizeof(double));
    for (int j = 0; j < n; j++)
        for (int k = a->p[j]; k < a->p[j + 1]; k++) d[(size_t)j * n + a->i[k]] = d[(size_t)a->i[k] * n + j] = a->x[k];
    return d;
}

static void test_permutation(void** state) {
    (void)state;
    kd_model* m = plate_model("mindlin", "mitc4", 20, 16, 1);
    kd_csc K, M;
    kd_error err;
    assert_int_equal(kd_assemble_stiffness_mass_csc(m, &K, &M, &err), KD_OK);
    const int n = K.n;
    int* perm = malloc(sizeof(int) * (size_t)n);
    int* where = malloc(sizeof(int) * (size_t)n);
    cholmod_common cc;
    cholmod_start(&cc);
    cholmod_sparse A = csc_cholmod_view(&K);
    assert_int_equal(csc_order_nodes(&A, perm, &cc), 0);
    for (int i = 0; i < n; i++) where[i] = -1;
    for (int k = 0; k < n; k++) {
        assert_true(perm[k] >= 0 && perm[k] < n);
        assert_int_equal(where[perm[k]], -1);
        where[perm[k]] = k;
    }
    /* each node's free equations: consecutive positions, ascending */
    int nodes = 0;
    for (int a = 0; a < m->nnode; a++) {
        int last = -1, count = 0;
        for (int i = m->node_dof_adr[a]; i < m->node_dof_adr[a] + m->node_dof_num[a]; i++) {
            const int q = m->dof_eq[i];
            if (q < 0) continue;
            if (last >= 0) assert_int_equal(where[q], last + 1);
            last = where[q], count++;
        }
        nodes += count > 0;
    }
    assert_true(nodes > n / 3);
    /* the factor with this ordering is a Cholesky factor of K: L L^T x = K x for a vector */
    cholmod_factor* L = csc_order_analyze(&A, &cc);
    assert_non_null(L);
    assert_true(cholmod_factorize(&A, L, &cc) && cc.status == CHOLMOD_OK);
    free(perm), free(where);
    cholmod_free_factor(&L, &cc);
    cholmod_finish(&cc);
    kd_csc_free(&K), kd_csc_free(&M);
    kd_model_free(&m);
}

/* The lowest `count` frequencies through the block path against LAPACK's dense solver. */
static void modes_against_dense(const char* theory, const char* interp, int nx, int ny, int supported, int rigid) {
    const int count = 15;
    kd_model* m = plate_model(theory, interp, nx, ny, supported);
    const int n = m->neq;
    kd_csc K, M;
    kd_error err;
    assert_int_equal(kd_assemble_stiffness_mass_csc(m, &K, &M, &err), KD_OK);
    const double sigma = -0.1 * m->body[0].lambda_hint;
    kd_modes blk;
    memset(&blk, 0, sizeof(blk));
    blk.lambda = malloc(sizeof(double) * count);
    blk.shape = malloc(sizeof(double) * (size_t)count * n);
    if (eigen_cholmod_method(&K, &M, count, sigma, 1, &blk, &err)) fail_msg("block: %s", err.msg);
    kd_band Kb, Mb;
    assert_int_equal(kd_band_init(&Kb, n, m->bandwidth), KD_OK);
    assert_int_equal(kd_band_init(&Mb, n, m->bandwidth), KD_OK);
    kd_assemble_stiffness_mass(m, &Kb, &Mb);
    kd_modes ref;
    if (kd_eigen_solve(&Kb, &Mb, count, KD_EIGEN_DENSE, sigma, &ref, &err)) fail_msg("dense: %s", err.msg);
    const double top = ref.lambda[count - 1];
    double worst = 0;
    int zeros = 0;
    for (int k = 0; k < count; k++) {
        if (fabs(ref.lambda[k]) < 1e-6 * top) {  /* rigid-body modes: lambda ~ 0 in both */
            zeros++;
            if (!(fabs(blk.lambda[k]) < 1e-6 * top)) fail_msg("%s mode %d: block %.6e", interp, k + 1, blk.lambda[k]);
            continue;
        }
        const double w = sqrt(ref.lambda[k]), wb = sqrt(fmax(blk.lambda[k], 0.0)), e = fabs(wb - w) / w;
        worst = fmax(worst, e);
        if (!(e <= 1e-9)) fail_msg("%s mode %d: dense %.15e block %.15e rad/s", interp, k + 1, w, wb);
    }
    assert_int_equal(zeros, rigid);
    printf("%s %d x %d (%d DOF): frequencies to %.1e of the dense solver's\n", interp, nx, ny, n, worst);
    free(blk.lambda), free(blk.shape);
    kd_modes_free(&ref);
    kd_band_free(&Kb), kd_band_free(&Mb);
    kd_csc_free(&K), kd_csc_free(&M);
    kd_model_free(&m);
}

static void test_mitc4_supported(void** state) {
    (void)state;
    modes_against_dense("mindlin", "mitc4", 20, 16, 1, 0);
}

static void test_dkt_free(void** state) {
    (void)state;
    modes_against_dense("kirchhoff", "dkt", 16, 12, 0, 3);
}

static void test_solve_spd(void** state) {
    (void)state;
    kd_model* m = plate_model("mindlin", "mitc4", 16, 12, 1);
    kd_csc K, M;
    kd_error err;
    assert_int_equal(kd_assemble_stiffness_mass_csc(m, &K, &M, &err), KD_OK);
    const int n = K.n, nrhs = 3;
    double* b = malloc(sizeof(double) * (size_t)n * nrhs);
    double* x = malloc(sizeof(double) * (size_t)n * nrhs);
    for (int i = 0; i < n * nrhs; i++) b[i] = sin(0.37 * i + 1.0);
    memcpy(x, b, sizeof(double) * (size_t)n * nrhs);
    assert_int_equal(kd_csc_solve_spd(&K, nrhs, x), KD_OK);
    double* Kd = dense(&K);
    assert_int_equal(LAPACKE_dposv(LAPACK_COL_MAJOR, 'U', n, nrhs, Kd, n, b, n), 0);
    double dmax = 0, xmax = 0;
    for (int i = 0; i < n * nrhs; i++) dmax = fmax(dmax, fabs(x[i] - b[i])), xmax = fmax(xmax, fabs(b[i]));
    printf("K x = b (%d equations): %.1e relative to the dense Cholesky solve\n", n, dmax / xmax);
    assert_true(dmax <= 1e-10 * xmax);
    free(b), free(x), free(Kd);
    kd_csc_free(&K), kd_csc_free(&M);
    kd_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permutation),
        cmocka_unit_test(test_mitc4_supported),
        cmocka_unit_test(test_dkt_free),
        cmocka_unit_test(test_solve_spd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
