/* kedyn: a constrained mechanical system, as the mechanism solvers see it.
 *
 *     M q'' + Phi_q(q, t)^T lambda = Q(q, q', t),     Phi(q, t) = 0       (theory.md sec. 6)
 *
 * q holds body coordinates. For planar rigid bodies q[3i .. 3i+2] = (x, y, phi) of body i:
 * position of its centre of mass and its angle, so that M is constant and diagonal
 * (m, m, J_G) and planar rigid motion has no quadratic-velocity term in M q''. Elastic bodies
 * in a floating frame (kedyn/ffr.h) add coordinates and a mass matrix M(q) that is symmetric,
 * positive definite and block-diagonal, one dense block per body (theory.md sec. 6): such a
 * system sets mass_blocks (and leaves mass NULL); the solvers then factorise each block by a
 * dense Cholesky at every evaluation. Systems that set only mass keep the diagonal path.
 *
 * The constraint equations (joints and drivers, nc of them) and their Jacobian Phi_q (nc x n,
 * compressed sparse rows with a pattern fixed for the system) are supplied as callbacks by
 * whoever builds the system: the rigid mechanism (kedyn/mech.h), the floating-frame system
 * (kedyn/ffr.h) or a test; the first two take their joint rows from one module over body points
 * (kedyn/body.h, src/mechanism/joints.c), each row spanning the coordinates of its two points'
 * bodies. The solvers
 * (kinematics, inverse and forward dynamics) consume only this interface.
 *
 *     velocity:      Phi_q q' = -Phi_t
 *     acceleration:  Phi_q q'' = gamma = -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt
 *
 * Ownership: the builder owns every array and the context; a kd_cms is a borrowed view, valid
 * while its builder lives. Callbacks return 0 on success, nonzero to abort (reported by the
 * solver as KD_ERR_NUMERIC with the time).
 */
#ifndef KEDYN_CMS_H
#define KEDYN_CMS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_cms {
    int n;                        /* coordinates */
    int nc;                       /* constraint equations (joints, then drivers) */
    const double* mass;           /* (n) diagonal of M */
    int jac_nnz;                  /* stored entries of Phi_q */
    const int* jac_rowptr;        /* (nc + 1) CSR row starts */
    const int* jac_col;           /* (jac_nnz) column of each entry, ascending within a row */
    void* ctx;                    /* passed to every callback */

    /* Phi(q, t) into phi (nc). */
    int (*phi)(void* ctx, double t, const double* q, double* phi);
    /* The values of Phi_q(q, t) in the fixed pattern, into jac (jac_nnz). */
    int (*jacobian)(void* ctx, double t, const double* q, double* jac);
    /* The partial time derivative Phi_t(q, t) into phi_t (nc): zero but for drivers. */
    int (*phi_t)(void* ctx, double t, const double* q, double* phi_t);
    /* gamma(q, q', t) into gamma (nc), the right-hand side of the acceleration equation. */
    int (*gamma)(void* ctx, double t, const double* q, const double* qd, double* gamma);
    /* Applied and quadratic-velocity generalised forces Q(q, q', t) into Q (n). */
    int (*force)(void* ctx, double t, const double* q, const double* qd, double* Q);

    /* Optional block-diagonal mass matrix M(q) (used instead of mass when mass_blocks is set):
     * nblocks contiguous blocks, block b spanning coordinates block_start[b] ..
     * block_start[b + 1] - 1 (block_start[0] = 0, block_start[nblocks] = n). mass_blocks writes
     * every block's dense entries (symmetric, column-major, b_k x b_k) one after another into
     * blocks (sum of b_k^2 values). Q then includes the quadratic-velocity forces of M(q). */
    int nblocks;
    const int* block_start;       /* (nblocks + 1) */
    int (*mass_blocks)(void* ctx, double t, const double* q, double* blocks);
} kd_cms;

#ifdef __cplusplus
}
#endif
#endif
