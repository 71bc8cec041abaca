/* The defaults of analyses in one place (kedyn/desc.h): the resolution of
 * UNSET choices by the route that runs a dynamics analysis (the defaults of
 * every other key are those of the key tables, src/core/desc_fields.c,
 * which kd_analysis_desc_init copies). */
#include <string.h>

#include "kedyn/desc.h"
#include "kedyn/desc_fields.h"

kd_dynamics_route kd_desc_dynamics_route(const kd_desc* d, const kd_dynamics_desc* dy) {
    if (kd_desc_elastic_links(d) > 0) return dy->coupling == KD_COUPLING_TWO_WAY ? KD_ROUTE_TWO_WAY : KD_ROUTE_ONE_WAY;
    return kd_desc_is_mechanism(d) ? KD_ROUTE_MECHANISM : KD_ROUTE_ELASTIC;
}

static int canonical(kd_dynamics_integrator i) {
    return i == KD_INTEGRATOR_HAMILTON_CVODE || i == KD_INTEGRATOR_IMPLICIT_MIDPOINT;
}

void kd_dynamics_resolve(kd_dynamics_desc* dy, kd_dynamics_route route) {
    switch (route) {
    case KD_ROUTE_ELASTIC:
        /* Hamilton's formalism goes with the canonical integrators, and they with it */
        if (dy->formalism == KD_DYN_FORMALISM_UNSET)
            dy->formalism = canonical(dy->integrator) ? KD_DYN_FORMALISM_HAMILTON : KD_DYN_FORMALISM_INVARIANTS;
        if (dy->integrator == KD_INTEGRATOR_UNSET)
            dy->integrator = dy->formalism == KD_DYN_FORMALISM_HAMILTON ? KD_INTEGRATOR_HAMILTON_CVODE
                                                                         : KD_INTEGRATOR_GENERALIZED_ALPHA;
        break;
    case KD_ROUTE_ONE_WAY:
        if (dy->coupling == KD_COUPLING_UNSET) dy->coupling = KD_COUPLING_ONE_WAY;
        if (dy->integrator == KD_INTEGRATOR_UNSET) dy->integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
        break;
    case KD_ROUTE_MECHANISM:
    case KD_ROUTE_TWO_WAY:
        if (dy->integrator == KD_INTEGRATOR_UNSET) dy->integrator = KD_INTEGRATOR_RK4;
        if (dy->formulation == KD_FORMULATION_UNSET) dy->formulation = KD_FORMULATION_AUGMENTED;
        if (dy->stabilization == KD_STABILIZATION_UNSET) dy->stabilization = KD_STABILIZATION_BAUMGARTE;
        if (dy->formalism == KD_DYN_FORMALISM_UNSET) {  /* the formalism the formulation implements */
            static const kd_dynamics_formalism implements[KD_FORMULATIONS] = {
                [KD_FORMULATION_AUGMENTED] = KD_DYN_FORMALISM_NEWTON_EULER,
                [KD_FORMULATION_UDWADIA_KALABA] = KD_DYN_FORMALISM_GIBBS_APPELL,
                [KD_FORMULATION_MAGGI] = KD_DYN_FORMALISM_MAGGI, [KD_FORMULATION_IDA] = KD_DYN_FORMALISM_NEWTON_EULER};
            dy->formalism = implements[dy->formulation];
        }
        break;
    }
}

void kd_modes_along_motion_resolve(kd_modes_along_motion_desc* ma) {
    if (ma->gyroscopic == KD_GYROSCOPIC_UNSET) ma->gyroscopic = KD_GYROSCOPIC_TRUE;
    if (ma->t_end == 0.0 && ma->speed > 0) ma->t_end = 2 * 3.14159265358979323846 / ma->speed;  /* one revolution */
}

int kd_dynamics_route_takes(kd_dynamics_route r, kd_dynamics_integrator i) {
    switch (r) {
    case KD_ROUTE_ELASTIC: return i > KD_INTEGRATOR_UNSET && i < KD_INTEGRATORS && i != KD_INTEGRATOR_RK4;
    case KD_ROUTE_ONE_WAY:
        return i == KD_INTEGRATOR_NEWMARK || i == KD_INTEGRATOR_HHT || i == KD_INTEGRATOR_GENERALIZED_ALPHA;
    case KD_ROUTE_MECHANISM:
    case KD_ROUTE_TWO_WAY:
        return i == KD_INTEGRATOR_RK4 || i == KD_INTEGRATOR_CVODE_BDF || i == KD_INTEGRATOR_CVODE_ADAMS;
    }
    return 0;
}

int kd_dynamics_integrator_fixed_step(kd_dynamics_integrator i) {
    return i == KD_INTEGRATOR_NEWMARK || i == KD_INTEGRATOR_HHT || i == KD_INTEGRATOR_GENERALIZED_ALPHA ||
           i == KD_INTEGRATOR_IMPLICIT_MIDPOINT || i == KD_INTEGRATOR_RK4;
}

const char* kd_dynamics_route_integrators(kd_dynamics_route r) {
    switch (r) {
    case KD_ROUTE_ELASTIC:
        return "newmark, hht, generalized-alpha, cvode-bdf, cvode-adams, arkode-rk, hamilton-cvode or implicit-midpoint";
    case KD_ROUTE_ONE_WAY: return "newmark, hht or generalized-alpha";
    case KD_ROUTE_MECHANISM:
    case KD_ROUTE_TWO_WAY: return "rk4 (fixed-step Runge-Kutta, the default), cvode-bdf or cvode-adams";
    }
    return "";
}
