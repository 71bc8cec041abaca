/* The sparse route of the dynamics analysis (dynamics_sparse.c; not public): models too large for
 * the band storage of kd_system, integrated on one factorisation in compressed columns. */
#ifndef KEDYN_ANALYSES_DYNAMICS_SPARSE_H
#define KEDYN_ANALYSES_DYNAMICS_SPARSE_H

#include "kedyn/analysis.h"

/* 1 when the resolved analysis ad of model m takes the sparse route. */
int dynamics_sparse_applies(const kd_model* m, const kd_dynamics_desc* ad);

/* kd_dynamics_run on the sparse route (the same outputs, energy columns and warning). */
kd_status dynamics_sparse_run(const kd_model* m, const kd_dynamics_desc* ad, kd_dynamics_output out, void* ctx,
                              kd_integrate_stats* stats, char* warning, int nwarning, kd_error* err);

/* q0 (n equations) += the shape of mode k (1-based) of r, scaled so that its largest translation
 * (u, v, w) is `amplitude` and positive; frees r (dynamics_mode.c). */
kd_status dynamics_add_scaled_mode(const kd_model* m, kd_modes* r, int k, double amplitude, double* q0, int n,
                                   kd_error* err);

#endif
