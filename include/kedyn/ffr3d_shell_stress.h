/* Stresses of the two-way shell links of a spatial mechanism (theory.md sec. 22, SL5 and SL6):
 * the one-way plate link's element-centre resultants and von Mises surface stress
 * (kd_sked_plate_stress) evaluated on the elastic coordinates q_f of the floating-frame system.
 * The frame of a two-way shell is its body frame with the support set clamped, the frame of the
 * one-way link, so q_f are the nodal displacements of the same model. */
#ifndef KEDYN_FFR3D_SHELL_STRESS_H
#define KEDYN_FFR3D_SHELL_STRESS_H

#include "kedyn/desc.h"
#include "kedyn/ffr3d.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_ffr3d_shell_stress kd_ffr3d_shell_stress;

/* For each shell body of s (kd_ffr3d_from_smech of d; body b the b-th moving body of d's spatial
 * description): the model of its mesh in the body frame, the support set clamped, and the elements
 * touching its `output` node set (all without one). Allocates everything a later evaluation needs. */
kd_status kd_ffr3d_shell_stress_new(const kd_desc* d, const kd_ffr3d_system* s, kd_ffr3d_shell_stress** out,
                                    kd_error* err);
void kd_ffr3d_shell_stress_free(kd_ffr3d_shell_stress** p);

/* Shell body b at the system coordinates q: the element-centre N_x, N_y, N_xy, M_x, M_y, M_xy and
 * the larger surface von Mises stress of every element (KD_PLATE_STRESS per element, the mesh's
 * order, kd_sked_plate_stress's layout; valid until the next call), its element count in *nelem.
 * NULL (and *nelem = 0) when b is not a shell body. No allocation. */
const double* kd_ffr3d_shell_stress_eval(kd_ffr3d_shell_stress* p, int b, const double* q, int* nelem);

/* Shell body b at q: the largest von Mises stress of the elements touching the output set
 * (BODY.sigma_max of dynamics.csv); *all the largest of every element and *at its element
 * (0-based). 0 (*all = 0, *at = -1) when b is not a shell body. */
double kd_ffr3d_shell_sigma_max(kd_ffr3d_shell_stress* p, int b, const double* q, double* all, int* at);

#ifdef __cplusplus
}
#endif

#endif
