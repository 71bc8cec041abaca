/* The forward-dynamics options a dynamics analysis of a mechanism names
 * (kedyn/mbs.h, kd_mbs_opts_from_dynamics): the description's choices
 * (kedyn/desc.h) mapped onto this layer's enums, by name. */
#include "kedyn/desc.h"
#include "kedyn/mbs.h"

void kd_mbs_opts_from_dynamics(kd_mbs_opts* o, const kd_dynamics_desc* desc, double t_end) {
    kd_dynamics_desc dy = *desc;
    kd_dynamics_resolve(&dy, KD_ROUTE_MECHANISM);
    kd_mbs_opts_default(o);
    switch (dy.formulation) {
    case KD_FORMULATION_UDWADIA_KALABA: o->formulation = KD_MBS_UDWADIA_KALABA; break;
    case KD_FORMULATION_MAGGI: o->formulation = KD_MBS_MAGGI; break;
    case KD_FORMULATION_IDA: o->formulation = KD_MBS_IDA; break;
    default: o->formulation = KD_MBS_AUGMENTED; break;
    }
    switch (dy.stabilization) {
    case KD_STABILIZATION_PROJECTION: o->stabilization = KD_MBS_STAB_PROJECTION; break;
    case KD_STABILIZATION_NONE: o->stabilization = KD_MBS_STAB_NONE; break;
    default: o->stabilization = KD_MBS_STAB_BAUMGARTE; break;
    }
    o->integrator = dy.integrator == KD_INTEGRATOR_RK4 ? KD_MBS_RK4 : KD_MBS_CVODE;
    o->adams = dy.integrator == KD_INTEGRATOR_CVODE_ADAMS;
    o->nonlinear = dy.nonlinear_solver == KD_NONLINEAR_NEWTON        ? KD_MBS_NLS_NEWTON
                   : dy.nonlinear_solver == KD_NONLINEAR_FIXED_POINT ? KD_MBS_NLS_FIXED_POINT
                                                                     : KD_MBS_NLS_AUTO;
    o->t_end = t_end, o->rtol = dy.rtol, o->atol = dy.atol, o->output_every = dy.output_every;
    o->dt = dy.dt > 0 ? dy.dt : t_end / 1000;
}
