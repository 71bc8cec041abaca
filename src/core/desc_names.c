/* The model-file names of the description's vocabulary (kedyn/desc.h): the
 * analysis types and the choices of analyses. The field tables
 * (src/core/desc_fields.c) and the writers use the same arrays. */
#include <string.h>

#include "desc_names.h"

const char* const desc_body_type_names[3] = {"ground", "beam", "rigid"};
/* beams first (their key table offers the first 4 theories and 2
 * interpolations), then the two-dimensional elements (kedyn/element.h) */
const char* const desc_theory_names[KD_THEORIES] = {"bar",      "euler-bernoulli", "rayleigh", "timoshenko",
                                                    "membrane", "kirchhoff",       "mindlin",  "shell"};
const char* const desc_interp_names[KD_INTERPS] = {"cubic", "quintic", "cst", "t6",  "q4",   "q8",
                                                   "q9",    "dkt",     "acm", "bfs", "mitc4"};
const char* const desc_joint_type_names[KD_JOINT_TYPES] = {"revolute", "prismatic", "fixed", "distance", "rolling"};
const char* const desc_analysis_type_names[KD_ANALYSIS_TYPES] = {
    "modes", "campbell", "stability", "dynamics", "kinematics", "inverse_dynamics", "modes_along_motion", "sweep",
    "spectrum", "frf", "identify", "correlate", "virtual_test"};
const char* const desc_eigen_solver_names[KD_EIGEN_SOLVERS] = {"auto", "dense", "lanczos"};
/* from index 1 (index 0 is UNSET) */
const char* const desc_integrator_names[KD_INTEGRATORS] = {
    "unset",       "newmark",   "hht",            "generalized-alpha", "cvode-bdf",
    "cvode-adams", "arkode-rk", "hamilton-cvode", "implicit-midpoint", "rk4"};
const char* const desc_formalism_names[KD_DYN_FORMALISMS] = {
    "unset", "invariants", "lagrange", "kane", "gibbs-appell", "hamilton", "newton-euler", "maggi"};
const char* const desc_formulation_names[KD_FORMULATIONS] = {"unset", "augmented", "udwadia-kalaba", "maggi", "ida"};
const char* const desc_stabilization_names[KD_STABILIZATIONS] = {"unset", "baumgarte", "projection", "none"};
const char* const desc_coupling_names[KD_COUPLINGS] = {"unset", "one-way", "two-way"};
const char* const desc_nonlinear_solver_names[KD_NONLINEAR_SOLVERS] = {"unset", "newton", "fixed-point"};
const char* const desc_gyroscopic_names[KD_GYROSCOPICS] = {"unset", "true", "false", "dense"};

static const char* pick(const char* const* names, int n, int i) { return i >= 0 && i < n ? names[i] : "?"; }

static int find(const char* const* names, int n, const char* name) {
    for (int i = 0; name && i < n; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

const char* kd_analysis_type_name(kd_analysis_type t) { return pick(desc_analysis_type_names, KD_ANALYSIS_TYPES, (int)t); }
int kd_analysis_type_parse(const char* name) { return find(desc_analysis_type_names, KD_ANALYSIS_TYPES, name); }
const char* kd_eigen_solver_name(kd_eigen_solver s) { return pick(desc_eigen_solver_names, KD_EIGEN_SOLVERS, (int)s); }
const char* kd_dynamics_integrator_name(kd_dynamics_integrator i) { return pick(desc_integrator_names, KD_INTEGRATORS, (int)i); }
const char* kd_dynamics_formalism_name(kd_dynamics_formalism f) { return pick(desc_formalism_names, KD_DYN_FORMALISMS, (int)f); }
kd_dynamics_formalism kd_dynamics_formalism_parse(const char* name) {
    const int i = find(desc_formalism_names + 1, KD_DYN_FORMALISMS - 1, name);
    return i < 0 ? KD_DYN_FORMALISM_UNSET : (kd_dynamics_formalism)(i + 1);
}
const char* kd_formulation_name(kd_formulation f) { return pick(desc_formulation_names, KD_FORMULATIONS, (int)f); }
const char* kd_stabilization_name(kd_stabilization s) { return pick(desc_stabilization_names, KD_STABILIZATIONS, (int)s); }
const char* kd_coupling_name(kd_coupling c) { return pick(desc_coupling_names, KD_COUPLINGS, (int)c); }
const char* kd_gyroscopic_name(kd_gyroscopic g) { return pick(desc_gyroscopic_names, KD_GYROSCOPICS, (int)g); }
