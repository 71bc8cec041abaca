/* The name arrays behind kd_*_name (src/core/desc_names.c), shared with the
 * field tables. Private to src/core. */
#ifndef KEDYN_CORE_DESC_NAMES_H
#define KEDYN_CORE_DESC_NAMES_H

#include "kedyn/desc.h"

extern const char* const desc_body_type_names[3];
extern const char* const desc_theory_names[KD_THEORIES];
extern const char* const desc_interp_names[KD_INTERPS];
extern const char* const desc_joint_type_names[KD_JOINT_TYPES];
extern const char* const desc_analysis_type_names[KD_ANALYSIS_TYPES];
extern const char* const desc_eigen_solver_names[KD_EIGEN_SOLVERS];
extern const char* const desc_integrator_names[KD_INTEGRATORS];
extern const char* const desc_formalism_names[KD_DYN_FORMALISMS];
extern const char* const desc_formulation_names[KD_FORMULATIONS];
extern const char* const desc_stabilization_names[KD_STABILIZATIONS];
extern const char* const desc_coupling_names[KD_COUPLINGS];
extern const char* const desc_nonlinear_solver_names[KD_NONLINEAR_SOLVERS];
extern const char* const desc_gyroscopic_names[KD_GYROSCOPICS];

#endif
