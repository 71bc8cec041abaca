/* Modes of a large body at speed through sparse matrices: the symmetric stiffness of a steady
 * frame motion, K + k(eps) + k(omega) + k_g (theory.md sec. 3, 5.4, 5.7), and the mass in
 * compressed columns, and their lowest modes by CHOLMOD's shift-invert Lanczos. For bodies
 * without gyroscopic coupling ([c] = 0 on the free DOFs: a plate of w, rx, ry spinning about
 * an axis in its plane, whose Coriolis forces act in its plane where it has no DOFs), these are
 * the modes of the moving system; gyroscopic ones take the state-space solver (kd_modes_state_space,
 * sparse for large models: kedyn/modes_gyro_sparse.h). */
#ifndef KEDYN_MODES_SPEED_H
#define KEDYN_MODES_SPEED_H

#include "kedyn/band.h"
#include "kedyn/modes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* K = the element stiffness k + k(eps) + k(omega) + k_g of every element in its body's frame at
 * time t (gravity a frame acceleration, as kd_system's), M the mass, both upper triangles in
 * compressed columns; *gyroscopic = 1 when some element's [c] couples free DOFs. Models whose
 * elements carry their own axes (elem_rot) are not supported (KD_ERR_USAGE). */
kd_status kd_system_stiffness_csc(const kd_model* m, double t, kd_csc* K, kd_csc* M, int* gyroscopic, kd_error* err);

/* The lowest `count` modes of (K, M) above at time t (kd_eigen_cholmod; shift below the lowest
 * eigenvalue at rest). KD_ERR_USAGE when the model is gyroscopic; KD_ERR_NUMERIC (message) when
 * K - sigma M is not positive definite (beyond a divergence speed). out->omega = sqrt(lambda). */
kd_status kd_modes_speed_sparse(const kd_model* m, double t, int count, kd_modes* out, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
