/* The ARPACK shift-invert driver shared by the modal solvers (eigen_lanczos.c, eigen_sqrt.c,
 * eigen_cholmod.c). */
#ifndef KEDYN_EIGEN_INTERNAL_H
#define KEDYN_EIGEN_INTERNAL_H

#include "kedyn/modes.h"

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

#endif
