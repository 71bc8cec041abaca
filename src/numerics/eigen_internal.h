/* The ARPACK shift-invert driver shared by the modal solvers (eigen_lanczos.c, eigen_sqrt.c,
 * eigen_cholmod.c). */
#ifndef KEDYN_EIGEN_INTERNAL_H
#define KEDYN_EIGEN_INTERNAL_H

#include <pthread.h>

#include "kedyn/modes.h"

/* ARPACK keeps its state in SAVE'd Fortran variables (some shared by its symmetric and
 * nonsymmetric drivers): one ARPACK solve at a time in the process (eigen_lanczos.c). */
extern pthread_mutex_t eigen_arpack_lock;

/* y = (K - sigma M)^-1 x with a factorisation of the caller's. */
typedef void (*eigen_shifted_solve)(void* ctx, const double* x, double* y);
/* y = M x with the caller's storage of M (band: eigen_band_matvec with the kd_band as ctx). */
typedef void (*eigen_mass_product)(const void* ctx, const double* x, double* y);
void eigen_band_matvec(const void* band, const double* x, double* y);

/* The `count` eigenpairs of K x = lambda M x nearest sigma (sigma below the
 * lowest: the lowest ones) by ARPACK-ng dsaupd mode 3 (shift-invert,
 * B = M, OP = (K - sigma M)^-1 M); fills out->lambda (ascending) and
 * out->shape (M-normalised). */
kd_status eigen_arpack_shift_invert(int n, int count, double sigma, eigen_mass_product mass, const void* mass_ctx,
                                    eigen_shifted_solve solve, void* ctx, kd_modes* out, kd_error* err);

/* Y = M X for p vectors (n x p, column-major). */
typedef void (*eigen_block_mass)(const void* ctx, int p, const double* X, double* Y);
/* X = (K - sigma M)^-1 X in place for p vectors (n x p, column-major); nonzero on failure. */
typedef int (*eigen_block_solve)(void* ctx, int p, double* X);

/* The same eigenpairs by a block shift-invert Lanczos (eigen_block.c): blocks of count + 1
 * vectors, one block solve per step. For large models (needs n >= 16 (count + 1)). */
kd_status eigen_block_shift_invert(int n, int count, double sigma, eigen_block_mass mass, const void* mass_ctx,
                                   eigen_block_solve solve, void* ctx, kd_modes* out, kd_error* err);

/* kd_eigen_cholmod with the iteration chosen: block = 1 the block Lanczos (and CHOLMOD's nested
 * dissection alone), 0 ARPACK (and CHOLMOD's default orderings), -1 by size (kd_eigen_cholmod). */
kd_status eigen_cholmod_method(const kd_csc* K, const kd_csc* M, int count, double sigma, int block, kd_modes* out,
                               kd_error* err);

#endif
