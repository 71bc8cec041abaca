/* Implicit steps of a rotating (gyroscopic) structure in compressed columns: M a + C v + K q = f
 * with C general (the skew Coriolis matrix G of a steady frame motion plus any damping) and the
 * speed-dependent stiffness K = k + k(omega) + k_g (symmetric, possibly indefinite), constant
 * while the speed is constant. The iteration matrix
 *     S = (1 - am) M + (1 - af) gamma h C + (1 - af) b h^2 K
 * is nonsymmetric: factored once by UMFPACK's LU (fill-reducing ordering: AMD on the graph of the
 * nodes, csc_order.c), one solve and three sparse products per step, no allocation in a step
 * (theory.md sec. 20). The non-gyroscopic step is kd_newmark_csc
 * (kedyn/band.h). */
#ifndef KEDYN_NEWMARK_GYRO_H
#define KEDYN_NEWMARK_GYRO_H

#include "kedyn/band.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_newmark_gcsc kd_newmark_gcsc;

/* K, M: symmetric, upper triangles on one pattern (kd_system_stiffness_csc, kedyn/modes_speed.h);
 * C: both triangles, its pattern within the mirror of K's (kd_system_damping_csc,
 * kedyn/modes_gyro_sparse.h), or NULL (none). All kept by reference. Generalized-alpha
 * parameters as kd_newmark_csc_init_alpha (Newmark: am = af = 0). KD_ERR_NUMERIC when S is
 * singular, KD_ERR_NOMEM when out of memory, KD_ERR_USAGE when C has an entry outside the
 * pattern. */
kd_status kd_newmark_gcsc_init(const kd_csc* K, const kd_csc* M, const kd_csc* C, double h, double b, double gamma,
                               double am, double af, kd_newmark_gcsc** out);
/* (q, v, a) at t_n -> t_n + h in place; f = the load at t_{n+1} - af h. Nonzero on failure. */
int kd_newmark_gcsc_step(kd_newmark_gcsc* w, const double* f, double* q, double* v, double* a);
/* y = C x for C with both triangles stored (a general matrix in a kd_csc). */
void kd_csc_matvec_general(const kd_csc* c, const double* x, double* y);
void kd_newmark_gcsc_free(kd_newmark_gcsc** w);

#ifdef __cplusplus
}
#endif
#endif
