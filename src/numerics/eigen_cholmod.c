/* Shift-invert Lanczos on a sparse Cholesky factorisation: K and M in compressed columns
 * (kd_csc, upper triangle), K - sigma M factored by CHOLMOD with a fill-reducing ordering
 * (CHOLMOD's choice of AMD or METIS nested dissection; for large models AMD on the graph of the
 * nodes, csc_order.c; supernodal for these matrices), then
 * ARPACK's shift-invert driver (eigen_lanczos.c) with a CHOLMOD solve per step and the sparse
 * M product, or for large models the block Lanczos (eigen_block.c) with one CHOLMOD solve per
 * block of 8 vectors. On an nx x ny plate mesh the factor holds O(n log n) entries and costs O(n^1.5)
 * flops, against n b and n b^2 (b ~ 3 ny) for the band factor: the path for plate models
 * (modes.c). The round-off is a Cholesky factorisation's (kd_modes_roundoff). */
#include <stdlib.h>
#include <string.h>

#include <cholmod.h>

#include "numerics/csc_order.h"
#include "numerics/eigen_internal.h"

/* From this size on, the block Lanczos (eigen_block.c) replaces ARPACK's single-vector one and
 * the ordering is AMD on the graph of the nodes (csc_order.c): on the 216 543-DOF plate it fills
 * 26.3 M entries in 0.03 s, where CHOLMOD's nested dissection (NESDIS) of the graph of the
 * equations fills 26.0 M in 0.7-0.8 s. Smaller models keep ARPACK and CHOLMOD's default choice. */
#define KD_EIGEN_BLOCK_MIN 20000

typedef struct cholmod_solver {
    cholmod_factor* L;
    cholmod_dense *B, *X, *Y, *E;  /* right-hand side, solution, CHOLMOD's workspace */
    cholmod_common* cc;
    int failed;
} cholmod_solver;

/* y = (K - sigma M)^-1 x = P^T L^-T L^-1 P x (CHOLMOD_A applies the permutation). */
static void solve_cholmod(void* ctx, const double* x, double* y) {
    cholmod_solver* s = ctx;
    const size_t n = s->L->n;
    memcpy(s->B->x, x, sizeof(double) * n);
    if (!cholmod_solve2(CHOLMOD_A, s->L, s->B, NULL, &s->X, NULL, &s->Y, &s->E, s->cc)) {
        s->failed = 1;
        memset(y, 0, sizeof(double) * n);
        return;
    }
    memcpy(y, s->X->x, sizeof(double) * n);
}

static void csc_mass(const void* M, const double* x, double* y) { kd_csc_matvec(M, x, y); }

/* X = (K - sigma M)^-1 X for p vectors: one pass over the factor for all of them. */
static int block_solve_cholmod(void* ctx, int p, double* X) {
    cholmod_solver* s = ctx;
    cholmod_dense b;
    memset(&b, 0, sizeof(b));
    b.nrow = s->L->n, b.ncol = (size_t)p, b.d = s->L->n, b.nzmax = b.nrow * b.ncol;
    b.x = X, b.xtype = CHOLMOD_REAL, b.dtype = CHOLMOD_DOUBLE;
    if (!cholmod_solve2(CHOLMOD_A, s->L, &b, NULL, &s->X, NULL, &s->Y, &s->E, s->cc)) return -1;
    memcpy(X, s->X->x, sizeof(double) * b.nzmax);
    return 0;
}

typedef struct csc_mass_ctx {
    cholmod_sparse M;
    cholmod_common* cc;
} csc_mass_ctx;

/* Y = M X for p vectors (CHOLMOD's sparse times dense, the symmetric upper M). */
static void block_mass_cholmod(const void* ctx, int p, const double* X, double* Y) {
    const csc_mass_ctx* c = ctx;
    cholmod_dense x, y;
    memset(&x, 0, sizeof(x));
    x.nrow = c->M.nrow, x.ncol = (size_t)p, x.d = c->M.nrow, x.nzmax = x.nrow * x.ncol;
    x.xtype = CHOLMOD_REAL, x.dtype = CHOLMOD_DOUBLE;
    y = x;
    x.x = (double*)X, y.x = Y;
    double one[2] = {1, 0}, zero[2] = {0, 0};
    cholmod_sdmult((cholmod_sparse*)&c->M, 0, one, zero, &x, &y, c->cc);
}

kd_status kd_eigen_cholmod(const kd_csc* K, const kd_csc* M, int count, double sigma, kd_modes* out,
                           kd_error* err) {
    return eigen_cholmod_method(K, M, count, sigma, -1, out, err);
}

kd_status eigen_cholmod_method(const kd_csc* K, const kd_csc* M, int count, double sigma, int block, kd_modes* out,
                               kd_error* err) {
    const int n = K->n;
    cholmod_common cc;
    cholmod_start(&cc);
    cc.print = 0;
    cc.error_handler = NULL;
    kd_status st = KD_OK;
    cholmod_sparse Kv = csc_cholmod_view(K), Mv = csc_cholmod_view(M);
    const int large = block < 0 ? n >= KD_EIGEN_BLOCK_MIN && n >= 32 * (count + 1) : block;
    /* K - sigma M, upper: entry by entry when M has K's pattern (the assembly's), else CHOLMOD's sum */
    const size_t nnz = (size_t)K->p[n];
    const int same = large && M->p[n] == K->p[n] && memcmp(M->p, K->p, sizeof(int) * ((size_t)n + 1)) == 0 &&
                     memcmp(M->i, K->i, sizeof(int) * nnz) == 0;
    cholmod_sparse Av, *A = NULL;
    double* Ax = same ? malloc(sizeof(double) * (nnz ? nnz : 1)) : NULL;
    if (Ax) {
        for (size_t k = 0; k < nnz; k++) Ax[k] = K->x[k] - sigma * M->x[k];
        Av = Kv, Av.x = Ax, A = &Av;
    } else {
        double alpha[2] = {1, 0}, beta[2] = {-sigma, 0};
        A = cholmod_add(&Kv, &Mv, alpha, beta, 1, 1, &cc);
    }
    cholmod_solver s = {0};
    s.cc = &cc;
    if (A) s.L = large ? csc_order_analyze(A, &cc) : cholmod_analyze(A, &cc);
    if (!A || !s.L) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse Cholesky factor");
        goto done;
    }
    if (!cholmod_factorize(A, s.L, &cc) || cc.status != CHOLMOD_OK) {
        if (cc.status == CHOLMOD_NOT_POSDEF)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "K - sigma M is not positive definite at sigma = %g (column %d): is the mass matrix "
                              "singular?",
                              sigma, (int)s.L->minor + 1);
        else
            st = kd_error_set(err, cc.status == CHOLMOD_OUT_OF_MEMORY ? KD_ERR_NOMEM : KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "the sparse Cholesky factorisation failed (CHOLMOD status %d)", cc.status);
        goto done;
    }
    if (Ax) free(Ax), Ax = NULL, A = NULL;
    else cholmod_free_sparse(&A, &cc);
    s.B = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, &cc);
    if (!s.B) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse Cholesky solver");
        goto done;
    }
    if (large) {
        csc_mass_ctx mc = {Mv, &cc};
        st = eigen_block_shift_invert(n, count, sigma, block_mass_cholmod, &mc, block_solve_cholmod, &s, out, err);
    } else {
        st = eigen_arpack_shift_invert(n, count, sigma, csc_mass, M, solve_cholmod, &s, out, err);
    }
    if (!st && s.failed)
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "the sparse Cholesky solve failed (CHOLMOD status %d)",
                          cc.status);
done:
    if (Ax) free(Ax);
    else cholmod_free_sparse(&A, &cc);
    cholmod_free_factor(&s.L, &cc);
    cholmod_free_dense(&s.B, &cc);
    cholmod_free_dense(&s.X, &cc);
    cholmod_free_dense(&s.Y, &cc);
    cholmod_free_dense(&s.E, &cc);
    cholmod_finish(&cc);
    return st;
}
